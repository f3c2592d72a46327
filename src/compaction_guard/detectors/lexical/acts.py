"""Acts named by another verb: a restatement that says the rule's own act in other words.

A rule's main verb is its act ("store", "route", "write to the log"). A paraphrase often
names the same act with another verb or structure ("may only live in ca-central-1",
"goes via the account manager", "recorded in the audit log"), and the alignment then
misses the rule's verb and reads the window's as an unexplained extra word.

An act swap is usually a mutation ("print" for "rotate", "archive" for "delete",
"snapshot" for "backup"), so a verb never stands for another on its own. Each class below
is one act on one kind of object, and the window's verb counts as the rule's only when:

- both verbs belong to the class, the rule's verb with its relation word after it
  ("stored in", "route ... through", "start with"), the window's with one of the class's
  relation words right after it (only an adverb of exclusivity may stand between);
- the object after the window's relation word is the rule's own object: the first content
  word (or value) after it is aligned to a rule word that stands after the rule's relation
  word, so "lives in us-east-1" never stands for "stored in ca-central-1";
- for a class with an object kind (an audit entry is written to a log), the rule's
  object is of that kind.

A class whose act takes a direct object ("bind port 8443", "connections get refused")
asks instead that a rule word of the object sit in the window verb's clause. Two classes
say the act from another side: "must stay in R" for "must not leave R" (`STAY`, the
polarity turns with it) and "X must never appear in output" for "never print X"
(`APPEAR`, the rule's object is the window verb's subject). Everything
else (polarity, values, names, extra words) is still compared by the other checks, so a
negated or widened restatement is never certified.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from compaction_guard.anchors import values_equal
from compaction_guard.detectors.lexical.lexicon import ANAPHORS, OPPOSITE_ACTS, RULE_NOUNS
from compaction_guard.normalize import stem

if TYPE_CHECKING:
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = [
    "ACTS",
    "APPEAR",
    "BY_NAME",
    "NOTHING",
    "RECEIVE",
    "STAY",
    "Act",
    "ActSite",
    "Equivalents",
    "act_on_object",
    "act_sites",
    "equivalent_acts",
    "verb_use",
]


@dataclass(frozen=True, slots=True)
class Act:
    """One act on one kind of object, in the wordings that name it.

    `name` is the catalogue name (`lexical.<name>`); `verbs` are surface forms;
    `particles` the relation words that introduce the object; `direct` whether the
    verb may take its object without one; `objects` stems one of which must head the
    rule's object (empty: any object); `tags` whether a `#name` is such an object too.

    A class with `window_verbs` names the act from its other side: the window's verb
    (with `window_particles` before the object) is the rule verb's opposite, so the
    restatement holds with its polarity turned ("must not leave R" is "must stay in R").
    `forceful` are window verbs that sit in a force phrase and carry the rule's force
    with it ("is confined to R").

    A class with `media` names the act by what it makes of its object: the rule's object
    is the window verb's subject, and a medium noun follows the relation word ("never
    print X" is "X must never appear in output"). A `recipient` class says the act from
    the side of whom it is given to: the window verb's subject and its object are both
    the rule's ("assign two shifts per engineer" is "each engineer gets two shifts").
    """

    name: str
    verbs: frozenset[str]
    particles: frozenset[str]
    direct: bool = False
    objects: frozenset[str] = frozenset()
    tags: bool = False
    window_verbs: frozenset[str] = frozenset()
    window_particles: frozenset[str] = frozenset()
    forceful: frozenset[str] = frozenset()
    media: frozenset[str] = frozenset()
    recipient: bool = False


def _forms(text: str) -> frozenset[str]:
    return frozenset(text.split())


ACTS: tuple[Act, ...] = (
    # Where something is kept at rest: "stored in", "kept in", "held in", "resides in",
    # "lives in". Processing, caching, backing up or copying somewhere are other acts.
    Act(
        "act_residence",
        _forms(
            """
            store stores stored storing keep keeps kept keeping hold holds held holding
            reside resides resided residing live lives lived
            """,
        ),
        _forms("in within inside"),
    ),
    # Passing through an intermediary on the way: "route through", "go via", "pass
    # through". "Go to" names the destination, not the way, and is not here.
    Act(
        "act_route",
        _forms(
            """
            route routes routed routing go goes went gone going pass passes passed passing
            flow flows flowed flowing send sends sent sending channel channels channelled
            channeled funnel funnels funnelled funneled
            """,
        ),
        _forms("through via"),
    ),
    # An entry made in a record: "written to the audit log", "recorded in", "logged in",
    # "entered in". Only with a record as the object: writing a file is another act.
    Act(
        "act_record",
        _forms(
            """
            write writes wrote written writing record records recorded recording log logs
            logged logging enter enters entered entering
            """,
        ),
        _forms("to in into"),
        objects=frozenset(
            stem(word) for word in _forms("log logs trail journal ledger register changelog")
        ),
    ),
    # How a name opens: "start with", "begin with", "be prefixed with".
    Act(
        "act_prefix",
        _forms(
            "start starts started starting begin begins began begun beginning prefixed prefix",
        ),
        _forms("with"),
    ),
    # A service taking connections on a port: "listen on", "bind (to)", "serve on".
    # Connecting to a port, opening or exposing one are other acts.
    Act(
        "act_bind",
        _forms("listen listens listened listening bind binds bound binding serve serves"),
        _forms("on to"),
        direct=True,
        objects=frozenset({stem("port"), stem("ports")}),
    ),
    # A message placed in a channel: "post in", "put in", "belong in", "go in". Reading,
    # pinning, mirroring or discussing something there are other acts.
    Act(
        "act_post",
        _forms("post posts posted posting put puts belong belongs go goes"),
        _forms("in to on into"),
        objects=frozenset(stem(word) for word in _forms("channel channels thread threads room")),
        tags=True,
    ),
    # Sending a request to an API: "call", "hit", "invoke". Scraping, mirroring or
    # documenting one are other acts.
    Act(
        "act_call",
        _forms("call calls called calling hit hits hitting invoke invokes invoked invoking"),
        frozenset(),
        direct=True,
        objects=frozenset(
            stem(word) for word in _forms("api apis endpoint endpoints webhook webhooks url urls")
        ),
    ),
    # Turning something away: "reject", "refuse", "deny". "Decline" also means to fall
    # ("sign-ups declined") and is not here.
    Act(
        "act_refuse",
        _forms(
            """
            reject rejects rejected rejecting refuse refuses refused refusing deny denies
            denied denying
            """,
        ),
        frozenset(),
        direct=True,
    ),
)
# Staying inside a place, said from its other side: "must not leave R" is "must stay
# in R", "must remain within R", "is confined to R". Moving, copying or processing
# inside R are other acts; "limited to" and "restricted to" also scope access and use
# ("access is restricted to admins") and are not here.
STAY = Act(
    "act_stay",
    _forms("leave leaves exit exits"),
    frozenset(),
    direct=True,
    window_verbs=_forms("stay stays remain remains kept confined"),
    window_particles=_forms("in within inside to"),
    forceful=_forms("confined"),
)
# Putting something in front of a reader, said from the thing's side: "never print X"
# is "X must never appear in output". Only with an output medium after "in": "appear in
# the config file" is storing it, another act.
APPEAR = Act(
    "act_appear",
    _forms("print prints printed printing display displays displayed echo echoes echoed"),
    frozenset(),
    direct=True,
    window_verbs=_forms("appear appears"),
    window_particles=_forms("in on"),
    media=frozenset(
        stem(word) for word in _forms("output outputs stdout stderr console terminal screen")
    ),
)
# Handing something out, said from the receiver's side: "do not schedule more than 2
# shifts per engineer" is "each engineer gets at most two shifts". Taking, requesting
# or working something are the receiver's own acts and are not here.
RECEIVE = Act(
    "act_receive",
    _forms("schedule assign allocate allot give"),
    frozenset(),
    direct=True,
    window_verbs=_forms("get gets receive receives"),
    recipient=True,
)
ACTS += (STAY, APPEAR, RECEIVE)
# Adverbs that may stand between a verb and its relation word ("may only live in").
_BETWEEN = frozenset({"only", "exclusively", "solely", "always", "strictly", "just", "entirely"})
_OBJECT_REACH = 4  # "through their account manager": the object's first content word
BY_NAME = {act.name: act for act in ACTS}
_VERBS = frozenset(verb for act in ACTS for verb in act.verbs)


@dataclass(frozen=True, slots=True)
class Equivalents:
    """What `equivalent_acts` found: rule verb -> window verb, and how they were said.

    `turned` holds the rule verbs said by their opposite (the window's polarity turns
    with them); `carried` whether a force phrase carries the rule's force.
    """

    found: dict[int, int]
    turned: frozenset[int] = frozenset()
    carried: bool = False


NOTHING = Equivalents(found={})


@dataclass(frozen=True, slots=True)
class ActSite:
    """A verb of the rule that names a classed act: where it is and what its object is."""

    index: int
    act: str
    objects: frozenset[int]


def act_sites(analysis: Analysis) -> tuple[ActSite, ...]:
    """Return the rule's verbs that name a classed act, each with its object's positions.

    The object is every content word after the verb's relation word (to the end of the
    rule: "through their account manager, Priya Nair"); for a direct act, every content
    word after the verb, or before it when no content word follows ("connections ...
    must be rejected").
    """
    tokens = analysis.tokens
    if _VERBS.isdisjoint(tokens):
        return ()
    sites: list[ActSite] = []
    for index, token in enumerate(tokens):
        if token not in _VERBS or analysis.mark_at[index] >= 0:
            continue
        for act in ACTS:
            if token not in act.verbs:
                continue
            objects = _rule_object(analysis, index, act)
            if objects and _of_kind(analysis, objects, act):
                sites.append(ActSite(index, act.name, objects))
                break
    return tuple(sites)


def _rule_object(analysis: Analysis, index: int, act: Act) -> frozenset[int]:
    tokens, keys = analysis.tokens, analysis.keys
    # The rule may put its direct object first ("route all communication through").
    particle = next(
        (
            i
            for i in range(index + 1, len(tokens))
            if analysis.clauses[i] == analysis.clauses[index] and tokens[i] in act.particles
        ),
        None,
    )
    content = [i for i, key in enumerate(keys) if key is not None and i != index]
    values = [v.start for v in analysis.values]
    if particle is not None:
        return frozenset(i for i in [*content, *values] if i > particle)
    if not act.direct:
        return frozenset()
    after = [i for i in [*content, *values] if i > index]
    return frozenset(after or [i for i in [*content, *values] if i < index])


def _particle(tokens: tuple[str, ...], index: int, particles: frozenset[str]) -> int | None:
    """Return the position of a relation word right after the verb, if one stands there."""
    position = index + 1
    while position < len(tokens) and tokens[position] in _BETWEEN:
        position += 1
    if position < len(tokens) and tokens[position] in particles:
        return position
    return None


def _of_kind(analysis: Analysis, objects: frozenset[int], act: Act) -> bool:
    if not act.objects:
        return True
    tokens = analysis.tokens
    return any(
        stem(tokens[i]) in act.objects or (act.tags and tokens[i].startswith("#"))
        for i in objects
    )


def equivalent_acts(
    sites: tuple[ActSite, ...],
    rule: Analysis,
    window: Analysis,
    matches: dict[int, int],
    covered: set[int],
    *,
    switched_on: frozenset[str],
    span: tuple[int, int] | None = None,
) -> Equivalents:
    """Return the rule's acts the window names with another verb (see `Equivalents`).

    Only acts whose class is in `switched_on`, and only window verbs no other rule word
    is aligned to (inside `span` when one is given). `covered` gains every window verb
    read as the rule's act, also for a rule verb that carries no content key ("keep" is
    a light word).
    """
    found: dict[int, int] = {}
    turned: set[int] = set()
    carried = False
    aligned = {position: index for index, position in matches.items()}
    low, high = span or (0, len(window.tokens))
    for site in sites:
        if site.index in matches or site.act not in switched_on:
            continue
        act = BY_NAME[site.act]
        for position in range(low, high):
            said = _says_act(site, act, rule, window, position, covered=covered, aligned=aligned)
            if said is None:
                continue
            covered.update(said)
            if rule.keys[site.index] is not None:
                found[site.index] = position
            if act.window_verbs and not (act.media or act.recipient):
                turned.add(site.index)
            carried = carried or window.tokens[position] in act.forceful
            break
    if not found and not turned:
        return NOTHING
    return Equivalents(found, frozenset(turned), carried)


def _says_act(
    site: ActSite,
    act: Act,
    rule: Analysis,
    window: Analysis,
    position: int,
    *,
    covered: set[int],
    aligned: dict[int, int],
) -> tuple[int, ...] | None:
    """Return the window words that say the rule's act at `position`, or None."""
    token = window.tokens[position]
    if token not in (act.window_verbs or act.verbs) or position in covered:
        return None
    if window.mark_at[position] >= 0 and token not in act.forceful:
        return None
    if act.media:
        medium = _medium(site, act, window, position, aligned=aligned)
        return None if medium is None else (position, medium)
    if act.recipient:
        given = _receiver_before(site, window, position, aligned=aligned) and _object_follows(
            site, window, position, aligned=aligned
        )
        return (position,) if given else None
    if _same_object(site, act, rule, window, position, aligned=aligned):
        return (position,)
    return None


def _same_object(
    site: ActSite,
    act: Act,
    rule: Analysis,
    window: Analysis,
    position: int,
    *,
    aligned: dict[int, int],
) -> bool:
    """Tell whether the window's verb at `position` acts on the rule verb's own object."""
    clause = window.clauses[position]
    particles = act.window_particles or act.particles
    particle = _particle(window.tokens, position, particles)
    if particle is None:
        if act.window_particles or not act.direct:
            return False
        if not _direct_object_kept(site, window, position, aligned=aligned):
            return False
        return any(
            window.clauses[p] == clause and index in site.objects for p, index in aligned.items()
        )
    if window.clauses[particle] != clause:
        return False
    return _object_after(site, rule, window, particle, aligned=aligned)


_SUBJECT_REACH = 6  # "the AWS secret key (AWS_SECRET_ACCESS_KEY) must never appear"


def _medium(
    site: ActSite, act: Act, window: Analysis, position: int, *, aligned: dict[int, int]
) -> int | None:
    """Return where the medium noun stands when the window says the act from its object's side.

    The rule's object must be aligned just before the verb (its subject) and the first
    content word after the relation word must be a medium of the class ("in output").
    """
    particle = _particle(window.tokens, position, act.window_particles)
    if particle is None or window.clauses[particle] != window.clauses[position]:
        return None
    low = max(0, position - _SUBJECT_REACH)
    if not any(low <= p < position and index in site.objects for p, index in aligned.items()):
        return None
    for after in range(particle + 1, min(particle + 1 + _OBJECT_REACH, len(window.tokens))):
        if window.keys[after] is not None:
            return after if stem(window.tokens[after]) in act.media else None
    return None


def _receiver_before(
    site: ActSite, window: Analysis, position: int, *, aligned: dict[int, int]
) -> bool:
    """Tell whether a rule word of the object stands just before the verb, in its clause."""
    low = max(0, position - _SUBJECT_REACH)
    clause = window.clauses[position]
    return any(
        low <= p < position and window.clauses[p] == clause and index in site.objects
        for p, index in aligned.items()
    )


def _object_follows(
    site: ActSite, window: Analysis, position: int, *, aligned: dict[int, int]
) -> bool:
    """Tell whether the first content word after the verb is a rule word of the object.

    A bound and its value come first ("gets at most two on-call shifts").
    """
    clause = window.clauses[position]
    for after in range(position + 1, min(position + 1 + _OBJECT_REACH, len(window.tokens))):
        if window.clauses[after] != clause:
            return False
        if window.mark_at[after] >= 0:
            continue
        if after in aligned:
            return aligned[after] in site.objects
        if window.keys[after] is not None:
            return False
    return False


def _direct_object_kept(
    site: ActSite, window: Analysis, position: int, *, aligned: dict[int, int]
) -> bool:
    """Tell whether the first content word after a direct verb, if any, is the rule's object.

    "Deny access to uploads" denies access, not the uploads; "uploads ... must be
    refused" has no word after the verb and is judged by its clause.
    """
    clause = window.clauses[position]
    for after in range(position + 1, len(window.tokens)):
        if window.clauses[after] != clause or window.tokens[after] in _COPULAS:
            break  # "the only API we may hit is ...": the object stood before the verb
        if after in aligned:
            return aligned[after] in site.objects
        if window.keys[after] is not None:
            return False
    return True


_COPULAS = _forms("is are was were be")


def _object_after(
    site: ActSite, rule: Analysis, window: Analysis, particle: int, *, aligned: dict[int, int]
) -> bool:
    """Tell whether the first content word or value after the relation word is the rule's."""
    clause = window.clauses[particle]
    starts = {v.start: v for v in window.values}
    for after in range(particle + 1, min(particle + 1 + _OBJECT_REACH, len(window.tokens))):
        if window.clauses[after] != clause:
            break
        if after in aligned:
            return aligned[after] in site.objects
        value = starts.get(after)
        if value is not None:
            return any(v.start in site.objects and values_equal(v, value) for v in rule.values)
        if window.keys[after] is not None:
            break  # another object: "lives in us-east-1"
    return False


# Words after which a word is a verb: a modal, a negation, an auxiliary ("to" is also a
# preposition: "pin pandas to version 2.1.4").
_VERB_LEADS = _forms(
    """
    must should shall will would can could may might never not do does did don't
    doesn't always be is are was were been being get gets
    """,
)


def verb_use(tokens: tuple[str, ...], index: int) -> bool:
    """Tell whether the word at `index` is used as a verb: the rule's act, never free.

    "Process", "access", "record" and "flag" are generic as nouns ("the orders_prod
    database" says no more than "orders_prod"), but as the rule's verb they are its act:
    "must only be processed in eu-west-1" is not restated by "must only be kept in
    eu-west-1". An -ed or -ing form, a word after a modal, a negation or an auxiliary,
    and the first word of an imperative are verbs.
    """
    token = tokens[index]
    if token.endswith(("ed", "ing")):
        return True
    return index == 0 or tokens[index - 1] in _VERB_LEADS


def act_on_object(
    rule: Analysis, family: frozenset[str], analysis: Analysis, index: int
) -> bool:
    """Tell whether a lifting verb at `index` is the rule's act, or its opposite, on its object.

    "Customer uploads can only be removed after 3 days" after "Keep customer uploads for at
    least 7 days": "removed" lifts rules ("that limit was removed"), but here it is
    deleting, the opposite of keeping, done to the uploads the rule keeps. The nearest
    content word before it in its clause, or right after it ("remove customer uploads"),
    is a word of the rule (a key of `family`), and no rule noun or anaphor in the clause
    names the rule itself ("the retention rule for customer uploads was removed" still
    lifts).
    """
    tokens, keys, clauses = analysis.tokens, analysis.keys, analysis.clauses
    word = stem(tokens[index])
    acts = [stem(t) for t in rule.tokens if stem(t) in OPPOSITE_ACTS]
    kin = {a for act in acts for o in OPPOSITE_ACTS[act] for a in (o, *OPPOSITE_ACTS[o])}
    if word not in kin:
        return False
    clause = [i for i in range(len(tokens)) if clauses[i] == clauses[index]]
    if any(tokens[i] in ANAPHORS or stem(tokens[i]) in RULE_NOUNS for i in clause):
        return False
    content = [i for i in clause if i != index and not (keys[i] or "~").startswith("~")]
    before = [i for i in content if i < index]
    after = [i for i in content if index < i <= index + 3]
    nearest = before[-1:] or after[:1]
    return bool(nearest) and keys[nearest[0]] in family
