"""Modality, scope and polarity words for the lexical layer, found as token phrases.

Each phrase maps to one `Modality`. Phrases are matched longest first, so `must not`
is one FORBID mark and `no more than` one MAX mark, never a negation plus a bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from compaction_guard.anchors import VALUE_WORDS, is_numeric

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["NEGATIVE", "STRONG", "Mark", "Modality", "find_modality"]


class Modality(StrEnum):
    """What a phrase does to the force, scope or polarity of a statement."""

    FORBID = "forbid"
    OBLIGE = "oblige"
    ALLOW = "allow"
    OPTIONAL = "optional"
    HEDGE = "hedge"
    SOFT_FORBID = "soft_forbid"
    ONLY = "only"
    MAX = "max"
    MIN = "min"
    UNIVERSAL = "universal"
    PARTIAL = "partial"
    READONLY = "readonly"
    WRITE = "write"
    CONDITION = "condition"
    APPROX = "approx"
    LIFT = "lift"
    LIFT_VERB = "lift_verb"
    EXTEND = "extend"
    NEGATION = "negation"
    ABSORBED = "absorbed"
    SCOPED = "scoped"


# Marks that flip polarity: parity of their count is the statement's polarity.
NEGATIVE = frozenset({Modality.FORBID, Modality.SOFT_FORBID, Modality.OPTIONAL, Modality.NEGATION})
# Full-force directives; with equal polarity, any one stands for any other.
STRONG = frozenset({Modality.FORBID, Modality.OBLIGE})


@dataclass(frozen=True, slots=True)
class Mark:
    """One modality phrase at tokens [start, end)."""

    modality: Modality
    start: int
    end: int


_M = Modality


def _phrases(text: str) -> tuple[str, ...]:
    return tuple(phrase.strip() for phrase in text.split(",") if phrase.strip())


_PHRASES: dict[Modality, tuple[str, ...]] = {
    _M.FORBID: _phrases(
        """
        never, must not, mustn't, must never, shall not, shan't, shall never, do not, don't,
        cannot, can't, can not, may not, will not, won't, not allowed, not permitted,
        forbidden, forbid, forbids, prohibited, prohibit, prohibits, banned, disallowed,
        off-limits, off limits, under no circumstances, no, refrain from, must avoid,
        is not to, are not to, not to be, never ever, not ever, at no time, do not ever,
        may never, can never, should under no circumstances, off the table,
        out of the question, not an option, no-go, a no-go, ruled out, out of bounds,
        unacceptable, not acceptable, never acceptable
        """,
    ),
    _M.OBLIGE: _phrases(
        """
        must, shall, required, require, requires, requirement, mandatory, need to, needs to,
        need, needs, have to, has to, always, ensure, ensures, make sure, be sure to,
        obliged, obligated, compulsory, is to, are to, strictly, at all times, is essential,
        without fail, needed, necessary, must always, will always, not optional,
        non-negotiable, nonnegotiable, a must, mandated, enforced, gated on, gated by,
        gated behind, contingent on, contingent upon, conditional on, conditional upon,
        subject to, wait for, waits for, blocked on, blocked until, is expected to,
        are expected to, obligatory, prerequisite, prerequisites, precondition,
        pre-requisite
        """,
    ),
    _M.ALLOW: _phrases(
        """
        may, can, allowed, allow, allows, permitted, permit, permits, permissible, ok, okay,
        fine, acceptable, free to, feel free, go ahead, welcome to, authorized, authorised,
        no problem, is fine, no restriction, no restrictions, up to you, at your discretion,
        freely, at will, without restriction, without restrictions, without limits
        """,
    ),
    _M.OPTIONAL: _phrases(
        """
        optional, optionally, not required, not necessary, no need, not needed, need not,
        needn't, don't have to, do not have to, doesn't have to, does not have to,
        not mandatory, not obligatory, not essential, unnecessary, not a requirement,
        no longer required, no requirement
        """,
    ),
    _M.HEDGE: _phrases(
        """
        should, ought to, ideally, try to, try, tries, trying, attempt to, where possible,
        if possible, when possible, whenever possible, as much as possible,
        as far as possible, where feasible, if feasible, when feasible, where practical,
        if practical, when practical, where appropriate, if appropriate, when appropriate,
        as appropriate, if convenient, when convenient, if you can, when you can, preferably,
        prefer, prefers, preferred, generally, usually, typically, normally, mostly, often,
        in general, for the most part, recommended, recommend, recommends, advised,
        advisable, encouraged, suggested, suggest, consider, might, could, aim to, aims to,
        strive to, best effort, best-effort, nice to have, nice-to-have, rule of thumb,
        guideline, by default, hopefully, within reason, if it makes sense,
        where it makes sense, as needed, if needed, when needed, ideal, soft limit, soft cap,
        loosely, flexible, tentatively, for now, if at all possible, where you can,
        as a rule, occasionally, sometimes, from time to time, now and then, on occasion,
        in emergencies, in an emergency, exceptionally, in exceptional cases, in rare cases,
        preference, preferences, soft preferences, soft rules, soft rule,
        soft constraints, soft limits, guidelines, suggestions, recommendations,
        nice-to-haves, best practices
        """,
    ),
    _M.SOFT_FORBID: _phrases(
        """
        should not, shouldn't, should never, should avoid, avoid, avoids, avoiding, avoided,
        try not to, try to avoid, prefer not to, discouraged, not recommended, inadvisable,
        ideally not, best not, better not, preferably not, minimize, minimise, rarely,
        seldom, sparingly, be careful, careful, cautious, limit the use, minimized, minimised,
        be avoided, kept to a minimum, keep to a minimum, to a minimum, as little as possible,
        as few as possible, kept minimal
        """,
    ),
    _M.ONLY: _phrases(
        """
        only, exclusively, solely, restricted to, limited to, nothing but,
        nothing other than, no other, sole, nothing else, alone
        """,
    ),
    _M.MAX: _phrases(
        """
        at most, no more than, not more than, maximum, max, cap, caps, capped, ceiling,
        limit, limits, not exceed, not to exceed, never exceed, do not exceed, don't exceed,
        must not exceed, cannot exceed, can't exceed, shall not exceed, may not exceed,
        won't exceed, must never exceed, not go over, never go over, or less, or fewer,
        or lower, or below, or under, no later than, upper bound, upper limit, hard cap,
        hard limit, <=, rate-limited to, rate limited to, throttled to, capped to,
        tops out at, at the most, at the very most
        """,
    ),
    _M.MIN: _phrases(
        """
        at least, no less than, not less than, no fewer than, not fewer than, minimum, min,
        floor, or more, or greater, or higher, or above, or longer, lower bound,
        no earlier than, >=
        """,
    ),
    _M.UNIVERSAL: _phrases(
        """
        all, every, each, in all cases, without exception, no exceptions, no exception,
        every time, everything, everyone, entire, any and all, always and everywhere,
        not even, not even once, none whatsoever, whatsoever, at all
        """,
    ),
    _M.PARTIAL: _phrases(
        """
        most, some, many, several, majority, a few, partially, certain, some of, most of,
        part of
        """,
    ),
    _M.READONLY: _phrases(
        """
        read-only, readonly, read only, read access only, select-only, select only,
        write-protected, reads only, only read, only reads, only reading, read-only access
        """,
    ),
    _M.WRITE: _phrases(
        """
        read-write, read/write, read and write, write access, writable, write-enabled,
        write permission, write permissions, full access, writes are allowed, writes allowed,
        writes are fine, writes are ok
        """,
    ),
    _M.CONDITION: _phrases(
        """
        unless, except, except for, except when, excluding, other than, apart from,
        aside from, save for, barring, if, only if, only when, provided, provided that,
        as long as, so long as, assuming, in case, besides, with the exception of,
        outside of
        """,
    ),
    _M.LIFT: _phrases(
        """
        no longer, any longer, anymore, not anymore, lifted, waived, waive, waives, waiver,
        rescinded, rescind, revoked, revoke, suspended, does not apply, doesn't apply,
        do not apply, don't apply, not apply, no longer applies, no longer apply,
        null and void, void, obsolete, superseded, disregard, disregarded, exempt, exempted,
        exemption, not in effect, no longer in effect, not enforced, moot, not apply anymore,
        has been lifted, was lifted, is lifted, lifting, lifts, set aside
        """,
    ),
    _M.LIFT_VERB: _phrases(
        """
        removed, dropped, cancelled, canceled, scrapped, abolished, withdrawn, relaxed,
        overridden, override, overrides, ignore, ignored, retired, turned off, switched off,
        expired, ended, lift, remove, drop, deprecated, cleared, reversed, replaced
        """,
    ),
    _M.EXTEND: _phrases(
        """
        also, too, as well, additionally, in addition, not only, any time, anytime,
        at any time, anywhere, whenever, as well as, regardless, no matter
        """,
    ),
    _M.NEGATION: _phrases(
        """
        not, isn't, aren't, wasn't, weren't, doesn't, does not, didn't, did not, hasn't,
        haven't, hadn't, wouldn't, couldn't, could not, would not, without, none, nothing,
        nobody, neither, nor, nowhere, no one, skip, skips, skipped, skipping, bypass,
        bypassed, bypassing, omit, omitted, omitting, unlimited, uncapped, unrestricted,
        unbounded, prevent, prevents, prevented, preventing
        """,
    ),
}
# A wish word in front of a rule noun makes the noun a wish ("soft requirement",
# "non-binding limit"); the adjective alone ("soft delete") stays a word.
_WISH_ADJECTIVES = _phrases(
    "soft, loose, informal, tentative, aspirational, optional, non-binding, nonbinding, "
    "unofficial, voluntary",
)
_RULE_NOUNS = _phrases(
    "requirement, rule, constraint, limit, cap, deadline, target, goal, preference, "
    "guideline, policy, ask, request, budget, threshold, maximum, minimum, ceiling, quota, "
    "norm, standard",
)
_PHRASES[_M.HEDGE] += tuple(
    f"{adjective} {noun}{plural}"
    for adjective in _WISH_ADJECTIVES
    for noun in _RULE_NOUNS
    for plural in ("", "s")
)
_PHRASES[_M.HEDGE] += _phrases(
    """
    suggestion, recommendation, wish, wishes, wishlist, wish list, non-binding, nonbinding,
    not binding, aspirational, aspiration, stretch goal, stretch goals, time permitting,
    if time permits, when time permits, if time allows, where convenient,
    at your convenience, if you get a chance, when you get a chance, where reasonable,
    if reasonable, when reasonable, nice-to-have, good to have, good-to-have, convenient,
    convenience
    """,
)
# Relations that bind a value only when one follows ("under $500", "over 3 retries").
_VALUE_BOUND: dict[Modality, tuple[str, ...]] = {
    _M.MAX: _phrases(
        """
        up to, under, below, within, less than, fewer than, lower than, stay under,
        stay below, stay within, keep under, keep below, <, smaller than, shorter than,
        remain under, remain below, remain within
        """,
    ),
    _M.MIN: _phrases(
        """
        over, above, more than, greater than, higher than, exceeds, exceeding, exceed,
        beyond, >, larger than, longer than
        """,
    ),
    _M.APPROX: _phrases(
        """
        about, around, approximately, approx, roughly, nearly, almost, circa, close to, ~,
        ballpark, somewhere around, in the region of
        """,
    ),
}
_MAX_WORDS = 6
_BOUND_REACH = 3
_PERMISSION_REACH = 5


def _index(
    table: dict[Modality, tuple[str, ...]],
) -> dict[str, list[tuple[tuple[str, ...], Modality]]]:
    index: dict[str, list[tuple[tuple[str, ...], Modality]]] = {}
    for modality, phrases in table.items():
        for phrase in phrases:
            words = tuple(phrase.split())
            index.setdefault(words[0], []).append((words, modality))
    for entries in index.values():
        entries.sort(key=lambda entry: -len(entry[0]))
    return index


_FREE = _index(_PHRASES)
_BOUND = _index(_VALUE_BOUND)


def find_modality(tokens: Sequence[str]) -> tuple[Mark, ...]:
    """Return the modality marks in `tokens`, longest phrase first, without overlaps.

    Value-bound relations (`under`, `over`, `about`) count only when a number, money or
    date follows within three tokens.
    """
    marks: list[Mark] = []
    i = 0
    count = len(tokens)
    while i < count:
        hit = _match(_FREE, tokens, i)
        bound = _match(_BOUND, tokens, i)
        longer = bound is not None and (hit is None or len(bound[0]) > len(hit[0]))
        if longer and _value_follows(tokens, i + len(bound[0])):  # type: ignore[index]
            hit = bound
        if hit is None:
            i += 1
            continue
        words, modality = hit
        marks.append(Mark(modality, i, i + len(words)))
        i += len(words)
    marks = _allowlists(
        tokens,
        _moving_bounds(_zero_negations(tokens, _kept_out(tokens, _kept_from(tokens, marks)))),
    )
    return _negated_bounds(tokens, _bounded_limits(tokens, _negated_permissions(marks)))


_HOLD_REACH = 8
_HOLDING = frozenset(
    {"keep", "keeps", "kept", "stop", "stops", "block", "blocks", "bar", "bars", "prevent"}
    | {"prevents", "stopping", "keeping", "blocking"},
)


def _kept_from(tokens: Sequence[str], marks: list[Mark]) -> list[Mark]:
    """Read "keep the run from going over $500" as a negation of what follows "from".

    Only "from" before an -ing word, after a holding verb within eight words.
    """
    taken = {i for m in marks for i in range(m.start, m.end)}
    found = [
        i
        for i, word in enumerate(tokens)
        if word == "from"
        and i not in taken
        and i + 1 < len(tokens)
        and tokens[i + 1].endswith("ing")
        and any(t in _HOLDING for t in tokens[max(0, i - _HOLD_REACH) : i])
    ]
    if not found:
        return marks
    # The ban sits on "from"; a negating holding verb ("prevent") is not a second one.
    kept = [
        Mark(_M.ABSORBED, m.start, m.end)
        if m.modality is _M.NEGATION
        and tokens[m.start] in _HOLDING
        and any(m.start < i <= m.start + _HOLD_REACH for i in found)
        else m
        for m in marks
    ]
    return sorted([*kept, *(Mark(_M.FORBID, i, i + 1) for i in found)], key=lambda m: m.start)


_STAYING = frozenset({"keep", "keeps", "kept", "keeping", "stay", "stays", "stayed"})


def _kept_out(tokens: Sequence[str], marks: list[Mark]) -> list[Mark]:
    """Read "keep PII out of the logs" as a ban on what is kept out."""
    taken = {i for m in marks for i in range(m.start, m.end)}
    found = [
        Mark(_M.FORBID, i, i + 2)
        for i, word in enumerate(tokens[:-1])
        if word == "out"
        and tokens[i + 1] == "of"
        and i not in taken
        and any(t in _STAYING for t in tokens[max(0, i - _HOLD_REACH) : i])
    ]
    return sorted([*marks, *found], key=lambda m: m.start) if found else marks


def _zero_negations(tokens: Sequence[str], marks: list[Mark]) -> list[Mark]:
    """Read "zero DDL statements" as "no DDL statements"; "zero dollars" stays a value."""
    found = [
        Mark(_M.NEGATION, i, i + 1)
        for i, word in enumerate(tokens)
        if word == "zero"
        and (i + 1 >= len(tokens) or tokens[i + 1] not in VALUE_WORDS)
        and not any(m.start <= i < m.end for m in marks)
    ]
    return sorted([*marks, *found], key=lambda m: m.start) if found else marks


# Participles that name an allowlist ("the approved vendors are ..."); the last ones are
# marks only in that position.
_LISTING_WORDS = frozenset({"approved", "sanctioned", "whitelisted", "allowlisted"})
_ALLOWLISTING = frozenset({"allowed", "permitted", "authorized", "authorised"}) | _LISTING_WORDS
_LIST_DETERMINERS = frozenset({"the", "our", "its", "their", "only"})


def _allowlists(tokens: Sequence[str], marks: list[Mark]) -> list[Mark]:
    """Read "Allowed regions: A, B" and "the permitted vendors are" as an exclusive list.

    Only a participle that opens the statement (or follows "the") and names a noun.
    """
    if _PARTIAL_LIST & set(tokens):
        return marks  # "allowed regions include ...": a list that may go on
    starts = {m.start for m in marks}
    taken = {i for m in marks for i in range(m.start, m.end)}
    marks = sorted(
        [
            *marks,
            *(
                Mark(_M.ALLOW, i, i + 1)
                for i, token in enumerate(tokens)
                if token in _LISTING_WORDS and i not in taken
            ),
        ],
        key=lambda m: m.start,
    )
    result = []
    for mark in marks:
        at, after = mark.start, mark.end
        listing = (
            mark.modality is _M.ALLOW
            and mark.end - mark.start == 1
            and tokens[at] in _ALLOWLISTING
            and (at == 0 or tokens[at - 1] in _LIST_DETERMINERS)
            and after < len(tokens)
            and tokens[after].isalpha()
            and after not in starts
            and tokens[after] not in _FUNCTION_WORDS
        )
        if listing:
            result.append(Mark(_M.ONLY, at, after))
        elif tokens[at] not in _LISTING_WORDS or mark.start in starts:
            result.append(mark)
    return result


_PARTIAL_LIST = frozenset({"include", "includes", "including", "among", "e.g", "like", "such"})
_FUNCTION_WORDS = frozenset(
    {"to", "in", "on", "at", "for", "by", "with", "from", "between", "during", "only", "as"},
)


def _moving_bounds(marks: list[Mark]) -> list[Mark]:
    """Drop a lifting verb that moves toward a bound: "drop below 14" lifts nothing."""
    return [
        mark
        for position, mark in enumerate(marks)
        if not (
            mark.modality is _M.LIFT_VERB
            and position + 1 < len(marks)
            and marks[position + 1].start == mark.end
            and marks[position + 1].modality in (_M.MAX, _M.MIN)
        )
    ]


def _bounded_limits(tokens: Sequence[str], marks: list[Mark]) -> list[Mark]:
    """Read "limited to $8,000" as an upper bound; "limited to admins" stays exclusive."""
    return [
        Mark(_M.MAX, mark.start, mark.end)
        if mark.modality is _M.ONLY
        and tokens[mark.start] in {"limited", "restricted"}
        and _value_follows(tokens, mark.end)
        else mark
        for mark in marks
    ]


def _negated_permissions(marks: list[Mark]) -> list[Mark]:
    """Absorb a permission negated just before it ("no rows may", "nobody can").

    The negation already carries the prohibition.
    """
    kept: list[Mark] = []
    for mark in marks:
        previous = kept[-1] if kept else None
        if (
            mark.modality is _M.ALLOW
            and previous is not None
            and previous.modality in (_M.FORBID, _M.NEGATION)
            and mark.start - previous.end <= _PERMISSION_REACH
        ):
            # "Nothing ... may", "nobody can": the negation now forbids.
            kept[-1] = Mark(_M.FORBID, previous.start, previous.end)
            kept.append(Mark(_M.ABSORBED, mark.start, mark.end))
            continue
        kept.append(mark)
    return kept


_NEGATORS = {_M.FORBID: None, _M.NEGATION: None, _M.SOFT_FORBID: _M.HEDGE}


def _negated_bounds(tokens: Sequence[str], marks: list[Mark]) -> tuple[Mark, ...]:
    """Read a negated bound as the other bound ("never go above" is at most).

    "Must not drop below" is at least; "try not to exceed" a hedged at most. The
    negation is consumed; a soft one ("try not to") leaves a hedge behind. Only a
    relation that binds a value turns ("below", "under"), not a phrase that already
    holds its negation ("no more than").
    """
    for position, mark in enumerate(marks):
        if position == 0 or mark.modality not in (_M.MIN, _M.MAX):
            continue
        if mark.modality is _M.MAX and tuple(tokens[mark.start : mark.end]) not in _UPPER:
            continue
        other = _M.MAX if mark.modality is _M.MIN else _M.MIN
        before = marks[position - 1]
        if before.modality in _NEGATORS and mark.start - before.end <= _BOUND_REACH:
            marks[position] = Mark(other, mark.start, mark.end)
            left = _NEGATORS[before.modality]
            marks[position - 1] = Mark(left or other, before.start, before.end)
    return tuple(_trailing_bounds(tokens, marks))


_UPPER = frozenset(tuple(phrase.split()) for phrase in _VALUE_BOUND[_M.MAX])
_MORE = frozenset({"more", "higher", "longer", "later", "larger", "bigger", "greater"})
_LESS = frozenset({"less", "fewer", "lower", "shorter", "earlier", "smaller"})


def _trailing_bounds(tokens: Sequence[str], marks: list[Mark]) -> list[Mark]:
    """Read "3 retries, no more" as an upper bound and "14 days, no fewer" as a lower one.

    Only right after a number (within four words) and not before "than", so "no more
    deploys on Fridays" stays a prohibition.
    """
    result = []
    for mark in marks:
        after = mark.end
        word = tokens[after] if after < len(tokens) else ""
        turned = _M.MAX if word in _MORE else _M.MIN if word in _LESS else None
        follows = tokens[after + 1] if after + 1 < len(tokens) else ""
        if (
            turned is not None
            and mark.modality in (_M.FORBID, _M.NEGATION)
            and tokens[mark.start] in {"no", "not", "nothing"}
            and follows != "than"
            and any(is_numeric(t) for t in tokens[max(0, mark.start - 4) : mark.start])
        ):
            result.append(Mark(turned, mark.start, after + 1))
            continue
        result.append(mark)
    return result


def _match(
    index: dict[str, list[tuple[tuple[str, ...], Modality]]], tokens: Sequence[str], i: int
) -> tuple[tuple[str, ...], Modality] | None:
    entries = index.get(tokens[i])
    if not entries:
        return None
    window = tuple(tokens[i : i + _MAX_WORDS])
    for words, modality in entries:
        if window[: len(words)] == words:
            return words, modality
    return None


def _value_follows(tokens: Sequence[str], start: int) -> bool:
    for token in tokens[start : start + _BOUND_REACH]:
        if is_numeric(token) or token[0] in "$\u20ac\u00a3\u00a5" or token in _NUMBER_WORDS:
            return True
    return False


_NUMBER_WORDS = frozenset(
    _phrases(
        """
        one, two, three, four, five, six, seven, eight, nine, ten, eleven, twelve, fifteen,
        twenty, thirty, forty, fifty, sixty, hundred, thousand, noon, midnight
        """,
    ),
)
