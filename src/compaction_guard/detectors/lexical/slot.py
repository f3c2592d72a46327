"""The rule's slot: where it lets its act happen, and how a statement points at it.

"Only deploy between 02:00 and 04:00" forbids what lies outside its window; "Never write
to /etc" forbids its slot itself. A statement names the slot by an anaphor with a slot
noun ("that window", "the cap"), by the rule's own value ("after 03:00") or by its own
words ("outside the EU region"). The closed world (world.py) reads a permission there as
a departure, and an afterthought (afterthought.py) permitting only on the side the rule
leaves open as none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from compaction_guard.anchors import comparable, extract_values, values_equal
from compaction_guard.detectors.lexical.lexicon import (
    ANAPHORS,
    LIGHT_NOUNS,
    OPPOSITE_ACTS,
    READ_VERBS,
    STOPWORDS,
    WRITE_VERBS,
)
from compaction_guard.detectors.lexical.modality import NEGATIVE, Modality
from compaction_guard.detectors.lexical.switches import is_on
from compaction_guard.normalize import stem

if TYPE_CHECKING:
    from collections.abc import Sequence

    from compaction_guard.anchors import Value
    from compaction_guard.detectors.lexical.align import Part
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = [
    "BOUND_SLOT_WORDS",
    "INSIDE_SLOT",
    "PAST_SLOT",
    "SKIPPED",
    "TIMED",
    "TIME_SLOTS",
    "TIME_SLOT_WORDS",
    "TIME_WORDS",
    "Worded",
    "bound_lead",
    "condition_met",
    "floor_passed",
    "forbids_past",
    "lifted_to_value",
    "light_slots",
    "own_value",
    "permitted_side",
    "reading_left_open",
    "restating",
    "slot_end",
    "slot_nouns",
]


class Worded(Protocol):
    """A read stretch of text: an analysed sentence or a closed-world statement."""

    @property
    def tokens(self) -> Sequence[str]:
        """The stretch's tokens."""
        ...

    @property
    def values(self) -> Sequence[Value]:
        """The values found in it."""
        ...


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_DETERMINERS = _words("the a an our their its his her your my")
_NEGATORS = _words("not never no n't without nothing none nobody neither nor")
_EXCLUSIVE = _words("only sole")
_SLOT_REACH = 6  # a slot reference is a short phrase: "outside the 02:00-04:00 UTC window"
_BOUND_WORDS = _words("under below over above within less more fewer exceed exceeds beyond")

# Words that put a statement past a slot, and words that put it inside one.
PAST_SLOT = _words("outside beyond above over past after exceeding")
INSIDE_SLOT = _words("in into to on onto during within inside between at")
# Verbs in a rule's slot that already speak past it: "must not exceed $800", "never leave the EU".
_PAST_VERBS = _words(
    "exceed exceeds exceeding leave leaves leaving surpass outside beyond above over"
)
# Slot nouns an anaphor may use for a rule's time window or for its bound.
TIME_SLOT_WORDS = ("window", "hours", "slot", "period", "timeframe")
BOUND_SLOT_WORDS = (
    *("limit", "cap", "ceiling", "budget", "quota"),
    *("maximum", "minimum", "threshold"),
    *("rate", "size", "length", "frequency"),  # aspect nouns: "above that rate"
)
TIME_SLOTS = frozenset(stem(w) for w in TIME_SLOT_WORDS)
_BOUND_SLOTS = frozenset(stem(w) for w in BOUND_SLOT_WORDS)
TIME_WORDS = _words(
    """
    monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays
    saturday saturdays sunday sundays weekday weekdays weekend weekends
    """,
)
SKIPPED = _DETERMINERS | ANAPHORS | _words("than any of")
# Value dimensions of a time: a clock time, a range of them, a duration, a set of days.
TIMED = frozenset({"time", "clock", "clock-range", "dayset"})


def forbids_past(part: Part) -> bool:
    """Tell whether the rule forbids what lies past its slot, or what lies inside it.

    "Only deploy inside the window", "Keep responses under 2 MB", "must not exceed $800",
    "never delete files outside /tmp" forbid the far side; "Never write to /etc" and
    "Never deploy between 02:00 and 04:00" forbid the slot itself.
    """
    past = not _PAST_VERBS.isdisjoint(part.analysis.tokens)
    if any(mark.modality in NEGATIVE for mark in part.analysis.marks):
        return past
    return not past or bool(part.classes[Modality.MAX] or part.classes[Modality.MIN])


def condition_met(part: Part, tokens: Sequence[str]) -> bool:
    """Tell whether a sentence permits the rule's act once the rule's condition is met.

    "Merges can go to main after review" for "never merge to main without a review": the
    rule bans the act without its condition, so the act with it ("after", "with", "once",
    "following", "upon") is the side it leaves open. Only with no negation in the
    sentence and nothing after the condition but the rule's own words there ("after
    review or in emergencies" is never excused).
    """
    if floor_passed(part, tokens):
        return True
    if not is_on("condition_met") or not _NEGATING.isdisjoint(tokens):
        return False  # the sentence alone rules it out: a negation
    rule = part.analysis.tokens
    gates = [i for i, t in enumerate(rule) if t in _UNMET]
    if _met_by_agent(rule, gates, tokens):
        return True  # "Priya approved the pricing post"
    # One condition, and a word that meets it ("after", "with", "once").
    met = len(gates) == 1 and not _MET.isdisjoint(tokens)
    head = _content_after(rule, gates[0]) if met else None
    if head is None:
        return False
    tail = set(rule[head + 1 :])
    # The whole condition must be met: "after approval" does not meet "without approval
    # from the CTO".
    wanted = {stem(t) for t in rule[head:] if t.isalnum() and t not in STOPWORDS}
    for at, token in enumerate(tokens):
        if token not in _MET:
            continue
        found = _content_after(tokens, at)
        if found is not None and stem(tokens[found]) == stem(rule[head]):
            rest = [t for t in tokens[found + 1 :] if t.isalnum()]
            said = {stem(t) for t in tokens[found:]}
            return wanted <= said and not (set(rest) - tail - _CLOSING)
    return False


def _met_by_agent(rule: Sequence[str], gates: Sequence[int], tokens: Sequence[str]) -> bool:
    """Tell whether the rule's condition is met by its own agent, for one case.

    "Priya approved the pricing post" for "Do not publish any blog post without explicit
    approval from Priya": the agent after "from" right before a form of the condition's
    noun. A sentence that approves wholesale ("approved all posts", "every", "always")
    lifts the condition instead of meeting it (a negation was ruled out before). `gates`
    are where the rule's condition opens ("without", "unless").
    """
    if len(gates) != 1 or not _WHOLESALE.isdisjoint(tokens):
        return False
    condition = list(rule[gates[0] + 1 :])
    if "from" not in condition:
        return False
    at = condition.index("from")
    agents = {t for t in condition[at + 1 :] if t.isalnum() and t not in STOPWORDS}
    nouns = {stem(t) for t in condition[:at] if t.isalnum() and t not in STOPWORDS}
    return any(
        tokens[i - 1] in agents and stem(tokens[i]) in nouns for i in range(1, len(tokens))
    )


_WHOLESALE = _words("all any every everything anything always blanket ahead")


def floor_passed(part: Part, tokens: Sequence[str]) -> bool:
    """Tell whether a sentence permits ending what the rule keeps once its floor has passed.

    "Build artifacts can be deleted after 30 days" for "Keep build artifacts for at least
    30 days", "Uploads may be removed after 10 days" for "Never delete uploads before they
    are 7 days old": the rule keeps something for a least time (a floor on keeping, a
    plain "keep ... for 400 days", or a ban on its opposite before the time), and the
    sentence permits the opposite act (or the banned one) only after that time or a
    later one ("after 30 days", "older than 400 days"): the side the rule leaves open.
    With no negation, a permission word, the rule's object, and nothing after the value
    but the rule's own words; "after 20 days" is read as usual.
    """
    negated, permits = not _NEGATING.isdisjoint(tokens), not _PERMITTING.isdisjoint(tokens)
    if not is_on("floor_passed") or negated or not permits:
        return False  # the sentence alone rules it out (read first: it needs no rule)
    rule = part.analysis
    floors = [v for v in rule.values if v.dimension == "time" and v.kind == "quantity"]
    if len(floors) != 1:
        return False
    floor = floors[0]
    acts = [stem(t) for t in rule.tokens if stem(t) in OPPOSITE_ACTS]
    if len(acts) != 1:
        return False
    before = rule.tokens[max(0, floor.start - 4) : floor.start]
    kept_for = not part.classes[Modality.MAX] and "for" in before  # "keep them for 400 days"
    if part.parity == 0 and (part.classes[Modality.MIN] or kept_for):
        ending = OPPOSITE_ACTS[acts[0]]  # "keep for at least 30 days": deleting ends it
    elif part.parity == 1 and not _FLOOR_BANS.isdisjoint(before):
        ending = frozenset({a for o in OPPOSITE_ACTS[acts[0]] for a in OPPOSITE_ACTS[o]})
    else:
        return False
    said = {stem(t) for t in tokens}
    keys = rule.keys
    objects = {stem(rule.tokens[i]) for i in part.content if not (keys[i] or "~").startswith("~")}
    objects.discard(acts[0])
    if rule.tokens[floor.end : floor.end + 1] == ("old",):
        objects.discard("old")  # "before they are 7 days old": the age, not an object
    found = extract_values(tuple(tokens)) if not said.isdisjoint(ending) else ()
    for value in found if objects <= said else ():
        if not _passed(tokens, value) or not comparable(value, floor):
            continue
        if value.amount < floor.amount:
            continue
        end = value.end + _aged(tokens, value)  # "once they are 30 days old": "old" is the age
        rest = {stem(t) for t in tokens[end:] if t.isalnum()} - ending - _PERMITTING
        return not (rest - {stem(t) for t in rule.tokens} - _CLOSING - _BEING)
    return False


_PERMITTING = _words("can may fine ok okay allowed permitted free")
_FLOOR_BANS = _words("before within until")
_PASSED = _words("after past beyond")
_OLDER = _words("older")
_BEING = _words("be is are get")


_TO_REACH = 5  # "dropped the session log retention to 3 days": up to four object words


def lifted_to_value(tokens: Sequence[str], values: Sequence[Value], index: int) -> bool:
    """Tell whether a lifting verb sets a new value: "dropped that to 3 days".

    "The user dropped that to 3 days", "relaxed the cap to $900": a lifting verb followed,
    within a few words, by "to" and a value changes the rule's value; it lifts nothing,
    so the change readers read it (`lexical.lift_to_value`).
    """
    if not is_on("lift_to_value"):
        return False
    return any(
        index + 1 < value.start <= index + _TO_REACH + 1 and tokens[value.start - 1] == "to"
        for value in values
    )


def _passed(tokens: Sequence[str], value: Value) -> bool:
    """Tell whether a time is said as passed: "after 30 days", "older than 400 days"."""
    lead = tokens[value.start - 1] if value.start else ""
    if lead == "than" and value.start > 1 and tokens[value.start - 2] in _OLDER:
        return True
    return lead in _PASSED or _aged(tokens, value)


_REACHED = _words("once when after")
_AGED_SUBJECTS = _words("they it these those each")


def _aged(tokens: Sequence[str], value: Value) -> bool:
    """Tell whether an age is reached: "once they are 14 days old", "when it is 7 days old".

    The age follows a reaching word, its subject and a copula, and "old" closes it;
    "while they are 14 days old" or "if ..." is no time passed.
    """
    if tuple(tokens[value.end : value.end + 1]) != ("old",) or value.start < 3:  # noqa: PLR2004
        return False
    reached, subject, copula = tokens[value.start - 3 : value.start]
    return reached in _REACHED and subject in _AGED_SUBJECTS and copula in _BEING


def _content_after(tokens: Sequence[str], at: int) -> int | None:
    """Return the first word after `at` past determiners ("without a review": "review")."""
    for index in range(at + 1, min(len(tokens), at + 3)):
        if tokens[index] not in _ARTICLES:
            return index
    return None


def reading_left_open(part: Part, tokens: Sequence[str]) -> bool:
    """Tell whether a sentence permits only reading what the rule bans writing.

    "Reading files in /etc is fine" after "never modify files in /etc": the rule bans a
    writing verb, and the sentence says nothing but reading, the rule's own words and a
    permission ("Reading and wiping files in /etc is fine" is read as usual).
    """
    if not is_on("reading_left_open") or part.parity != 1 or not _NEGATING.isdisjoint(tokens):
        return False
    own = frozenset(part.stems)
    if own.isdisjoint(WRITE_VERBS) or not own.isdisjoint(READ_VERBS):
        return False  # "never read or modify ...": reading is banned too
    if not any(stem(t) in READ_VERBS for t in tokens):
        return False
    words = [stem(t) for t in tokens if any(ch.isalpha() for ch in t) and t not in STOPWORDS]
    return all(w in own or w in READ_VERBS or w in _PERMISSIONS for w in words) and not any(
        w in WRITE_VERBS for w in words
    )


_PERMISSIONS = frozenset(stem(t) for t in _words("fine ok okay allowed permitted acceptable free"))
_UNMET = _words("without unless")
_MET = _words("after with once following upon")
_ARTICLES = _words("a an the any its their")  # what `_content_after` passes over
_NEGATING = _words("not never no cannot can't won't mustn't without unless nobody nothing")


def permitted_side(part: Part, analysis: Worded) -> bool:
    """Tell whether a sentence permits something only on the side the rule leaves open.

    "Deploys are fine outside that window" after "Never deploy between 02:00 and 04:00",
    "Snapshots are fine inside that window too" after "Run backups only between ...":
    the permission stands where the rule already allows, so it departs from nothing. The
    slot reference must close the sentence, with no other side word, so "... and on
    weekends" is never excused.
    """
    tokens = analysis.tokens
    if condition_met(part, tokens) or reading_left_open(part, tokens):
        return True
    sides = [i for i, t in enumerate(tokens) if t in PAST_SLOT or t in INSIDE_SLOT]
    if len(sides) != 1 or restating(tokens, range(len(tokens))):
        return False  # read first: it needs no rule, and most statements stop here
    own = frozenset(part.stems)
    past = forbids_past(part)
    at = sides[0]
    if (tokens[at] in PAST_SLOT) == past:
        return False  # the side the rule forbids
    end = slot_end(part, own, tokens, analysis.values, at + 1)
    rest = [t for t in tokens[(end or at) + 1 :] if t.isalnum()]
    return end is not None and not (set(rest) - _CLOSING)


_CLOSING = _words("too either as well")


def slot_end(
    part: Part,
    own: frozenset[str],
    tokens: Sequence[str],
    found_values: Sequence[Value],
    start: int,
) -> int | None:
    """Return where a reference to the rule's slot ends when one starts at `start`.

    The rule's own value (or a range of its own ends), the rule's own words ("the EU
    region", "/etc"), or a determiner or pointer with a slot noun of the rule's kind
    ("that window" for a time window, "the cap" for a bound).
    """
    values = {v.start: v for v in found_values}
    pointed = False
    found: int | None = None
    for index in range(start, min(len(tokens), start + _SLOT_REACH)):
        token = tokens[index]
        value = values.get(index)
        if value is not None:
            if not own_value(part, value):
                return found
            found = value.end - 1
            continue
        if token in SKIPPED:
            pointed = True
            continue
        word = stem(token)
        if pointed and word in slot_nouns(part):
            return index
        if word not in own or token in STOPWORDS:
            return found
        found = index
    return found


def own_value(part: Part, value: Value) -> bool:
    """Tell whether `value` is one of the rule's own, or a range of its own two ends."""
    values = part.analysis.values
    ends = value.ends or (value,)
    return any(values_equal(value, v) for v in values) or all(
        any(values_equal(e, v) for v in values) for e in ends
    )


def slot_nouns(part: Part) -> frozenset[str]:
    """Return the slot nouns an anaphor may use for this rule ("that window", "the cap")."""
    analysis = part.analysis
    nouns: set[str] = set()
    timed = any(v.kind == "time" or v.dimension in TIMED for v in analysis.values)
    if timed or not TIME_WORDS.isdisjoint(analysis.tokens) or "window" in analysis.tokens:
        nouns |= TIME_SLOTS
    bounded = part.classes[Modality.MAX] or part.classes[Modality.MIN]
    if analysis.values and (bounded or not _BOUND_WORDS.isdisjoint(analysis.tokens)):
        nouns |= _BOUND_SLOTS
    return frozenset(nouns)


def restating(tokens: Sequence[str], clause: Sequence[int]) -> bool:
    """Tell whether a clause restates a bound rather than permitting ("not ... outside")."""
    return any(tokens[i] in _NEGATORS or tokens[i] in _EXCLUSIVE for i in clause)


def light_slots(analysis: Analysis) -> frozenset[str]:
    """Return the light nouns that hold a rule's values when no content word does.

    "Keep sessions under 30 minutes": "sessions" frames most rules ("this session") and
    keys as no content word, yet here it is the one noun the rule's value is said of, so
    "Sessions are kept alive for 45 minutes" gives the rule's subject another value. Only
    a light noun in a value's own clause, before the value, holds it.
    """
    words: set[str] = set()
    for value in analysis.values:
        clause = analysis.clauses[value.start]
        for index in range(value.start):
            word = stem(analysis.tokens[index])
            if analysis.clauses[index] == clause and word in LIGHT_NOUNS:
                words.add(word)
    return frozenset(words)


# Words that set a bound with force ("capped at 45 minutes", "limited to 5 jobs", "max 40"),
# and bare bound words that a reading may use as well ("last up to 45 minutes").
_FORCE_BOUNDS = frozenset(
    stem(w)
    for w in ("cap", "capped", "limit", "limited", "restrict", "restricted", "max", "maximum")
)
_BARE_BOUNDS = frozenset({"under", "below", "within", "over", "above", "beyond"})
_BARE_PHRASES = frozenset({("up", "to"), ("at", "most"), ("at", "least")})


def bound_lead(tokens: Sequence[str], start: int) -> str | None:
    """Return how a value at `start` is led: "force" for a bound set, "bare", or None.

    "are capped at 45 minutes", "limited to 5 jobs", "max 40": the words before the
    value set a bound ("force"). "last up to 45 minutes", "finish under 45 minutes" bound
    it too, but a report of how long things take reads the same ("bare"). "is 45
    minutes", "at 02:10" lead no bound.
    """
    lead = [stem(t) for t in tokens[max(0, start - 3) : start]]
    if not _FORCE_BOUNDS.isdisjoint(lead):
        return "force"
    if not start:
        return None
    if tokens[start - 1] in _BARE_BOUNDS or tuple(tokens[start - 2 : start]) in _BARE_PHRASES:
        return "bare"
    return None
