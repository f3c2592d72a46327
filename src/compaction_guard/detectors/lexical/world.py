"""The closed world: every other statement on a constraint's topic, read before certifying.

A restatement certifies only when nothing around it departs from it: no later change,
lift, permission against it, exception, narrowed scope or new value bound to the rule's
own subject, and no heading, attribution or tense that suspends the copy. See
docs/DESIGN.md, "Closed-world certification" (promise 6a).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import InitVar, dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from compaction_guard.anchors import (
    comparable,
    extract_values,
    period_seconds,
    period_words,
    unit_word,
    values_equal,
)
from compaction_guard.detectors.lexical.acts import BY_NAME as ACT_CLASSES
from compaction_guard.detectors.lexical.acts import act_sites
from compaction_guard.detectors.lexical.frame import bare_words
from compaction_guard.detectors.lexical.index import NUMBER, PART, RULE, lookup_keys
from compaction_guard.detectors.lexical.label import ENVIRONMENTS, label_scope
from compaction_guard.detectors.lexical.lexicon import (
    ANAPHORS,
    GENERIC,
    GENERIC_RULE_NOUNS,
    OPPOSITE_ACTS,
    RULE_NOUNS,
    STOPWORDS,
    concept,
)
from compaction_guard.detectors.lexical.marks import find_modality
from compaction_guard.detectors.lexical.memo import IdentityMemo
from compaction_guard.detectors.lexical.modality import NEGATIVE, Modality
from compaction_guard.detectors.lexical.restate import pieces
from compaction_guard.detectors.lexical.slot import (
    BOUND_SLOT_WORDS,
    INSIDE_SLOT,
    PAST_SLOT,
    SKIPPED,
    TIME_SLOT_WORDS,
    TIME_SLOTS,
    TIME_WORDS,
    TIMED,
    bound_lead,
    condition_met,
    forbids_past,
    lifted_to_value,
    light_slots,
    own_value,
    permitted_side,
    reading_left_open,
    restating,
    slot_end,
    slot_nouns,
)
from compaction_guard.detectors.lexical.switches import is_on
from compaction_guard.detectors.lexical.text import join, token_key
from compaction_guard.detectors.lexical.units import other_unit, rule_units
from compaction_guard.normalize import stem, tokenize
from compaction_guard.taxonomy import Kind

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from compaction_guard.anchors import Value
    from compaction_guard.detectors.lexical.align import Part
    from compaction_guard.detectors.lexical.context import Reading
    from compaction_guard.detectors.lexical.index import Sentence, ViewIndex
    from compaction_guard.detectors.lexical.text import Analysis, Wording

__all__ = [
    "Departure",
    "Statement",
    "conditioned",
    "departure_in_clause",
    "framing",
    "residue_departure",
]


@dataclass(frozen=True, slots=True)
class Departure:
    """A statement that departs from the rule; `kind` None when the tier cannot name it."""

    kind: Kind | None
    rule: str
    why: str
    sentence: str


@dataclass(slots=True, eq=False)
class Statement:
    """Tokens of one sentence (or the rest of one) that may speak about the rule.

    `attached` is True when it sits right after a mention of the rule (the next sentence,
    the rest of the copy's own sentence, a cell of the copy's table row), so a bare
    anaphor or an implicit subject refers to the rule.

    Never changed once made. It is not a frozen dataclass because one is made for every
    topic sentence of a view, and a frozen one pays a call per field it sets.
    """

    tokens: tuple[str, ...]
    values: tuple[Value, ...]
    text: str
    attached: bool
    implicit: bool = False
    clauses: tuple[int, ...] = ()
    # False for a statement made only to be triggered (`_Topics.read`): what the readers use
    # and the triggers do not is worked out by `derive`, once some reader is triggered.
    derived: InitVar[bool] = True
    # Worked out once per statement, not once per constraint that reads it: the distinct
    # tokens (one set test tells a reader its trigger words are absent), each token's stem,
    # and where an actor undoes something ("the user unpinned"): the places an undone verb
    # can stand.
    words: frozenset[str] = field(init=False, repr=False)
    stems: tuple[str, ...] = field(init=False, repr=False)
    stem_set: frozenset[str] = field(init=False, repr=False)
    undoing: tuple[int, ...] = field(init=False, repr=False)
    # Where a permission stands (`_permits`): it needs no constraint, so it is found once.
    permits: tuple[int, ...] = field(init=False, repr=False)
    # The `_measure_keys` of its values, and whether one is a bare number ("80"): what a
    # new value of a rule's measure needs (`BINDS`).
    measures: frozenset[tuple[str, ...]] = field(init=False, repr=False)
    bare_number: bool = field(init=False, repr=False)
    # Whether `_references` can find a rule reference in it, or it is implicit: what most
    # readers need before they bind anything to the rule (`BINDS`).
    may_refer: bool = field(init=False, repr=False)

    def __post_init__(self, derived: bool) -> None:
        tokens = self.tokens
        self.words = words = frozenset(tokens)
        self.permits = () if _PERMIT.isdisjoint(words) else tuple(_permits(tokens))
        undoing: tuple[int, ...] = ()
        # An undone verb follows an actor: with no actor word there is none to look for, and
        # none with no word opening on "un" (one scan of the words led by NUL; a NUL in a
        # word could only send the statement on to the exact search below).
        if not _ACTORS.isdisjoint(words) and "\0un" in "\0" + "\0".join(words):
            undoing = tuple(
                i
                for i in range(1, len(tokens))
                if _UN.match(tokens[i]) and tokens[i - 1] in _ACTORS
            )
        self.undoing = undoing
        if derived:
            self.derive()

    def derive(self) -> None:
        """Work out what only the readers use: the stems, the measures, `may_refer`."""
        self.stems = stems = tuple(map(stem, self.tokens))
        self.stem_set = frozenset(stems)
        values = self.values
        self.measures = (
            frozenset(key for v in values for key in _measure_keys(v)) if values else _NONE
        )
        self.bare_number = bool(values) and any(
            v.kind == "number" and not v.unit and not v.per for v in values
        )
        self.may_refer = _may_refer(self)

    def attached_as(self, *, attached: bool, implicit: bool) -> Statement:
        """Return this statement read with another attachment, sharing what it worked out.

        Its tokens, values and clauses are the same whatever the attachment, and so is
        everything `__post_init__` derives from them but `may_refer`.
        """
        other = Statement.__new__(Statement)
        for name in Statement.__slots__:  # every field, so none added later is missed
            setattr(other, name, getattr(self, name))
        other.attached, other.implicit = attached, implicit
        other.may_refer = _may_refer(other)
        return other


def _may_refer(st: Statement) -> bool:
    """Tell whether `_references` can find a reference in a statement, or it is implicit.

    `_references` walks only a statement with a rule noun or (attached) a pointer, and
    `_value_named` only one with a value and a value noun.
    """
    stem_set = st.stem_set
    return (
        st.implicit
        or (st.attached and not _POINTERS.isdisjoint(st.words))
        or not RULE_NOUNS.isdisjoint(stem_set)
        or (bool(st.values) and not _VALUE_NAMES.isdisjoint(stem_set))
    )


_NONE: frozenset[tuple[str, ...]] = frozenset()


def _phrases(text: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p.split()) for p in text.strip().split("\n") if p.strip())


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that end or suspend a rule when their subject is the rule (an anaphor, a rule noun).
_LIFT = _words(
    """
    lifted lift lifts waived waive waives waiver suspended suspend suspends paused pause
    rescinded rescind revoked revoke retired retire abolished scrapped scrap cancelled
    canceled cancel dropped drop removed remove relaxed overridden superseded obsolete
    expired lapsed expires expire
    void voided ended gone withdrawn repealed disabled deactivated ignore ignored disregard
    disregarded forget forgot forgotten retracted retract retracts overturned overturn
    vetoed veto skip skipped bypass bypassed
    """,
)
# The lifts that end the rule later, not now: "This holds until Friday.", "It expires
# tonight.", "Next week this goes away.": the rule is weakened to a time, not contradicted.
_TEMPORARY = _words("expires expire")
_TEMPORARY_PHRASES = _phrases(
    """
    holds until
    hold until
    applies until
    apply until
    valid until
    in force until
    lasts until
    stop applying
    stops applying
    goes away
    go away
    """,
)
_LIFT_PHRASES = _phrases(
    """
    no longer
    on hold
    is off
    are off
    was off
    now off
    off the table
    not apply
    n't apply
    not applies
    not in force
    not enforced
    not to worry
    not a concern
    not matter
    n't matter
    not binding
    not required
    not needed
    took that back
    took this back
    took it back
    taken back
    walked back
    not true
    n't true
    is false
    rejected it
    rejected that
    rejected this
    rejects it
    rejects that
    was a mistake
    is a mistake
    was a typo
    is a typo
    was an error
    was in error
    """,
) + _TEMPORARY_PHRASES + tuple(
    # "There is no cap.", "there's no such rule": the rule's own noun said not to exist.
    (*lead.split(), noun)
    for lead in ("there is no", "there are no", "there is no such", "no such", "has no", "have no")
    for noun in sorted(
        _words(
            "cap caps limit limits rule rules constraint constraints restriction restrictions "
            "requirement ceiling quota budget ban freeze",
        ),
    )
)
# Words that change the rule's value when their subject is the rule or its head noun.
# Past forms only: "change", "update" and "cut" are nouns as often as verbs.
_CHANGE = _words(
    """
    raised increased bumped doubled tripled quadrupled halved lowered reduced changed
    updated revised adjusted extended shortened moved upped tightened loosened widened
    narrowed expanded cut
    """,
)
CHANGE_VERBS = _CHANGE
_RELATIVE = _words("doubled tripled quadrupled halved")
# Words that permit something; with an act against the rule they reverse it.
_PERMIT = _words(
    """
    fine ok okay ok'd okayed acceptable allowed permitted tolerated free can may approved
    authorised authorized greenlit wants wanted requested agreed enough sufficient asked
    granted permission ahead
    suffices suffice
    """,
)
# Nouns that name a rule's value when it is restated as "now": "the target is now 2 to 6".
_TARGETS = _words("target band range threshold window quota ceiling floor maximum minimum")
_ENOUGH = _words("enough sufficient suffices suffice")
_ADDING = _words("also too additionally open opened")
_AGAINST = _words(
    """
    exceed exceeding exceeded exceeds overrun overspend overspending surpass surpassing
    break breaking violate violating skip skipping skipped bypass bypassing bypassed
    circumvent circumventing override overriding ignore ignoring
    """,
)
_AGAINST_PHRASES = _phrases(
    """
    go over
    going over
    went over
    work around
    go above
    going above
    go beyond
    going beyond
    """,
)
# Past the rule named by a bare pointer: "Bursts above that are fine." ("above that cap"
# names a noun, which `_slot_permission` reads).
_PAST_POINTER = _phrases(
    """
    above that
    over that
    beyond that
    past that
    more than that
    above it
    past it
    """,
)
_EXCEPT = _words(
    "except excepted exception exceptions excluding excluded exempt exempted carve-out",
)
_EXCEPT_PHRASES = _phrases(
    """
    other than
    apart from
    aside from
    save for
    """,
)
_EXCEPT_OPENERS = _EXCEPT | {phrase[0] for phrase in _EXCEPT_PHRASES}
_SCOPE_PHRASES = _phrases(
    """
    applies only
    only applies
    only applied
    only for
    just for
    was only
    is only for
    only to
    only covers
    only covered
    only during
    only in
    """,
)
_SUPERSEDE_PHRASES = _phrases(
    """
    was before
    that was before
    used to
    no longer
    until recently
    back then
    in the past
    was replaced
    been replaced
    replaced by
    """,
)
_SUPERSEDE = _words("previously initially originally formerly")
_SUPERSEDE_OPENERS = _SUPERSEDE | {phrase[0] for phrase in _SUPERSEDE_PHRASES}
# A clause about a measurement: a value there reports the world, not the rule.
_STATE = _words(
    """
    spent spend spending used usage consumed remaining left total totals totalling
    totaling reached hit costs cost paid billed measured observed actual average
    peak peaked utilisation utilization sits sitting came tracking logged recorded
    typical typically median mean
    """,
)
_HYPOTHETICAL = _words("if should would could might whether suppose supposing proposed")
_NEGATORS = _words("not never no n't without nothing none nobody neither nor")
_DENIALS = _words("not never n't")  # right after a permission word: "may not", "can never"
_SCOPERS = _words("for when if during unless while on")
_COPULA = _words("is are was were be been now set at of to = :")
_REACH = 6
_DISOWN_HEADING = _words(
    """
    superseded obsolete deprecated outdated retired rejected revoked rescinded lifted
    dropped removed void withdrawn ignore ignored old legacy former previous historical
    archived draft proposed expired interim temporary provisional competitor competitors
    guidelines guideline hypothetical possible
    """,
)
# Phrases of a label or remark that say the rule is not settled: "(to be confirmed)".
_UNSETTLED_PHRASES = _phrases(
    """
    to be confirmed
    under discussion
    under review
    for discussion
    not yet agreed
    not agreed
    not final
    """,
)
_SOFT_HEADING = _words(
    """
    nice-to-have nice-to-haves optional wishlist wish-list ideas suggestions suggestion
    flexible stretch someday maybe non-binding aspirational
    """,
)
_SOFT_HEADING_PHRASES = _phrases(
    """
    nice to have
    nice to haves
    if time
    wish list
    """,
)
_STRONG_DISOWN = _words(
    "superseded obsolete deprecated outdated retired rejected revoked rescinded lifted "
    "void withdrawn ignore ignored expired dropped removed discarded abandoned scrapped "
    "cancelled canceled overruled",
)
# "Not adopted:", "Not accepted:": a label that a negation makes disown the copy.
_NOT_TAKEN = _phrases(
    """
    not adopted
    not accepted
    not approved
    never adopted
    never approved
    """,
)
_DISOWN_PHRASES = _NOT_TAKEN + _phrases(
    """
    not used
    no longer
    not in force
    not apply
    decided against
    voted against
    changed their mind
    changed his mind
    changed her mind
    """,
)
_PAST_SOURCE = _words("old former previous last earlier draft rejected outdated legacy")
_APPEND = _words("or and/or plus except excluding unless nor")
_AND_WIDENS = _words("its their any all other also")
_ACTORS = _words(
    """
    user users we they he she i team someone was were been is are got has have had later
    then since
    """,
)
_STEM = 4
_UN = re.compile(r"^un(?P<rest>[a-z]{3,})$")
_IRREGULAR_UN = {"froze": "freez", "frozen": "freez"}


def _has_phrase(tokens: Sequence[str], phrases: tuple[tuple[str, ...], ...]) -> int | None:
    """Return where the earliest of `phrases` starts in `tokens`, or None."""
    entry = _FIRSTS.get(phrases, _firsts)
    if entry[1].isdisjoint(tokens):
        return None  # most statements hold no phrase's key word: one set test says so
    firsts = entry[0]
    for start, token in enumerate(tokens):
        for phrase in firsts.get(token, ()):
            if tuple(tokens[start : start + len(phrase)]) == phrase:
                return start
    return None


# Phrase tables by identity: hashing a table of tuples on every statement read cost more than
# the search.
_FIRSTS: IdentityMemo[
    tuple[tuple[str, ...], ...], tuple[dict[str, tuple[tuple[str, ...], ...]], frozenset[str]]
] = IdentityMemo(256)


def _firsts(
    phrases: tuple[tuple[str, ...], ...],
) -> tuple[dict[str, tuple[tuple[str, ...], ...]], frozenset[str]]:
    """Return the phrases by first word, and each phrase's key word (its longest).

    A phrase stands in a statement only if all its words do, its key word among them;
    first words are often common ("is", "on", "no") and key words seldom are, so the
    key words tell most statements without the phrase apart in one set test. Of words
    as long, the last is the key: "are off", "was only" close on the rarer word.
    """
    found: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        found.setdefault(phrase[0], []).append(phrase)
    keys = frozenset(max(reversed(phrase), key=len) for phrase in phrases)
    return {first: tuple(group) for first, group in found.items()}, keys


def _expand(
    tokens: Sequence[str], clauses: Sequence[int] = ()
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Split contractions so "doesn't" reads "does n't" and "that's" reads "that is".

    Return the tokens and their clauses. Only a pronoun's "'s" is split: there it is "is"
    or "has" ("That's been lifted" reads "that is been lifted", and every reader looks for
    the pointer and the verb, not the auxiliary); after a noun it is a possessive.
    """
    out: list[str] = []
    numbers: list[int] = []
    for index, token in enumerate(tokens):
        clause = clauses[index] if clauses else 0
        pieces: tuple[str, ...] = (token,)
        if token.endswith("n't") and len(token) > 3:  # noqa: PLR2004
            pieces = (token[:-3], "n't")
        elif "'" in token:
            head, _, tail = token.partition("'")
            verb = _PRONOUN_CONTRACTIONS.get(tail.lower())
            if verb is not None and head.lower() in _CONTRACTING_PRONOUNS:
                pieces = (head, verb)
        out.extend(pieces)
        numbers.extend([clause] * len(pieces))
    return tuple(out), tuple(numbers)


# What `_expand` splits: "n't", or a pronoun's contraction ("that's", "they've").
_CONTRACTED = re.compile(
    r"n't|\b(?:it|that|this|there|these|those|they|we|you|i|he|she|here|what)'(?:s|re|ll|ve|d)\b",
)
# The auxiliaries a pronoun's contraction stands for, and the pronouns that contract.
_PRONOUN_CONTRACTIONS = {"s": "is", "re": "are", "ll": "will", "ve": "have", "d": "would"}
_CONTRACTING_PRONOUNS = _words("it that this there these those they we you i he she here what")


def statement_of(
    analysis: Analysis | Wording,
    *,
    attached: bool,
    implicit: bool = False,
    derived: bool = True,
) -> Statement:
    """Return one read sentence as a statement (`derived` False: for the triggers only)."""
    # Every contraction holds an apostrophe: one substring test spares most texts the search.
    text = analysis.text
    if "'" not in text or _CONTRACTED.search(text) is None:  # tokens are pieces of the text
        return Statement(
            analysis.tokens,
            analysis.values,
            analysis.text,
            attached,
            implicit,
            analysis.clauses,
            derived,
        )
    tokens, clauses = _expand(analysis.tokens, analysis.clauses)
    shift = len(tokens) != len(analysis.tokens)
    values = extract_values(tokens) if shift else analysis.values  # contractions move positions
    return Statement(tokens, values, analysis.text, attached, implicit, clauses, derived)


def _part_stems(part: Part) -> frozenset[str]:
    return _facts(part).own


@dataclass(frozen=True, slots=True)
class _Facts:
    """What every statement read for one part asks of it, worked out once per part.

    `own` are the stems of every token, `heads` those of its content head words,
    `measures` the `_measure_keys` of its values, and `counts` whether it counts
    something with a unit or per period (a bare number may be a new amount of it).
    `ending` are the acts that end what it keeps (`_ending_acts`), `banned` the stems
    its negation governs (`_banned`), and `bans_value` whether that negation governs one
    of its values (`_banned_value`); `wants` is what it offers the readers' `NEEDS`.
    `acts` maps the stem of each of its verbs to the unit of the count of times it bounds
    them in (`_counted_acts`): "7 retries" counts what "Retry ... at most 4 times" does.
    """

    part: Part
    own: frozenset[str]
    heads: frozenset[str]
    measures: frozenset[tuple[str, ...]]
    counts: bool
    ending: frozenset[str]
    banned: frozenset[str]
    bans_value: bool
    wants: frozenset[Need]
    acts: dict[str, str]


# Parts live in the `parts_of` cache, so their facts are worked out once and not once per
# statement read.
_PART_WORDS_LIMIT = 4096
_FACTS: IdentityMemo[Part, _Facts] = IdentityMemo(_PART_WORDS_LIMIT)


def _facts(part: Part) -> _Facts:
    """Return the `_Facts` of `part`."""
    return _FACTS.get(part, _part_facts)


def _part_facts(part: Part) -> _Facts:
    analysis = part.analysis
    keys = analysis.keys
    heads = frozenset(
        stem(analysis.tokens[i])
        for i in part.content
        if keys[i] not in GENERIC and not keys[i].startswith("~")  # type: ignore[union-attr]
    )
    own = frozenset(stem(t) for t in analysis.tokens)
    acts = _counted_acts(analysis)
    measures = frozenset(key for v in analysis.values for key in _measure_keys(v))
    if acts:
        # "7 retries" is measured like "4 times" (`_counted`): its keys must meet the rule's.
        measures |= {
            key
            for v in analysis.values
            for act, unit in acts.items()
            if unit == v.unit or (v.unit in _TIMES_UNITS and unit in _TIMES_UNITS)
            for key in _measure_keys(dataclasses.replace(v, unit=act))
        }
    counts = any(v.dimension == "count" and (v.unit or v.per) for v in analysis.values)
    bans_value = any(
        h.start >= mark.end
        for mark in analysis.marks
        if mark.modality in NEGATIVE
        for h in analysis.values
    )
    ending, banned = _ending_acts(part), _banned(part)
    flags = {_COUNTS} if counts else set()
    if bans_value:
        flags.add(_BANS_VALUE)
    if _rule_periods(part):
        flags.add(_PERIODIC)
    wants = heads | banned | measures | flags
    return _Facts(part, own, heads, measures, counts, ending, banned, bans_value, wants, acts)


def _counted_acts(analysis: Analysis) -> dict[str, str]:
    """Map the stems of a rule's verbs to the unit of its count of times ("times").

    "Retry the webhook at most 4 times" bounds how many times it retries: "7 retries"
    counts the same thing in the noun of the rule's own verb, so it is a value of the
    rule's measure. A verb is the imperative's first word, a word after a modal, a
    negation or "do" ("do not retry", "never retry"), or a participle after a form of
    "be" ("may be retried"); "a failed payment" is no verb, and "3 failed payments" counts
    payments. The units of times map to the rule's own. Empty when the rule counts no times.
    """
    values = analysis.values
    found = _compound_counts(analysis)
    unit = next((v.unit for v in values if v.dimension == "count" and v.unit in _TIMES_UNITS), "")
    if not unit:
        return found
    tokens = analysis.tokens
    first = min(v.start for v in values if v.unit == unit)
    # "twice" and "3 times" count the same times, though the value reader spells them apart.
    found.update(dict.fromkeys(_TIMES_UNITS, unit))
    for index in range(first):
        token = tokens[index]
        if not token.isalpha() or token in STOPWORDS or token in _AUXILIARIES:
            continue
        previous = tokens[index - 1] if index else ""
        if (
            not index
            or (previous in _ACT_LEADS and not token.endswith(("ed", "ing")))
            or (previous in _BE_FORMS and token.endswith("ed"))
        ):
            found[stem(token)] = unit
    return found


def _compound_counts(analysis: Analysis) -> dict[str, str]:
    """Map the later nouns of a rule's compound count noun to the count's unit.

    The value reader takes a count's unit from the word right after its number, so
    "more than two payment reminders per account" counts "payment" ("pay"): "3
    reminders" counts the same reminders in the compound's head, a value of the rule's
    measure.
    """
    tokens, found = analysis.tokens, dict[str, str]()
    for value in analysis.values:
        if value.dimension != "count" or not value.unit or value.unit in _TIMES_UNITS:
            continue
        at = next((i for i in range(value.start, value.end) if stem(tokens[i]) == value.unit), None)
        for word in tokens[at + 1 : value.end] if at is not None else ():
            if not word.isalpha() or word in STOPWORDS or word == "per":
                break
            found.setdefault(stem(word), value.unit)
    return found


# The units of a count of times: "4 times" ("tim") and "twice" ("time").
_TIMES_UNITS = frozenset({"tim", "time"})
# Words before a rule's verb in its base form: a modal, a negation, "do", an adverb of force.
_ACT_LEADS = _words(
    """
    must should shall will would can could may might never not n't do does did don't
    doesn't always only please
    """,
)
_BE_FORMS = _words("be is are was were been being get gets")


def _counted(part: Part, value: Value) -> Value:
    """Return a count in the noun of the rule's own verb as a count of its times.

    "7 retries" after "Retry the webhook at most 4 times" is "7 times", and "3 times"
    after "at most twice" a count in the rule's own unit (`_counted_acts`); every other
    value is returned as it is.
    """
    if value.dimension != "count" or not value.unit:
        return value
    unit = _facts(part).acts.get(value.unit) if is_on("counted_act") else None
    return value if unit is None or unit == value.unit else dataclasses.replace(value, unit=unit)


def _measure_keys(value: Value) -> tuple[tuple[str, ...], ...]:
    """Return keys two values share whenever they measure the same thing in the same unit.

    Two values are `comparable` when kind and dimension agree, and `_same_unit` when,
    for counts, the unit agrees or the rate is per the same period. So a rule's value
    and a statement's can be `_new_value` of each other only when their keys meet: one
    set test tells a statement with no value of the rule's measure from one with some.
    """
    if value.ends:  # "01:00-05:00" measures what its ends do (`_new_value`)
        return tuple(key for end in value.ends for key in _measure_keys(end))
    if value.dimension != "count":
        return ((value.kind, value.dimension),)
    keys: tuple[tuple[str, ...], ...] = ((value.kind, "count", "unit", value.unit),)
    return (*keys, (value.kind, "count", "per", value.per)) if value.per else keys


def _references(facts: _Facts, statement: Statement) -> list[int]:
    """Return where a statement refers to the rule.

    A rule reference is an anaphor (only when the statement is attached to a mention)
    or a rule noun ("that limit", "the restriction").
    """
    part, own = facts.part, facts.own
    tokens, stems = statement.tokens, statement.stems
    refs: list[int] = []
    pointing = statement.attached and not _POINTERS.isdisjoint(statement.words)
    # Most statements hold no rule noun and no pointer: two set tests spare the walk.
    if pointing or not RULE_NOUNS.isdisjoint(statement.stem_set):
        bound = statement.attached and _bound_named(part, statement)
        # "There is no cap.", "No limit now." right after a bounded rule's copy: no other
        # bound is in sight for the denial to be about.
        denied = statement.attached and bool(
            part.classes[Modality.MAX] or part.classes[Modality.MIN]
        )
        for position, word in enumerate(stems):
            previous = tokens[position - 1] if position else ""
            named = word in own or (
                (bound or (denied and previous in _NO_SUCH))
                and word in _BOUND_NOUNS
                and _bare_noun(tokens, position)
            )
            if (word in RULE_NOUNS and _names_this_rule(previous, own, own=named, part=part)) or (
                pointing and tokens[position] in _POINTERS and _stands_alone(tokens, position)
            ):
                refs.append(position)
    refs += _value_named(part, statement)
    return refs


def _mentions(facts: _Facts, statement: Statement) -> list[int]:
    """Return where a statement names one of the rule's own content words or identifiers."""
    heads = facts.heads
    if heads.isdisjoint(statement.stem_set):
        return []
    return [position for position, word in enumerate(statement.stems) if word in heads]


def _value_named(part: Part, statement: Statement) -> list[int]:
    """Return where the rule is named by its own value and a noun ("the 2 MB figure").

    "The 01:00-03:00 window no longer applies", "The $800 number is on hold": the value
    is the rule's, and the noun right after it names what holds the value.
    """
    if not statement.values or _VALUE_NAMES.isdisjoint(statement.stem_set):
        return []
    tokens = statement.tokens
    return [
        v.end
        for v in statement.values
        if v.end < len(tokens) and stem(tokens[v.end]) in _VALUE_NAMES and _rule_amount(part, v)
    ]


def _rule_amount(part: Part, value: Value) -> bool:
    """Tell whether a value is the rule's, by amount and unit ("$800" for "$800 a day")."""
    return own_value(part, value) or any(
        v.kind == value.kind and v.unit == value.unit and v.raw == value.raw
        for v in part.analysis.values
    )


_VALUE_NAMES = frozenset(
    stem(w)
    for w in (
        *("figure", "number", "window", "threshold", "ceiling", "target", "range", "slot"),
        *("rule", "limit", "cap", "budget", "quota", "maximum", "minimum", "mark"),
    )
)


def _bound_named(part: Part, statement: Statement) -> bool:
    """Tell whether "the limit" or "the cap" in a statement can only be this rule's.

    A rule that bounds a value ("Keep exports under 20 GB") is a limit even when it never
    says so; a statement with a value of the same dimension ("the user raised the limit
    to 60 GB") speaks about it. A value of another dimension is another rule's limit.
    """
    analysis = part.analysis
    bounded = part.classes[Modality.MAX] or part.classes[Modality.MIN]
    if not analysis.values or not (bounded or not _BOUND_WORDS.isdisjoint(analysis.tokens)):
        return False
    counted = [_counted(part, w) for w in statement.values]
    return any(
        comparable(v, w) and _same_unit(v, w) for v in analysis.values for w in counted
    ) or any(_bare_new(part, w) for w in statement.values)


def _bare_noun(tokens: Sequence[str], position: int) -> bool:
    """Tell whether a rule noun stands alone: "the limit", not "the budget cap for this run"."""
    following = tokens[position + 1] if position + 1 < len(tokens) else ""
    return stem(following) not in RULE_NOUNS and following not in {"for", "of", "on"}


_BOUND_NOUNS = frozenset(stem(w) for w in ("limit", "cap", "ceiling", "budget", "quota", "maximum"))
_BOUND_WORDS = _words("under below over above within less more fewer exceed exceeds beyond")
_BOUND_NAMES = RULE_NOUNS | _BOUND_NOUNS
_POINTERS = frozenset({"this", "that", "it", "these", "those"})
_DETERMINERS = frozenset({"the", "a", "an", "our", "their", "its", "his", "her", "your", "my"})


def _stands_alone(tokens: Sequence[str], position: int) -> bool:
    """Tell whether a pointer word is a pronoun ("that is on hold"), not "this run"."""
    if tokens[position] == "it" or position + 1 >= len(tokens):
        return True
    following = tokens[position + 1]
    # "That changed on Monday.", "That lapsed.": a verb of changing or lifting follows.
    return (
        following in _AUXILIARIES
        or stem(following) in RULE_NOUNS
        or following in _CHANGE
        or following in _LIFT
    )


_AUXILIARIES = _words(
    """
    is was were are be been has had have will would can could should may might must does
    did do applies applied apply only no not now still also just never holds held got gets
    goes went stays stayed n't to by for from in at after because when until since so and
    but or with on off aside back away up down out
    """,
)


def _names_this_rule(previous: str, words: frozenset[str], *, own: bool, part: Part) -> bool:
    """Tell whether a rule noun ("limit", "cap") names this rule, not another one.

    "That limit" points back; "the cap" names it when the rule says "cap"; "the downtime
    limit" is another rule unless "downtime" is one of this rule's words; "the size
    limit" names the bound of a rule that bounds a value ("Keep each upload under 10 MB").
    """
    if previous in _POINTERS:
        return True
    if previous in _NOUN_OPENERS or not previous or any(ch.isdigit() for ch in previous):
        return own  # "(currently at $412.50, cap to be raised)": the comma is gone
    if stem(previous) in _ASPECTS and slot_nouns(part) >= _BOUND_SLOTS:
        return True
    return any(stem(piece) in words for piece in previous.split("-"))


# Words before a rule noun that name no other rule: "the cap", "there is no such limit".
_NO_SUCH = frozenset({"no", "such"})
_NOUN_OPENERS = _DETERMINERS | _NO_SUCH
_ASPECTS = frozenset(stem(w) for w in ("size", "rate", "length", "frequency"))
# Nouns that name what a rule sets, next to a copy: "the retention is now 3 days".
_VALUE_ASPECTS = _ASPECTS | frozenset(
    stem(w) for w in ("retention", "period", "duration", "lifetime", "ttl", "window")
)
_BOUND_SLOTS = frozenset(stem(w) for w in BOUND_SLOT_WORDS)


def _near(st: Statement, positions: Sequence[int], target: int) -> bool:
    """Tell whether any of `positions` is close to `target` in the same clause."""
    clauses = st.clauses
    return any(
        abs(p - target) <= _REACH and (not clauses or clauses[p] == clauses[target])
        for p in positions
    )


def _said_of(st: Statement, positions: Sequence[int], target: int) -> bool:
    """Tell whether `target`, a clause after one of `positions`, still speaks about it.

    "Lunch came to 1,200, which is fine": a "which" clause speaks about the one before.
    "55 GB so far is fine": "so far" reads a level, and the clause break the pattern puts
    at its "so" does not part the value from what is said of it.
    """
    clauses, tokens = st.clauses, st.tokens
    if not clauses:
        return False
    clause = clauses[target]
    start = clauses.index(clause)
    before = clause - 1
    if tokens[start] == "which" and target - start <= _RELATIVE_REACH:
        # Back past empty clauses (two breaks in a row) and "so far" fragments: "55 GB so
        # far, which is fine".
        while before > 0 and (
            before not in clauses
            or tokens[clauses.index(before) : clauses.index(before) + 2] == _SO_FAR
        ):
            before -= 1
        return any(clauses[p] == before for p in positions)
    return tokens[start : start + 2] == _SO_FAR and any(
        clauses[p] == before and 0 < target - p <= _REACH for p in positions
    )


_SO_FAR = ("so", "far")
_RELATIVE_REACH = 3  # "which is fine", "which is still acceptable"


def _same_clause(st: Statement, positions: Sequence[int], target: int) -> bool:
    """Tell whether any of `positions` shares a clause with `target`."""
    clauses = st.clauses
    return any(not clauses or clauses[p] == clauses[target] for p in positions)


def _negated_at(tokens: Sequence[str], position: int) -> bool:
    # "no other region is permitted": the negation may stand a few words before.
    return any(t in _NEGATORS for t in tokens[max(0, position - 4) : position])


def _permits(tokens: Sequence[str]) -> list[int]:
    """Return where a permission stands, leaving out denied and exclusive ones.

    "may not", "can never" deny; "the only registry we are allowed to use" holds the
    permission to one choice, which restates an exclusive rule and grants nothing.
    """
    return [
        i
        for i, t in enumerate(tokens)
        if t in _PERMIT
        and not _negated_at(tokens, i)
        and _DENIALS.isdisjoint(tokens[i + 1 : i + 4])
        and (t != "asked" or (i + 1 < len(tokens) and tokens[i + 1] in _ASKED_OF_US))
        and (t != "ahead" or _go_ahead(tokens, i))
        and not _held_to_one(tokens, i)
    ]


def _held_to_one(tokens: Sequence[str], at: int) -> bool:
    """Tell whether an exclusive word just before the permission at `at` holds it to one choice.

    "the only registry we are allowed to use" does; in "If build-0411 only changes copy, it
    may ship" the "only" is the condition's, and the pointer after it opens the permission.
    """
    window = range(max(0, at - 4), at)
    exclusive = next((j for j in window if tokens[j] in _EXCLUSIVE), None)
    if exclusive is None:
        return False
    conditioned = not _CONDITIONS.isdisjoint(tokens[:exclusive])
    return not (conditioned and any(t in _CASE_POINTERS for t in tokens[exclusive + 1 : at]))


_EXCLUSIVE = _words("only sole")


def _go_ahead(tokens: Sequence[str], at: int) -> bool:
    """Tell whether "ahead" at `at` gives leave: "go ahead and use it", "can go ahead".

    "went ahead", "is going ahead" report, "will go ahead" forecasts, "ahead of schedule"
    places: none permits.
    """
    if at == 0 or tokens[at - 1] != "go":
        return False
    return at < 2 or tokens[at - 2] not in _FORECASTING  # noqa: PLR2004 (the word before "go")


_FORECASTING = _words("will would to did won't didn't shall")
# "asked us to force-push" permits; "asked legal to review it" asks someone else to act.
_ASKED_OF_US = _words("us me to for that")


def _scoped(tokens: Sequence[str], own: frozenset[str] = frozenset()) -> bool:
    """Tell whether a scoping word narrows a lift or permission to some cases.

    "for the backfill" scopes it; "on the primary cluster" when the rule is about the
    primary cluster restates the rule's own scope, and "for the rest of the session"
    covers all the time there is.
    """
    for position, token in enumerate(tokens):
        if token not in _SCOPERS:
            continue
        rest = [t for t in tokens[position + 1 : position + 5] if t not in _DETERMINERS]
        # "for the primary cluster" restates the rule's own scope; a condition that says
        # more of the rule's own noun ("if a rebuild only touches the synonyms file") is
        # a case of it.
        if rest and stem(rest[0]) in own and not (
            token in _CONDITIONS and any(t not in STOPWORDS and stem(t) not in own for t in rest)
        ):
            continue
        if tuple(rest[:2]) in _WHOLE_TIME or tuple(tokens[max(0, position - 2) : position]) == (
            "from",
            "now",
        ):
            continue
        return True
    return False


_CONDITIONS = _words("if when unless while")
_WHOLE_TIME = frozenset({("rest", "of"), ("remainder", "of"), ("now", "on")})


def _hypothetical(tokens: Sequence[str]) -> bool:
    return bool(tokens) and (tokens[0] in _HYPOTHETICAL or tokens[-1] == "?")


def departure_in_clause(
    part: Part, statement: Statement, readers: Sequence[Reader] | None = None
) -> Departure | None:
    """Read one statement for a departure from `part`; None when it says nothing against it.

    `readers` are the readers `triggered` by the statement (all of them when None).
    """
    if not statement.tokens:
        return None
    readers = _READERS if readers is None else readers
    if not readers:
        return None
    return _clause_departure(_facts(part), statement, readers, BINDS if _PREFILTER.get() else {})


def _clause_departure(
    facts: _Facts,
    statement: Statement,
    readers: Sequence[Reader],
    binds: dict[Reader, Callable[[_Facts, Statement], bool]],
) -> Departure | None:
    """Return `departure_in_clause` with the part's facts and the bindings already looked up.

    A closed world reads many statements for one part: it looks both up once.
    """
    tokens = statement.tokens
    if not tokens or not readers:
        return None
    read: _Read | None = None
    for reader in readers:
        bind = binds.get(reader)
        if bind is not None and not bind(facts, statement):
            continue
        if read is None:
            read = _Read(facts, statement)
        found = reader(read)
        if found is not None and is_on(found.rule):
            if found.kind is not None and _hypothetical(tokens):
                return Departure(None, found.rule, f"hypothetical: {found.why}", statement.text)
            return found
    return None


class _Read:
    """One statement read for one part: what every reader needs, found when first asked.

    `refs` (rule references) and `mentions` (the rule's head words) are worked out on first
    use: most statements reach only readers that reject them on their own words or values
    (no new value of the rule's dimension, no "only" in the rule), and never ask.
    """

    __slots__ = ("_mentions", "_new", "_refs", "facts", "own", "part", "st", "words")

    def __init__(self, facts: _Facts, st: Statement) -> None:
        self.facts = facts
        self.part = facts.part
        self.st = st
        self.own = facts.own
        # The statement's distinct tokens: a reader whose trigger words are all absent
        # stops after one set test instead of walking every token.
        self.words = st.words
        self._refs: list[int] | None = None
        self._mentions: list[int] | None = None
        self._new: frozenset[int] | None = None

    @property
    def refs(self) -> list[int]:
        """Where the statement refers to the rule (`_references`)."""
        if self._refs is None:
            self._refs = _references(self.facts, self.st)
        return self._refs

    @property
    def mentions(self) -> list[int]:
        """Where the statement names the rule's head words (`_mentions`)."""
        if self._mentions is None:
            self._mentions = _mentions(self.facts, self.st)
        return self._mentions

    def is_new(self, value: Value) -> bool:
        """Tell whether one of the statement's values is a `_new_value` of the rule.

        Several readers ask it of the same values, so each is worked out once (kept by
        the value's identity: the statement holds its values while it is read). None is
        new when no value of the statement measures what one of the rule's does: their
        `_measure_keys` meet whenever two values are comparable in the same unit.
        """
        if self._new is None:
            st, part = self.st, self.part
            self._new = (
                frozenset()
                if self.facts.measures.isdisjoint(st.measures)
                else frozenset(id(v) for v in st.values if _new_value(part, v))
            )
        return id(value) in self._new


def _hit(rule: str, kind: Kind | None, why: str, statement: Statement) -> Departure:
    return Departure(kind, rule, why, statement.text)


def _lift(r: _Read) -> Departure | None:
    if not (r.refs or r.st.implicit):
        # A lift must name the rule or sit right after its copy, unless the rule's own
        # subject needs nothing any more.
        return _unneeded(r) if r.mentions else None
    tokens = r.st.tokens
    lifts = () if _LIFT.isdisjoint(r.words) else enumerate(tokens)
    for position, token in lifts:
        if token not in _LIFT or stem(token) in r.own or _negated_at(tokens, position):
            continue
        if _done_by_the_rule(tokens, position, r.refs):
            continue
        if token in _SKIPS and not _skips_the_rule(tokens, position):
            continue  # "preview images can skip signing": a permission, read by `_permission`
        if lifted_to_value(tokens, r.st.values, position):
            continue  # "dropped that to 3 days": a change, read by `_change`
        if _near(r.st, r.refs, position) or (r.st.implicit and not r.refs and position <= _REACH):
            later = token in _TEMPORARY
            kind = (
                Kind.WEAKENED
                if later or _scoped(tokens[position + 1 :], r.own)
                else Kind.CONTRADICTED
            )
            return _hit("later_lift", kind, f"{token!r} names the rule", r.st)
    at = _has_phrase(tokens, _LIFT_PHRASES)
    if at is not None and (_near(r.st, r.refs, at) or r.st.implicit):
        rest = tokens[at + 2 :]
        # "does not apply to admins": the rule is lifted for some
        some = tokens[at + 1] == "apply" and len(rest) > 1 and rest[0] == "to"
        # "the search endpoint has no limit": a case of the rule's, not a pointer, has none.
        subject = tokens[at - 1] if at else ""
        some = some or (
            tokens[at] in _HAVING and subject not in _POINTERS and stem(subject) not in r.own
        )
        later = _has_phrase(tokens[at:], _TEMPORARY_PHRASES) == 0
        kind = Kind.WEAKENED if some or later or _scoped(rest, r.own) else Kind.CONTRADICTED
        return _hit("later_lift", kind, "a lifting phrase names the rule", r.st)
    return _unneeded(r)


def _unneeded(r: _Read) -> Departure | None:
    """Find an obligation said to be needed no more by its own subject.

    "Prod migrations no longer need any sign-off", "tests are no longer required before
    merging": the rule's own words stand next to the lift, with no anaphor needed.
    """
    if not _obliges(r.part):
        return None
    tokens = r.st.tokens
    at = _has_phrase(tokens, _UNNEEDED)
    if at is None or not _near(r.st, r.mentions, at):
        return None
    clauses = r.st.clauses
    rest = [
        t for i, t in enumerate(tokens) if i > at + 2 and (not clauses or clauses[i] == clauses[at])
    ]
    objects = [t for t in rest[:3] if t.isalpha() and t not in STOPWORDS]
    if objects and rest[0] != "any" and not all(stem(t) in r.own for t in objects):
        # "no longer need a second approver": another requirement may be the one lifted
        return _hit("later_lift", None, "an obligation next to the rule is no longer needed", r.st)
    kind = Kind.WEAKENED if _scoped(rest, r.own) else Kind.CONTRADICTED
    return _hit("later_lift", kind, "the rule's obligation is no longer needed", r.st)


def _obliges(part: Part) -> bool:
    """Tell whether a part obliges: a must or require word, or a bare imperative."""
    classes = part.classes
    return bool(classes[Modality.OBLIGE]) or (not +classes and part.parity == 0)


_UNNEEDED = _phrases(
    """
    no longer need
    no longer needs
    no longer needed
    no longer require
    no longer requires
    no longer required
    no longer mandatory
    no longer necessary
    """,
)


def _unverb(r: _Read) -> Departure | None:
    """Find the rule's own verb undone ("the user unpinned numpy" for "Pin numpy")."""
    # "unsubscribed addresses" names things; "the user unpinned" acts (see Statement)
    for position in r.st.undoing:
        token = r.st.tokens[position]
        match = _UN.match(token)
        if match is None:
            continue
        if position and _undoes_own(match, r.own):
            return _hit("undone_verb", Kind.CONTRADICTED, f"{token!r} undoes the rule", r.st)
    return _undone_accepted(r)


def _undoes_own(match: re.Match[str], own: frozenset[str]) -> bool:
    """Tell whether an `_UN` match undoes one of the rule's own words ("unpinned": "pin")."""
    rest = match.group("rest")
    word = _IRREGULAR_UN.get(rest, stem(rest))
    return word in own or (len(word) >= _STEM and any(o.startswith(word[:_STEM]) for o in own))


def _undone_accepted(r: _Read) -> Departure | None:
    """Find the rule's act undone in a state that is then accepted, anywhere on the topic.

    "The weekly audit export is written unencrypted; the user was fine with that." for
    "Encrypt every export at rest": no actor undoes the verb, but the undone state is
    let through. It may be a case the rule never covered or an exception to it, so it
    names no kind.
    """
    accepted = _undone_then_accepted(r.st.tokens)
    if accepted is None:
        return None
    for position in range(1, accepted):
        match = _UN.match(r.st.tokens[position])
        if match is not None and _undoes_own(match, r.own):
            return _hit("undone_verb", None, "the rule's act undone, and that accepted", r.st)
    return None


def _undone_then_accepted(tokens: Sequence[str]) -> int | None:
    """Return where an acceptance stands after a word opening on "un", or None.

    "... written unencrypted; the user was fine with that": the acceptance is not denied
    ("not fine") and comes after the undone word.
    """
    if _UNDONE_ACCEPTING.isdisjoint(tokens):
        return None
    first = next((i for i, t in enumerate(tokens) if i and _UN.match(t)), None)
    if first is None:
        return None
    return next(
        (
            i
            for i in range(first + 1, len(tokens))
            if tokens[i] in _UNDONE_ACCEPTING and not _negated_at(tokens, i)
        ),
        None,
    )


def _supersede(r: _Read) -> Departure | None:
    tokens = r.st.tokens
    if not (r.refs or r.st.implicit or (r.st.attached and tokens[0] in _SUPERSEDE_OPENERS)):
        return None  # nothing names the rule, and no past marker opens the statement
    at = _has_phrase(tokens, _SUPERSEDE_PHRASES)
    if at is None and not _SUPERSEDE.isdisjoint(r.words):
        at = next((i for i, t in enumerate(tokens) if t in _SUPERSEDE), None)
    if at is None or _done_by_the_rule(tokens, at, r.refs):
        return None
    if _near(r.st, r.refs, at) or r.st.implicit or (r.st.attached and at == 0):
        return _hit("superseded", Kind.CONTRADICTED, "the rule is said to belong to the past", r.st)
    return None


def _skips_the_rule(tokens: Sequence[str], at: int) -> bool:
    """Tell whether a skipping verb takes the rule for its object ("skip it", "bypass the rule")."""
    following = [t for t in tokens[at + 1 : at + 3] if t not in _DETERMINERS]
    return bool(following) and (following[0] in _POINTERS or stem(following[0]) in RULE_NOUNS)


_SKIPS = _words("skip skipped bypass bypassed")


def _done_by_the_rule(tokens: Sequence[str], at: int, refs: Sequence[int]) -> bool:
    """Tell whether a lift or supersession at `at` has the rule for its agent, after "by".

    "Use Helvetica for PDFs (replaced by the Inter rule above)": what points back at the
    rule is all in the agent, so the rule did the replacing and another rule is gone.
    """
    return tuple(tokens[at + 1 : at + 2]) == ("by",) and bool(refs) and min(refs) > at + 1


def _permission(r: _Read) -> Departure | None:
    """Find a permission for what the rule forbids, or to act against it.

    "Exceeding it is fine", "Deleting the qa rows is fine", "the user OK'd a copy to
    us-east-1" (for "do not copy it to any other region"), "GET requests are fine without
    it" right after the copy, "an incremental backup is good enough". A permission only on
    the side the rule leaves open departs from nothing (`permitted_side`); that test is
    asked only of a permission found, since it decides nothing about any other.
    """
    permits = r.st.permits
    if not permits:
        return None
    found = _permission_found(r, permits)
    if found is None or permitted_side(r.part, r.st):
        return None
    held = conditioned(r.part) and _held(r.st.tokens, permits)
    if found.kind is not None and is_on("held_permission") and held:
        # "can only be merged if ...": a permission held by "only" to a condition may be
        # the rule's own requirement; the tier cannot tell, so it names no kind.
        return Departure(None, found.rule, f"{found.why}, held by 'only'", found.sentence)
    return found


def conditioned(part: Part) -> bool:
    """Tell whether a rule sets a condition a held permission may restate.

    "Do not merge unless ...", "refunds above $500 need approval", "keep logs 400 days
    before deleting them", "rewrite history only on your own branches": "can only merge
    if ..." may say the same. A bare prohibition ("never force-push to shared branches")
    sets none, so "force-pushing is fine, but only on shared branches" opens it.
    """
    classes = part.classes
    if part.parity == 0:
        return True
    return any(classes[m] for m in (Modality.CONDITION, Modality.NEGATION, Modality.ONLY))


def _held(tokens: Sequence[str], permits: Sequence[int]) -> bool:
    """Tell whether "only" holds every permission: "can only", "is fine, but only on"."""
    return all(
        tuple(tokens[p + 1 : p + 2]) == ("only",) or tuple(tokens[p + 1 : p + 3]) == ("but", "only")
        for p in permits
    )


def _permission_found(r: _Read, permits: Sequence[int]) -> Departure | None:
    tokens = r.st.tokens
    # Each test below needs a reference, a mention, a value or the copy's own line: the
    # statements with none of them (most of those read) are left after these set tests.
    if r.refs or r.mentions or r.st.implicit or r.st.attached:
        against = (
            []
            if _AGAINST.isdisjoint(r.words)
            else [i for i, t in enumerate(tokens) if t in _AGAINST and stem(t) not in r.own]
        )
        at = _has_phrase(tokens, _AGAINST_PHRASES)
        if at is not None:
            against.append(at)
        back = _has_phrase(tokens, _PAST_POINTER)
        if back is not None and _bare_pointer_after(tokens, back):
            against.append(back)
        for position in against:
            named = _near(r.st, r.refs, position) or _near(r.st, r.mentions, position)
            # "Going over is fine." right after the copy: the going over is the rule's.
            opens = r.st.attached and position == 0
            if (named or r.st.implicit or opens) and _near(r.st, permits, position):
                why = "a permission to act against the rule"
                return _hit("later_permission", _permit_kind(r), why, r.st)
    remarked = _remark_permits(r, permits) if r.st.implicit else None
    if remarked is not None:
        return remarked
    if r.mentions or r.st.values:
        banned = _banned(r.part)
        forbidden = [i for i in r.mentions if stem(tokens[i]) in banned]
        forbidden += [v.start for v in r.st.values if _banned_value(r.part, v)]
        if any(_near(r.st, forbidden, p) for p in permits) and (
            r.st.attached or len(set(forbidden)) > 1
        ):
            return _hit(
                "later_permission", _permit_kind(r), "what the rule forbids is permitted", r.st
            )
    enough = [i for i in permits if tokens[i] in _ENOUGH]
    if enough and r.st.attached and any(_near(r.st, r.mentions, p) for p in enough):
        return _hit("later_permission", Kind.WEAKENED, "a lesser substitute is accepted", r.st)
    return (
        _ending_permitted(r, permits) or _value_permitted(r, permits) or _relative_overrun(r)
    )


def _relative_overrun(r: _Read) -> Departure | None:
    """Find going past a bounded rule by a share or a multiple, permitted after its copy.

    "Going 20% over is fine.", "Twice that is fine.", "We can spend 1.5x that.": the bound
    is permitted to grow by some measure; the copy is weakened.
    """
    if not (r.st.attached and r.part.classes[Modality.MAX]) or not _overrun_said(r.st):
        return None
    return _hit("later_permission", Kind.WEAKENED, "going past the bound by a share", r.st)


def _overrun_said(st: Statement) -> bool:
    """Tell whether a statement names a multiple or a share over something."""
    words = st.words
    # Most statements hold no multiple word and no figure ending in "x" or "%".
    if _MULTIPLES.isdisjoint(words) and not any(w[-1] in "x%" and w[0].isdigit() for w in words):
        return False
    tokens = st.tokens
    for position, token in enumerate(tokens):
        # "Twice that", "double the cap", "1.5x that": a multiple of the bound ("Twice is
        # fine." after "at most 4 times" counts times, `counted_act`).
        following = tokens[position + 1] if position + 1 < len(tokens) else ""
        multiple = token in _MULTIPLES or _TIMES_OVER.fullmatch(token) is not None
        if multiple and following in _MULTIPLIED:
            return True
        if token.endswith("%") and any(t in _OVER for t in tokens[position + 1 : position + 3]):
            return True
    return False


_MULTIPLES = _words("twice double triple thrice")
_MULTIPLIED = _POINTERS | _words("the as our its")
_TIMES_OVER = re.compile(r"\d+(?:\.\d+)?x")
_OVER = _words("over above more beyond extra")


def _ending_permitted(r: _Read, permits: Sequence[int]) -> Departure | None:
    """Find a permission to end what the rule keeps for a time ("they can be deleted anytime").

    After a copy of "Keep build artifacts for at least 30 days", "They can be deleted at
    any time" or "Deleting them early is fine" permits the opposite of the rule's act
    (`OPPOSITE_ACTS`) on its object, named by a rule word or a pronoun: the rule keeps
    them for its time, so that permission contradicts it (weakened when scoped). Held by
    a condition or a time ("after a review", "once the release ships") it may name the
    rule's own end, so it abstains; past the rule's floor ("after 30 days") it is the side
    the rule leaves open (`slot.floor_passed`, read by `_permission`).
    """
    if not (r.st.attached or r.st.implicit) or not is_on("ending_permitted"):
        return None
    ending = _ending_acts(r.part)
    if ending.isdisjoint(r.st.stem_set):
        return None  # no act that ends what the rule keeps
    tokens, stems = r.st.tokens, r.st.stems
    acts = [i for i, word in enumerate(stems) if word in ending and not _negated_at(tokens, i)]
    acts = [i for i in acts if _near(r.st, permits, i)]
    named = [m for m in r.mentions if not _heads_another(r, m)]
    if not acts or not (named or not _OBJECT_PRONOUNS.isdisjoint(tokens)):
        return None  # "Build logs can be deleted at any time": the logs, not the artifacts
    held = not _HELD_LEADS.isdisjoint(tokens) and _ANY_TIME.isdisjoint(tokens)
    if held and _after_its_time(tokens):
        return None  # "After that they can be deleted": once the rule's time is over
    if held and any(r.is_new(v) or own_value(r.part, v) for v in r.st.values):
        return None  # "can be deleted after 20 days": a value of the rule, read as one
    kind = None if held or _hypothetical(tokens) else _permit_kind(r)
    return _hit("later_permission", kind, f"{tokens[acts[0]]!r} ends what the rule keeps", r.st)


def _ending_acts(part: Part) -> frozenset[str]:
    """Return the acts that end what a rule keeps for a time ("delete" for "keep ... 30 days")."""
    return _ENDING_ACTS.get(part, _part_ending_acts)


_ENDING_ACTS: IdentityMemo[Part, frozenset[str]] = IdentityMemo(_PART_WORDS_LIMIT)


def _part_ending_acts(part: Part) -> frozenset[str]:
    analysis = part.analysis
    if part.parity or not any(v.dimension == "time" for v in analysis.values):
        return frozenset()
    acts = {stem(t) for t in analysis.tokens if stem(t) in OPPOSITE_ACTS}
    return OPPOSITE_ACTS[next(iter(acts))] if len(acts) == 1 else frozenset()


def _after_its_time(tokens: Sequence[str]) -> bool:
    """Tell whether the only time said is the rule's own, named back ("after that")."""
    leads = [i for i, t in enumerate(tokens) if t in _HELD_LEADS]
    return len(leads) == 1 and tokens[leads[0]] in _PASSING and (
        tuple(tokens[leads[0] + 1 : leads[0] + 2]) in (("that",), ("then",), ("this",))
    )


_PASSING = _words("after once")
_OBJECT_PRONOUNS = _words("they them it these those")
_HELD_LEADS = _words("after once when if following upon unless until before provided")
_ANY_TIME = _words("any anytime whenever early earlier sooner")


def _remark_permits(r: _Read, permits: Sequence[int]) -> Departure | None:
    """Find a permission in the copy's own remark that adds to it or lets a case through.

    "(GET requests are fine without it)": a pointer to the copy next to the permission.
    "(though small fixes are fine)": a conceding remark accepts a case ("though we may need
    $1,200" says what may come, which `_permitted_reach` reads).
    """
    tokens = r.st.tokens
    pointed = [i for i in r.refs if tokens[i] in _POINTERS]
    if any(_near(r.st, pointed, p) for p in permits):
        return _hit("later_permission", Kind.WEAKENED, "a permission added to the copy", r.st)
    if tokens[0] in _CONCEDING and any(tokens[p] in _ACCEPTING for p in permits):
        return _hit("later_permission", Kind.WEAKENED, "a case is let through", r.st)
    return None


def _bare_pointer_after(tokens: Sequence[str], start: int) -> bool:
    """Tell whether the pointer of a `_PAST_POINTER` phrase stands alone, with no noun."""
    at = next(i for i in range(start, len(tokens)) if tokens[i] in _POINTERS)
    following = tokens[at + 1] if at + 1 < len(tokens) else ""
    return not following or following in _COPULA_WORDS or following in _PERMIT


def _permit_kind(r: _Read) -> Kind:
    """Return WEAKENED for a permission scoped to some cases, CONTRADICTED for one without."""
    return Kind.WEAKENED if _scoped(r.st.tokens, r.own) else Kind.CONTRADICTED


def _value_permitted(r: _Read, permits: Sequence[int]) -> Departure | None:
    """Find "Under 40 MB is acceptable" right after "Keep request bodies under 2 MB"."""
    reached = _permitted_reach(r, permits)
    if reached is not None:
        return reached
    # "Spent $120 so far, which is fine" reports a level inside the rule's bound; "refunds
    # totalling $450 are fine" past a $300 cap accepts going over it, whatever it measures.
    reported = _reported(r.st.tokens)
    new = [v for v in r.st.values if r.is_new(v) and _permitted_new(r, v, reported=reported)]
    if r.st.attached or r.st.implicit:
        new += _ordinals_past(r)  # "A fifth retry is fine." right after "at most 4 times"
    accepting = [p for p in permits if r.st.tokens[p] in _ACCEPTING]
    if r.st.attached or r.st.implicit:
        other = [v.start for v in new]
        if any(_near(r.st, other, p) or _said_of(r.st, other, p) for p in accepting):
            why = "another value of the rule is permitted"
            return _hit("later_permission", _permit_kind(r), why, r.st)
        return _past_in_another_form(r, accepting)
    # Away from the copy, "400 words is OK" may be about another thing measured in words:
    # never a certification, never a named kind.
    other = [v.start for v in new if _measured(v)]
    if any(_near(r.st, other, p) for p in accepting):
        return _hit("later_permission", None, "another value of the rule's unit is permitted", r.st)
    return None


def _past_in_another_form(r: _Read, accepting: Sequence[int]) -> Departure | None:
    """Find a value past the bound, written with no unit or per another period, accepted.

    "(55 is fine.)" after "under 40 GB": the copy's own remark may leave the unit out, or
    count something else; past the bound, the tier cannot tell which. So may a sentence
    of its own right after the copy that opens on the figure ("55 is fine."). "5000 an
    hour is acceptable" after "at most 60 requests per minute" is past it (weakened).
    """
    bare = [
        v.start
        for v in r.st.values
        if (r.st.implicit or v.start == 0) and _bare_past_bound(r.part, v)
    ]
    if any(_near(r.st, bare, p) or _said_of(r.st, bare, p) for p in accepting):
        why = "a figure with no unit past the rule's bound is permitted"
        return _hit("later_permission", None, why, r.st)
    rates = [v.start for v in r.st.values if _rate_past(r.part, v)]
    if any(_near(r.st, rates, p) or _said_of(r.st, rates, p) for p in accepting):
        why = "a rate past the rule's bound, per another period, is permitted"
        return _hit("later_permission", Kind.WEAKENED, why, r.st)
    return None


def _rate_past(part: Part, value: Value) -> bool:
    """Tell whether a rate per another period lies past the rule's bound on its rate.

    "5000 an hour" is 83 a minute, past "at most 60 requests per minute"; the count's unit
    must be the rule's or left out.
    """
    if not value.per.startswith(_PER_TIME):
        return False
    low, high = bool(part.classes[Modality.MIN]), bool(part.classes[Modality.MAX])
    for bound in part.analysis.values:
        if not bound.per.startswith(_PER_TIME) or bound.per == value.per:
            continue
        if value.unit not in {"", bound.unit} or low == high:
            continue
        period, own_period = _period(value.per), _period(bound.per)
        if not (period and own_period):
            continue
        rate = value.amount * own_period / period
        return rate > bound.amount if high else rate < bound.amount
    return False


_PER_TIME = "time:"


def _period(per: str) -> Fraction:
    """Return the seconds of a `time:<seconds>` period, or 0 when it is not one."""
    try:
        return Fraction(per.removeprefix(_PER_TIME))
    except ValueError:
        return Fraction(0)


def _permitted_new(r: _Read, value: Value, *, reported: bool) -> bool:
    """Tell whether a new value permitted departs: always, unless it is reported or counted.

    A reading ("so far") or a count in the noun of the rule's act ("3 retries is fine" after
    "at most 4 times", `_counted`) departs only past the rule's bound: inside it, a count
    of the act permits what the rule already does, where "3 times" is the rule's own
    measure restated with another amount.
    """
    if not reported and _counted(r.part, value) is value:
        return True
    return _past_bound(r.part, value)


def _permitted_reach(r: _Read, permits: Sequence[int]) -> Departure | None:
    """Find "we may go to $1,200" next to a copy of "under $900": a new value permitted.

    A modal of permission and a verb of reaching ("go", "reach", "rise", "spend") lead
    to a new value of the rule's dimension in its clause, with no word of measurement
    between them: so a reading before it ("though currently at $412.50 we may go to
    $1,200") reports the world, and the permission still departs from the rule. "may"
    forecasts as often as it permits, so it keeps the copy from certifying unnamed.
    """
    if not (r.st.attached or r.st.implicit):
        return None
    tokens, clauses = r.st.tokens, r.st.clauses
    for permit in permits:
        if tokens[permit] not in _MODALS:
            continue
        verb = next((i for i in range(permit + 1, min(permit + 3, len(tokens)))
                     if tokens[i] not in _FILLERS), None)
        if verb is None or not (tokens[verb] in _REACHING or _counted_verb(r, verb)):
            continue
        for said in r.st.values:
            value = _reached(r, said, verb)
            if value is None or (clauses and clauses[value.start] != clauses[permit]):
                continue
            gap = tokens[verb + 1 : value.start]
            if _STATE.isdisjoint(gap) and _NEGATORS.isdisjoint(gap):
                # "we may go to $1,200" may forecast as well as permit: never named
                kind = None if tokens[permit] == "may" else _permit_kind(r)
                return _hit("later_permission", kind, f"{value.surface} is permitted", r.st)
    return None


def _reached(r: _Read, said: Value, verb: int) -> Value | None:
    """Return a value a few words past `verb` that departs when permitted, or None.

    An ordinal counts as the things it makes (`_ordinal_count`), and departs only past
    the rule's bound: the thing that comes third is inside a bound of three.
    """
    value = _ordinal_count(r, said)
    if value is said:
        value = _bare_count(r, said, verb)
    new = r.is_new(value) if value is said else _new_value(r.part, value)
    if value.start <= verb or value.start - verb - 1 > _LEAD_WORDS or not new:
        return None
    if value is not said and not _past_bound(r.part, value):
        return None
    return value if _permitted_new(r, value, reported=False) else None


def _ordinal_count(r: _Read, value: Value) -> Value:
    """Return "a second one", "a third reminder" as a count of the rule's things.

    Given or had, the thing that comes second makes two of it: "may get a second one"
    after "no more than one payment reminder per account" is two reminders. "one" and a
    noun of the rule's count stand for its unit; any other ordinal is returned as it is.
    """
    tokens = r.st.tokens
    if value.dimension != "ordinal" or not _facts(r.part).counts:
        return value
    article = tokens[value.start] in _ARTICLES or (
        value.start > 0 and tokens[value.start - 1] in _ARTICLES
    )
    if not article:
        return value
    noun = stem(tokens[value.end]) if value.end < len(tokens) else ""
    counted = _counted_unit(r.part)
    unit = counted if noun in {"", "one"} else _facts(r.part).acts.get(noun, noun)
    return dataclasses.replace(value, kind="number", dimension="count", unit=unit, per="")


_ARTICLES = _words("a an")


def _bare_count(r: _Read, value: Value, verb: int) -> Value:
    """Return a bare number given right after `verb` as a count of the rule's things.

    "Customers on a trial may get four." after "at most two reminder emails per
    customer": a number with no noun of its own, given or had, counts what the rule
    counts, and so does one per the rule's own period ("may get four each week"). A noun
    after it ("may get four seats") is its own, and it is returned as it is.
    """
    tokens, clauses = r.st.tokens, r.st.clauses
    if not _facts(r.part).counts or value.start != verb + 1 or value.kind != "number":
        return value
    if value.unit and value.unit not in _BARE_COUNT_TAILS:
        return value
    times = 1
    if value.per and period_words(value.per).isdisjoint(r.part.analysis.tokens):
        # "may post two a day" under a weekly bound: fourteen in the rule's week.
        found = _periods_in_rules(r.part, value.per)
        if found is None:
            return value
        times = found
    end = value.start + 1  # the number's word: what follows it may be its period
    own_noun = not value.per and end < len(tokens) and tokens[end] not in _BARE_COUNT_TAILS and (
        not clauses or clauses[end] == clauses[value.start]
    )
    if own_noun:
        return value
    counted = _counted_unit(r.part)
    if not counted:
        return value
    amount = value.amount * times
    return dataclasses.replace(value, dimension="count", unit=counted, per="", amount=amount)


def _counted_unit(part: Part) -> str:
    """Return the unit of the rule's count ("reminder" for "at most two reminders"), or ""."""
    return next((v.unit for v in part.analysis.values if v.dimension == "count"), "")


def _periods_in_rules(part: Part, per: str) -> int | None:
    """Return how many periods `per` (a `Value.per` of time) fit in the rule's own period.

    The rule's period is a unit of time after "each", "per", "every" or "a" ("each week");
    a longer `per` counts as one: "ten a month" may all fall in one week. None when the
    rule names no period of time, or `per` is no period of time.
    """
    dimension, _, seconds = per.partition(":")
    if dimension != "time" or not seconds.isdigit():
        return None
    tokens = part.analysis.tokens
    for before, token in itertools.pairwise(tokens):
        rule_seconds = period_seconds(token) if before in _PERIOD_LEADS else None
        if rule_seconds is not None:
            return max(1, int(rule_seconds // int(seconds)))
    return None


_PERIOD_LEADS = _words("each per every a")


# Words that may follow a bare count and leave it the rule's ("may get four each week").
_BARE_COUNT_TAILS = _words("each per every a an instead too now then this that weekly daily")


def _ordinals_past(r: _Read) -> list[Value]:
    """Return the statement's ordinals that count past the rule's bound (`_ordinal_count`)."""
    found = []
    for value in r.st.values:
        count = _ordinal_count(r, value)
        if count is not value and _new_value(r.part, count) and _past_bound(r.part, count):
            found.append(count)
    return found


def _counted_verb(r: _Read, verb: int) -> bool:
    """Tell whether a rule that counts things has them given at `verb` ("may get 3").

    "Do not send more than two payment reminders per account": "overdue accounts may get
    3 reminders", "can receive 3", "may send 3" permit a count past the rule's.
    """
    word = r.st.tokens[verb]
    return _facts(r.part).counts and (word in _GIVEN or stem(word) in _facts(r.part).heads)


_MODALS = _words("may can")
# Verbs a counted thing is given or had by: "may get a second one", "can have 3".
_GIVEN = _words("get receive have take")
_FILLERS = _words("also still even then now safely")
# Verbs of reaching a level: "may go to", "can reach", "may rise to", "can spend up to".
_REACHING = _words("go reach rise climb run spend stretch extend hit exceed")


def _measured(value: Value) -> bool:
    """Tell whether a value carries its own unit or currency ("400 words", "$1,500")."""
    return bool(value.unit) or value.kind not in {"number", "count"}


_ACCEPTING = _words("fine ok okay acceptable allowed permitted tolerated") | _ENOUGH
# What lets an undone state through (`_undone_accepted`): "the user was fine with that".
_UNDONE_ACCEPTING = _ACCEPTING | _words("approved agreed")


def _reported(tokens: Sequence[str]) -> bool:
    """Tell whether a statement reports a measurement ("spent $120 so far").

    A state word that names what a rule noun bounds ("the daily spend limit", "the usage
    cap") reports nothing: the noun after it names the rule, not a level.
    """
    if _has_phrase(tokens, (("so", "far"),)) is not None:
        return True
    if _STATE.isdisjoint(tokens):
        return False
    return any(
        token in _STATE and not _names_a_bound(tokens[at + 1 : at + 3])
        for at, token in enumerate(tokens)
    )


def _names_a_bound(following: Sequence[str]) -> bool:
    """Tell whether a rule noun comes next, or after one more word ("spend (daily) limit")."""
    return any(stem(token) in _BOUND_NAMES for token in following)


def _banned(part: Part) -> frozenset[str]:
    """Return the stems of the words after a negation of the rule ("never push to main")."""
    return _BANNED.get(part, _banned_words)


# Like `_FACTS`: worked out once per part, not once per statement read.
_BANNED: IdentityMemo[Part, frozenset[str]] = IdentityMemo(_PART_WORDS_LIMIT)


def _banned_words(part: Part) -> frozenset[str]:
    analysis = part.analysis
    words: set[str] = set()
    for mark in analysis.marks:
        if mark.modality not in NEGATIVE:
            continue
        for index in range(mark.end, len(analysis.tokens)):
            key = analysis.keys[index]
            if key is not None and not key.startswith("~") and key not in GENERIC:
                words.add(stem(analysis.tokens[index]))
    return frozenset(words)


def _banned_value(part: Part, value: Value) -> bool:
    """Tell whether `value` equals a value the rule's negation governs ("do not use 3.12")."""
    analysis = part.analysis
    for mark in analysis.marks:
        if mark.modality not in NEGATIVE:
            continue
        if any(h.start >= mark.end and values_equal(h, value) for h in analysis.values):
            return True
    return False


def _act(part: Part) -> str | None:
    """Return the stem of the rule's verb when it opens with one ("Copy ...", "Only write ...")."""
    analysis = part.analysis
    for index, token in enumerate(analysis.tokens):
        if token in {"only", "always", "please"}:
            continue
        key = analysis.keys[index]
        return stem(token) if key is not None and index < 2 else None  # noqa: PLR2004
    return None


def _light_act(part: Part) -> str | None:
    """Return the stem of the noun a light opening verb acts through ("Run backups only").

    Read only for a statement that speaks past the rule (`_beyond`): elsewhere the noun
    is as often a topic ("Run reporting queries" and "the churn report").
    """
    tokens, keys = part.analysis.tokens, part.analysis.keys
    if len(tokens) > 1 and keys[0] is None and tokens[0] in _LIGHT_ACTS and keys[1] is not None:
        return stem(tokens[1])
    return None


_LIGHT_ACTS = _words("run perform do")


def _beyond(tokens: Sequence[str]) -> bool:
    """Tell whether a statement plainly speaks past the rule ("outside that window").

    Without "only" or a negation of its own, so a restatement ("may only live in ...",
    "no other region is permitted") is not read as a permission.
    """
    words = set(tokens)
    return not words.isdisjoint(_BEYOND) and "only" not in words and words.isdisjoint(_NEGATORS)


_BEYOND = _words("outside beyond elsewhere anywhere")


def _extension(r: _Read) -> Departure | None:
    """Find an exclusive rule opened to something else ("... may also run in us-east-2").

    For an "only" rule: a statement right after the copy that names the rule's subject,
    an adding word ("also", "too", "open to") and an anchor the rule does not have.
    """
    if "only" not in r.part.analysis.tokens:
        return None
    tokens = r.st.tokens
    kind = Kind.WEAKENED if _scoped(tokens, r.own) else Kind.CONTRADICTED
    if r.st.attached and _any_time(r.st):
        # "Hotfixes can go out any time.", "Weekends are open all day.": a case let out of
        # an exclusive time rule.
        return _hit("later_extension", Kind.WEAKENED, "a case is let out at any time", r.st)
    if not r.mentions:
        return _another_name_too(r, kind)
    other = _other_party(r)
    if other is not None:
        return other
    act = _act(r.part)
    if act is None and _beyond(tokens):
        act = _light_act(r.part)  # "Run backups only ...": "backups are fine outside"
    acting = [i for i in r.mentions if stem(tokens[i]) == act]
    permits = r.st.permits
    # The rule's act permitted beyond the rule needs no attachment: "Restarts are fine
    # outside that window" widens the copy whether it stands before or after it.
    # "Publishing packages from the main branch is fine after ...": every word of the rule
    # and no other name permits what it keeps, not more.
    restated = (
        not r.part.analysis.values
        and not _beyond(tokens)
        and r.facts.heads <= r.st.stem_set
        and not any(_is_name_like(t) and stem(t) not in r.own for t in tokens)
    )
    if (r.st.attached or _beyond(tokens)) and not restated and any(
        _same_clause(r.st, acting, p) for p in permits
    ):
        return _hit("later_extension", kind, "the rule's act is permitted beyond it", r.st)
    return _opened_to_more(r, kind) if r.st.attached else None


def _other_party(r: _Read) -> Departure | None:
    """Find the act an "only" rule reserves to one party permitted to another.

    "Only the security team may rotate the signing keys": "platform engineers can rotate
    the signing keys during an incident" widens who may, wherever it stands; the party the
    rule names ("the security team can rotate them") opens nothing.
    """
    reserved = _reserved(r.part)
    if reserved is None:
        return None
    party, act = reserved
    tokens, stems = r.st.tokens, r.st.stems
    for p in r.st.permits:
        following = [stems[i] for i in range(p + 1, min(len(tokens), p + 3))]
        if act not in following:
            continue
        subject = [
            stems[i]
            for i in range(max(0, p - 4), p)
            if tokens[i].isalpha() and tokens[i] not in STOPWORDS and tokens[i] not in _DENIALS
        ]
        if subject and party.isdisjoint(subject) and _DENIALS.isdisjoint(tokens[p : p + 3]):
            why = f"another party ({' '.join(tokens[max(0, p - 4) : p])}) is permitted the act"
            return _hit("later_extension", Kind.WEAKENED, why, r.st)
    return None


def _reserved(part: Part) -> tuple[frozenset[str], str] | None:
    """Return the party an "only" rule reserves its act to and the act's stem, or None.

    "Only the security team may rotate ...": ({"secur", "team"}, "rotat").
    """
    tokens = part.analysis.tokens
    if "only" not in tokens:
        return None
    start = tokens.index("only") + 1
    for at in range(start, min(len(tokens) - 1, start + 5)):
        if tokens[at] in _PARTY_MODALS:
            party = frozenset(
                stem(t) for t in tokens[start:at] if t.isalpha() and t not in STOPWORDS
            )
            return (party, stem(tokens[at + 1])) if party else None
    return None


_PARTY_MODALS = _words("may can shall should must")


def _opened_to_more(r: _Read, kind: Kind) -> Departure | None:
    """Find an adding word and an anchor the rule does not have, right after its copy."""
    tokens = r.st.tokens
    if _ADDING.isdisjoint(r.words):
        return None
    own = set(r.part.analysis.tokens)
    foreign = [i for i, t in enumerate(tokens) if _is_name_like(t) and t not in own]
    foreign += [
        v.start for v in r.st.values if not any(values_equal(v, w) for w in r.part.analysis.values)
    ]
    if foreign:
        return _hit("later_extension", kind, "the exclusive rule is opened to more", r.st)
    return None


def _another_name_too(r: _Read, kind: Kind) -> Departure | None:
    """Find another name permitted "too" right after an exclusive rule's copy.

    "eu-central-1 is fine too.", "eu-central-1 works too." after "Store customer data only
    in eu-west-1": a name like the rule's own, with an adding word and a permission, opens
    the rule to it with no word of the rule's subject.
    """
    if not (r.st.attached and _names_too(r.st)):
        return None
    own = set(r.part.analysis.tokens)
    shapes = _SHAPES.get(r.part, _name_shapes)
    # Permitted or working "too", or the data placed there ("We mirror it to us-east-1",
    # "Backups live in us-east-1"; "The app servers live in us-east-1" are other things).
    placed = not _PLACING.isdisjoint(r.words) and (
        bool(r.mentions)
        or not _POINTERS.isdisjoint(r.words)
        or not _DATA_COPIES.isdisjoint(r.st.stem_set)
    )
    if not shapes or not (r.st.permits or placed or not _WORKS.isdisjoint(r.words)):
        return None
    # Of the rule's own name's shape: "us-east-1" for "eu-west-1", not "the v2 client".
    foreign = [
        t for t in r.st.tokens if _is_name_like(t) and t not in own and _name_shape(t) in shapes
    ]
    if foreign:
        return _hit("later_extension", kind, f"{foreign[0]!r} is permitted too", r.st)
    return None


def _any_time(st: Statement) -> bool:
    """Tell whether a permission or an opening names any time ("can go out any time")."""
    if not (st.permits or "open" in st.words):
        return False
    return _has_phrase(st.tokens, _ANY_TIME_PHRASES) is not None or "anytime" in st.words


_ANY_TIME_PHRASES = _phrases(
    """
    any time
    any day
    any hour
    all day
    all week
    around the clock
    """,
)


def _names_too(st: Statement) -> bool:
    """Tell whether a statement holds a name-like token and an adding or placing word."""
    words = st.words
    adds = not (_ADDING.isdisjoint(words) and _SECOND.isdisjoint(words))
    return (adds or not _PLACING.isdisjoint(words)) and any(map(_is_name_like, words))


# "approved us-west-2 as a second region"; "We mirror it to us-east-1", "Backups live in
# us-east-1": data placed in a place of the rule's own kind.
_SECOND = _words("second another additional extra")
_DATA_COPIES = frozenset(
    map(stem, _words("backup backups copy copies replica replicas snapshot snapshots dump dumps")),
)
_PLACING = _words(
    "mirror mirrors mirrored replicate replicates replicated sync syncs synced live lives "
    "copied stored kept",
)


def _name_shapes(part: Part) -> frozenset[str]:
    """Return the shapes of the rule's own names ("eu-west-1" is "a-a-0")."""
    return frozenset(_name_shape(t) for t in part.analysis.tokens if _is_name_like(t))


# Like `_FACTS`: worked out once per part, not once per statement read.
_SHAPES: IdentityMemo[Part, frozenset[str]] = IdentityMemo(_PART_WORDS_LIMIT)


def _name_shape(token: str) -> str:
    """Return a name's shape: its runs of letters and of digits each one mark ("a-a-0")."""
    return _LETTERS.sub("a", _DIGITS.sub("0", token))


_LETTERS = re.compile(r"[^\W\d_]+")
_DIGITS = re.compile(r"\d+")
_WORKS = _words("works work")


def _write_opened(r: _Read) -> Departure | None:
    """Find writes opened right after a read-only rule's copy.

    "It's read-write for the backfill", "The user flipped it to read-write": the state
    turned around (later_lift). "The user gave us write access.", "We have write access
    now.": the access held (later_permission). "Writes are fine.", "Inserts are fine.":
    a write, or a kind of one, permitted (a kind is weakened: other writes stay banned).
    """
    if not (r.st.attached and _read_only_rule(r.part)):
        return None
    tokens = r.st.tokens
    for position, token in enumerate(tokens):
        if _negated_at(tokens, position):
            continue
        rest = tokens[position + 1 :]
        timed = _scoped(rest, r.own) or "until" in rest
        kind = Kind.WEAKENED if timed else Kind.CONTRADICTED
        if token in _WRITABLE:
            return _hit("later_lift", kind, f"{token!r} turns the read-only rule around", r.st)
        if token in _WRITE_WORDS and rest and rest[0] in _ACCESS:
            return _hit("later_permission", kind, "write access is given or held", r.st)
    writes = [i for i, t in enumerate(tokens) if t in _WRITE_WORDS]
    if writes and any(_same_clause(r.st, writes, p) for p in r.st.permits):
        every = any(tokens[i] in _WRITING or stem(tokens[i]) in r.own for i in writes)
        kind = _permit_kind(r) if every else Kind.WEAKENED
        return _hit("later_permission", kind, "a write is permitted after a read-only rule", r.st)
    return None


def _ordered(r: _Read) -> Departure | None:
    """Find an order to do what the rule bans or bounds, right after its copy.

    "Log them at trace level." after "Never log email addresses": the banned verb opens
    the sentence, its object a pronoun for the rule's own. "Retry forever on 503s.", "Spend
    whatever is needed.": the bounded verb with no bound. A scope ("on 503s") weakens.
    """
    tokens = r.st.tokens
    if not (r.st.attached and len(tokens) > 1) or not _NOWHERE.isdisjoint(tokens):
        return None  # "Log them nowhere.", "Retry it never.": the order keeps the rule
    verb = stem(tokens[0])
    banned = verb in _banned(r.part) and tokens[1] in _OBJECTS
    # A money bound ("The budget cap for this run is $500.") bounds spending, named or not.
    money = verb == _SPEND and any(v.dimension == "money" for v in r.part.analysis.values)
    unbounded = (
        bool(r.part.classes[Modality.MAX])
        and (verb in r.own or money)
        and not _UNBOUNDED.isdisjoint(tokens)
    )
    if not (banned or unbounded):
        return None
    kind = Kind.WEAKENED if _scoped(tokens[1:], r.own) else Kind.CONTRADICTED
    return _hit("later_permission", kind, f"{tokens[0]!r} is ordered against the rule", r.st)


_OBJECTS = _words("them it those these")
_NOWHERE = _NEGATORS | _words("nowhere none")
_SPEND = stem("spend")
# Of `_OBJECTS`, those the sentence prefilter (`_may_depart`) passes: "it" opens too many
# statements to read each; "Log them at trace level." needs "them".
_ORDER_OBJECTS = _words("them those these")
_UNBOUNDED = _words("forever indefinitely unlimited whatever endlessly limitless")


def _group_lift(r: _Read) -> Departure | None:
    """Find rules lifted or softened as a group ("All of the above are relaxed ...").

    "All of the above are relaxed for the migration: treat them as best effort", "all
    these limits are soft for launch week", "the three rules above are suspended": a group
    of rules, which may hold this one, lifted or softened together. Which rules the group
    holds the tier cannot tell, so it names no kind. A lift word denied just before it
    ("none of them are relaxed") lifts nothing.
    """
    tokens = r.st.tokens
    if not _grouped(tokens):
        return None
    lifted = any(
        (t in _LIFT or t in _SOFTENED) and _DENYING_LIFT.isdisjoint(tokens[max(0, i - 4) : i])
        for i, t in enumerate(tokens)
    )
    if not lifted and _has_phrase(tokens, _LIFT_PHRASES + _SOFT_PHRASES) is None:
        return None
    return _hit("group_lift", None, "a group of rules lifted or softened together", r.st)


def _unnamed_lift(r: _Read) -> Departure | None:
    """Find a rule that names none of its own words lifted ("The rule was dropped ...").

    "The rule was dropped after the review", "the old constraint was lifted yesterday": a
    rule noun with nothing before it that names a rule may be this one, wherever it stands
    on the topic; which rule is meant the tier cannot tell, so it names no kind. "The
    logging rule", "the rule on logging" name another rule by a word this one lacks (its
    own words make a reference, read by `_lift`); a lift word denied just before it ("was
    never lifted") lifts nothing.
    """
    tokens, clauses = r.st.tokens, r.st.clauses
    for at in _unnamed_rule_nouns(tokens):
        if _names_another_rule(tokens, at, r.own):
            continue
        # Its own clause around it: "we scrapped the rule", "the rule no longer applies".
        span = [
            i
            for i in range(max(0, at - _OBJECT_REACH), min(len(tokens), at + 1 + _REACH))
            if i != at and (not clauses or clauses[i] == clauses[at])
        ]
        after = [tokens[i] for i in span if i > at]
        lift = next(
            (
                i
                for i in span
                if tokens[i] in _LIFT and not _negated_at(tokens, i)
            ),
            None,
        )
        if lift is not None or _has_phrase(after, _LIFT_PHRASES) is not None:
            why = f"{tokens[at]!r} lifted, which may be this rule"
            return _hit("unnamed_lift", None, why, r.st)
    return None


def _unnamed_bound_change(r: _Read) -> Departure | None:
    """Find a bound that names none of its own words changed ("The user doubled the cap").

    "The user later doubled the cap", "the limit was raised on Monday", "since Tuesday
    the ceiling is $1,100": for a rule that bounds a value, a bound noun with nothing
    before it that names another bound, changed or given a value past the rule's, may be
    this rule's, wherever it stands on the topic; which bound is meant the tier cannot
    tell, so it names no kind. "The cap on concurrent jobs", "the rate limit" and a
    limit given a value of another dimension name another; a change denied ("nobody
    raised the cap") changes nothing.
    """
    part = r.part
    if not (part.classes[Modality.MAX] or part.classes[Modality.MIN]):
        return None
    values = part.analysis.values
    if r.st.values and not any(comparable(v, w) for v in r.st.values for w in values):
        return None  # "raised the limit to 40 requests per minute": another dimension's bound
    tokens, clauses = r.st.tokens, r.st.clauses
    for at in _unnamed_nouns(tokens, _UNNAMED_BOUND_NOUNS, pointed=True):
        # "that figure for enterprise plans" points back, and "for" scopes the change.
        pointed = at > 0 and tokens[at - 1] in _POINTERS
        if (not pointed and _names_another_rule(tokens, at, r.own)) or _compounded(tokens, at):
            continue
        span = range(max(0, at - _OBJECT_REACH), min(len(tokens), at + 1 + _REACH))
        for i in span:
            if i == at or (clauses and clauses[i] != clauses[at]) or not _changes_at(tokens, i):
                continue
            if not _negated_at(tokens, i):
                why = f"{tokens[at]!r} {tokens[i]}, which may be this rule's bound"
                return _hit("unnamed_bound_change", None, why, r.st)
        value = _bound_set_past(part, tokens, at, r.st.values)
        if value is not None:
            why = f"{tokens[at]!r} set to {value.surface}, which may be this rule's bound"
            return _hit("unnamed_bound_change", None, why, r.st)
    return None


def _changes_at(tokens: Sequence[str], at: int) -> bool:
    """Tell whether a change verb stands at `at`: "doubled", or "to double" after "decided"."""
    token = tokens[at]
    return token in _CHANGE or (token in _CHANGE_BASES and at > 0 and tokens[at - 1] == "to")


# Change verbs in their base form, read after "to" only: "decided to double that figure".
_CHANGE_BASES = _words("raise increase bump double triple halve lower reduce change")


def _compounded(tokens: Sequence[str], at: int) -> bool:
    """Tell whether a rule noun modifies the next ("the budget cap for this run")."""
    following = tokens[at + 1] if at + 1 < len(tokens) else ""
    return following in _UNNAMED_BOUND_NOUNS or following in _UNNAMED_RULE_NOUNS


def _bound_set_past(
    part: Part, tokens: Sequence[str], at: int, values: Sequence[Value]
) -> Value | None:
    """Return a value past the rule's bound that a copula gives the bound noun at `at`.

    "Since Tuesday the ceiling is $1,100" for "under $800"; "the cap is $300" is inside it.
    """
    for value in values:
        between = tokens[at + 1 : value.start]
        if not 0 < value.start - at <= _REACH or _COPULA.isdisjoint(between):
            continue
        if _past_bound(part, value) and _NEGATORS.isdisjoint(between):
            return value
    return None


def _resumed(r: _Read) -> Departure | None:
    """Find what a ban forbids enabled again ("Writes were re-enabled for the batch window").

    "Writes were re-enabled", "pushes to main were unblocked", "EU sends resumed Monday":
    the act the rule forbids or pauses, named by its own word, with a word that starts it
    again in its clause. For a pause held to a condition ("while the incident is open")
    the condition may have ended, a ban of some days or amounts may not reach where the
    act started again, and a scope ("for subscribed users") may lie outside the ban, so
    the tier names no kind there; otherwise the ban is lifted. Another name in the clause
    ("writes to orders_staging") is another target, and a resumption denied ("were not
    re-enabled") starts nothing.
    """
    acts = _banned_acts(r.part)
    if not acts or acts.isdisjoint(r.st.stem_set):
        return None
    tokens, clauses, stems = r.st.tokens, r.st.clauses, r.st.stems
    phrase = _paused_phrase(r.part) if _act(r.part) in _PAUSING else ()
    for at, token in enumerate(tokens):
        if not _resumes_at(tokens, at) or _negated_at(tokens, at):
            continue
        clause = [i for i in range(len(tokens)) if not clauses or clauses[i] == clauses[at]]
        if not any(abs(i - at) <= _REACH and _names_paused(acts, phrase, stems, i) for i in clause):
            continue
        valued = {i for v in r.st.values for i in range(v.start, v.end)}
        named = [i for i in clause if i not in valued and _is_name_like(tokens[i])]
        if any(stems[i] not in r.own for i in named):
            continue  # "writes to orders_staging were re-enabled": another target
        why = f"{token!r}: what the rule forbids starts again"
        part = r.part
        held = part.classes[Modality.CONDITION] or not _UNTIL_WORDS.isdisjoint(part.analysis.tokens)
        if held or part.analysis.values or _scoped(tokens[at + 1 :], r.own):
            # "Never deploy on Fridays. Deploys resumed on Monday.": the act may start again
            # where the ban does not reach (its condition ended, another day, another case).
            return _hit("resumed_act", None, why, r.st)
        return _hit("resumed_act", Kind.CONTRADICTED, why, r.st)
    return None


def _banned_acts(part: Part) -> frozenset[str]:
    """Return the stems naming the act a rule forbids ("write") or pauses ("deploys").

    "Never write to ..." forbids its verb, "Do not send push notifications ..." its verb
    and the object right after it; "Pause all deploys ..." pauses its object. Worked out
    once per part: the binding asks it of every topic statement.
    """
    return _BANNED_ACTS.get(part, _banned_act_stems)


_BANNED_ACTS: IdentityMemo[Part, frozenset[str]] = IdentityMemo(_PART_WORDS_LIMIT)


def _paused_phrase(part: Part) -> tuple[str, ...]:
    """Return the stems of the noun phrase a pausing rule pauses, its head last.

    The modifiers too: "Pause all outbound marketing emails" is resumed as "marketing
    sends are back on" as well as "emails resumed" (`_names_paused` weighs a modifier).
    """
    analysis = part.analysis
    paused: list[str] = []
    for i, t in enumerate(analysis.tokens[1:_PAUSED_WORDS], start=1):
        if t in _PHRASE_ENDS or (paused and analysis.keys[i] is None):
            break  # "while", "until", "for": the phrase has ended
        if analysis.keys[i] is not None and t not in _DETERMINERS:
            paused.append(stem(t))
    return tuple(paused)


def _names_paused(
    acts: frozenset[str], phrase: tuple[str, ...], stems: Sequence[str], at: int
) -> bool:
    """Tell whether the word at `at` names what the rule forbids or pauses (`acts`).

    A modifier of a paused `phrase` names it only before another word of the phrase or a
    noun of sending ("marketing sends"); before a noun of its own ("the social team") it
    names something else.
    """
    if stems[at] not in acts:
        return False
    if not phrase or stems[at] == phrase[-1]:
        return True
    following = stems[at + 1] if at + 1 < len(stems) else ""
    return following in phrase or following in _SENDING_NOUNS


_PAUSED_WORDS = 6  # the pausing verb and the paused noun phrase's first words
_SENDING_NOUNS = frozenset(map(stem, ("sends", "runs", "jobs", "batches", "messages", "campaigns")))


def _banned_act_stems(part: Part) -> frozenset[str]:
    analysis = part.analysis
    act = _act(part)
    if act in _PAUSING:
        return frozenset(_paused_phrase(part))
    if not part.classes[Modality.FORBID]:
        return frozenset()
    for mark in analysis.marks:
        if mark.modality is not Modality.FORBID:
            continue
        following = [i for i in range(mark.end, len(analysis.tokens)) if analysis.keys[i]]
        if not following:
            return frozenset()
        verb = following[0]
        found = {stem(analysis.tokens[verb])}
        after = [
            i
            for i in range(verb + 1, min(len(analysis.tokens), verb + 3))
            if analysis.tokens[i] not in _DETERMINERS
        ]
        if after and analysis.keys[after[0]]:
            found.add(stem(analysis.tokens[after[0]]))  # "send push notifications": its object
        return frozenset(found)
    return frozenset()


_RESUMING = _words(
    "re-enabled reenabled enabled unblocked resumed resume resumes restarted reopened "
    "unpaused unfrozen reinstated"
)
# Two words that start an act again: "campaign sends are back on", "emails are going out
# again" (each led by its cue word, `CUES`).
_RESUMING_PAIRS = {"back": _words("on"), "again": _words("going go goes out running live")}
_PAUSING = frozenset(stem(w) for w in ("pause", "freeze", "halt", "stop", "suspend", "block"))


def _resumes_at(tokens: Sequence[str], at: int) -> bool:
    """Tell whether a word starts an act again, alone ("resumed") or with its neighbour."""
    word = tokens[at]
    if word in _RESUMING:
        return True
    if word in _RESUMING_PAIRS:
        step = 1 if word == "back" else -1  # "back on", "going out again"
        near = at + step
        return 0 <= near < len(tokens) and tokens[near] in _RESUMING_PAIRS[word]
    return False


_UNTIL_WORDS = _words("while until during till unless")
# What ends a paused noun phrase (`_paused_phrase`): "while", "until", "for".
_PHRASE_ENDS = _CONDITIONS | _UNTIL_WORDS | _SCOPERS


def _unnamed_rule_nouns(tokens: Sequence[str]) -> list[int]:
    """Return where a singular generic rule noun opens a noun phrase of its own ("the rule").

    So does one after a plain adjective and one word that describes it ("the old
    internal-only rule"): "old" says a rule of the context is meant, and the description
    may be this rule's in other words ("internal-only" for "not to the public registry").
    """
    found = _unnamed_nouns(tokens, _UNNAMED_RULE_NOUNS)
    described = [
        at
        for at, token in enumerate(tokens[2:], start=2)
        if token in _UNNAMED_RULE_NOUNS
        and tokens[at - 2] in _PLAIN_RULE_ADJECTIVES
        and tokens[at - 1] not in STOPWORDS
    ]
    return sorted(set(found).union(described))


def _unnamed_nouns(
    tokens: Sequence[str], nouns: frozenset[str], *, pointed: bool = False
) -> list[int]:
    """Return where one of `nouns` opens a noun phrase of its own ("the rule", "the old cap").

    With `pointed`, a pointer opens one too ("double that figure").
    """
    return [
        at
        for at, token in enumerate(tokens)
        if token in nouns
        and (
            at == 0
            or tokens[at - 1] in _NOUN_OPENERS
            or tokens[at - 1] in _PLAIN_RULE_ADJECTIVES
            or (pointed and tokens[at - 1] in _POINTERS)
        )
    ]


def _names_another_rule(tokens: Sequence[str], at: int, own: frozenset[str]) -> bool:
    """Tell whether "the rule on logging" names its rule by words this rule lacks."""
    after = tokens[at + 1 : at + 2]
    if not after or after[0] not in _RULE_QUALIFIERS:
        return False
    named = [t for t in tokens[at + 2 : at + 5] if t.isalpha() and t not in STOPWORDS]
    return bool(named) and not any(stem(t) in own for t in named)


_UNNAMED_RULE_NOUNS = GENERIC_RULE_NOUNS
_UNNAMED_BOUND_NOUNS = _words("cap limit ceiling maximum budget quota figure")
# Adjectives before a rule noun that name no rule: "the old rule", "the original constraint".
_PLAIN_RULE_ADJECTIVES = _words("old original previous earlier existing current former same")
_OBJECT_REACH = 3  # "dropped the old rule": a lifting verb before its object
_RULE_QUALIFIERS = _words("on for about against of covering around")


def _grouped(tokens: Sequence[str]) -> bool:
    """Tell whether a statement speaks of several rules at once ("all of the above")."""
    if not _GROUP_NOUNS.isdisjoint(tokens):
        return True
    return _has_phrase(tokens, _GROUP_PHRASES) is not None


_GROUP_NOUNS = _words(
    "rules constraints restrictions requirements policies limits caps quotas bans guardrails "
    "guidelines",
)
_GROUP_PHRASES = _phrases(
    """
    of the above
    the above
    all of them
    all of these
    all of those
    """,
)
_SOFTENED = _words("soft optional advisory")
_SOFT_PHRASES = _phrases(
    """
    best effort
    best-effort
    nice to have
    """,
)
_DENYING_LIFT = _words("not none never no nor")


def _waived(r: _Read) -> Departure | None:
    """Find one of the rule's requirements said to be unneeded, right after a mention.

    "You don't need to ask me about small packages" (after "... without asking the user"),
    "no need to go through us" (after "route all vendor questions through procurement"),
    "don't wait for verification" (after "... until the data migration is verified"), "shut
    v1 down now rather than waiting" (after "keep ... running until 1 September"): the
    requirement waived, for some cases or for all, which the tier cannot tell, so it names
    no kind.
    """
    if not r.st.attached:
        return None
    tokens = r.st.tokens
    for at, rest in _waiver_spots(tokens):
        if rest is None:
            if "until" in r.part.analysis.tokens:
                return _hit("waived_requirement", None, "the rule's wait is skipped", r.st)
            continue
        words = [stem(t) for t in rest if t not in STOPWORDS or t in _ROUTE_WORDS]
        if any(_akin(w, own) for w in words for own in r.own):
            why = f"'{' '.join(tokens[at : at + 4])}': one of the rule's requirements is waived"
            return _hit("waived_requirement", None, why, r.st)
    return None


def _waiver_spots(tokens: Sequence[str]) -> list[tuple[int, Sequence[str] | None]]:
    """Return where a requirement is said to be unneeded, and the words it governs.

    "no need to X", "don't need to X", "don't wait for X", "without waiting for X"; "rather
    than waiting", "instead of waiting" govern no words (None): they skip a wait.
    """
    found: list[tuple[int, Sequence[str] | None]] = []
    for i, t in enumerate(tokens):
        before = tokens[i - 1] if i else ""
        if t == "need" and before in _WAIVING_DENIALS and tuple(tokens[i + 1 : i + 2]) == ("to",):
            found.append((i - 1, tokens[i + 2 : i + 6]))
        elif t in _WAITING and (before in _WAIVING_DENIALS or before == "without"):
            found.append((i - 1, tokens[i + 1 : i + 5]))
        elif t == "waiting" and tuple(tokens[max(0, i - 2) : i]) in _INSTEAD:
            found.append((i - 2, None))
    return found


def _akin(left: str, right: str) -> bool:
    """Tell whether two stems are one word's ("verificat", "verify"): equal, or 5 letters alike."""
    return left == right or (len(left) >= 5 and len(right) >= 5 and left[:5] == right[:5])  # noqa: PLR2004


_WAIVING_DENIALS = _words("no don't doesn't didn't not n't never needn't")
_WAITING = _words("wait waiting")
_INSTEAD = frozenset({("rather", "than"), ("instead", "of")})
_ROUTE_WORDS = _words("through via")
_WAIVER_CUES = _words("need wait waiting")


def _carve_out(r: _Read) -> Departure | None:
    """Find a permission of the rule's act, or of another value of its slot, for some case.

    Right after a mention or the copy: "For hotfix branches it is okay to merge after
    one.", "Extra restarts are fine for the canary pool.", "Self-approval is tolerated
    for changelog-only edits.", "Scratch copies in us-west-2 are fine during the
    reindex.". The permission stands by one of the rule's head words (or a piece of a
    compound holding one) or a name of the rule's own name's shape, and is scoped to a case
    (`_scoped`) or goes without one of the rule's words ("can be removed without asking"),
    or it is asked anywhere ("Can translators still commit after freeze?"): the rule's
    force is then in question. It may carve an exception out of the rule or restate what
    the rule leaves open, which the tier cannot tell apart, so it names no kind. The head
    words are matched by key, so a synonym counts ("removed" for "deleting"). A permission
    on the side the rule leaves open (`permitted_side`), and one with a value of the rule's
    measure ("Workers can hold 2 jobs while draining.", weighed by the value readers), are
    left to the other readers.
    """
    st = r.st
    # In the copy's own remark "may" is a modal ("..., though X may get a second one").
    carving = _REMARK_CARVING if st.implicit else _CARVING
    # "go ahead and use it" permits where "can use it" does: read from its "and".
    permits = [
        p + 1 if st.tokens[p] == "ahead" and st.tokens[p + 1 : p + 2] == ("and",) else p
        for p in st.permits
        if st.tokens[p] in carving
    ]
    # "If build-0411 only changes copy, it may ship right away": "may" after a case put
    # first permits as much as it forecasts (`_conditioned_pointer` alone reads it).
    conditioned = [p for p in st.permits if st.tokens[p] == "may" and p not in permits]
    asked = _asks(st)
    if not (st.attached or asked) or not (permits or conditioned):
        return None
    tokens, keys = st.tokens, _head_keys(r.part)
    named = [
        i
        for i, t in enumerate(tokens)
        if any(token_key(p) in keys for p in pieces(t)) or _names_a_rule_word(t, r.own)
    ]
    skipped = any(
        tokens[i] == "without" and stem(tokens[i + 1]) in r.own for i in range(len(tokens) - 1)
    )
    # A concession appended to the copy names its own case: "..., though support leads can
    # approve them on weekends".
    conceded = st.implicit and tokens[0] in _CONCEDING
    if not (asked or skipped or conceded or _case_scoped(tokens, r.own)):
        return None
    if not asked and permitted_side(r.part, st):  # a question leaves even that side open
        return None
    if not r.facts.measures.isdisjoint(st.measures):
        return None  # a value of the rule's measure: the value readers weigh it
    # A name of the rule's own name's shape: "us-west-2" for "ca-central-1".
    shapes = _SHAPES.get(r.part, _name_shapes)
    own = r.part.analysis.tokens
    named += [
        i
        for i, t in enumerate(st.tokens)
        if shapes and _is_name_like(t) and t not in own and _name_shape(t) in shapes
    ]
    near = any(_near(st, named, p) for p in permits)
    if not (near or any(_conditioned_pointer(st, named, p) for p in (*permits, *conditioned))):
        return None
    return _hit("carve_out", None, "a permission of the rule's act for a case", st)


def _conditioned_pointer(st: Statement, named: Sequence[int], permit: int) -> bool:
    """Tell whether a permission's pointer stands for a head word in the case before it.

    "If a rebuild only touches the synonyms file, it can run the same afternoon": the
    clause of the permission opens with a pointer, and the clause before it is a case
    ("if", "when") that names one of the rule's head words.
    """
    clauses, tokens = st.clauses, st.tokens
    if not clauses or clauses[permit] == 0:
        return False
    clause = clauses[permit]
    if clause - 1 not in clauses:
        return False
    opening, case = clauses.index(clause), clauses.index(clause - 1)
    return (
        tokens[opening] in _CASE_POINTERS
        and tokens[case] in _CASE_SCOPERS
        and any(clauses[p] == clause - 1 for p in named)
    )


_CASE_POINTERS = _POINTERS | {"they"}


def _names_a_rule_word(token: str, own: frozenset[str]) -> bool:
    """Tell whether a piece of a compound or dotted name is one of the rule's words.

    "@pytest.mark.skip" holds "skip" (for "Do not disable or skip failing tests"),
    "self-approval" holds "approval".
    """
    bits = _BIT_BREAK.split(token)
    return len(bits) > 1 and any(b not in STOPWORDS and stem(b) in own for b in bits if b)


_BIT_BREAK = re.compile(r"[-._@/]")


def _asks(st: Statement) -> bool:
    """Tell whether a statement is a question ("Can translators still commit after freeze?")."""
    return st.text.endswith("?")


def _head_keys(part: Part) -> frozenset[str]:
    """Return the content keys of the rule's head words: synonyms share one ("removed")."""
    return _HEAD_KEYS.get(part, _content_keys)


def _content_keys(part: Part) -> frozenset[str]:
    keys = part.analysis.keys
    return frozenset(
        key
        for i in part.content
        if (key := keys[i]) is not None and key not in GENERIC and not key.startswith("~")
    )


# Like `_FACTS`: worked out once per part, not once per statement read.
_HEAD_KEYS: IdentityMemo[Part, frozenset[str]] = IdentityMemo(_PART_WORDS_LIMIT)


# The words that grant ("fine", "can"): not those that ask or want ("asked for it"), nor
# "may", which forecasts as often and is the month of May in a folded text.
_CARVING = _words("fine ok okay acceptable allowed permitted tolerated can ahead")
_REMARK_CARVING = _CARVING | {"may"}


def _case_scoped(tokens: Sequence[str], own: frozenset[str]) -> bool:
    """Tell whether a scoping word names a case (`_scoped`), not a pointer ("for it")."""
    cases = [
        i
        for i, t in enumerate(tokens[:-1])
        if t in _CASE_SCOPERS and tokens[i + 1] not in _POINTERS and tokens[i + 1] not in _PERSONS
    ]
    return any(_scoped(tokens[i : i + 5], own) for i in cases)


_PERSONS = _words("me us you him her them")
# `_SCOPERS` but "on", which places more often than it names a case ("comment on the PR").
_CASE_SCOPERS = _SCOPERS - {"on"}


def _requirement_put_off(r: _Read) -> Departure | None:
    """Find what a "without" rule requires put after the act, or the act done without it.

    "Reviews can happen after merging.", "The user will review later." after "Never merge
    to main without a code review": the requirement comes after the act. "Admins can push
    directly.", "Docs-only changes can go straight in.": a case skips it. Both weaken.
    """
    rule = r.part.analysis.tokens
    if not r.st.attached or "without" not in rule:
        return None
    tokens, stems = r.st.tokens, r.st.stems
    # "push directly", "go straight in": the bypass word follows a verb of going in.
    bypass = [
        i
        for i, t in enumerate(tokens)
        if t in _BYPASS
        and any(w in _GOING_IN or stem(w) in r.own for w in tokens[max(0, i - 2) : i])
    ]
    if r.st.permits and bypass:
        why = "a case goes in without the requirement"
        return _hit("later_exception", Kind.WEAKENED, why, r.st)
    # What the rule requires: its words after "without" ("a code review").
    required = {stem(t) for t in rule[rule.index("without") + 1 :]} - _STOP_STEMS
    said = [i for i, word in enumerate(stems) if word in required]
    if not said:
        return None
    # "Reviews can happen after merging": the requirement before "after" and the banned act.
    banned = _banned(r.part) - required
    after = any(
        t == "after" and i > said[0] and i + 1 < len(tokens) and stems[i + 1] in banned
        for i, t in enumerate(tokens)
    )
    # "The user will review later.": "later" closes the sentence ("later this week" dates).
    if after or tokens[-1] in _LATER:
        why = "the rule's requirement is put after the act"
        return _hit("later_exception", Kind.WEAKENED, why, r.st)
    return None


_STOP_STEMS = frozenset(map(stem, STOPWORDS))
_HAVING = _words("has have")
_CONCEDING = _words("though although but")
_BYPASS = _words("directly straight unreviewed")
_GOING_IN = _words("push pushed go goes went land lands ship ships commit commits merge merged")
_LATER = _words("later afterwards afterward")
_PUT_OFF_CUES = _BYPASS | _LATER | {"after"}


def _read_only_rule(part: Part) -> bool:
    """Tell whether a rule keeps something read-only ("is read-only", "Never write to")."""
    negated = part.parity == 1 and not _WRITE_WORDS.isdisjoint(part.analysis.tokens)
    return bool(part.classes[Modality.READONLY]) or negated


_WRITABLE = _words("read-write read/write writable writeable rw")
_WRITE_WORDS = _words(
    """
    write writes writing written wrote insert inserts inserting update updates updating
    delete deletes deleting truncate truncates modify modifies modifying alter alters
    mutate mutates upsert upserts
    """,
)
_WRITING = _words("write writes writing written")  # every write, not one kind
_ACCESS = _words("access permission permissions rights privileges")


def _slot_permission(r: _Read) -> Departure | None:
    """Find a permission on the side of the rule's own slot that the rule forbids.

    "Emergency patches are fine outside that window", "Export payloads are fine above
    that cap", "Config templates are fine in /etc" (for "Never write files to /etc"): the
    slot is named by an anaphor with a slot noun ("that window", "the cap"), by the rule's
    own value ("after 03:00") or by its own words ("outside the EU region"). When the
    permitted thing is the rule's own act the departure is named; another noun may be a
    kind of the act or something else, which the tier cannot tell: never a certification.
    """
    words = r.words
    if words.isdisjoint(_SLOT_PERMITS) and words.isdisjoint(_EXEMPT):
        return None
    if condition_met(r.part, r.st.tokens) or reading_left_open(r.part, r.st.tokens):
        return None  # "merges can go to main after review": the side the rule leaves open
    tokens, clauses = r.st.tokens, r.st.clauses
    compared = _comparative_permission(r)
    if compared is not None:
        return compared
    past = forbids_past(r.part)
    for at, token in enumerate(tokens):
        exempt = token in _EXEMPT and at + 1 < len(tokens) and tokens[at + 1] == "from"
        end = _slot_past(r, at, past=past, exempt=exempt)
        if end is None:
            continue
        clause = _permission_clause(tokens, clauses, at)
        if restating(tokens, clause):
            continue
        permits = [i for i in r.st.permits if i in clause and tokens[i] in _SLOT_PERMITS]
        if not (exempt or permits):
            continue
        if not past and any(tokens[i] in PAST_SLOT for i in clause if i < at):
            continue  # "fine outside /tmp, in the scratch dir": the past side speaks first
        subject = _subject(r, clause, at, end)
        if subject and all(stem(t) in r.own for t in subject) and _acts(tokens, permits):
            kind = Kind.WEAKENED if _scoped(tokens, r.own) else Kind.CONTRADICTED
            return _hit("slot_permission", kind, "the rule's act is permitted past its slot", r.st)
        return _hit(
            "slot_permission", None, "something is permitted past the rule's slot", r.st
        )
    return None


# Permission words that grant a thing a place ("fine outside that window", "can go to main").
_SLOT_PERMITS = _words("fine ok okay acceptable allowed permitted tolerated free can may approved")
_EXEMPT = _words("exempt exempted excused")
_SLOT_PERMITS_OR_EXEMPT = _SLOT_PERMITS | _EXEMPT
# Words of a permission clause that name no subject: the verb of going, helpers, fillers.
_EVENTS = _words(
    """
    go goes going gone out run runs ran happen happens proceed proceeds ship ships take
    taken place be is are was were been being it this there also still too either even
    straight directly just
    """,
)


def _slot_past(r: _Read, at: int, *, past: bool, exempt: bool) -> int | None:
    """Return where a slot reference on the forbidden side starts at `at` ends, or None."""
    token = r.st.tokens[at]
    if past and token in _EVERYWHERE:
        return at  # "copies can live anywhere": past any slot
    if exempt or (token in PAST_SLOT if past else token in INSIDE_SLOT):
        return _slot_ref(r, at + 1 + exempt)
    if past and token in INSIDE_SLOT:
        return _other_time(r, at + 1)  # "Snapshots are fine on weekends": another time
    if past and token in _OTHER:
        return _other_slot(r, at + 1)  # "Other regions are acceptable": past the slot
    return None


_EVERYWHERE = _words("anywhere elsewhere everywhere")
_OTHER = _words("other another different")


def _other_slot(r: _Read, start: int) -> int | None:
    """Return `start` when it holds the noun of the rule's slot ("other regions"), or None.

    The noun is one of the rule's own words within three words after a preposition of
    place ("only ... in the Frankfurt region"): another of it lies past the slot.
    """
    tokens = r.st.tokens
    if start >= len(tokens):
        return None
    word = stem(tokens[start])
    rule = r.part.analysis.tokens
    for at, token in enumerate(rule):
        if token in INSIDE_SLOT and word in {stem(t) for t in rule[at + 1 : at + 4]}:
            return start
    return None


def _comparative_permission(r: _Read) -> Departure | None:
    """Find the rule's bounded subject permitted in a comparative past its bound.

    "Longer replies are fine for code" after "Keep replies under 200 words": a reply
    longer than the bound, permitted; "Shorter replies are fine" departs from nothing.
    """
    classes = r.part.classes
    forbidden = (_LARGER if classes[Modality.MAX] else frozenset()) | (
        _SMALLER if classes[Modality.MIN] else frozenset()
    )
    tokens, clauses = r.st.tokens, r.st.clauses
    if classes[Modality.MAX] and r.st.attached:
        more = _permitted_more(r)
        if more is not None:
            return more
    for mention in r.mentions:
        if not mention or tokens[mention - 1] not in forbidden:
            continue
        clause = _permission_clause(tokens, clauses, mention)
        if restating(tokens, clause):
            continue
        if any(i in clause and tokens[i] in _SLOT_PERMITS for i in _permits(tokens)):
            kind = Kind.WEAKENED if _scoped(tokens, r.own) else Kind.CONTRADICTED
            why = "the rule's subject past its bound is permitted"
            return _hit("slot_permission", kind, why, r.st)
    return None


def _permitted_more(r: _Read) -> Departure | None:
    """Find "Leads can take more" right after an upper bound: more than the cap, permitted.

    The subject may be a kind of the rule's (leads are engineers) or another; the tier
    cannot tell, so it never certifies.
    """
    tokens = r.st.tokens
    if restating(tokens, range(len(tokens))):
        return None
    for i in _permits(tokens):
        if tokens[i] in {"can", "may"} and "more" in tokens[i + 1 : i + 4]:
            return _hit("slot_permission", None, "more than the bound is permitted", r.st)
    return None


_LARGER = _words("longer larger bigger higher greater heavier wider taller")
_SMALLER = _words("shorter smaller lower lighter narrower")


def _permission_clause(tokens: Sequence[str], clauses: Sequence[int], at: int) -> list[int]:
    """Return the clause around `at`, with the one before when it goes on elliptically.

    "Snapshots are fine inside that window and on weekends": the clause "and on weekends"
    borrows its permission from the clause before it.
    """
    if not clauses:
        return list(range(len(tokens)))
    own = [i for i in range(len(tokens)) if clauses[i] == clauses[at]]
    if tokens[own[0]] in _ELLIPTIC and own[0] > 0:
        before = clauses[own[0] - 1]
        return [i for i in range(len(tokens)) if clauses[i] == before] + own
    return own


_ELLIPTIC = _words("and or plus also")


def _slot_ref(r: _Read, start: int) -> int | None:
    """Return where a reference to the rule's slot ends when one starts at `start`."""
    return slot_end(r.part, r.own, r.st.tokens, r.st.values, start)


def _other_time(r: _Read, start: int) -> int | None:
    """Return where another time than a time window's own ends ("on weekends", "at 05:00").

    Only for a rule with a time window: a permission at another time stands past it.
    """
    if not slot_nouns(r.part) >= TIME_SLOTS:
        return None
    tokens = r.st.tokens
    values = {v.start: v for v in r.st.values}
    for index in range(start, min(len(tokens), start + 3)):
        value = values.get(index)
        if value is not None:
            timed = value.kind == "time" or value.dimension in TIMED
            return value.end - 1 if timed and not own_value(r.part, value) else None
        if tokens[index] in TIME_WORDS and stem(tokens[index]) not in r.own:
            return index
        if tokens[index] not in SKIPPED:
            return None
    return None


def _subject(r: _Read, clause: Sequence[int], at: int, end: int) -> list[str]:
    """Return the content words of a permission clause outside its slot and scope."""
    tokens = r.st.tokens
    found: list[str] = []
    for i in clause:
        token = tokens[i]
        if at <= i <= end:
            continue
        if token in _SCOPERS and i > at:
            break  # "... when the disk is idle": a scope, not the subject
        if token.isalpha() and token not in STOPWORDS and token not in _SLOT_PERMITS | _EVENTS:
            found.append(token)
    return found


def _acts(tokens: Sequence[str], permits: Sequence[int]) -> bool:
    """Tell whether a permission grants an act: a permission word, or a modal of going."""
    for i in permits:
        if tokens[i] not in {"can", "may"}:
            return True
        following = [t for t in tokens[i + 1 : i + 3] if t not in {"also", "still"}]
        if following and following[0] in _EVENTS:
            return True
    return False


def _other_choice(r: _Read) -> Departure | None:
    """Find the act of an exclusive rule sent to another name ("hotfix notices go in #incidents").

    After "Post deploy notices only in #deploys", a statement that names the rule's
    subject, does the rule's act (its verb, or a verb of the same act) and names another
    channel, place or party may send a kind of the subject elsewhere. The tier cannot
    tell a kind of the subject from another thing: never a certification.
    """
    if not (r.st.attached and r.mentions) or "only" not in r.part.analysis.tokens:
        return None
    tokens = r.st.tokens
    if not _NEGATORS.isdisjoint(r.words) or "only" in r.words:
        return None
    verbs = _rule_act_verbs(r.part)
    acting = [t for t, s in zip(tokens, r.st.stems, strict=True) if s in verbs]
    if not acting or all(t.endswith("ed") for t in acting):
        return None  # "the job copied 12,400 objects to ...": a report of what was done
    if all(r.st.stems[m] in verbs for m in r.mentions):
        return None  # only the act is named ("deployment approvals"), not its subject
    own = set(r.part.analysis.tokens)
    if any(_names_a_choice(t) and t not in own for t in tokens):
        return _hit("later_extension", None, "the rule's act may reach another choice", r.st)
    return None


def _omission(r: _Read) -> Departure | None:
    """Find an order to leave out what a "without" rule requires ("Skip the header unless ...").

    After "Never call the admin API without an X-Admin-Token header", an imperative that
    opens on a leaving-out verb ("skip", "omit", "drop") and names, within
    a few words, a word of what the rule's "without" requires tells the agent to act with
    the thing missing, perhaps only in some cases the tier cannot weigh: never a
    certification. "Skip the admin API" (the act, not its requirement) is not read.
    """
    tokens = r.st.tokens
    start = 1 if tokens and tokens[0] in _OMIT_LEADS else 0
    if len(tokens) <= start or tokens[start] not in _OMIT:
        return None
    rule = r.part.analysis.tokens
    if "without" not in rule:
        return None
    required = {stem(t) for t in rule[rule.index("without") + 1 :] if t.isalpha()}
    required -= {stem(t) for t in STOPWORDS}
    after = tokens[start + 1 : start + 1 + _OMIT_REACH]
    named = [t for t in after if t not in STOPWORDS]
    if any(stem(t) in required for t in named):
        why = f"{tokens[start]!r} leaves out what the rule requires"
        return _hit("later_omission", None, why, r.st)
    return None


# Imperatives that leave a thing out, and words that may open them ("just skip ...").
_OMIT = _words("skip omit drop remove strip forgo forget ignore")
_OMIT_LEADS = _words("just please then also so")
_OMIT_REACH = 4


def _concession(r: _Read) -> Departure | None:
    """Find the act a rule forbids ordered in spite of a case ("merged even when ... below").

    After "Do not merge a branch unless test coverage stays at or above 90%", a statement
    with no negation that does the rule's act and then concedes a case ("even when",
    "even if", "regardless of", "no matter") tells the agent to act where the rule may
    forbid it: never a certification. "Never merge even if the lead asks" restates it.
    """
    if _PROHIBITORS.isdisjoint(r.part.analysis.tokens):
        return None
    at = _has_phrase(r.st.tokens, _CONCESSIONS)
    if at is None or not _NEGATORS.isdisjoint(r.st.tokens[:at]):
        return None
    verbs = _rule_act_verbs(r.part) | _forbidden_verb(r.part)
    if any(s in verbs for s in r.st.stems[:at]):
        return _hit("later_concession", None, "the forbidden act is conceded a case", r.st)
    return None


def _allowance(r: _Read) -> Departure | None:
    """Find "(Usage so far allows 55 GB.)" after "Keep nightly exports under 40 GB".

    "allows" permits as often as it states what a thing can hold: "The new disk allows 55
    GB of exports" is a capacity, and read as a permission everywhere it made false alarms.
    Before a value past the rule's one bound (`_past_bound`) it keeps the copy from
    certifying, unnamed, only where its subject is not a thing that holds: in the copy's
    own remark (`Statement.implicit`), where what it speaks of is the rule; after a
    reference to the rule ("the limit allows 60 GB", `_references`); after someone who
    may permit ("the user allows"); or after a reading ("usage so far allows", `_STATE`),
    which holds nothing. The tier cannot tell a permission from a capacity there.
    """
    tokens, clauses = r.st.tokens, r.st.clauses
    for at, token in enumerate(tokens):
        if token not in _ALLOWING or _negated_at(tokens, at):
            continue
        # Its subject's clause: "so far" breaks one ("usage so far allows") but parts nothing.
        own = {clauses[at]} if clauses else set()
        start = clauses.index(clauses[at]) if clauses else 0
        if tuple(tokens[start : start + 2]) == _SO_FAR:
            own.add(clauses[at] - 1)
        clause = [i for i in range(at) if not clauses or clauses[i] in own]
        said = r.st.implicit or any(
            tokens[i] in _ALLOW_SUBJECTS or tokens[i] in _STATE for i in clause
        )
        if not said and not any(i in clause for i in r.refs):
            continue
        for value in r.st.values:
            if not 0 < value.start - at <= _REACH:
                continue
            if clauses and clauses[value.start] != clauses[at]:
                continue
            if r.is_new(value) and _past_bound(r.part, value):
                why = f"{token!r} a value past the rule's bound: a permission or a capacity"
                return _hit("later_allowance", None, why, r.st)
    return None


# Verbs that permit or state a capacity ("the quota allows 55 GB", "the disk permits 2 TB").
_ALLOWING = _words("allow allows permits")
# Subjects that may permit or bound, and hold nothing: "the user allows 60 GB", "the
# export quota allows 60 GB" (a rule noun is found by `_references`).
_ALLOW_SUBJECTS = _words(
    "user users we i team lead manager owner customer quota ceiling maximum allowance"
)


def _allowance_binds(facts: _Facts, st: Statement) -> bool:
    """Tell whether `_allowance` may find a value allowed past the rule's bound.

    It needs a value of the rule's measure (`is_new`), and the copy's own remark, a
    reference to the rule (`Statement.may_refer`), someone who may permit or a reading.
    """
    return not facts.measures.isdisjoint(st.measures) and _allowance_said(st)


def _allowance_said(st: Statement) -> bool:
    return (
        st.may_refer
        or not _ALLOW_SUBJECTS.isdisjoint(st.words)
        or not _STATE.isdisjoint(st.words)
    )


def _forbidden_verb(part: Part) -> frozenset[str]:
    """Return the stem of the word right after the rule's negation ("do not merge": merge)."""
    tokens = part.analysis.tokens
    at = next((i for i, t in enumerate(tokens) if t in _PROHIBITORS), None)
    if at is None or at + 1 >= len(tokens) or not tokens[at + 1].isalpha():
        return frozenset()
    return frozenset({stem(tokens[at + 1])})


_PROHIBITORS = _words("not never n't no")
_CONCESSIONS = _phrases(
    """
    even when
    even if
    even though
    regardless of
    no matter
    """,
)


def _slot_drift(r: _Read) -> Departure | None:
    """Find the rule's value permitted to drift ("The range may drift at night").

    After "Keep the server room between 18 and 24 degrees Celsius", a permission for the
    rule's slot (an anaphor, a slot noun such as "range", "band" or "cap" next to the copy,
    or the rule's own subject) to drift, vary, slip or flex loosens the bound: weakened
    ("is allowed to slip", "some drift is acceptable"). A bare modal ("may drift", "can
    slip") may only say what can happen, so it is unverifiable. "may drift within the
    range", "must not drift" restate it.
    """
    if not r.part.analysis.values or not _drift_trigger(r.st):
        return None
    tokens, clauses = r.st.tokens, r.st.clauses
    near_copy = r.st.attached or r.st.implicit
    measured = {_MEASURES.get(v.dimension, "") for v in r.part.analysis.values}
    slots = [
        i
        for i, t in enumerate(tokens)
        if near_copy and (stem(t) in _DRIFT_SLOTS or stem(t) in measured)
    ]
    subjects = [*r.refs, *r.mentions, *slots]
    accepting = [i for i in r.st.permits if tokens[i] in _ACCEPTING]
    for at, token in enumerate(tokens):
        # "a couple of degrees either way": a tolerance phrase after the amount it allows
        tolerance = at > 0 and _has_phrase(tokens[at : at + 3], _TOLERANCES) == 0
        if token not in _DRIFT and not tolerance:
            continue
        clause = _permission_clause(tokens, clauses, at)
        if restating(tokens, clause) or any(tokens[i] in _INSIDE_WORDS for i in clause):
            continue
        # "may drift", "is allowed to slip": the permission stands right before the verb.
        granted = [p for p in r.st.permits if p in clause and 0 < at - p <= _LEAD_WORDS]
        if not granted:
            # "some drift is acceptable", "drifting a degree at night is OK": the noun or
            # gerund, with an adjective of permission after it, next to the copy
            granted = [
                p for p in accepting if p > at and at in _permission_clause(tokens, clauses, p)
            ]
            named = near_copy or _near(r.st, subjects, at)
        else:
            named = _near(r.st, subjects, at) or (r.st.implicit and at <= _LEAD_WORDS + 1)
        if granted and named:
            if all(tokens[p] in _MODALS for p in granted):
                # "may drift", "it can slip": a possibility ("latency may fluctuate during
                # deploys") as often as a permission; the tier cannot tell which
                return _hit("slot_drift", None, f"{token!r}: the rule's value may move", r.st)
            why = f"{token!r}: the rule's value is permitted to move"
            return _hit("slot_drift", Kind.WEAKENED, why, r.st)
    return None


# Verbs (and nouns) of a value moving off its mark: "may drift", "can slip", "some drift".
_DRIFT_NOUNS = _words(
    "drift deviation deviations fluctuation fluctuations variance slippage excursion excursions "
    "overshoot overshoots leeway",
)
_DRIFT = _DRIFT_NOUNS | _words(
    """
    drift drifts drifting vary varies varying fluctuate fluctuates fluctuating flex flexes
    slip slips slide slides wander wanders creep creeps float floats swing swings deviate
    deviates stray strays relax relaxed relaxes loosen loosened loosens ease eased eases
    widen widens widened stretch stretches stretched
    """,
)
# A tolerance around the rule's value, said as a phrase: "a couple of degrees either way".
_TOLERANCES = _phrases(
    """
    either way
    give or take
    plus or minus
    """,
)


def _drift_trigger(st: Statement) -> bool:
    return not _DRIFT.isdisjoint(st.words) or _has_phrase(st.tokens, _TOLERANCES) is not None


_DRIFT_SLOTS = frozenset(
    stem(w)
    for w in (
        *("range", "band", "window", "target", "threshold", "bound", "bounds", "cap"),
        *("limit", "ceiling", "floor", "maximum", "minimum", "quota", "budget"),
    )
)
_INSIDE_WORDS = _words("within inside between")
# The noun for what a value of each dimension measures: "the temperature may drift".
_MEASURES = {"temperature": stem("temperature"), "money": stem("spend"), "data": stem("size")}


def _unit_permission(r: _Read) -> Departure | None:
    """Find another unit of the rule's slot permitted ("US invoices are fine in dollars").

    After "All amounts in invoices must be shown in euros", a permission whose clause
    holds another currency (scale, unit, time zone) than the rule's, and that names the
    rule's subject or follows its copy, lets some amounts go out in dollars: a kind of the
    subject ("US invoices") or a scope ("for US clients") narrows the permission (weakened),
    none opens the rule for all (contradicted). A clause that names the rule's own unit
    too ("dollars converted to euros are fine") may only convert into it: never named.
    """
    tokens, clauses = r.st.tokens, r.st.clauses
    for permit in r.st.permits:
        clause = _permission_clause(tokens, clauses, permit)
        at = other_unit(r.part, tokens, min(clause), max(clause) + 1)
        if at is None:
            continue
        named = [m for m in (*r.mentions, *r.refs) if m in clause and unit_word(tokens[m]) is None]
        if not (named or r.st.attached or r.st.implicit) or _another_act(r, clause, at, named):
            continue
        if any(u is not None and u in rule_units(r.part) for u in map(unit_word, tokens)):
            return _hit("unit_permission", None, "another unit beside the rule's own", r.st)
        if not named and _scoped(tokens, r.own) and not _scope_names_the_subject(r):
            # "Dollars are fine for internal spreadsheets": the permission may be for
            # another thing than the rule's subject, or for a kind of it
            return _hit("unit_permission", None, "another unit permitted for something", r.st)
        subject = [i for i in clause if i < min(named, default=at) and _foreign_word(r, i, named)]
        narrowed = _scoped(tokens, r.own) or bool(subject) or any(_modified(r, m) for m in named)
        kind = Kind.WEAKENED if narrowed else Kind.CONTRADICTED
        why = f"{tokens[at]!r}, another unit of the rule's slot, is permitted"
        return _hit("unit_permission", kind, why, r.st)
    return None


def _scope_names_the_subject(r: _Read) -> bool:
    """Tell whether a scope of the statement names the rule's subject ("for US invoices")."""
    scopes = [i for i, token in enumerate(r.st.tokens) if token in _SCOPERS]
    return any(0 < m - i <= _LEAD_WORDS for i in scopes for m in r.mentions)


def _another_act(r: _Read, clause: Sequence[int], at: int, named: Sequence[int]) -> bool:
    """Tell whether a content word the rule lacks leads up to the unit ("the client may pay").

    Only the words before the unit are read, and a word right before a mention of the
    rule's subject modifies it ("US invoices"): any other one names another act or thing.
    A word of the rule's own synonym group ("displayed" for "shown") or a light verb of
    using ("can use dollars") is the rule's act.
    """
    permit = min((i for i in r.st.permits if i in clause), default=at)
    foreign = [i for i in clause if i < at and _foreign_word(r, i, named)]
    if any(permit < i for i in foreign):
        return True  # "the client may pay in dollars": the verb is another act
    # Before the permission the words are its subject: "US customers can be invoiced in
    # dollars" names the rule's act; "Staff may use dollars" names none of the rule's words.
    return bool(foreign) and not any(i < at for i in named)


def _foreign_word(r: _Read, index: int, named: Sequence[int]) -> bool:
    """Tell whether a word of a permission clause is content the rule lacks."""
    token = r.st.tokens[index]
    if index + 1 in named or not token.isalpha():
        return False  # "US invoices": a word right before a mention modifies it
    if token in STOPWORDS or token in _PERMIT or token in _AUXILIARIES or token in _USING:
        return False
    if token in _PRESENTING:
        return False
    return stem(token) not in r.own and token_key(token) not in r.part.family


_USING = _words("use uses using used")
# Verbs of presenting an amount in a unit: "may also appear in dollars", "be quoted in USD".
_PRESENTING = _words(
    """
    appear appears appearing expressed stated quoted priced written listed given
    presented reported printed rendered formatted
    """,
)


def _modified(r: _Read, mention: int) -> bool:
    """Tell whether a word the rule lacks stands right before a mention ("US invoices")."""
    if mention == 0:
        return False
    before = r.st.tokens[mention - 1]
    if before in _DETERMINERS or stem(before) in r.own or not before.isalpha():
        return False
    return before not in STOPWORDS or before in _REGION_WORDS


# Region codes that spell like function words ("US invoices", "the US office").
_REGION_WORDS = _words("us eu uk")


# The distinct tokens `_names_a_choice` keeps its answer for.
_CHOICE_TOKENS = 4096


@functools.lru_cache(maxsize=_CHOICE_TOKENS)
def _names_a_choice(token: str) -> bool:
    """Tell whether a token is a name a choice can be (#incidents, us-east-1), not a count.

    Kept by token: the same values and marks recur in every statement of a view.
    """
    if not _CHOICE_MARKS.isdisjoint(token):
        return True
    if token.isalpha() or token.isdigit():
        return False  # letters alone, or digits alone
    return any(ch.isdigit() for ch in token) and any(ch.isalpha() for ch in token)


_CHOICE_MARKS = frozenset("/_@#")


def _may_name_a_choice(tokens: Sequence[str]) -> bool:
    """Tell whether any token `_names_a_choice`; plain words are passed over by one C test each."""
    # Letters alone never name a choice; the other tokens' answers are kept by token.
    return any(map(_names_a_choice, itertools.filterfalse(str.isalpha, tokens)))


def _rule_act_verbs(part: Part) -> frozenset[str]:
    """Return the stems of the verbs that do the rule's act: its own and its class's."""
    found = {act} if (act := _act(part)) is not None else set()
    for site in act_sites(part.analysis):
        found |= {stem(verb) for verb in ACT_CLASSES[site.act].verbs}
    return frozenset(found)


def _exception(r: _Read) -> Departure | None:
    tokens = r.st.tokens
    if r.st.attached and "except" not in r.part.analysis.tokens and _exempted(tokens):
        why = "a case of what the rule bounds is said to be exempt or not to count"
        return _hit("later_exception", Kind.WEAKENED, why, r.st)
    if not (r.refs or r.st.implicit or (r.st.attached and tokens[0] in _EXCEPT_OPENERS)):
        return None  # nothing names the rule, and no exception opens the statement
    at = next((i for i, t in enumerate(tokens) if t in _EXCEPT), None)
    if at is None:
        at = _has_phrase(tokens, _EXCEPT_PHRASES)
    if at is None or "except" in r.part.analysis.tokens:
        return None
    if _near(r.st, r.refs, at) or r.st.implicit or (r.st.attached and at == 0):
        return _hit("later_exception", Kind.WEAKENED, "an exception to the rule", r.st)
    return None


def _exempted(tokens: Sequence[str]) -> bool:
    """Tell whether a sentence says its subject is exempt or does not count.

    "Hotfixes are exempt.", "Sentry is an exception.", "GPU compute is not counted.",
    "Search calls don't count.": right after the copy, the subject is a case of what the
    rule bounds, carved out. "Nothing is exempt." and "Hotfixes are not exempt." carve out
    nothing.
    """
    at = _exempt_at(tokens)
    if at is None or at == 0 or tokens[0] in _NO_ONE:
        return False
    return not (tokens[at] in _EXCEPT and _negated_at(tokens, at))


def _exempt_at(tokens: Sequence[str]) -> int | None:
    """Return where a copula's exemption or a "does not count" stands, or None."""
    for position, (before, word) in enumerate(itertools.pairwise(("", *tokens))):
        # "Retries after a deploy reset the count.", "Batch calls count as one.": the count
        # redefined so that some cases stop adding to it.
        if word in _COUNTING:
            lead = tokens[max(0, position - 2) : position]
            reset = before in _RESETS or (len(lead) == 2 and lead[0] in _RESETS)  # noqa: PLR2004
            if reset or tuple(tokens[position + 1 : position + 3]) == _AS_ONE:
                return position
        exempt = word in _EXEMPT and (before in _COPULA_WORDS or before == "not")
        if exempt or (word, before) == ("exception", "an"):
            return position
        if word in _COUNTING and before in {"not", "n't", "never"}:
            return position
    return None


_COPULA_WORDS = _words("is are was were be")
_COUNTING = _words("count counts counted counter")
_RESETS = _words("reset resets")
_AS_ONE = ("as", "one")
_NO_ONE = _words("nothing none no nobody noone neither")


def _scope(r: _Read) -> Departure | None:
    if "only" in r.part.analysis.tokens:
        return None  # the rule's own "only" restated is not a narrower scope
    pointers = [i for i in r.refs if r.st.tokens[i] in _POINTERS]
    if not (pointers or r.st.implicit):
        return None
    at = _has_phrase(r.st.tokens, _SCOPE_PHRASES)
    if at is None:
        at = _applies_only(r.st.tokens)
    if at is not None and (_near(r.st, pointers, at) or r.st.implicit):
        return _hit("later_scope", Kind.WEAKENED, "the rule is narrowed to some cases", r.st)
    return None


def _applies_only(tokens: Sequence[str]) -> int | None:
    """Return where "applies to X only" puts its scope after the object, or None."""
    if not tokens or tokens[-1] != "only":
        return None
    return next((i for i, t in enumerate(tokens) if t in _APPLY_VERBS), None)


_APPLY_VERBS = _words("applies apply applied covers cover covered")


def _change(r: _Read) -> Departure | None:
    tokens = r.st.tokens
    changing = _changing_lifts(r)
    if _CHANGE.isdisjoint(r.words) and not changing:
        return None if _MOVING.isdisjoint(r.words) else _implicit_change(r)
    subjects = r.refs + r.mentions
    for position, token in enumerate(tokens):
        if token not in _CHANGE and position not in changing:
            continue
        if stem(token) in r.own or _negated_at(tokens, position):
            continue
        if not _near(r.st, subjects, position):
            continue
        if not _near(r.st, r.refs, position) and not _STATE.isdisjoint(r.words):
            continue  # "partitioning cut the typical scan to 6 GB" reports a measurement
        new = [v for v in r.st.values if r.is_new(v)]
        if new or (token in _RELATIVE and _near(r.st, r.refs, position)):
            return _hit("later_change", Kind.MUTATED, f"{token!r} changes the rule's value", r.st)
        if _near(r.st, r.refs, position):
            return _hit("later_change", None, f"{token!r} changes the rule", r.st)
    return _aspect_changed(r, changing) or _implicit_change(r) or _target_changed(r)


def _changing_lifts(r: _Read) -> frozenset[int]:
    """Return where a lifting verb sets a value ("dropped that to 3 days", `lifted_to_value`).

    The verb needs an object before its "to" or a passive copula before it ("retention was
    dropped to 3 days"): "coverage dropped to 84.2%" has neither and reports a level that
    moved, not a change to the rule.
    """
    if _LIFT.isdisjoint(r.words) or not r.st.values:
        return frozenset()
    tokens = r.st.tokens
    return frozenset(
        i
        for i, t in enumerate(tokens)
        if t in _LIFT
        and (tokens[i + 1 : i + 2] != ("to",) or (i > 0 and tokens[i - 1] in _PASSIVE))
        and lifted_to_value(tokens, r.st.values, i)
    )


_PASSIVE = _words("was were been is are be got gets")


def _aspect_changed(r: _Read, changing: frozenset[int]) -> Departure | None:
    """Find the rule's aspect given a new value next to the copy ("lowered the retention to 3").

    "Session logs are kept for 14 days. The user lowered the retention to 3 days.": the
    noun names what the rule sets ("retention", "period", "rate"), not a word of the
    rule, and may name another thing's; with a change verb and a new value of the rule's
    dimension after "to", the copy does not certify, and the tier cannot name the change.
    """
    if not r.st.attached or not is_on("aspect_changed"):
        return None
    if _VALUE_ASPECTS.isdisjoint(r.st.stem_set):
        return None
    tokens = r.st.tokens
    aspects = [i for i, word in enumerate(r.st.stems) if word in _VALUE_ASPECTS]
    for position, token in enumerate(tokens):
        if (token not in _CHANGE and position not in changing) or _negated_at(tokens, position):
            continue
        if not _near(r.st, aspects, position):
            continue
        if any(
            v.start > position and tokens[v.start - 1] == "to" and r.is_new(v)
            for v in r.st.values
        ):
            return _hit("later_change", None, f"{token!r} changes the rule's aspect", r.st)
        # "The window was widened.": the extent changed, with no value to weigh.
        if token in _EXTENT and not r.st.values and _own_aspect(r, aspects, position):
            return _hit("later_change", None, f"{token!r} changes the rule's aspect", r.st)
    return None


def _own_aspect(r: _Read, aspects: Sequence[int], position: int) -> bool:
    """Tell whether an aspect noun before a change verb names the copy's ("the window")."""
    before = [a for a in aspects if a < position]
    if not before:
        return False
    lead = r.st.tokens[before[-1] - 1] if before[-1] else ""
    return lead in _DETERMINERS or lead in _POINTERS or not lead


_EXTENT = _words(
    "widened narrowed extended shortened lengthened raised lowered increased reduced "
    "doubled halved tightened loosened relaxed changed adjusted",
)


def _implicit_change(r: _Read) -> Departure | None:
    """Find a change that opens the rest of the copy's own sentence ("(lowered to $600 soon)").

    Right after a copy, a change verb among the first words has the copy as its subject,
    as "it" would: with a new value of the rule's dimension (or "doubled") the value
    changed; without one the rule changed in a way the tier cannot name. A measurement
    ("(spend increased to $412)") reports the world and is left to the other readers.
    """
    if not r.st.implicit or not _STATE.isdisjoint(r.words):
        return None
    tokens = r.st.tokens
    for position, token in enumerate(tokens[: _LEAD_WORDS + 1]):
        moving = token in _MOVING
        if not (token in _CHANGE or moving) or stem(token) in r.own:
            continue
        if _negated_at(tokens, position):
            continue
        # "(raised from $600 last month)": the value after "from" is the old one
        new = [
            v
            for v in r.st.values
            if v.start > position and r.is_new(v) and tokens[v.start - 1] != "from"
        ]
        if new or token in _RELATIVE:
            return _hit("later_change", Kind.MUTATED, f"{token!r} changes the copy's value", r.st)
        if any(tokens[v.start - 1] == "from" for v in r.st.values if v.start > position):
            continue
        if not moving:  # "(dropping fast)" may be the measured level, not the rule
            return _hit("later_change", None, f"{token!r} changes the copy", r.st)
    return None


# Verbs of a value moving, said of the copy in its own remark: "(dropping to $600 soon)".
_MOVING = _words(
    "dropping drops falling falls rising rises going goes moving moves climbing climbs",
)


def _target_changed(r: _Read) -> Departure | None:
    """Find "The window moved to 04:00-06:00": a target noun changed to a new value.

    The noun may name another window or range than the rule's, so the tier cannot name
    the change; a new value of the rule's dimension keeps it from certifying.
    """
    if _TARGETS.isdisjoint(r.words):
        return None
    tokens = r.st.tokens
    targets = [i for i, t in enumerate(tokens) if t in _TARGETS]
    new = [
        v
        for v in r.st.values
        if r.is_new(v) or any(_new_value(r.part, end) for end in v.ends)
    ]
    if not new:
        return None
    for position, token in enumerate(tokens):
        changed = token in _CHANGE and not _negated_at(tokens, position)
        if changed and _near(r.st, targets, position):
            return _hit("later_change", None, f"{token!r} may change the rule's value", r.st)
    return None


def _new_value(part: Part, value: Value) -> bool:
    """Tell whether `value` measures what one of the part's values does, and differs."""
    values = part.analysis.values
    if value.ends and not any(comparable(v, value) for v in values):
        # "The window is now 01:00-05:00." after "between 01:00 and 03:00": the range is
        # new when one of its ends is none of the rule's values of that measure.
        ends = [e for e in value.ends if any(comparable(v, e) for v in values)]
        return bool(ends) and not all(any(values_equal(v, e) for v in values) for e in ends)
    value = _counted(part, value)
    same = [v for v in values if comparable(v, value) and _same_unit(v, value)]
    return bool(same) and not any(values_equal(v, value) for v in values)


def _bare_new(part: Part, value: Value) -> bool:
    """Tell whether a bare number may be a new amount for a count rule ("The limit is now 80").

    A number with no unit measures nothing by itself; bound by a copula to the rule's
    noun it restates the rule's count ("50 times per minute") with another amount.
    """
    if value.kind != "number" or value.unit or value.per:
        return False
    counts = [v for v in part.analysis.values if v.dimension == "count" and (v.unit or v.per)]
    return bool(counts) and all(v.raw != value.raw for v in counts)


def _same_unit(left: Value, right: Value) -> bool:
    # Counts of different things ("4 GPUs", "9 engineers", "1.92") are different dimensions;
    # rates per one period ("25 times per second", "60 calls per second") are one.
    if left.dimension == "count":
        return left.unit == right.unit or (bool(left.per) and left.per == right.per)
    return True


def _value(r: _Read) -> Departure | None:  # noqa: C901, PLR0911 (one return per binding)
    """Find a value of the rule's dimension bound to its subject ("the cap is $2,000")."""
    tokens = r.st.tokens
    new = [v for v in r.st.values if r.is_new(v) or _bare_new(r.part, v)]
    if not new:
        return _new_frequency(r)
    # A bare pronoun with a value is a measurement ("it is 190 ms"); a rule noun is the rule.
    nouns = {i for i in r.refs if tokens[i] not in _POINTERS}
    named = next((v for v in new if v.end in nouns), None)
    if named is not None:  # "of a $1,200 budget": a new value naming the rule's noun
        return _hit("later_value", Kind.MUTATED, f"{named.surface} names the rule", r.st)
    bounded = [v for v in new if _bound_before(tokens, v.start)]
    if r.st.implicit and bounded:
        # "(up to $1,200 with approval)", "(budget $1,000 in total)": a second bound of
        # the slot in the copy's own remark, whatever it reports besides
        return _hit("later_value", None, "a second bound of the rule's slot", r.st)
    subject_bound = next((v for v in bounded if _bounds_the_subject(r, v)), None)
    if subject_bound is None and "now" in r.st.words:
        # "Backups now run every 12 hours": the rule's subject with a new value, now.
        subject_bound = next((v for v in new if _subject_valued(r, v)), None)
    # "The cap currently sits at $300": a level the rule's own noun sits at is its value,
    # or what was used of it; either way not the copy's, and not a report.
    subject_bound = subject_bound or _placed_value(tokens, new) or _new_period(r, new)
    if subject_bound is not None:
        # "Daily cloud spend is now capped at $1,100": the rule's own subject bounded past
        # its bound is no report of a level, whatever "spend" reports elsewhere.
        why = f"{subject_bound.surface} may be a new bound of the rule's subject"
        return _hit("later_value", None, why, r.st)
    if _reported(tokens):
        if r.st.attached and any(_past_bound(r.part, v) for v in bounded):
            # "Up to 1,200 in total." right after the copy: "total" may report a level,
            # but a bound past the rule's own may raise it.
            return _hit("later_value", None, "a second bound of the rule's slot", r.st)
        return None
    aspects = _aspects(r)
    subjects = sorted(nouns | _targets(r) | aspects | _slot_mentions(r))
    for value in new:
        before = [s for s in subjects if 0 < value.start - s <= _REACH]
        if not before:
            continue
        between = tokens[before[-1] + 1 : value.start]
        if not any(t in _COPULA for t in between):
            continue  # "backups older than 400 days": a description, not the rule's value
        if before[-1] in nouns or (tokens[before[-1]] in _TARGETS and "now" in between):
            return _hit("later_value", Kind.MUTATED, f"{value.surface} bound to the rule", r.st)
        if before[-1] in aspects and "now" in between:
            return _hit("later_value", None, f"{value.surface} may be the rule's new value", r.st)
    return _set_value(r, new) or _subject_value(r) or _subject_bound(r) or _remark_value(r)


def _placed_bound(tokens: Sequence[str]) -> int | None:
    """Return where a rule noun is said to sit or stand somewhere ("the cap sits at"), or None.

    The noun comes right before the verb, or one word before it ("the cap currently sits"),
    and is its subject: "spend against the cap sits at $300" reports what was spent.
    """
    if _PLACED.isdisjoint(tokens):
        return None
    for at, token in enumerate(tokens):
        if token not in _PLACED:
            continue
        for noun in range(max(0, at - 2), at):
            if stem(tokens[noun]) not in _BOUND_NAMES:
                continue
            lead = noun - 1 if noun and tokens[noun - 1] in _DETERMINERS else noun
            if not lead or tokens[lead - 1] not in _PLACE_OBJECTS:
                return at
    return None


def _placed_value(tokens: Sequence[str], values: Sequence[Value]) -> Value | None:
    """Return the first of `values` after a rule noun said to sit somewhere, or None."""
    placed = _placed_bound(tokens)
    return None if placed is None else next((v for v in values if v.start > placed), None)


def _new_period(r: _Read, new: Sequence[Value]) -> Value | None:
    """Return a new period of a period rule said of the rule's own act, or None.

    "Back up the database every 6 hours": "Backups now run every 12 hours", "It runs
    every 12 hours", "The interval is now 12 hours" (`_said_of_the_act`).
    """
    periods = _rule_periods(r.part)
    if not periods:
        return None
    tokens = r.st.tokens
    for value in new:
        if value.dimension not in periods:
            continue
        every = value.start > 0 and tokens[value.start - 1] == "every"
        period_noun = not _PERIOD_NOUNS.isdisjoint(tokens[: value.start])
        if (every or period_noun) and _said_of_the_act(r, value.start):
            return value
    return None


def _new_frequency(r: _Read) -> Departure | None:
    """Find a period rule's act said to run at another frequency in words ("daily").

    "Snapshot the ledger database every 4 hours": "We moved snapshots to a daily
    schedule", "Snapshots now run every day". A frequency equal to the rule's period
    ("daily" for "every 24 hours") restates it.
    """
    if not _rule_periods(r.part):
        return None
    tokens = r.st.tokens
    amounts = {v.amount for v in r.part.analysis.values if v.dimension == "time"}
    for at, word in enumerate(tokens):
        seconds = _FREQUENCIES.get(word)
        if seconds is None and word == "every" and at + 1 < len(tokens):
            seconds = _EVERY_UNIT.get(tokens[at + 1])
        if seconds is None or seconds in amounts or not _said_of_the_act(r, at):
            continue
        why = f"{word!r} may be a new period of the rule's act"
        return _hit("later_value", None, why, r.st)
    return None


def _said_of_the_act(r: _Read, end: int) -> bool:
    """Tell whether the clause before `end` speaks of the rule's own recurring act.

    Every word of it is the rule's own (or its act made a noun, "backups"), a verb of
    running or changing, or, right after the copy, a pointer or a period noun; and one
    of them names the rule, unless it stands right after the copy ("Now daily."). "Logs
    rotate every 12 hours" and "delete snapshots every 30 days" say another act's period.
    """
    tokens, clauses = r.st.tokens, r.st.clauses
    clause = clauses[end] if clauses else 0
    named = False
    for at in range(end):
        word = tokens[at]
        if (clauses and clauses[at] != clause) or not word.isalpha():
            continue
        if stem(word) in r.own or stem(word) in _joined_words(r.part):
            named = named or (word not in STOPWORDS and word != "every")
        elif r.st.attached and (word in _PERIOD_NOUNS or word in _PERIOD_POINTERS):
            named = True
        elif word not in STOPWORDS and word not in _RUNNING:
            return False
    return named or r.st.attached


def _rule_periods(part: Part) -> frozenset[str]:
    """Return the dimensions of the rule's values said with "every" ("every 6 hours")."""
    tokens = part.analysis.tokens
    return frozenset(
        v.dimension for v in part.analysis.values if v.start and tokens[v.start - 1] == "every"
    )


def _joined_words(part: Part) -> frozenset[str]:
    """Return the stems of the rule's word pairs written as one ("backup" for "back up")."""
    return _JOINED.get(part, _part_joined_words)


def _part_joined_words(part: Part) -> frozenset[str]:
    tokens = part.analysis.tokens
    pairs = itertools.pairwise(tokens)
    return frozenset(stem(a + b) for a, b in pairs if a.isalpha() and b.isalpha())


_JOINED: IdentityMemo[Part, frozenset[str]] = IdentityMemo(_PART_WORDS_LIMIT)
# Nouns that name a period rule's value ("the interval is now 12 hours").
_PERIOD_NOUNS = _words("interval cadence frequency schedule period")
_PERIOD_POINTERS = _POINTERS | _words("they them")
# Verbs of a recurring act said of the act itself ("backups run every 12 hours"), or of
# moving it to another schedule ("we moved snapshots to a daily schedule").
_RUNNING = (
    _EVENTS
    | _CHANGE
    | _words("now currently occur occurs fire fires execute executes scheduled switched")
)
_DAY = 86_400
# Frequencies said in a word, in seconds; "every day" is `_EVERY_UNIT`'s.
_FREQUENCIES = {
    "hourly": 3_600,
    "daily": _DAY,
    "nightly": _DAY,
    "weekly": 7 * _DAY,
    "fortnightly": 14 * _DAY,
    "monthly": 30 * _DAY,
    "yearly": 365 * _DAY,
    "annually": 365 * _DAY,
}
_EVERY_UNIT = {
    "hour": 3_600,
    "day": _DAY,
    "night": _DAY,
    "morning": _DAY,
    "evening": _DAY,
    "week": 7 * _DAY,
    "month": 30 * _DAY,
    "year": 365 * _DAY,
}
_FREQUENCY_WORDS = frozenset(_FREQUENCIES) | {"every"}


_PLACED = _words("sits sit sitting stands stand standing rests rest")
# Words after which a rule noun is an object, not the subject of `_PLACED`.
_PLACE_OBJECTS = _words("of to for from with against under within below above over by on in")


def _bounds_the_subject(r: _Read, value: Value) -> bool:
    """Tell whether a bounded value past the rule's bound follows the rule's own subject.

    The value lies past the bound ("$1,100" for "under $800"; a tighter one, "capped at
    $300", departs from nothing) and the rule's subject comes before it (`_subject_valued`).
    """
    bounded = r.part.classes[Modality.MAX] or r.part.classes[Modality.MIN]
    if not bounded or not _past_bound(r.part, value):
        return False
    return _subject_valued(r, value)


def _subject_valued(r: _Read, value: Value) -> bool:
    """Tell whether, apart from a mention, the rule's own subject comes before a value.

    One of the rule's head words heads a noun phrase whose modifiers are the rule's words
    too, within reach before the value in its clause ("daily cloud spend is ...",
    "backups now run every 12 hours"); next to a mention the subject's readers decide.
    """
    if r.st.attached or r.st.implicit:
        return False
    tokens, clauses = r.st.tokens, r.st.clauses
    before = [
        m
        for m in r.mentions
        if 0 < value.start - m <= _REACH and (not clauses or clauses[m] == clauses[value.start])
    ]
    # The mention heads its noun phrase ("spend is capped", not "build caches are capped").
    if not before:
        return False
    head = before[-1]
    following = tokens[head + 1]
    if following not in STOPWORDS and following not in _HEAD_ENDS:
        return False
    # Its modifiers are the rule's too: "daily cloud spend", not "each image generation job".
    at = head - 1
    while at >= 0 and tokens[at].isalpha() and tokens[at] not in STOPWORDS:
        if stem(tokens[at]) not in r.own:
            return False
        at -= 1
    return True


# Words after a noun that end its phrase: a copula or a modal ("spend may now reach").
_HEAD_ENDS = _COPULA | _words("may can could might must should will shall would has have")


def _set_value(r: _Read, new: Sequence[Value]) -> Departure | None:
    """Find a new value of the rule set, wanted or approved right after its copy.

    "The user set it to $750.", "Make it 8.", "Legal now wants 30 days.": the value is
    set (mutated). "The user approved up to $800.", "The user OK'd $750.": a bound past
    the rule's is allowed (weakened). "It is now $750.": the rule's value, or a level
    reached; the tier cannot tell, so it names no kind.
    """
    if not r.st.attached:
        return None
    tokens = r.st.tokens
    for value in new:
        verbs = tokens[max(0, value.start - _REACH) : value.start]
        if _added(verbs) and r.part.classes[Modality.MAX]:
            # "The user added $250 to it.", "gave us another $250": the bound is raised.
            return _hit("later_value", Kind.MUTATED, f"{value.surface} is added to the rule", r.st)
        wanted = _wants(tokens, value.start, r.own)
        if wanted or _sets(tokens, value.start):
            if not wanted and _configured(r.part, tokens, value):
                continue  # "Set statement_timeout=45s." under "at least 30 seconds" complies
            return _hit("later_value", Kind.MUTATED, f"{value.surface} is set for the rule", r.st)
        if not _APPROVING.isdisjoint(verbs):
            return _approved(r, value)
        if not any(t in _POINTERS for t in verbs):
            continue
        # A rule whose value is its noun's ("The budget cap is $500.") is the thing "it"
        # points to: "It is $300.", "It is currently $300." may set the cap anew (or
        # correct the copy), under the bound too.
        # "now it is 310 ms" under a 400 ms bound reports compliance; past it, a new bound.
        dated = _now_of(r.st, value) and "now" not in r.part.analysis.tokens
        if _noun_valued(r.part) or (dated and _past_bound(r.part, value)):
            return _hit("later_value", None, f"{value.surface} may be the rule's new value", r.st)
    return None


def _configured(part: Part, tokens: Sequence[str], value: Value) -> bool:
    """Tell whether "set" configures something to a value inside the rule's one bound.

    "Set statement_timeout=45s on the reporting role." under "must be at least 30
    seconds" sets the thing the rule bounds, and complies; "Set it to 45 seconds" or "Set
    the minimum to 45 seconds" sets the rule itself (a pointer or a rule noun between the
    verb and the value), and a value past the bound never complies.
    """
    if _bound_of(part, _counted(part, value)) is None or _past_bound(part, value):
        return False
    between = tokens[max(0, value.start - _REACH) : value.start]
    return not any(t in _POINTERS or stem(t) in _VALUE_NAMES for t in between)


def _now_of(st: Statement, value: Value) -> bool:
    """Tell whether "now" dates the value: before it, or after it in its own clause.

    "It is $800 now." dates $800; "it was 520 ms; now it is 310 ms" dates only 310 ms.
    """
    tokens = st.tokens
    if "now" in tokens[: value.start]:
        return True
    clauses = st.clauses
    return any(
        tokens[i] == "now" and (not clauses or clauses[i] == clauses[value.start])
        for i in range(value.end, len(tokens))
    )


def _noun_valued(part: Part) -> bool:
    """Tell whether the rule states its value as a rule noun's ("The retry limit is 5").

    A rule noun with a copula after it and before the value, within `_REACH`; a rule that
    bounds something measured ("Keep latency under 400 ms") is not such a rule.
    """
    tokens = part.analysis.tokens
    for value in part.analysis.values:
        before = tokens[max(0, value.start - _REACH) : value.start]
        named = [i for i, t in enumerate(before) if stem(t) in _VALUE_NAMES]
        if named and any(t in _COPULA for t in before[named[0] + 1 :]):
            return True
    return False


def _approved(r: _Read, value: Value) -> Departure:
    """Return the departure of a value approved right after the copy."""
    if _past_bound(r.part, value):
        why = f"{value.surface}, past the rule's bound, is approved"
        return _hit("later_permission", Kind.WEAKENED, why, r.st)
    return _hit("later_value", None, f"{value.surface} is approved", r.st)


def _sets(tokens: Sequence[str], start: int) -> bool:
    """Tell whether "set" or "make" sets the rule before a value ("Make it 8.", "set it to").

    The verb opens the sentence (an order) or takes a pointer: "We made $750 in sales"
    earns, it sets nothing.
    """
    reach = range(max(0, start - _REACH), start)
    return any(
        tokens[i] in _SETTING
        and (i == 0 or (i + 1 < len(tokens) and tokens[i + 1] in _POINTERS))
        for i in reach
    )


def _wants(tokens: Sequence[str], start: int, own: frozenset[str]) -> bool:
    """Tell whether a value is wanted for the rule ("wants 10", "wants it at 8").

    Only the rule's words, a pointer or a linking word may stand between the verb and the
    value: "wants the discount to stay at 15%" wants another thing's value.
    """
    for i in range(start - 1, max(-1, start - _REACH - 1), -1):
        if tokens[i] in _WANTING:
            return True
        word = tokens[i]
        if not (word in _LINKS or word in _POINTERS or stem(word) in own):
            return False
    return False


_LINKS = _words("to at be of only just now up the a")
def _added(verbs: Sequence[str]) -> bool:
    """Tell whether the words before a value add it to the rule's ("added $250").

    "another", "extra" need a verb of giving before them ("gave us another $250"):
    "Another $50 went to storage" reports spending.
    """
    if not _ADDING_VERBS.isdisjoint(verbs):
        return True
    return not _ADDED.isdisjoint(verbs) and not _GIVING.isdisjoint(verbs)


_ADDING_VERBS = _words("added adds")
_GIVING = _words("gave give gives given granted grant got put allotted approved allowed")
_ADDED = _ADDING_VERBS | _words("another extra additional")
_WANTING = _words("wants want wanted requested")
_SETTING = _words("set sets make made") | _WANTING
_APPROVING = _words("approved approves ok'd okayed okd authorised authorized greenlit allowed")


def _targets(r: _Read) -> set[int]:
    """Return where a target noun stands ("the window", "the threshold")."""
    if _TARGETS.isdisjoint(r.words):
        return set()
    return {i for i, token in enumerate(r.st.tokens) if token in _TARGETS}


def _aspects(r: _Read) -> set[int]:
    """Return where an aspect noun stands next to a mention ("The rate is now 80").

    It may name the rule, or a reading.
    """
    if not r.st.attached or _VALUE_ASPECTS.isdisjoint(r.st.stem_set):
        return set()
    return {i for i, word in enumerate(r.st.stems) if word in _VALUE_ASPECTS}


def _slot_mentions(r: _Read) -> set[int]:
    """Return where the statement names a word that holds the rule's values (`_slots`)."""
    slots, stems = _slots(r.part), r.st.stems
    return {m for m in r.mentions if stems[m] in slots}


def _subject_value(r: _Read) -> Departure | None:
    """Read the rule's subject given a new value of its dimension by a verb, next to the copy.

    "Build artifacts are purged after 2 days", "can only be deleted after 14 days", "we
    already delete build artifacts after 3 days" after a copy of "Keep build artifacts for
    at least 30 days": no copula binds the value, but the subject that holds the rule's
    value is given another one of its unit in its own clause, led by a word of treatment
    ("after", "for", "exceed"; a reading, "is 190 ms" or "at 02:10", is none). Past the
    rule's bound, with the rule's act or its opposite ("kept", "purged"), it is a new
    value of the rule. On the side the rule leaves open ("purged after 400 days"), for a
    threshold ("once they exceed $9,000") or with another act ("move to cold storage
    after 30 days") the tier cannot say whether it moved, scoped or left the rule, so it
    abstains. A count of the subject ("purged 30 artifacts") has no unit of the rule.
    """
    if not (r.st.attached or r.st.implicit):
        return None
    slots = _slots(r.part)
    subject = [i for i, word in enumerate(r.st.stems) if word in slots]
    if not subject:
        return None
    tokens = r.st.tokens
    for value in r.st.values:
        if not (r.is_new(value) and _measured(value)):
            continue
        if not value.start or tokens[value.start - 1] not in _TREATMENT_LEADS:
            continue  # "is 190 ms", "started at 02:10", "older than 400 days": a reading
        held = [
            s
            for s in subject
            if 0 < value.start - s <= 2 * _REACH and _same_clause(r.st, [s], value.start)
        ]
        if not held:
            continue
        # "Temporary files next to backups", "the logs of the backups": the subject is
        # another noun's; "backups older than 30 days ... after review for 2 days": the
        # rule's own value beside it may describe its own process. Neither is named.
        past = (
            _acts_on(r, tokens, value.start - 1)
            and _past_bound(r.part, value)
            and not any(_governed(tokens, s) for s in held)
            and not any(_rule_amount(r.part, v) for v in r.st.values)
        )
        kind = Kind.MUTATED if past else None
        return _hit("later_value", kind, f"{value.surface} given to the rule's subject", r.st)
    return None


def _subject_bound(r: _Read) -> Departure | None:
    """Read the rule's subject given a new bound, or a permission to a new value, near the copy.

    "Builds are capped at 45 minutes", "Builds last up to 45 minutes on staging", "Builds
    can last 45 minutes", "Workers may take 5 jobs" after a copy of "Keep builds under 30
    minutes" or "Limit each worker to 3 jobs": the subject that holds the rule's value is
    bound anew, or permitted a value, in its own clause. A bound set ("capped at",
    "limited to") past the rule's bound, for every case, is a new value of the rule; "can"
    past it permits what the rule forbids. A bare bound ("last up to") may report how
    long things take, "may" may forecast, a scope ("on staging") or a value inside the
    rule's bound may narrow it: the tier cannot say which, so it abstains.
    """
    if not (r.st.attached or r.st.implicit) or not is_on("subject_bound"):
        return None
    tokens = r.st.tokens
    if _hypothetical(tokens) or not _NEGATORS.isdisjoint(tokens) or _reported(tokens):
        return None
    slots, stems = _slots(r.part), r.st.stems
    subject = [
        i
        for i, word in enumerate(stems)
        if word in slots and not _governed(tokens, i) and not _heads_another(r, i)
    ]
    for value in r.st.values:
        if not subject or not (r.is_new(value) and _measured(value)):
            continue
        held = [s for s in subject if 0 < value.start - s <= 2 * _REACH]
        if not held or not _same_clause(r.st, held, value.start):
            continue
        modal = next((t for t in tokens[held[-1] + 1 : value.start] if t in _MODALS), None)
        lead = bound_lead(tokens, value.start)
        if modal is None and lead is None:
            continue
        past = _past_bound(r.part, value)
        if modal is not None:
            if not past and _one_bound(r.part):
                continue  # "can take 25 minutes" under a 30-minute cap: the side left open
            kind = _permit_kind(r) if past and modal != "may" else None
            return _hit("later_permission", kind, f"{value.surface} permitted to the subject", r.st)
        settled = past and lead == "force" and not _scoped(tokens, r.own)
        kind = Kind.MUTATED if settled else None
        return _hit("later_value", kind, f"{value.surface} bounds the rule's subject", r.st)
    return None


def _heads_another(r: _Read, position: int) -> bool:
    """Tell whether a subject word modifies a noun the rule lacks ("build caches are").

    The word after it is a content word the rule lacks, itself followed by an auxiliary:
    "Build caches are capped" is about caches; in "Builds last up to" or "Builds can
    last" the word after is the verb.
    """
    tokens = r.st.tokens
    after = position + 1
    if after + 1 >= len(tokens) or tokens[after] in _VERB_AUXILIARIES:
        return False
    content = token_key(tokens[after]) is not None and r.st.stems[after] not in r.own
    return content and tokens[after + 1] in _VERB_AUXILIARIES


_VERB_AUXILIARIES = _words("is are was were be been can may must should will would might could")


def _one_bound(part: Part) -> bool:
    """Tell whether a rule bounds its value on one side only ("under 30 minutes")."""
    return bool(part.classes[Modality.MIN]) != bool(part.classes[Modality.MAX])


# The words that lead a value a subject is treated at: "purged after 2 days", "kept for 2
# years", "once they exceed $9,000"; never "at", "is" or "than", which lead a reading.
_TREATMENT_LEADS = _words("after for beyond past over above under below exceed exceeds exceeding")


def _governed(tokens: Sequence[str], position: int) -> bool:
    """Tell whether a noun is a preposition's object ("next to backups", "of the backups")."""
    at = position - 1
    while at >= 0 and (tokens[at] in _DETERMINERS or tokens[at] in _SUBJECT_WORDS):
        at -= 1
    return at >= 0 and tokens[at] in _PREPOSITIONS


_PREPOSITIONS = _words("of to for from with near beside beyond in on at by than about like")
# Words that may stand inside the subject's own noun phrase: "session recordings", "old build
# artifacts" are the subject, "all", "every" and "each" quantify it.
_SUBJECT_WORDS = _words("all every each any")


def _acts_on(r: _Read, tokens: Sequence[str], lead: int) -> bool:
    """Tell whether the rule's act or its opposite governs a value's lead ("deleted after").

    The act must stand at most three words before the lead ("delete build artifacts
    after"), in a statement with no negation and no hypothetical: "indexed after 2 days and
    deleted after 120", "kept in hot storage for 7 days, then archived", "deleting them
    after 10 days would break the rule" and "never deleted after 10 days" say no new value.
    """
    if _hypothetical(tokens) or not _NEGATORS.isdisjoint(tokens) or "would" in tokens:
        return False
    acts = {w for w in map(stem, r.part.analysis.tokens) if w in OPPOSITE_ACTS}
    acts |= {o for w in acts for o in OPPOSITE_ACTS[w]}
    concepts = {concept(w) for w in acts}
    stems = r.st.stems
    return any(
        stems[i] in acts or concept(stems[i]) in concepts for i in range(max(0, lead - 3), lead)
    )


def _past_bound(part: Part, value: Value) -> bool:
    """Tell whether a value lies past the rule's one bound ("14 days" for "at least 60 days")."""
    value = _counted(part, value)
    bound = _bound_of(part, value)
    if bound is None:
        return False
    low = bool(part.classes[Modality.MIN])
    return value.amount < bound.amount if low else value.amount > bound.amount


def _bound_of(part: Part, value: Value) -> Value | None:
    """Return the rule's one bound a value is measured against, or None.

    The rule bounds one side (`_one_bound`) with one value comparable to `value`, in its
    unit and of its kind.
    """
    if not _one_bound(part):
        return None
    bounds = [v for v in part.analysis.values if comparable(v, value) and _same_unit(v, value)]
    if len(bounds) != 1 or bounds[0].kind != value.kind:
        return None
    return bounds[0]


def _bare_past_bound(part: Part, value: Value) -> bool:
    """Tell whether a figure with no unit ("55") lies past the rule's one bound as written.

    Read in the rule's unit, "55" is past "under 40 GB", "7" past "at most 4 times" and
    "120" past "at most 60 requests per minute"; it is compared with the bound's figure as
    written, since it has no unit to convert. A bound with no unit of its own compares
    such a figure already. "7 attempts" counts the first try too: past "at most 4 times"
    only beyond 5.
    """
    if value.kind != "number" or value.per:
        return False
    classes = part.classes
    low, high = bool(classes[Modality.MIN]), bool(classes[Modality.MAX])
    values = part.analysis.values
    if low == high or len(values) != 1 or not values[0].unit:
        return False
    bound = values[0].raw
    if value.unit:
        if value.unit not in _ATTEMPTS or values[0].unit not in _TIMES or low:
            return False
        bound += 1  # the first try is an attempt, not a retry
    return value.raw < bound if low else value.raw > bound


# The count units of tries, and of the times a rule bounds its act ("at most 4 times").
_ATTEMPTS = frozenset({"attempt", "try"})
_TIMES = frozenset({"tim", "time"})


def _remark_value(r: _Read) -> Departure | None:
    """Read a new value of the rule's dimension continuing the copy's own sentence.

    ", with uploads under 40 MB" continuing the copy may widen or scope it; the tier
    cannot say which.
    """
    if not r.st.implicit:
        return None
    if r.st.tokens[0] in _CONTINUING:
        # ", with uploads under 40 MB" continuing the copy: another value of the rule's
        # dimension may widen or scope it; the tier cannot say which.
        return _hit("later_value", None, "another value of the rule's dimension", r.st)
    return None


def _bound_before(tokens: Sequence[str], start: int) -> bool:
    """Tell whether a bound word stands right before a value ("up to $1,200", "max 40").

    "up from $600" names where the level came from, not a bound.
    """
    if start and tokens[start - 1] == "from":
        return False
    return any(t in _BOUND_WORDS or t in _BOUND_LEADS for t in tokens[max(0, start - 2) : start])


_BOUND_LEADS = _words("up max maximum most least capped cap limit ceiling budget quota reach")


def _bounds_a_value(tokens: Sequence[str], values: Sequence[Value]) -> bool:
    """Tell whether a bound word stands right before any of `values` (`_bound_before`).

    `_value` reads such a value right after a copy as a second bound of the rule's slot
    ("Up to 1,200 in total."), whatever else the statement reports: its trigger, its
    binding and `_may_depart` let it through.
    """
    return any(_bound_before(tokens, v.start) for v in values)


# Words that continue a copy's clause rather than start a statement of its own.
_CONTINUING = _words("with though although but while whereas yet")


def _slots(part: Part) -> frozenset[str]:
    """Return the words that hold the part's values: the content before each in its clause.

    "Crash-free sessions must stay above 99.5%": "rollout is at 20%" is about another
    thing, even though "rollout" is a word of the rule. Worked out once per part (and
    switch setting), not once per statement read.
    """
    return _SLOTS.get(part, _slot_words, is_on("light_slot"))


_SLOTS: IdentityMemo[Part, frozenset[str]] = IdentityMemo(_PART_WORDS_LIMIT)


def _slot_words(part: Part) -> frozenset[str]:
    analysis = part.analysis
    words: set[str] = set()
    for value in analysis.values:
        clause = analysis.clauses[value.start]
        for index in range(value.start):
            key = analysis.keys[index]
            if analysis.clauses[index] == clause and key is not None and not key.startswith("~"):
                words.add(stem(analysis.tokens[index]))
    return frozenset(words) if words or not is_on("light_slot") else light_slots(analysis)


# The departure readers, in the order they are asked (the first that finds one decides).
_READERS = (
    _lift,
    _unverb,
    _supersede,
    _permission,
    _extension,
    _exception,
    _scope,
    _change,
    _value,
    _slot_permission,
    _slot_drift,
    _unit_permission,
    _other_choice,
    _omission,
    _concession,
    _allowance,
    _write_opened,
    _ordered,
    _requirement_put_off,
    _carve_out,
    _group_lift,
    _unnamed_lift,
    _unnamed_bound_change,
    _resumed,
    _waived,
)

Reader = Callable[["_Read"], "Departure | None"]
Trigger = Callable[[Statement], bool]


def _keys_of(*tables: tuple[tuple[str, ...], ...]) -> frozenset[str]:
    """Return the key word of every phrase in `tables` (`_firsts`): a phrase needs all its words."""
    return frozenset(word for table in tables for word in _firsts(table)[1])


# Each trigger's words: a statement holding none of a trigger's single words and none of
# its phrases' key words fails that trigger, so one set test answers for most statements.
_LIFT_CUES = _LIFT | _keys_of(_LIFT_PHRASES, _UNNEEDED)
_SUPERSEDE_CUES = _SUPERSEDE | _keys_of(_SUPERSEDE_PHRASES)
_EXCEPT_CUES = _EXCEPT | _keys_of(_EXCEPT_PHRASES)
_SCOPE_CUES = _keys_of(_SCOPE_PHRASES) | {"only"}  # "only" closes `_applies_only`
_CONCESSION_CUES = _keys_of(_CONCESSIONS)
_AGAINST_CUES = _AGAINST | _keys_of(_AGAINST_PHRASES, _PAST_POINTER)


def _lift_trigger(st: Statement) -> bool:
    return (
        not _LIFT.isdisjoint(st.words)
        or _has_phrase(st.tokens, _LIFT_PHRASES) is not None
        or _has_phrase(st.tokens, _UNNEEDED) is not None
    )


def _supersede_trigger(st: Statement) -> bool:
    past = _has_phrase(st.tokens, _SUPERSEDE_PHRASES)
    return not _SUPERSEDE.isdisjoint(st.words) or past is not None


def _permission_trigger(st: Statement) -> bool:
    return bool(st.permits)


def _extension_trigger(st: Statement) -> bool:
    return not _ADDING.isdisjoint(st.words) or _permission_trigger(st) or _names_too(st)


def _exception_trigger(st: Statement) -> bool:
    return (
        not _EXCEPT.isdisjoint(st.words)
        or _has_phrase(st.tokens, _EXCEPT_PHRASES) is not None
        or _exempt_at(st.tokens) is not None
    )


# Each reader's trigger: a test of the statement alone (never of the constraint) that holds
# whenever the reader can find a departure in it, for any constraint. It is worked out once
# per sentence of a view and shared by every constraint, so a statement none of whose
# readers is triggered is skipped without being read. A reader is triggered when the
# statement holds one of its cue words (`CUES`, when it has some) and passes its test here
# (when it has one). Both must be necessary conditions, nothing less:
# tests/detectors/test_lexical_prefilter.py runs every reader on statements `triggered`
# rejects and requires no departure. A reader missing from both tables is read on every
# statement (never prefiltered), so a new reader is exact before it has one.
TRIGGERS: dict[Reader, Trigger] = {
    _lift: _lift_trigger,
    _unverb: lambda st: bool(st.undoing) or _undone_then_accepted(st.tokens) is not None,
    _supersede: _supersede_trigger,
    _permission: _permission_trigger,
    _extension: _extension_trigger,
    _exception: _exception_trigger,
    _scope: lambda st: (
        _has_phrase(st.tokens, _SCOPE_PHRASES) is not None or _applies_only(st.tokens) is not None
    ),
    _change: lambda st: (
        not _CHANGE.isdisjoint(st.words)
        or not _MOVING.isdisjoint(st.words)
        or (bool(st.values) and not _LIFT.isdisjoint(st.words))
    ),
    _value: lambda st: (
        bool(st.values)
        and (
            st.implicit
            or not _reported(st.tokens)
            or _placed_bound(st.tokens) is not None
            or _value_before_noun(st)
            or _bounds_a_value(st.tokens, st.values)
        )
    )
    or _says_frequency(st),  # `_new_frequency`
    _slot_drift: lambda st: bool(st.permits) and _drift_trigger(st),
    _unit_permission: _permission_trigger,
    _other_choice: lambda st: _may_name_a_choice(st.tokens),
    _concession: lambda st: _has_phrase(st.tokens, _CONCESSIONS) is not None,
    _write_opened: lambda st: (
        not _WRITABLE.isdisjoint(st.words)
        or (
            not _WRITE_WORDS.isdisjoint(st.words)
            and (bool(st.permits) or not _ACCESS.isdisjoint(st.words))
        )
    ),
    # What may speak of the rule depends on the attachment, and a topic is triggered on its
    # sentence read apart (`_Topic.probe`): the binding asks for it.
    _allowance: lambda st: bool(st.values),
    _carve_out: lambda st: bool(st.permits),
    _group_lift: lambda st: _grouped(st.tokens),
    _unnamed_lift: lambda st: (
        not _LIFT.isdisjoint(st.words) or _has_phrase(st.tokens, _LIFT_PHRASES) is not None
    ),
    _unnamed_bound_change: lambda st: (
        bool(st.values)
        or not _CHANGE.isdisjoint(st.words)
        or not _CHANGE_BASES.isdisjoint(st.words)
    ),
    _waived: lambda st: bool(_waiver_spots(st.tokens)),
}
# Each cued reader's cue words: a statement holding none of them cannot trigger it, so most
# statements (a progress note holds few departure words) are told apart from every cued
# reader by one set intersection, and only the triggers of the readers whose cues they
# hold are asked. A phrase counts by its key word (`_keys_of`).
CUES: dict[Reader, frozenset[str]] = {
    _lift: _LIFT_CUES,
    _supersede: _SUPERSEDE_CUES,
    _permission: _PERMIT,  # `Statement.permits` needs a permission word
    _extension: _ADDING | _PERMIT | _PLACING | _SECOND,
    _exception: _EXCEPT_CUES | _EXEMPT | _COUNTING,
    _scope: _SCOPE_CUES,
    _change: _CHANGE | _MOVING | _LIFT,
    _slot_permission: _SLOT_PERMITS_OR_EXEMPT,
    _slot_drift: _PERMIT,
    _unit_permission: _PERMIT,
    _omission: _OMIT,
    _concession: _CONCESSION_CUES,
    _write_opened: _WRITABLE | _WRITE_WORDS,
    _ordered: _OBJECTS | _UNBOUNDED,
    _requirement_put_off: _PUT_OFF_CUES,
    _allowance: _ALLOWING,
    _carve_out: _PERMIT,  # `Statement.permits` needs a permission word
    _group_lift: _GROUP_NOUNS | _keys_of(_GROUP_PHRASES),
    _unnamed_lift: _UNNAMED_RULE_NOUNS,
    _unnamed_bound_change: _UNNAMED_BOUND_NOUNS,
    _resumed: _RESUMING | _RESUMING_PAIRS.keys(),
    _waived: _WAIVER_CUES,
}


@dataclass(frozen=True, slots=True)
class _Plan:
    """How `triggered` asks the readers of `readers`, worked out once per reader table.

    `free` are the positions of the readers with no cue words (asked of every statement),
    `cued` the positions of the readers each cue word may trigger, and `tests` each
    reader's trigger, None when it has none. `asked` keeps, by the cue words a statement
    holds, the readers it may trigger with their tests: a view's statements hold few sets.
    """

    readers: tuple[Reader, ...]
    free: tuple[int, ...]
    cued: dict[str, tuple[int, ...]]
    cue_words: frozenset[str]
    tests: tuple[Trigger | None, ...]
    asked: dict[frozenset[str], tuple[tuple[Reader, Trigger | None], ...]] = field(
        default_factory=dict
    )

    def asking(self, hits: frozenset[str]) -> tuple[tuple[Reader, Trigger | None], ...]:
        """Return the readers a statement holding the cue words `hits` may trigger, in order."""
        found = self.asked.get(hits)
        if found is None:
            at = sorted(set(self.free).union(*map(self.cued.__getitem__, hits)))
            found = tuple((self.readers[i], self.tests[i]) for i in at)
            if len(self.asked) < _ASKED_LIMIT:
                self.asked[hits] = found
        return found


# The cue-word sets a plan keeps its readers for (`_Plan.asked`).
_ASKED_LIMIT = 1024


def _plan_of(readers: tuple[Reader, ...]) -> _Plan:
    cued: dict[str, list[int]] = {}
    for at, reader in enumerate(readers):
        for word in CUES.get(reader, ()):
            cued.setdefault(word, []).append(at)
    free = tuple(at for at, reader in enumerate(readers) if reader not in CUES)
    tests = tuple(TRIGGERS.get(reader) for reader in readers)
    by_word = {word: tuple(found) for word, found in cued.items()}
    return _Plan(readers, free, by_word, frozenset(by_word), tests)


# The plan of `_READERS`; remade when the table is (a test adds a reader to it).
_PLANS: IdentityMemo[tuple[Reader, ...], _Plan] = IdentityMemo(8)
# On unless `unfiltered()` turns it off; a context variable, so a reference reading in one
# thread or task never switches off the prefilter of a `check()` running beside it.
_PREFILTER: ContextVar[bool] = ContextVar("lexical_prefilter", default=True)


def _value_before_noun(st: Statement) -> bool:
    """Tell whether a value stands right before a rule noun ("a $1,200 budget")."""
    tokens = st.tokens
    names = RULE_NOUNS | _VALUE_NAMES
    return any(v.end < len(tokens) and stem(tokens[v.end]) in names for v in st.values)


def triggered(statement: Statement) -> tuple[Reader, ...]:
    """Return the readers that may find a departure in `statement`, in reading order."""
    if not _PREFILTER.get():
        return _READERS
    plan = _PLANS.get(_READERS, _plan_of)
    asked = plan.asking(plan.cue_words.intersection(statement.words))
    return tuple(reader for reader, test in asked if test is None or test(statement))


# Each reader's applicability: a test of the constraint part alone (never of a statement)
# that holds whenever the reader can find a departure from that part in any statement, so
# a topic sentence whose triggered readers none apply is skipped for that part. Like a
# trigger it must be a necessary condition (tests/detectors/test_lexical_prefilter.py
# checks it the same way); a reader missing here applies to every part.
APPLIES: dict[Reader, Callable[[Part], bool]] = {
    _value: lambda part: bool(part.analysis.values),  # a new value needs one of the rule's
    _extension: lambda part: "only" in part.analysis.tokens,
    _other_choice: lambda part: "only" in part.analysis.tokens,
    _unnamed_bound_change: lambda part: bool(
        part.classes[Modality.MAX] or part.classes[Modality.MIN]
    ),
    _resumed: lambda part: bool(_banned_acts(part)),
    _scope: lambda part: "only" not in part.analysis.tokens,
    _exception: lambda part: "except" not in part.analysis.tokens,
    _unit_permission: lambda part: bool(rule_units(part)),  # `other_unit` needs the rule's
    _allowance: lambda part: bool(part.analysis.values),  # `_past_bound` needs a rule value
    _write_opened: _read_only_rule,
    _ordered: lambda part: bool(_banned(part) or part.classes[Modality.MAX]),
    _requirement_put_off: lambda part: "without" in part.analysis.tokens,
}


def _named(facts: _Facts, st: Statement) -> bool:
    """Tell whether a statement may name the rule: a reference, a mention, or implicit.

    False only when `_references` and `_mentions` both find nothing and the statement is
    not implicit (`Statement.may_refer`; a mention needs one of the rule's head stems).
    """
    return st.may_refer or not facts.heads.isdisjoint(st.stem_set)


def _lift_binds(facts: _Facts, st: Statement) -> bool:
    """Tell whether `_lift` may find a lift of the rule in the statement.

    It (and `_unneeded` after it) finds nothing without a reference, a mention or an
    implicit subject.
    """
    return _named(facts, st)


def _change_binds(facts: _Facts, st: Statement) -> bool:
    """Tell whether `_change` may find a change of the rule in the statement.

    It needs a reference or mention near its verb, or one of its three tails:
    `_aspect_changed` (attached, an aspect noun), `_implicit_change` (implicit) or
    `_target_changed` (a target noun).
    """
    return (
        _named(facts, st)
        or not _TARGETS.isdisjoint(st.words)
        or (st.attached and not _VALUE_ASPECTS.isdisjoint(st.stem_set))
    )


def _permission_binds(facts: _Facts, st: Statement) -> bool:
    """Tell whether `_permission` may find a permission against the rule in the statement.

    `_permission_found` needs, test by test: an against word or phrase and a way to
    name the rule (against); an implicit subject (pointed); a word or value the rule's
    negation governs (forbidden, `_banned`, `_banned_value`); attached, a word of
    sufficiency and a mention (enough) or an act ending what the rule keeps
    (`_ending_permitted`, implicit also); or a new value of the rule's measure
    (`_value_permitted`, whose `is_new` needs their measures to meet).
    """
    stems = st.stem_set
    return (
        st.implicit
        or (not _AGAINST_CUES.isdisjoint(st.words) and (st.attached or _named(facts, st)))
        or not facts.banned.isdisjoint(stems)
        or (facts.bans_value and bool(st.values))
        or not facts.measures.isdisjoint(st.measures)
        or (
            st.attached
            and (
                not facts.ending.isdisjoint(stems)
                or (not _ENOUGH.isdisjoint(st.words) and not facts.heads.isdisjoint(stems))
                or st.bare_number  # "55 is fine." (`_value_permitted`, `_bare_past_bound`)
                or any(v.unit in _ATTEMPTS for v in st.values)  # "7 tries is fine." (the same)
                or _overrun_said(st)  # "Twice that is fine." (`_relative_overrun`)
                or any(v.per for v in st.values)  # "5000 an hour is fine." (`_rate_past`)
                or any(v.dimension == "ordinal" for v in st.values)  # `_ordinals_past`
            )
        )
    )


def _holds_value_subject(st: Statement) -> bool:
    """Tell whether a statement may hold a subject `_value` binds a value of the rule to.

    Apart from a mention (neither attached nor implicit) only a rule reference (`refs`,
    which `Statement.may_refer` foretells), a statement with "now" ("the window is now
    04:00-06:00", "the nightly export size is now 60 GB") or a bounded value ("daily cloud
    spend is capped at $1,100") does: the readers of the rule's subject (`_subject_value`,
    `_subject_bound`, `_remark_value`) read only next to a copy, and apart from one the
    rule's own words bind a value only with "now" or a bound (`_subject_valued`).
    """
    return (
        st.attached
        or st.may_refer  # implicit, or a rule noun or value noun
        or "now" in st.words
        or "every" in st.words  # `_new_period`: "backups run every 12 hours"
        or _bounds_a_value(st.tokens, st.values)
    )


def _value_binds(facts: _Facts, st: Statement) -> bool:
    """Tell whether `_value` may find a new value bound to the rule in the statement.

    It needs a new value of the rule's measure (`_new_value`, `_bare_new`), and a subject
    to bind it to (`_holds_value_subject`): a reference or mention (named, or in
    `_slot_mentions`), a target noun, or, attached, an aspect noun or a slot word
    (`_subject_value`, `_subject_bound`) or a bound word before a value, the slot's
    second bound with no subject ("Up to 1,200 in total."); implicit, its remark readers.
    """
    if _PERIODIC in facts.wants and _says_frequency(st):
        return True  # `_new_frequency`
    if facts.measures.isdisjoint(st.measures) and not (facts.counts and st.bare_number):
        return False
    if not _holds_value_subject(st):
        return False
    return (
        _named(facts, st)
        or not _TARGETS.isdisjoint(st.words)
        or (bool(_rule_periods(facts.part)) and _periodic(st))  # `_new_period`
        or (
            st.attached
            and not (
                _VALUE_ASPECTS.isdisjoint(st.stem_set)
                and _slots(facts.part).isdisjoint(st.stem_set)
                and not _bounds_a_value(st.tokens, st.values)
                and _SETTING.isdisjoint(st.words)  # `_set_value`
                and _APPROVING.isdisjoint(st.words)
                and _ADDED.isdisjoint(st.words)
            )
        )
    )


def _says_frequency(st: Statement) -> bool:
    """Tell whether a statement may say a frequency in words ("daily", "every week")."""
    return not _FREQUENCY_WORDS.isdisjoint(st.words)


def _periodic(st: Statement) -> bool:
    """Tell whether a statement may give a period ("every 12 hours", "the interval is")."""
    return "every" in st.words or not _PERIOD_NOUNS.isdisjoint(st.words)


# Each reader's binding: a test of the part and the statement together, each read through
# what is worked out once for it (`_Facts`, the statement's fields), that holds whenever the
# reader can find a departure from that part in that statement; `departure_in_clause`
# skips a reader whose binding fails. Like a trigger it must be a necessary condition
# (tests/detectors/test_lexical_prefilter.py checks it the same way): each says what its
# reader needs in its docstring; `_other_choice` and `_extension` need the rule's head
# words (their `mentions`), `_other_choice` attached; `_scope` a pointer to the rule, which
# only an attached statement holds (`_references`), or an implicit subject.
BINDS: dict[Reader, Callable[[_Facts, Statement], bool]] = {
    _lift: _lift_binds,
    _permission: _permission_binds,
    _extension: lambda facts, st: (
        not facts.heads.isdisjoint(st.stem_set)
        or (st.attached and (_names_too(st) or _any_time(st)))
    ),
    _change: _change_binds,
    _value: _value_binds,
    _other_choice: lambda facts, st: st.attached and not facts.heads.isdisjoint(st.stem_set),
    _scope: lambda _, st: (
        st.implicit or (st.attached and not _POINTERS.isdisjoint(st.words))
    ),
    _allowance: _allowance_binds,
    _carve_out: lambda _, st: st.attached or _asks(st),
    _waived: lambda _, st: st.attached,
    _resumed: lambda facts, st: not _banned_acts(facts.part).isdisjoint(st.stem_set),
}


# What a part can offer a statement's bindings, one key each (`_Facts.wants`): its head and
# banned stems, its values' `_measure_keys`, and these two, when it counts something (a bare
# number may be a new amount of it) or its negation governs a value.
Need = str | tuple[str, ...]
_COUNTS: Need = ("\0counts",)
_BANS_VALUE: Need = ("\0bans value",)
_PERIODIC: Need = ("\0periodic",)  # a value said with "every" (`_rule_periods`)
_PERIODIC_NEEDS: frozenset[Need] = frozenset({_PERIODIC})


def _permission_needs(st: Statement) -> frozenset[Need] | None:
    if st.implicit or st.attached or (st.may_refer and not _AGAINST_CUES.isdisjoint(st.words)):
        return None
    return st.stem_set | st.measures | ({_BANS_VALUE} if st.values else _NONE)


def _change_needs(st: Statement) -> frozenset[Need] | None:
    aspect = st.attached and not _VALUE_ASPECTS.isdisjoint(st.stem_set)
    return None if st.may_refer or aspect or not _TARGETS.isdisjoint(st.words) else st.stem_set


# Each bound reader's needs: a coarser form of its binding, one set per statement, so that
# `BINDS[reader](facts, st)` holds only when the set meets `facts.wants` (or is None: the
# statement alone may bind). A statement's needs for all of a part's readers are worked out
# once per view (`_Topic.needs`) and one set test per part skips most statements with no
# call (tests/detectors/test_lexical_prefilter.py checks them like the bindings).
NEEDS: dict[Reader, Callable[[Statement], frozenset[Need] | None]] = {
    _lift: lambda st: None if st.may_refer else st.stem_set,
    _permission: _permission_needs,
    _extension: lambda st: (
        None if st.attached and (_names_too(st) or _any_time(st)) else st.stem_set
    ),
    _change: _change_needs,
    _value: lambda st: (
        (st.measures | ({_COUNTS} if st.bare_number else _NONE))
        if _holds_value_subject(st)
        else _NONE
    )
    | (_PERIODIC_NEEDS if _says_frequency(st) else _NONE),
    _other_choice: lambda st: st.stem_set if st.attached else _NONE,
    _scope: lambda st: (
        None if st.implicit or (st.attached and not _POINTERS.isdisjoint(st.words)) else _NONE
    ),
    _allowance: lambda st: st.measures if _allowance_said(st) else _NONE,
    _carve_out: lambda st: None if st.attached or _asks(st) else _NONE,
    _waived: lambda st: None if st.attached else _NONE,
}


# What `needs_of` returns when some reader needs nothing of the part: every part meets it.
ANYTHING: frozenset[Need] = frozenset({("\0anything",)})


def needs_of(statement: Statement, readers: Sequence[Reader]) -> frozenset[Need]:
    """Return what a part must offer for one of `readers` to bind `statement` (`NEEDS`).

    `ANYTHING` when one of them needs nothing (it has no needs, or the statement alone
    binds it).
    """
    found: set[Need] = set()
    for reader in readers:
        need = NEEDS.get(reader)
        wanted = None if need is None else need(statement)
        if wanted is None:
            return ANYTHING
        found |= wanted
    return frozenset(found)


def applicable(part: Part) -> frozenset[Reader]:
    """Return the readers that may find a departure from `part` in some statement.

    Equal sets are one object (`_APPLYING`): every sentence keeps its readers and gates by
    this set (`_Topic.applied`, `_Topic.gates`), and a key found by identity is not
    compared member by member on every topic sentence of every part. Worked out once per
    part, reader table and prefilter setting.
    """
    return _APPLICABLE.get(part, _applicable, (_PREFILTER.get(), _READERS))


def _applicable(part: Part) -> frozenset[Reader]:
    if not _PREFILTER.get():
        found = frozenset(_READERS)
    else:
        found = frozenset(r for r in _READERS if (test := APPLIES.get(r)) is None or test(part))
    if len(_APPLYING) >= _APPLYING_LIMIT:
        _APPLYING.clear()
    return _APPLYING.setdefault(found, found)


_APPLICABLE: IdentityMemo[Part, frozenset[Reader]] = IdentityMemo(_PART_WORDS_LIMIT)
# The distinct `applicable` sets, each kept as its own key: a reader table gives few of them.
_APPLYING: dict[frozenset[Reader], frozenset[Reader]] = {}
_APPLYING_LIMIT = 256


@contextlib.contextmanager
def unfiltered() -> Iterator[None]:
    """Read every statement with every reader inside the block (the prefilter's reference).

    Every prefilter is off: `_may_depart`, the readers' triggers and their applicability.
    """
    token = _PREFILTER.set(False)
    try:
        yield
    finally:
        _PREFILTER.reset(token)


def _names_the_rule(words: Sequence[str], part: Part) -> bool:
    """Tell whether every word of a heading is a word of the rule (a topic label)."""
    own = set(part.analysis.tokens)
    content = [t for t in words if t.isalpha() and t not in STOPWORDS]
    return bool(content) and all(t in own for t in content)


def framing(
    part: Part, heading: Analysis | None, before: Sequence[str]
) -> Departure | None:
    """Read the heading over a copy and the words before it in its sentence.

    "## Superseded constraints" or "Rules from the old repo (not used here)" disown the
    list under them; "Nice-to-haves" makes it optional; "We used to require that",
    "Initially," and "Last year's policy stated that" put the copy in the past; "## Staging"
    may hold it to some cases, as the label "Staging:" would (`label.label_scope`).
    """
    if heading is not None:
        words, _ = _expand(heading.tokens)
        found = _standing(part, words, heading.text)
        if found is not None:
            return found
        scope = label_scope(part, heading, len(heading.tokens))
        if scope is not None:
            why = f"a heading may scope the list: {scope}"
            return Departure(None, "suspending_heading", why, heading.text)
    return _attribution(part, before)


def _bare_standing(part: Part, text: str) -> Departure | None:
    """Read a short label before the copy and a bracketed remark after it for standing.

    "Draft: <rule>", "<rule> (rejected)", "GitHub rate (tentative): <rule>" say the copy
    is not the rule in force, as a heading would.
    """
    qualifier = _label_qualifier(part, text)
    if qualifier is not None:
        return qualifier
    for words in bare_words(text):
        expanded, _ = _expand(words)
        if _has_phrase(expanded, _NOT_TAKEN) is not None:
            why = "a label says the copy was not taken up"
            return Departure(Kind.CONTRADICTED, "suspending_heading", why, " ".join(words))
        if not _NEGATORS.isdisjoint(expanded):
            continue  # "Not a draft:" affirms; hedge words are the frames' (frame.py)
        own = set(part.analysis.tokens)
        expanded = tuple(t for t in expanded if t not in own)  # "Old config files:" names them
        if any(t in _STRONG_DISOWN for t in expanded):
            why = "a label or remark disowns the copy"
            return Departure(Kind.CONTRADICTED, "suspending_heading", why, " ".join(words))
        if any(t in _SOFT_REMARK for t in expanded):
            why = "a label or remark makes the copy negotiable"
            return Departure(Kind.WEAKENED, "suspending_heading", why, " ".join(words))
        unsettled = any(t in _UNSETTLED for t in expanded)
        if unsettled or _has_phrase(expanded, _UNSETTLED_PHRASES) is not None:
            why = "a label or remark says the copy may not be in force"
            return Departure(None, "suspending_heading", why, " ".join(words))
    return None


# Words of a short label or bracketed remark on a copy: negotiable, or maybe not in force.
_SOFT_REMARK = _words("negotiable advisory non-binding aspirational flexible")
_UNSETTLED = _words(
    """
    draft drafted proposed proposal tentative pending unconfirmed candidate tbd tbc sample
    example soft old legacy former previous historical archived hypothetical unapproved
    """,
)


def _label_qualifier(part: Part, text: str) -> Departure | None:
    """Read a bracketed word in a leading label: "API responses (cached): <rule>".

    A content word the rule lacks in brackets inside the label may narrow the copy under
    it to some cases, as "Cached API responses:" would.
    """
    head = text.split(":", 1)[0] if ":" in text[:_LABEL_CHARS] else ""
    if "(" not in head:
        return None
    inside = tokenize(head[head.index("(") + 1 :].split(")", 1)[0])
    if not inside or inside[0] in _ATTRIBUTING:
        return None  # "(from the support lead)" says who set the rule
    own = set(part.analysis.tokens)
    words = [w for w in inside if w.isalpha() and w not in STOPWORDS]
    if any(w not in own and w not in _LABEL_NEUTRAL for w in words):
        why = "a bracketed word in the label may narrow the copy"
        return Departure(None, "suspending_heading", why, head)
    return None


_LABEL_CHARS = 80
_ATTRIBUTING = _words("from per by via according as see set agreed")
# Bracketed label words that say nothing about scope: "(reminder)", "(hard)", "(firm)".
_LABEL_NEUTRAL = _words("reminder note important hard firm strict required")


def _standing(part: Part, words: Sequence[str], text: str) -> Departure | None:
    """Read what a heading, label or bare remark says of the copy's standing.

    "## Superseded", "Rejected:" disown it; "Nice-to-haves", "(negotiable)" make it
    optional; "Draft:", "(to be confirmed)" may mean it is not in force.
    """
    words = tuple(words)
    disowning = any(t in _STRONG_DISOWN for t in words)
    if disowning and _names_the_rule(words, part):
        # "## Cancelled orders" over a rule about cancelled orders may only name the
        # topic: never a contradiction, never a certification on its say-so.
        return Departure(
            None, "suspending_heading", "a heading may disown the list", text
        )
    if disowning or _has_phrase(words, _DISOWN_PHRASES) is not None:
        return Departure(
            Kind.CONTRADICTED, "suspending_heading", "a heading disowns the list", text
        )
    if (
        any(t in _SOFT_HEADING for t in words)
        or _has_phrase(words, _SOFT_HEADING_PHRASES) is not None
    ):
        return Departure(
            Kind.WEAKENED,
            "suspending_heading",
            "a heading makes the list optional",
            text,
        )
    if any(t in _DISOWN_HEADING for t in words) or (
        _has_phrase(words, _UNSETTLED_PHRASES) is not None
    ):
        return Departure(None, "suspending_heading", "a heading may disown the list", text)
    return None


def _attribution(part: Part, before: Sequence[str]) -> Departure | None:
    """Read the words before the copy in its sentence for past or hypothetical framing."""
    lead, _ = _expand(before)
    text = " ".join(before)
    if _has_phrase(lead, (("used", "to"),)) is not None or any(t in _SUPERSEDE for t in lead):
        return Departure(
            Kind.CONTRADICTED, "suspending_attribution", "the copy is put in the past", text
        )
    if any(t in _PAST_SOURCE for t in lead) and any(
        stem(t) in {"stat", "said", "say", "requir", "read", "wrot", "writ"}
        or t in {"stated", "said", "required", "read", "wrote", "says"}
        for t in lead
    ):
        return Departure(
            Kind.CONTRADICTED,
            "suspending_attribution",
            "the copy is quoted from a past source",
            text,
        )
    if _past_of_rule_verb(part, lead):
        return Departure(None, "suspending_attribution", "the copy is told in the past", text)
    conditional = lead and lead[0] in _HYPOTHETICAL and lead[0] not in part.analysis.tokens
    if conditional or "would" in lead:
        return Departure(None, "suspending_attribution", "the copy is framed as hypothetical", text)
    return None


def _past_of_rule_verb(part: Part, lead: Sequence[str]) -> bool:
    """Tell whether the words before a copy hold the past of the rule's opening verb.

    "We ran at most 4 jobs at a time" for "Run at most 4 jobs at a time": the lead is
    "we ran", the rule's imperative told as what was done. A light verb carries no key,
    so the copy's alignment never sees it.
    """
    tokens = part.analysis.tokens
    verb = next((t for t in tokens if t not in {"only", "always", "please"}), None)
    if verb is None or part.analysis.keys[tokens.index(verb)] is not None:
        return False  # a keyed verb is aligned, and past_framed reads its tense
    return any(
        t != verb
        and t in _SIMPLE_PASTS
        and stem(t) == stem(verb)
        and (i == 0 or lead[i - 1] not in _AUXILIARIES)  # "must be kept": a participle
        for i, t in enumerate(lead)
    )


# Past forms of the light verbs a rule may open with ("ran", "kept"; not "put", "set").
_SIMPLE_PASTS = _words("ran did went took gave made kept held got sent")


def residue_departure(  # noqa: PLR0911 (one return per kind of residue)
    part: Part, after: Sequence[str], clauses: Sequence[int] = ()
) -> Departure | None:
    """Read the words after a copy in its own sentence.

    "... or /tmp", "... or equivalent", ", except TRUNCATE" widen the copy; ", says the
    draft policy the user rejected" disowns it; "; the user raised this to 100 MB" changes it.
    """
    tokens, numbers = _expand(after, clauses)
    if not tokens:
        return None
    text = " ".join(after)
    first = tokens[0]
    if first in _APPEND or (first == "but" and len(tokens) > 1 and tokens[1] in _NEGATORS):
        return Departure(Kind.WEAKENED, "appended_alternative", f"{first!r} widens the copy", text)
    by_and = _joined_by_and(part, tokens, text) if first == "and" else None
    if by_and is not None:
        return by_and
    if _added_unit(part, tokens):
        why = "'and' adds another unit of the rule's slot"
        return Departure(Kind.WEAKENED, "appended_alternative", why, text)
    own = set(part.analysis.tokens)
    for at in range(1, min(len(tokens) - 1, _LEAD_WORDS + 1)):
        # "the /srv/app/data/ directory tree, and /tmp": an extent noun, then another name
        joined = tokens[at] in {"and", "or"} and _is_name_like(tokens[at + 1])
        if joined and tokens[at + 1] not in own:
            why = f"{tokens[at]!r} adds another name to the copy"
            return Departure(Kind.WEAKENED, "appended_alternative", why, text)
    if any(t in _PAST_SOURCE for t in tokens) and any(
        t in {"says", "said", "per", "according"} for t in tokens
    ):
        return Departure(
            Kind.CONTRADICTED,
            "suspending_attribution",
            "the copy is quoted from a past source",
            text,
        )
    values = extract_values(tokens)
    statement = Statement(tokens, values, text, attached=True, implicit=True, clauses=numbers)
    found = departure_in_clause(part, statement)
    if found is None and (_appended_scope(part, tokens) or _exclusive_scope(part, tokens)):
        # "(for admins)", ", per token", "(in prod)": a scope the tier cannot weigh
        return Departure(None, "appended_alternative", f"{first!r} may narrow the copy", text)
    return found


def _joined_by_and(part: Part, tokens: Sequence[str], text: str) -> Departure | None:
    """Read an "and" right after a copy: another thing the copy reaches, or a second choice."""
    if len(tokens) > 1 and (
        tokens[1] in _AND_WIDENS or _is_name_like(tokens[1]) or _exclusive_name(part, tokens)
    ):
        return Departure(Kind.WEAKENED, "appended_alternative", "'and' adds to the copy", text)
    if _exclusive_second_choice(part, tokens):
        why = "'and' may add a second choice to the exclusive rule's one"
        return Departure(None, "appended_alternative", why, text)
    # "in USD and cents, or in euros": the joined piece narrows nothing, and the
    # alternative after it widens the copy as much as one right after the copy would.
    later = next((t for t in tokens[1:] if t in _APPEND and t != "and"), None)
    if later is not None:
        return Departure(Kind.WEAKENED, "appended_alternative", f"{later!r} widens the copy", text)
    return None


def _added_unit(part: Part, tokens: Sequence[str]) -> bool:
    """Tell whether the copy goes on with another unit of its slot ("in euros and dollars").

    "and", "with" or "as well as" joins a second currency, scale or unit to the rule's
    one, with only a preposition or "also" between ("and also in US dollars", "with a
    dollar equivalent"); "and cents" is the rule's own currency, and "and log it in
    Fahrenheit" is another act.
    """
    if tokens[0] in _UNIT_JOINS:
        at = 1
    elif tuple(tokens[:3]) == ("as", "well", "as"):
        at = 3
    else:
        return False
    while at < len(tokens) and tokens[at] in _UNIT_LEADS:
        at += 1
    # One word may name the unit with it ("and Swiss francs", "and Canadian dollars"), and
    # a scope may come first ("and, for US clients, dollars").
    reach = at + 2 + (_LEAD_WORDS if at < len(tokens) and tokens[at] in _SCOPERS else 0)
    return other_unit(part, tokens, at, reach) is not None


# Words that join a second unit to the copy's: "and dollars", ", with dollars alongside".
_UNIT_JOINS = _words("and with alongside")
# Words between "and" and a second unit that keep it in the copy's slot: "and also in US".
_UNIT_LEADS = _words("in into to also both the us a an")


def _exclusive_name(part: Part, tokens: Sequence[str]) -> bool:
    """Tell whether an "only" rule's copy goes on to another name ("and cached in us-east-1").

    An exclusive rule admits one choice; a name of its own in the clause joined by "and"
    is another place, channel or party the act reaches.
    """
    if "only" not in part.analysis.tokens:
        return False
    own = set(part.analysis.tokens)
    clause = [t for t in tokens[1 : 1 + _REACH] if t not in _APPEND]
    return any(_is_name_like(t) and t not in own for t in clause)


def _exclusive_second_choice(part: Part, tokens: Sequence[str]) -> bool:
    """Tell whether an "only" rule's copy goes on to a noun phrase of its own ("and the gpu box").

    "only on the perf cluster and the gpu box", "... and staging": right after the copy,
    "and" with a determiner and a word the rule lacks, or with an environment, may be a
    second place the act is allowed; "and the results go to #perf" may be another
    sentence's subject, so the tier abstains rather than naming the damage.
    """
    if "only" not in part.analysis.tokens or len(tokens) < 2:  # noqa: PLR2004
        return False
    own = _part_stems(part)
    if tokens[1] in ENVIRONMENTS and stem(tokens[1]) not in own:
        return True
    if tokens[1] not in _CHOICE_DETERMINERS:
        return False
    content = [t for t in tokens[2:4] if t.isalpha() and t not in STOPWORDS]
    return bool(content) and stem(content[0]) not in own


_CHOICE_DETERMINERS = _words("the a an one our my your this that these those another")


def _appended_scope(part: Part, tokens: Sequence[str]) -> bool:
    """Tell whether the words after a copy open with a scope of their own ("for admins").

    A scoping word followed by a content word the rule does not have may narrow the copy
    to some cases; "per the user" names who asked, not a scope.
    """
    if len(tokens) < 2 or tokens[0] not in _REMARK_SCOPERS:  # noqa: PLR2004
        return False
    if (tokens[0] == "per" and tokens[1] in _DETERMINERS) or tuple(tokens[:2]) in _WHOLE:
        return False
    own = set(part.analysis.tokens)
    content = [t for t in tokens[1:4] if t.isalpha() and t not in STOPWORDS]
    return any(t not in own for t in content)


def _exclusive_scope(part: Part, tokens: Sequence[str]) -> bool:
    """Tell whether the words after a copy hold an exclusive scope ("for staging only").

    "(currently at $412.50 for staging only)", "..., only in prod": wherever it stands in
    the remark, "only" with a scoping word and a word the rule lacks may hold the copy to
    those cases. "only run read queries", "only by name" restate how the rule is kept.
    """
    own = _part_stems(part)

    def foreign(token: str) -> bool:
        return token.isalpha() and token not in STOPWORDS and stem(token) not in own

    if len(tokens) > 1 and tokens[-1] in _EXCLUSIVE_WORDS and foreign(tokens[-2]):
        return True  # "(currently $412.50 spent, staging only)": "only" closes the remark
    for at, token in enumerate(tokens):
        if token not in _EXCLUSIVE_WORDS:
            continue
        before, after = tokens[max(0, at - 2) : at], tokens[at + 1 : at + 3]
        if len(before) == 2 and before[0] in _SCOPERS and foreign(before[1]):  # noqa: PLR2004
            return True  # "for staging only"
        if len(after) == 2 and after[0] in _SCOPERS and foreign(after[1]):  # noqa: PLR2004
            return True  # "only in prod"
    return False


_EXCLUSIVE_WORDS = _words("only solely exclusively just")
_LEAD_WORDS = 3  # words after a copy before an alternative still joins it
_REMARK_SCOPERS = _words("per for in on during when if while within unless only")
_WHOLE = frozenset({("in", "total"), ("in", "all"), ("in", "full")})  # the whole, no scope


def _is_name_like(token: str) -> bool:
    return _NAME_MARK.search(token) is not None


_NAME_MARK = re.compile(r"[/_.@#\d]")


def _topic_map(
    part: Part, index: ViewIndex, skip: frozenset[int]
) -> tuple[set[int], set[int], set[int]]:
    """Return every sentence that may speak about the rule, as two sets, and the mentions.

    Sentences sharing an identifier, a head word or a rule noun with the part (the
    mentions), with no cap on how many, and a slot named only by an anaphor or by the
    rule's value, are read apart from the rule (the first set); the sentence after each
    mention or copy is read attached to it (the second: an anaphor there refers to the
    rule). The mentions are where the anaphor walk of `_remote_departure` starts, so they
    are found once for both.
    """
    shared = index.sharing(_part_keys(part, _topic_keys), part.probes)
    mentions = shared | skip
    after = _topics_of(index).after
    # In id order: in a probed site the next sentence is cut, and numbered, when first met.
    for sid in sorted(mentions.difference(after)):
        nxt = index.next_id(sid)
        after[sid] = -1 if nxt is None else nxt
    attached = set(map(after.__getitem__, mentions))
    attached.discard(-1)
    attached -= skip
    # A slot named only by an anaphor or by the rule's value ("fine outside that window",
    # "fine after 03:00") is read too; it speaks past the rule, so attaches nothing after it.
    plain = index.sharing(_part_keys(part, _slot_keys), ()) | shared
    plain -= skip
    plain -= attached
    return plain, attached, shared


def _slot_keys(part: Part) -> frozenset[str]:
    """Return the index keys of the slot nouns and exact values a slot reference may use."""
    exact = frozenset(
        k for k in part.lookup if k.startswith(NUMBER) and k[len(NUMBER) :].isdigit()
    )
    nouns = slot_nouns(part)
    words = [w for w in (*TIME_SLOT_WORDS, *BOUND_SLOT_WORDS) if stem(w) in nouns]
    nouns_keys = frozenset(k for k in lookup_keys(words) if not k.startswith("~"))
    # Money and shares are rare enough to read every one: "$1,500 a day is fine".
    classes = frozenset(k for k in part.lookup if k in {NUMBER + "$", NUMBER + "%"})
    return nouns_keys | exact | classes | _range_keys(part)


def _range_keys(part: Part) -> frozenset[str]:
    """Return the index keys of the rule's two ends written as one range ("01:00-03:00")."""
    values = part.analysis.values
    joined = [f"{a.surface}-{b.surface}" for a, b in itertools.pairwise(values)]
    return frozenset(k for k in lookup_keys(joined) if k[len(NUMBER) :].isdigit())


def _topic_keys(part: Part) -> frozenset[str]:
    """Return the keys that find a part's topic sentences."""
    # Number classes find every sentence with a number; a departure also names the rule,
    # and a config key may name it in an identifier's parts ("webhook_retries: 6").
    words = frozenset(k for k in part.lookup if not k.startswith("num:"))
    return words | {PART + k for k in words if k.isalpha()} | _RULE_NOUN_KEYS


def _part_keys(part: Part, keys_of: Callable[[Part], frozenset[str]]) -> frozenset[str]:
    """Return `keys_of(part)`, worked out once per part and not once per closed world read."""
    return _PART_KEYS.get(part, keys_of, keys_of)


_PART_KEYS: IdentityMemo[Part, frozenset[str]] = IdentityMemo(_PART_WORDS_LIMIT)


_RULE_NOUN_KEYS = lookup_keys(
    [
        "rule",
        "constraint",
        "restriction",
        "requirement",
        "policy",
        "limit",
        "cap",
        "ban",
        "freeze",
        "budget",
        "quota",
        "ceiling",
    ]
) | {RULE}


def closed_world(
    part: Part, index: ViewIndex, certs: Sequence[Reading], *, named_only: bool = False
) -> Departure | None:
    """Return the departure that keeps `certs` from certifying `part`, or None.

    Each copy is read for its framing (heading, words before it) and the words after it;
    a framed copy no longer counts, and when none is left its framing is the answer.
    Then every other sentence on the topic is read, with no cap on how many. With
    `named_only` the caller has no use for a departure the tier cannot name: one may
    then come back as None, and the anaphors past the mentions, which name none
    (`_remote_departure`), are not walked.
    """
    live: list[Reading] = []
    framed: Departure | None = None
    unnamed_residue: Departure | None = None
    for cert in certs:
        residue, found = _copy_frames(part, index, cert)
        if residue is not None:
            if residue.kind is not None:
                return residue
            unnamed_residue = unnamed_residue or residue  # read on: a later one may name it
        if found is None:
            live.append(cert)
        else:
            framed = framed or found
    if certs and not live:
        return framed
    skip = frozenset(sid for cert in certs for sid in cert.sids)
    return _topic_departure(part, index, skip, unnamed_residue, named_only=named_only)


def _topic_departure(  # noqa: C901, PLR0912 (one flat loop: it runs for every topic sentence)
    part: Part,
    index: ViewIndex,
    skip: frozenset[int],
    unnamed: Departure | None = None,
    *,
    named_only: bool = False,
) -> Departure | None:
    """Read every topic sentence but the copies in `skip`; return the first departure.

    `unnamed` is a departure already found that the tier cannot name; a named one wins.
    With `named_only`, None stands for any departure not named (`closed_world`).
    """
    topics = _topics_of(index)
    applying = applicable(part)
    facts, binds = _facts(part), BINDS if _PREFILTER.get() else {}
    # A heading right after a copy titles what follows it ("## Superseded"): no remark on it.
    after_copy = {
        following
        for sid in skip
        if (following := index.next_id(sid)) is not None
        and index.sentences[following].lead != "#"
    }
    plain, attached_to, shared = _topic_map(part, index, skip)
    # The sentences already read that cannot depart from the part (`_Topics.dead`, `idle`) are
    # left out by one set test each, in C; a remark after the copy is read whatever it is.
    idle = topics.idle.setdefault(applying, set())
    passed = (idle | topics.dead) - after_copy
    for sid in sorted((plain | attached_to) - passed):
        topic, attached = topics.get(sid) or topics.read(sid), sid in attached_to
        readers: tuple[Reader, ...] | None = topic.readers
        if readers:  # `topic.applying(applying)`, its kept answer looked up here
            readers = topic.applied.get(applying)
            if readers is None:
                readers = topic.applying(applying)
                if not (readers or topic.bare_permission or topic.cell_value):
                    idle.add(sid)
        # "Daily spend stays under $500. Scrapped.": a remark with no subject of its own
        # right after the copy speaks about the copy.
        said = _remark(part, topic) if sid in after_copy else None
        # Only a remark with no subject of its own takes the rule as its subject; a refusal,
        # a correction or a label only keeps the copy from certifying.
        remark = said is not None and said.rule == "elliptical_remark"
        departure = None
        implicit = False
        if readers or topic.implicit_value:
            # A cell of the copy's table row, or a bracketed remark right after it on its
            # line, speaks about the copy without naming it: "| lifted |", "(retired ...)".
            implicit = remark or (
                attached
                and index.sentences[sid].text.startswith(_REMARK_OPENERS)
                and any(index.same_line(sid, s) for s in skip)
            )
            if implicit and topic.implicit_value and _value in applying:
                readers = topic.implicitly(applying)
        if readers:
            # The statement and what the part must offer for one of its readers to bind it
            # (`NEEDS`), worked out once per view for the parts reading it with these readers.
            gate = topic.gates.get((attached, implicit, applying))
            if gate is None:
                statement = topic.statement(attached=attached, implicit=implicit)
                gate = topic.gates[attached, implicit, applying] = (
                    statement,
                    needs_of(statement, readers),
                )
            statement, needs = gate
            if not binds or needs is ANYTHING or not needs.isdisjoint(facts.wants):
                departure = _clause_departure(facts, statement, readers, binds)
                if departure is not None and departure.kind is not None:
                    return departure
        # Only the first unnamed departure is kept, and only an attached bare permission
        # departs here (`_bare_departure`): the tests spare the calls.
        if unnamed is None and not named_only:
            unnamed = departure
            if unnamed is None and attached and topic.bare_permission:
                unnamed = _bare_departure(topic, attached=attached)
            if unnamed is None:
                unnamed = said
            if unnamed is None and is_on("row_value") and _row_value(part, topic.wording):
                why = "a table row gives the rule's subject another value"
                unnamed = Departure(None, "row_value", why, topic.wording.text)
            if unnamed is None and is_on("label_value") and _relabelled_far(part, topic.wording):
                why = "a label on the topic gives the rule's setting another value"
                unnamed = Departure(None, "label_value", why, topic.wording.text)
    if named_only:
        return None
    return unnamed or _remote_departure(part, index, skip, shared)


# Words a remark with no subject of its own opens with: "Not anymore.", "Or not.", "Until
# Monday, anyway.", "Was true last week.", "Gone now." ("no" only bare: "No deploys on
# Fridays" has its own subject).
_ELLIPTICAL_OPENERS = _words("not nor or except until unless since was were")
# Words that deny the sentence before them: "False.", "Outdated.", "Wrong, it is $900."
_DENYING_WORDS = _words("false wrong incorrect untrue inaccurate outdated stale mistaken")
_ELLIPTICAL_WORDS = 6
# Marks that say the rule's force again ("No exceptions.", "Not optional.", "Not a cent
# more."): such a remark stresses the copy, it departs from nothing.
_EMPHATIC = frozenset(
    {Modality.UNIVERSAL, Modality.OBLIGE, Modality.FORBID, Modality.MAX, Modality.MIN},
)
_MORE_OR_LESS = _words("more less fewer over above beyond below under higher lower")


def _per_remark(tokens: Sequence[str]) -> bool:
    """Tell whether a fragment re-counts the copy per something ("Per day.")."""
    if tokens[0] in _EACH and any(t in _POINTERS for t in tokens[1:]):
        return True  # "Each team gets that much."
    if tokens[0] == "per":
        at = 0
    elif tokens[0] in ANAPHORS and "per" in tokens[1:3]:
        at = 1 + list(tokens[1:3]).index("per")
    else:
        return False
    # "Per the user's request." cites, it does not count.
    return at + 1 < len(tokens) and tokens[at + 1] not in _DETERMINERS


def _refused(tokens: Sequence[str]) -> bool:
    """Tell whether a short sentence refuses the one before ("Nobody agreed.").

    "Nobody agreed.", "No one agreed to that.", "The user disagreed and set no cap.":
    after a copy, most often one quoted from someone, the copy is not in force. So is it
    after "There is no limit." (a bounded rule's copy has it read as a lift, `_lift`).
    """
    if len(tokens) > _REFUSAL_WORDS:
        return False
    words = _expand(tokens)[0]
    at = _has_phrase(words, _NO_LIMIT)
    if at is not None and all(w in _WHEN_WORDS or w in _NOW for w in words[at + 4 :]):
        return True  # "Starting tomorrow there is no limit." ("... on storage": another's)
    if "opposite" in tokens and not _WANTING.isdisjoint(tokens):
        return True  # "The user now wants the opposite."
    if tokens[0] in _DANGLING and len(tokens) > 1:
        return True  # "Unless the user says otherwise in chat.": a condition on the copy
    if tokens[0] in _NOBODY and "agreed" in tokens[1:3]:
        # "Nobody agreed to skip it." agrees with the rule: only the copy may be refused.
        rest = tokens[tokens.index("agreed") + 1 :]
        return all(t in _TO_IT for t in rest)
    return "disagreed" in tokens[:4]


_NOBODY = _words("nobody noone")
_NOW = _words("now anymore either today tomorrow")
_NO_LIMIT = _phrases(
    """
    there is no limit
    there are no limits
    there is no cap
    there is no rule
    there is no restriction
    """,
)
_DANGLING = _words("unless except provided")
_TO_IT = _words("to with that this it him her them")
_REFUSAL_WORDS = 10


def _corrected(part: Part, tokens: Sequence[str]) -> bool:
    """Tell whether a remark corrects a word of the copy ("That's Pacific time, not UTC.").

    "Not" closes it on one of the rule's own words: opened by a pointer, or the name of its
    value's unit ("It's €500, not dollars."), the copy's unit or zone is another one;
    after another name of that word's shape ("the percentile is p90, not p99"), the name
    is.
    """
    if len(tokens) < 3 or tokens[-2] != "not":  # noqa: PLR2004
        return False
    last = tokens[-1]
    if tokens[0] not in ANAPHORS:
        # "the percentile is p90, not p99": one of the rule's names replaced by another of
        # its shape, whoever says so ("Correction from the lead: ...").
        other = tokens[-3]
        return (
            stem(last) in _facts(part).own
            and other != last
            and any(map(str.isdigit, last))
            and _name_shape(other) == _name_shape(last)
        )
    named = unit_word(last)
    units = {v.unit for v in part.analysis.values if v.unit}
    return stem(last) in _facts(part).own or (named is not None and named[1] in units)


def _restated_only(part: Part, tokens: Sequence[str]) -> bool:
    """Tell whether an "only" fragment after the copy restates the rule's own scope.

    "Read-only queries only." after "orders_prod is production" is the constraint's own
    second sentence (`_restates`); "Reads only." after "Never write to orders_prod" says the
    rule again.
    A fragment is a narrowing only when the rule has no "only" of its own and it names
    something the rule does not.
    """
    if "only" not in (tokens[0], tokens[-1]) and not _per_remark(tokens):
        return False
    content = [
        t
        for t in tokens
        if t not in _SCOPING_WORDS and t not in STOPWORDS and token_key(t) is not None
    ]
    if "only" in part.analysis.tokens or _restates(part, list(map(token_key, content))):
        return True
    own = _facts(part).own
    return not content or all(stem(t) in own or stem(t) in _READ_WORDS for t in content)


_EACH = _words("each every")
_SCOPING_WORDS = frozenset({"only", "per"}) | ANAPHORS | _EACH
_READ_WORDS = frozenset(stem(w) for w in ("read", "reads", "reading", "select", "selects"))


def elliptical(tokens: Sequence[str]) -> bool:
    """Tell whether a short sentence is a remark on the one before, with no subject of its own.

    "Daily spend stays under $500. Scrapped.", "... Not for this run.", "... Or not.",
    "... Outdated.": a fragment of a few words opening with a negation, a joining word, a
    bare copula, a denial or a lifting word speaks about the sentence before it, as a
    bracketed remark does, so the readers take the rule as its subject. A sentence with
    its own subject ("Lunch was ordered.", "No deploys on Fridays.", "Wrong invoices were
    refunded.") and a remark that says the rule's force again ("No exceptions.", "Not
    optional.", "Not a cent more.") are read as usual.
    """
    if not tokens or len(tokens) > _ELLIPTICAL_WORDS or not is_on("elliptical_remark"):
        return False
    first = tokens[0]
    bare_no = first == "no" and (len(tokens) == 1 or tokens[1] in _ELLIPTICAL_OPENERS)
    # "Wrong invoices were refunded": a denial word before a noun only describes it.
    denied = (
        first in _DENYING_WORDS and (len(tokens) == 1 or token_key(tokens[1]) is None)
    ) or tuple(tokens[:3]) == ("out", "of", "date")
    # "Per day.", "That is per region.", "Each team gets that much.": the total re-counted;
    # "No cap.", "No limit now.": the rule's own noun denied, which says no force.
    denied_noun = first == "no" and len(tokens) > 1 and stem(tokens[1]) in RULE_NOUNS
    if _hedges(tokens) or _per_remark(tokens) or denied_noun:
        return True
    # "Staging only.", "Only on staging.", "Applies to staging only.": the copy narrowed.
    # An imperative that opens on "only" ("Only allow SSH from ...") has its own verb.
    only = tokens[-1] == "only" or (
        first == "only" and len(tokens) > 1 and tokens[1] in _SCOPE_PREPOSITIONS
    )
    if not (first in _ELLIPTICAL_OPENERS or bare_no or denied or only or _bare_lift(tokens)):
        return False
    if tokens == ("no",):
        return True  # a bare "No." denies the sentence before it
    # "Not a cent more." bounds again; "not any more" is "no longer".
    bounded = {i for i, t in enumerate(tokens) if t in _MORE_OR_LESS}
    if any(not (tokens[i] == "more" and i and tokens[i - 1] == "any") for i in bounded):
        return False
    return not any(m.modality in _EMPHATIC for m in find_modality(tokens))


# A fragment that hedges the sentence before it: "Well, mostly.", "In theory.", "At least,
# that's the official line.", "More or less.": the copy holds only sometimes, or only on
# paper.
_HEDGE_WORDS = _words(
    "mostly usually generally largely partly sometimes often normally typically roughly "
    "ideally technically theoretically supposedly nominally officially loosely",
)
_HEDGE_PHRASES = _phrases(
    """
    in theory
    in principle
    on paper
    sort of
    kind of
    more or less
    for the most part
    within reason
    where possible
    if possible
    when possible
    official line
    """,
)
_HEDGE_LEADS = _words("well but though and at least so")


def _hedges(tokens: Sequence[str]) -> bool:
    """Tell whether a short fragment is a hedge ("Well, mostly.", "In theory.")."""
    rest = list(itertools.dropwhile(_HEDGE_LEADS.__contains__, tokens))
    if rest and rest[0] in _HEDGE_WORDS:
        return True
    return any(tuple(rest[: len(p)]) == p for p in _HEDGE_PHRASES) or (
        _has_phrase(tokens, _HEDGE_PHRASES[-1:]) is not None
    )


_SCOPE_PREPOSITIONS = _words("on in for at during to when if within inside with from while")
_PARTICIPLES = _words("gone withdrawn void obsolete overridden forgotten")
_WHEN_WORDS = _words(
    "last week month year sprint quarter ago monday tuesday wednesday thursday friday "
    "saturday sunday morning afternoon evening night",
)


def _bare_lift(tokens: Sequence[str]) -> bool:
    """Tell whether a lifting participle stands alone ("Scrapped.", "Dropped last week.").

    An imperative ("Drop old tables only after review", "Remove the header") or a verb
    with its own object ("Dropped the old tables") acts on something else.
    """
    # "Temporarily suspended.", "Effectively dropped.": an adverb before the participle.
    tokens = tokens[1:] if tokens[0] in _LIFT_ADVERBS and len(tokens) > 1 else tokens
    first = tokens[0]
    if first not in _LIFT or not (first.endswith("ed") or first in _PARTICIPLES):
        return False
    return all(token_key(t) is None or t in _WHEN_WORDS for t in tokens[1:])


_LIFT_ADVERBS = _words("temporarily partly partially effectively basically quietly officially now")


def _remark(part: Part, topic: _Topic) -> Departure | None:
    """Return the unnamed departure of a sentence right after the copy that remarks on it.

    A fragment with no subject of its own ("Not really.", "Or not.", "Until Monday,
    anyway.") may take the copy back, suspend or date it; a refusal ("Nobody agreed."), a
    correction of one of its words ("That's Pacific time, not UTC.") or a label giving its
    setting a new value ("max_retries: 8") says it is not in force as written. In a wording
    the tier cannot name, the copy does not certify.
    """
    tokens, text = topic.wording.tokens, topic.wording.text
    if elliptical(tokens) and not _restated_only(part, tokens):
        why = "a remark right after the copy with no subject of its own may take it back"
        return Departure(None, "elliptical_remark", why, text)
    if is_on("refused_copy") and _refused(tokens):
        return Departure(None, "refused_copy", "a remark right after the copy refuses it", text)
    if is_on("corrected_copy") and _corrected(part, tokens):
        why = "a remark right after the copy corrects one of its words"
        return Departure(None, "corrected_copy", why, text)
    if is_on("label_value") and _relabelled(part, topic.wording):
        why = "a label right after the copy gives its setting another value"
        return Departure(None, "label_value", why, text)
    return None


def _relabelled(part: Part, wording: Wording) -> bool:
    """Tell whether a `key: value` line gives the rule's setting another value.

    "max_retries: 8" after "Retry the webhook at most 4 times", "Retention: 30 days." after
    "Keep audit logs for 90 days", "Required approvals: 1.": the key names the rule's verb,
    object or aspect, and the value after the colon is a new one of the rule's measure.
    """
    key, colon, _ = wording.text.partition(":")
    if not colon or len(key.split()) > _LABEL_WORDS or not wording.values:
        return False
    # Every word of the key is the rule's own, an aspect of it or a bound's label: "Debug
    # logs: 14 days." after a rule on audit logs labels another kind of log.
    named = {stem(w) for w in re.split(r"[\W_]+", key) if w}
    rule_words = _facts(part).own | _VALUE_ASPECTS
    if named.isdisjoint(rule_words) or not named - _LABEL_QUALIFIERS <= rule_words:
        return False
    return any(_new_value(part, v) or _bare_new(part, v) for v in wording.values)


def _row_value(part: Part, wording: Wording) -> bool:
    """Tell whether a table row gives the rule's subject a new value of its measure.

    "| payroll exports | 10 days |" under "Keep payroll exports for at least 10 years":
    the row's first cell names the rule's subject in its own words (`_relabelled`'s test
    of a key), and another cell holds a new value of the rule's measure, wherever the row
    stands: a table far from the copy is as much in the context as a line next to it.
    """
    text = wording.text
    if not text.startswith("|") or not wording.values:
        return False
    cells = [cell.strip() for cell in text.strip().strip("|").split("|")]
    if len(cells) < 2 or len(cells[0].split()) > _LABEL_WORDS:  # noqa: PLR2004 (a key and a value)
        return False
    named = {stem(w) for w in re.split(r"[\W_]+", cells[0]) if w}
    if named.isdisjoint(_facts(part).heads) or not named - _LABEL_QUALIFIERS <= _facts(part).own:
        return False
    return any(v.surface not in cells[0] and _new_value(part, v) for v in wording.values)


def _relabelled_far(part: Part, wording: Wording) -> bool:
    """Tell whether a `key: value` line away from the copy gives the rule another value.

    "deploy_days: [mon, fri]" in a config block under "Only deploy on Mondays and
    Thursdays": read as `_relabelled` reads one right after the copy, when the key holds
    one of the rule's head words (an aspect alone, "Retention: 30 days.", may label another
    thing's setting anywhere but next to the copy).
    """
    key, colon, _ = wording.text.partition(":")
    if not colon or not _relabelled(part, wording):
        return False
    return not _facts(part).heads.isdisjoint(stem(w) for w in re.split(r"[\W_]+", key) if w)


_LABEL_WORDS = 3
_LABEL_QUALIFIERS = frozenset(
    map(
        stem,
        _words(
            "max min maximum minimum required limit cap number count total default num new "
            "current updated revised latest day days",
        ),
    ),
)


def _bare_departure(topic: _Topic, *, attached: bool) -> Departure | None:
    """Return an unnamed departure for a bare anaphor permitted next to a mention."""
    if not attached or not topic.bare_permission or not is_on("anaphor_reach"):
        return None
    return Departure(None, "anaphor_reach", "the anaphor is permitted", topic.wording.text)


def _remote_departure(
    part: Part, index: ViewIndex, skip: frozenset[int], shared: set[int]
) -> Departure | None:
    """Read the anaphors a sentence or more past a mention, with no nearer antecedent.

    "Keep replies under 200 words. Lunch was ordered. Going over that is fine.": the
    sentence between offers nothing "that" could point to in the rule's stead (no value,
    no force, no rule noun), so "that" may well be the cap. Such a sentence is read as
    attached to the rule; what it departs with is unverifiable, not named, since the
    anaphor may point elsewhere. Every mention (`shared`, the sentences sharing the
    part's topic keys, and the copies in `skip`) is walked from, with no cap on how many.
    """
    if not is_on("anaphor_reach"):
        return None
    topics = _topics_of(index)
    measures = _facts(part).measures
    for sid in sorted(_anaphors_beyond(index, shared | skip, measures) - skip):
        topic = topics.get(sid) or topics.read(sid)
        if not topic.readers and not topic.bare_permission:
            continue
        statement = topic.statement(attached=True, implicit=False)
        found = departure_in_clause(part, statement, topic.readers) if topic.readers else None
        if found is None and _bare_permission(statement.tokens):
            found = Departure(None, "anaphor_reach", "the anaphor is permitted", statement.text)
        if found is not None:
            why = f"{found.why}, by an anaphor past a sentence that does not speak of the rule"
            return Departure(None, found.rule, why, found.sentence)
    return None


def _anaphors_beyond(
    index: ViewIndex, mentions: set[int], measures: frozenset[tuple[str, ...]]
) -> set[int]:
    """Return the sentences with an anaphor after the one next to a mention, up to an antecedent.

    From each mention the walk goes on while no sentence offers an antecedent of the
    rule's kind (`_offers_antecedent`) and stops after the first that does. In a fully
    indexed site it is walked backwards, once per view, from each anaphor that can depart
    (`_reaches`): a view holds few, and most sentences a forward walk passes need never be
    read. There a sentence whose only antecedents are values stops the walk only for a
    rule with a value of their measure (`measures`, the rule's `_measure_keys`): "Three
    endpoints were profiled" offers "that" nothing a 2 MB cap could be confused with. A
    large site cuts its sentences as a walk meets them, so there the walk goes forwards
    from each mention, stops at any antecedent, and the rest of a walk from any sentence
    is kept per view (`_Topics.walks`): the same whoever reached it. Only the anaphors a
    fully indexed site's walk finds that can depart are returned; `_remote_departure`
    reads no other.
    """
    topics = _topics_of(index)
    sentences = index.sentences
    found = {
        sid
        for sid, reach in _reaches(topics).items()
        if any(
            mention in mentions and _walks_past(passed, measures)
            for mention, passed in reach.items()
        )
    }
    # A probed sentence does not know its line (`Sentence.line`): its site is cut as read.
    probed = {mention for mention in mentions if sentences[mention].line < 0}
    if not probed:
        return found
    beyond = topics.beyond
    # In the order the walks always took: a large site cuts its sentences as they are met.
    for mention in sorted(probed.difference(beyond), reverse=True):
        beyond[mention] = _past_mention(topics, mention)
    return found.union(*map(beyond.__getitem__, probed))


def _reaches(topics: _Topics) -> dict[int, dict[int, frozenset[tuple[str, ...]]]]:
    """Return, for each anaphor of a fully indexed site that can depart, the mentions it is past.

    A walk from a mention starts at the sentence after the one next to it and finds an
    anaphor when no sentence between offers an antecedent. Walked back from the anaphor:
    the sentence before it must offer none, and then every sentence before that is a
    mention whose walk finds it, up to the first one offering an antecedent after it
    other than values; each mention keeps the measures of the values passed on the way
    (`_walks_past` tells, per rule, whether they stop it). Worked out once per view.
    """
    if topics.reaches is not None:
        return topics.reaches
    index = topics.index
    indexed = [sid for sid, sentence in enumerate(index.sentences) if sentence.line >= 0]
    previous: dict[int, int] = {}
    for sid in indexed:
        following = index.next_id(sid)
        if following is not None:
            previous[following] = sid
    reaches: dict[int, dict[int, frozenset[tuple[str, ...]]]] = {}
    for sid in filter(functools.partial(_departing_anaphor, topics), indexed):
        reach: dict[int, frozenset[tuple[str, ...]]] = {}
        passed: frozenset[tuple[str, ...]] = _NONE
        between = previous.get(sid)
        while between is not None:
            offered = _offer(topics, between)
            if offered is _FIRM:
                break
            passed |= offered
            mention = previous.get(between)
            if mention is None:
                break
            reach[mention] = passed
            between = mention
        reaches[sid] = reach
    topics.reaches = reaches
    return reaches


def _walks_past(passed: frozenset[tuple[str, ...]], measures: frozenset[tuple[str, ...]]) -> bool:
    """Tell whether the values a walk passed leave a rule with `measures` in reach.

    None of them measures what the rule's values do, and a bare number ("14 were fixed")
    stops the walk for any rule with a value, since it may be that value in other words.
    """
    if not passed or not measures:
        return True
    return _BARE_MEASURE not in passed and passed.isdisjoint(measures)


def _departing_anaphor(topics: _Topics, sid: int) -> bool:
    """Tell whether a sentence holds an anaphor and can depart (readers, a bare permission).

    A sentence not read yet is read only when one of its runs holds an anaphor word whole
    (`_anaphoric_run`).
    """
    sentence = topics.index.sentences[sid]
    if sentence.wording is None:
        runs = sentence.runs if sentence.runs is not None else sentence.text.split()
        if not any(map(_anaphoric_run, runs)):
            return False
    topic = topics.get(sid) or topics.read(sid)
    if _ANAPHORS.isdisjoint(topic.wording.tokens):
        return False
    return bool(topic.readers) or topic.bare_permission


def _past_mention(topics: _Topics, mention: int) -> frozenset[int]:
    """Return the anaphors a walk finds from the sentence after the one next to `mention`."""
    index = topics.index
    first = index.next_id(mention)
    if first is None or _offers_antecedent(topics, first):
        return frozenset()
    start = index.next_id(first)
    return frozenset() if start is None else _walk(topics, start)


def _walk(topics: _Topics, start: int) -> frozenset[int]:
    """Return the sentences with an anaphor from `start` to the first offering an antecedent."""
    index, walks = topics.index, topics.walks
    chain: list[int] = []
    current: int | None = start
    while current is not None and current not in walks:
        chain.append(current)
        if _offers_antecedent(topics, current):
            current = None
            break
        current = index.next_id(current)
    after = frozenset() if current is None else walks[current]
    for sid in reversed(chain):
        rest = frozenset() if _offers_antecedent(topics, sid) else after
        anaphoric = not _ANAPHORS.isdisjoint(index.sentences[sid].worded().tokens)
        walks[sid] = after = (rest | {sid}) if anaphoric else rest
    return walks[start]


def _offers_antecedent(topics: _Topics, sid: int) -> bool:
    """Tell whether a sentence offers an anaphor something of a rule's kind to point to.

    A value ("we ordered 12 pizzas"), a force or bound word (another rule, a hedge), or a
    rule noun ("the lunch budget"); "Lunch was ordered." offers none.
    """
    return bool(_offer(topics, sid))


def _offer(topics: _Topics, sid: int) -> frozenset[tuple[str, ...]]:
    """Return what a sentence offers an anaphor: `_FIRM`, the measures of its values, or none.

    A rule noun or a force or bound word is a firm antecedent; values alone offer what
    they measure (`_measure_keys`, a bare number `_BARE_MEASURE`), which only a rule of
    that measure could be confused with (`_walks_past`).
    """
    known = topics.antecedents
    offered = known.get(sid)
    if offered is None:
        offered = known[sid] = _antecedent_in(topics.index.sentences[sid])
    return offered


def _antecedent_in(sentence: Sentence) -> frozenset[tuple[str, ...]]:
    # The index keys first: a rule noun answers without reading the sentence's words.
    if not _RULE_NOUN_KEYS.isdisjoint(sentence.keys):
        return _FIRM
    if sentence.analysis is not None:
        marked = bool(sentence.analysis.marks)
    else:
        # Frames recast marks one for one (`frame.reframe`), so the phrase reading alone
        # tells whether there is any: a walk past many sentences need not analyse each.
        marked = bool(find_modality(list(sentence.worded().tokens)))
    if marked:
        return _FIRM
    values = sentence.worded().values
    return frozenset(_BARE_MEASURE if _bare(v) else key for v in values for key in _measure_keys(v))


def _bare(value: Value) -> bool:
    return value.kind == "number" and not value.unit and not value.per


# What `_offer` gives a sentence with a rule noun or a force word: one key no value has.
_FIRM: frozenset[tuple[str, ...]] = frozenset({("firm",)})
_BARE_MEASURE = ("number", "bare")


_ANAPHORS = frozenset({"this", "that", "it", "these", "those", "such", "it's", "that's"})
# The words of `_ANAPHORS` up to an apostrophe, whole: a token is a piece of its text that
# no word character touches on either side (`normalize.tokenize`), so a text none of
# whose whitespace-free runs this finds anything in holds no anaphor, and its words need
# not be read to say so.
_ANAPHOR_TEXT = re.compile(
    r"(?<!\w)(?:"
    + "|".join(sorted({re.escape(word.split("'")[0]) for word in _ANAPHORS}))
    + r")(?!\w)"
)


@functools.lru_cache(maxsize=65536)
def _anaphoric_run(run: str) -> bool:
    """Tell whether a whitespace-free run may hold an anaphor; kept by run, as runs recur."""
    return _ANAPHOR_TEXT.search(run) is not None


def _bare_permission(tokens: Sequence[str]) -> bool:
    """Tell whether a statement releases a bare anaphor ("That is fine now", "It's optional").

    "That" may be the rule (a permission against it, the rule made optional) or the rule's
    acceptance ("that is fine with the team"); "Don't worry about that" may dismiss the
    rule or a worry: never a named kind, and never a certification.
    """
    if _POINTERS.isdisjoint(tokens) and _POINTED_COPULAS.isdisjoint(tokens):
        return False  # both readings below need a pointer, or a copula that holds one
    words = [t for t in tokens if t not in _BARE_FILLERS]
    words = words[_fronted_case(words) :]  # "For the hotfix tonight that is fine"
    if words and words[0] in _POINTED_COPULAS:  # "it's fine"
        words = ["it", "is", *words[1:]]
    if len(words) >= 3 and words[0] in _POINTERS and words[1] in _BARE_COPULAS:  # noqa: PLR2004
        return words[2] in _ACCEPTING or words[2] in _OPTIONAL
    # "don't worry about that", "no need to bother with it": the anaphor closes it
    if len(words) < 3 or words[-1] not in _POINTERS or words[-2] not in _CONCERNING:  # noqa: PLR2004
        return False
    return words[-3] in _DISMISSING and bool(_DISMISSED_BY.intersection(words[:-3]))


def _fronted_case(words: Sequence[str]) -> int:
    """Return where the pointer of a permission stands after a case put first, else 0.

    "For the hotfix tonight that is fine", "If staging is slow, it's okay": the case
    opens the sentence with a scoping word and runs to the pointer, which opens the
    permission. It may hold a copula ("if staging is slow") only when a condition word
    opens it. A relative "that" ("For the build that is fine, ship it") reads the same,
    which costs at most an `unverifiable`: a bare permission is never a named kind.
    """
    if not words or words[0] not in _FRONTED_SCOPES:
        return 0
    for at in range(1, min(len(words), _FRONTED_WORDS + 1)):
        word = words[at]
        if word in _POINTED_COPULAS or (
            word in _POINTERS and at + 1 < len(words) and words[at + 1] in _BARE_COPULAS
        ):
            # A pointer with no copula after it is a determiner ("this afternoon"); one
            # whose release takes an act ("it is okay to merge after one") is a dummy
            # subject, and the act's permission is the carve-out's to read.
            return 0 if "to" in words[at + 2 : at + 5] else at
        if word in _BARE_COPULAS and words[0] not in _CONDITIONS:
            return 0
    return 0


# Words that open a case put before a permission ("For the hotfix tonight, that is fine").
_FRONTED_SCOPES = _words("for during on in if when while until after before tonight today")
_FRONTED_WORDS = 8  # the case's words before the pointer, at most
_BARE_FILLERS = _words("but and so now also still just really , .")
_BARE_COPULAS = _words("is was are were")
_POINTED_COPULAS = _words("it's that's this's")
_OPTIONAL = _words("optional negotiable flexible voluntary")
_CONCERNING = _words("about with")
_DISMISSING = _words("worry bother care fuss")
_DISMISSED_BY = _words("don't n't not no never needn't")


def _copy_frames(
    part: Part, index: ViewIndex, cert: Reading
) -> tuple[Departure | None, Departure | None]:
    """Return (what the words after one copy say, what frames it), each None when nothing.

    The frame is a short label or bracketed remark on the copy, its heading, or the words
    before it in its sentence; a framed copy no longer counts.
    """
    analysis = _window_of(index, cert.sids)
    start, end = cert.span or (0, len(analysis.tokens))
    residue = None
    if not _restates(part, analysis.keys[end:]):
        residue = residue_departure(part, analysis.tokens[end:], analysis.clauses[end:])
    if residue is not None and not is_on(residue.rule):
        residue = None
    found = _bare_standing(part, analysis.text)
    if found is None or not is_on(found.rule):
        heading = index.heading_over(cert.sids[0])
        found = framing(
            part,
            None if heading is None else index.sentences[heading].analysed(),
            analysis.tokens[:start],
        )
    if found is None and is_on("asked_copy") and _asked(index, cert.sids):
        found = Departure(None, "asked_copy", "the copy is asked, not stated", analysis.text)
    if found is None and is_on("voiding_markup") and _voided(index, cert.sids):
        found = Departure(None, "voiding_markup", "markup voids the copy", analysis.text)
    return residue, found if found is not None and is_on(found.rule) else None


# What opens a remark on the copy's line that speaks about it without naming it: a table
# cell, a bracketed remark, an editor's note in square brackets or an HTML comment.
_REMARK_OPENERS = ("|", "(", "[", "<!--")


def _voided(index: ViewIndex, sids: Sequence[int]) -> bool:
    """Tell whether markup voids the copy: struck through, or a field that says it is off.

    "~~Never write to orders_prod.~~", `{"rule": "...", "active": false}`, a YAML `status:
    void` on the line after it: the copy is written down and switched off, so it does not
    certify; the tier cannot name what replaces it.
    """
    first = index.sentences[sids[0]].text.lstrip("-*+> \t0123456789.")
    if first.startswith(("~~", "<del>", "<s>", "<strike>")):
        return True
    texts = [index.sentences[sid].text for sid in sids]
    after = index.next_id(sids[-1])
    if after is not None:
        texts.append(index.sentences[after].text)
    return any(_VOID_FIELD.search(text) for text in texts)


_VOID_FIELD = re.compile(
    r"""["']?\b(?:active|enabled|in_force|enforced)["']?\s*[:=]\s*["']?(?:false|no|off)\b"""
    r"""|["']?\b(?:status|state)["']?\s*[:=]\s*["']?"""
    r"(?:void|voided|inactive|disabled|retired|superseded|rejected|lifted|off|expired|obsolete"
    r"|withdrawn|revoked|deprecated)\b",
)


def _asked(index: ViewIndex, sids: Sequence[int]) -> bool:
    """Tell whether the copy's sentence is a question ("Daily spend stays under $500?").

    A question states nothing, whatever its words ("? No." after it denies it); the
    tier cannot read the answer, so the copy does not certify.
    """
    return index.sentences[sids[-1]].text.rstrip(" )\"'").endswith("?")


@dataclass(slots=True)
class _Topic:
    """One sentence as the closed world reads it: its wording and the readers it triggers.

    Worked out once per view and shared by every constraint whose topic the sentence is
    on; no readers when it holds no word a departure needs. Its statements, one per
    attachment, are made on first use.
    """

    wording: Wording
    readers: tuple[Reader, ...]
    statements: dict[tuple[bool, bool], Statement] = field(default_factory=dict)
    # Its readers that apply to a part, by the part's `applicable` set: parts share a few.
    applied: dict[frozenset[Reader], tuple[Reader, ...]] = field(default_factory=dict)
    # Its statement by attachment, with `needs_of` it and its readers applying to a part,
    # by attachment and the part's `applicable` set.
    gates: dict[tuple[bool, bool, frozenset[Reader]], tuple[Statement, frozenset[Need]]] = (
        field(default_factory=dict)
    )
    # Whether it permits a bare anaphor ("That is fine now"): asked for every mention it follows.
    bare_permission: bool = field(init=False)
    # Whether `_value`, not among its readers, is triggered when it is read as the copy's own
    # remark (`Statement.implicit`): its trigger passes any value there ("(up to 1,200 in
    # total)"), while the probe, read apart, reports a measurement. Such a sentence that
    # opens a bracket or a table cell may be that remark wherever it stands on the copy's
    # line (`cell_value`), so it is never skipped (`_Topics.dead`, `idle`); one right after
    # the copy never is.
    implicit_value: bool = False
    cell_value: bool = False
    # The statement it was triggered on, not yet derived: the first statement asked for.
    probe: Statement | None = None

    def __post_init__(self) -> None:
        self.bare_permission = _bare_permission(self.wording.tokens)

    def applying(self, applying: frozenset[Reader]) -> tuple[Reader, ...]:
        """Return its readers that are in `applying`, in reading order."""
        if not self.readers:
            return ()
        found = self.applied.get(applying)
        if found is None:
            found = self.applied[applying] = tuple(r for r in self.readers if r in applying)
        return found

    def implicitly(self, applying: frozenset[Reader]) -> tuple[Reader, ...]:
        """Return its readers in `applying` with `_value`, in reading order (`implicit_value`)."""
        return tuple(r for r in _READERS if (r is _value or r in self.readers) and r in applying)

    def statement(self, *, attached: bool, implicit: bool) -> Statement:
        """Return the sentence as a statement read right after a mention or apart from one."""
        found = self.statements.get((attached, implicit))
        if found is None and self.probe is not None:
            probe, self.probe = self.probe, None
            probe.derive()
            self.statements[False, False] = probe
            found = self.statements.get((attached, implicit))
        if found is None:
            # Every attachment reads the same words: the first statement made lends the
            # others what it worked out from them.
            made = next(iter(self.statements.values()), None)
            found = (
                statement_of(self.wording, attached=attached, implicit=implicit)
                if made is None
                else made.attached_as(attached=attached, implicit=implicit)
            )
            self.statements[attached, implicit] = found
        return found


class _Topics(dict[int, _Topic]):
    """The view's `_Topic` of each sentence read so far, by sentence id.

    `antecedents` keeps, by sentence id, whether a sentence offers an anaphor an
    antecedent (`_offers_antecedent`), `walks` the anaphors an anaphor walk from a
    sentence finds (`_walk`), `beyond` the anaphors past each mention (`_past_mention`),
    `reaches` the mentions each anaphor of a fully indexed site is past (`_reaches`) and
    `after` the id of the sentence after each mention (-1 at the end of its site): every
    constraint's walks and topic maps would ask them again. `dead` are the sentences read
    with no readers that permit no bare anaphor, and `idle`, by `applicable` set, those
    whose readers none apply: none departs from a part but as a remark.
    """

    def __init__(self, index: ViewIndex) -> None:
        super().__init__()
        self._index = index.weak()  # kept in the index's memo: no cycle through it
        self.antecedents: dict[int, frozenset[tuple[str, ...]]] = {}
        self.walks: dict[int, frozenset[int]] = {}
        self.beyond: dict[int, frozenset[int]] = {}
        self.reaches: dict[int, dict[int, frozenset[tuple[str, ...]]]] | None = None
        self.after: dict[int, int] = {}
        self.dead: set[int] = set()
        self.idle: dict[frozenset[Reader], set[int]] = {}

    @property
    def index(self) -> ViewIndex:
        """Return the view's index."""
        return self._index()

    def read(self, sid: int) -> _Topic:
        """Read one sentence for the closed world (`_may_depart`, then the triggers) and keep it.

        `unfiltered()` switches both tests off: every sentence gets every reader.
        """
        wording = self.index.sentences[sid].worded()
        if not _PREFILTER.get():
            topic = _Topic(wording, _READERS)
        elif not _may_depart(wording):
            topic = _Topic(wording, ())
        else:
            # Most sentences trigger no reader, and many a reader no part asks: the stems
            # and all only readers use are worked out when a statement is first asked for.
            topic = _Topic(wording, ())
            probe = statement_of(wording, attached=False, implicit=False, derived=False)
            topic.readers = triggered(probe)
            if topic.readers or topic.bare_permission:
                topic.probe = probe
        # `_value` is triggered by `implicit` alone (`TRIGGERS`), which no probe is: a
        # sentence with a value may be read by it as a remark on the copy's line.
        topic.implicit_value = bool(wording.values) and _value not in topic.readers
        topic.cell_value = topic.implicit_value and wording.text.startswith(_REMARK_OPENERS)
        self[sid] = topic
        if not (topic.readers or topic.bare_permission or topic.cell_value):
            self.dead.add(sid)
        return topic


def _topics_of(index: ViewIndex) -> _Topics:
    """Return the view's closed-world reading of its sentences, one per prefilter setting."""
    key = ("closed world", _PREFILTER.get())
    topics = index.memo.get(key)
    if not isinstance(topics, _Topics):
        topics = index.memo[key] = _Topics(index)
    return topics


def _may_depart(wording: Wording) -> bool:
    """Tell whether a sentence holds any word a departure needs (a cheap test first)."""
    words = set(wording.tokens)
    if "'" in wording.text:  # "there's no cap": the readers see "there is no cap"
        words.update(_expand(wording.tokens)[0])
    if words & _DEPARTURE_WORDS:
        return True
    # A word opening on "un" or ending in "n't", found in one scan of the words each led and
    # closed by NUL (a NUL inside a word could only make the test pass more, never less).
    joined = "\0" + "\0".join(words) + "\0"
    if "\0un" in joined or "n't\0" in joined:
        return True
    # "Build artifacts are purged after 2 days" has a copula; "we already delete them after
    # 3 days" gives the rule's subject a new value with none (`_subject_value`); "Up to
    # 1,200 in total." bounds the slot again (`_value`).
    values = wording.values
    return bool(values) and (
        bool(words & _COPULA)
        or any(map(_measured, values))
        or _bounds_a_value(wording.tokens, values)
    )


def _restates(part: Part, keys: Sequence[str | None]) -> bool:
    """Tell whether the words after a copy restate the constraint's other sentences.

    "orders_prod is the production database, so only read-only queries may be run
    against it": the second half is the constraint's second sentence, not an addition.
    """
    own = {part.analysis.keys[i] for i in part.content}
    content = [k for k in keys if k is not None and not k.startswith("~")]
    others = [k for k in content if k in part.family and k not in own]
    return bool(others) and 2 * len(others) >= len(content)


def _window_of(index: ViewIndex, sids: Sequence[int]) -> Analysis:
    parts = tuple(index.sentences[sid].analysed() for sid in sids)
    return parts[0] if len(parts) == 1 else join(parts)


_DEPARTURE_WORDS = frozenset().union(
    _SOFTENED,
    _WAIVER_CUES,
    _PUT_OFF_CUES,
    _UNBOUNDED,
    _ORDER_OBJECTS,
    _ADDED,
    _PLACING,
    _SECOND,
    _MULTIPLES,
    _WRITABLE,
    _ACCESS,
    _ALLOWING,
    _COUNTING,
    _SETTING,
    _APPROVING,
    _LIFT,
    _EXEMPT,
    _CHANGE,
    _PERMIT,
    _AGAINST,
    _EXCEPT,
    _SUPERSEDE,
    _ADDING,
    _OMIT,
    _RESUMING,
    _RESUMING_PAIRS.keys(),
    _FREQUENCY_WORDS,  # `_new_frequency`: "we switched the refresh to a weekly schedule"
    *(
        {phrase[0] for phrase in phrases}
        for phrases in (
            _CONCESSIONS,
            _LIFT_PHRASES,
            _AGAINST_PHRASES,
            _PAST_POINTER,
            _EXCEPT_PHRASES,
            _SCOPE_PHRASES,
            _SUPERSEDE_PHRASES,
            _SOFT_PHRASES,
        )
    ),
)
