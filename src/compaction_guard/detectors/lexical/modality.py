"""Modality, scope and polarity words for the lexical layer, found as token phrases.

Each phrase maps to one `Modality`. Phrases are matched longest first, so `must not`
is one FORBID mark and `no more than` one MAX mark, never a negation plus a bound.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from compaction_guard.anchors import is_numeric

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["NEGATIVE", "STRONG", "UPPER", "Mark", "Modality", "match_phrases", "value_follows"]


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
# The force a rule may offer: what `context.force_kept` asks a window to keep.
FORCE = STRONG | {Modality.ONLY, Modality.MAX, Modality.MIN, Modality.READONLY}


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
        nice-to-haves, best practices, a suggestion, just a suggestion, advisory, negotiable,
        your judgement, your judgment, your discretion, judgement call, judgment call,
        up to you
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
        only, exclusively, solely, restricted to, limited to, confined to, nothing but,
        one and only,
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
    convenience, give or take, more or less, or thereabouts, thereabouts
    """,
)
# Relations that bind a value only when one follows ("under $500", "over 3 retries").
_VALUE_BOUND: dict[Modality, tuple[str, ...]] = {
    _M.MAX: _phrases(
        """
        up to, under, below, within, less than, fewer than, lower than, stay under,
        stay below, stay within, keep under, keep below, <, smaller than, shorter than,
        remain under, remain below, remain within, younger than
        """,
    ),
    _M.MIN: _phrases(
        """
        over, above, more than, greater than, higher than, exceeds, exceeding, exceed,
        beyond, >, larger than, bigger than, longer than
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
# Approximators that, closing a sentence with no value after them, approximate the whole.
_CLOSING_APPROX = frozenset({("approximately",), ("approx",), ("roughly",), ("circa",)})
_BOUND_REACH = 3


_Entry = tuple[tuple[str, ...], Modality]


@dataclass(frozen=True, slots=True)
class _Opener:
    """The phrases one word opens: longer ones by their second word, and the word alone.

    A phrase of two words or more can match only where its second word follows, so the
    table is asked for the few phrases that second word continues, instead of comparing
    every phrase the word opens ("as" opens ten, "no" twenty-one).
    """

    by_second: dict[str, list[_Entry]]
    alone: _Entry | None


def _index(table: dict[Modality, tuple[str, ...]]) -> dict[str, _Opener]:
    entries: dict[str, list[_Entry]] = {}
    for modality, phrases in table.items():
        for phrase in phrases:
            words = tuple(phrase.split())
            entries.setdefault(words[0], []).append((words, modality))
    index: dict[str, _Opener] = {}
    for first, found in entries.items():
        found.sort(key=lambda entry: -len(entry[0]))  # longest first; ties keep table order
        by_second: dict[str, list[_Entry]] = {}
        for entry in found:
            if len(entry[0]) > 1:
                by_second.setdefault(entry[0][1], []).append(entry)
        alone = next((entry for entry in found if len(entry[0]) == 1), None)
        index[first] = _Opener(by_second, alone)
    return index


_FREE = _index(_PHRASES)
_BOUND = _index(_VALUE_BOUND)
# Where `_match` can find a phrase: at a word that is a phrase of its own, or at a word
# and the next one that open a longer phrase together ("in the region of" needs "in the").
# At any other place it finds none, in either table.
_SINGLES = frozenset(
    word for table in (_FREE, _BOUND) for word, opener in table.items() if opener.alone
)
_PAIRS = frozenset(
    (word, second)
    for table in (_FREE, _BOUND)
    for word, opener in table.items()
    for second in opener.by_second
)
# The words some phrase opens with: any other token starts no mark (`_match` finds none).
_OPENERS = frozenset(_FREE) | frozenset(_BOUND)


def match_phrases(tokens: Sequence[str], *, named_back: bool = True) -> list[Mark]:
    """Return the phrase marks in `tokens`, longest phrase first, without overlaps.

    Value-bound relations (`under`, `over`, `about`) count only when a number, money or
    date follows within three tokens, or (`named_back`, the catalogue's
    `lexical.bound_named_back`) an anaphor pointing back at a value ("more than that").
    """
    marks: list[Mark] = []
    count = len(tokens)
    resume = 0  # the end of the last mark: its words open nothing more
    # Only a word some phrase opens can start a mark: the others are passed over in one
    # C-level scan instead of one step of this loop each. Of those, most open only longer
    # phrases ("in", "a", "was") and are followed by no word that goes on with one.
    for i in itertools.compress(itertools.count(), map(_OPENERS.__contains__, tokens)):
        if i < resume:
            continue
        word = tokens[i]
        if word not in _SINGLES and (i + 1 == count or (word, tokens[i + 1]) not in _PAIRS):
            continue
        hit = _match(_FREE, tokens, i)
        bound = _match(_BOUND, tokens, i)
        longer = bound is not None and (hit is None or len(bound[0]) > len(hit[0]))
        if longer and (
            value_follows(tokens, i + len(bound[0]))  # type: ignore[index]
            or (named_back and _value_named_back(tokens, i, i + len(bound[0])))  # type: ignore[index]
        ):
            hit = bound
        elif hit is None and bound is not None and bound[0] in _CLOSING_APPROX and i + 1 == count:
            hit = (bound[0], _M.HEDGE)  # ", approximately." loosens what came before
        if hit is None:
            continue
        words, modality = hit
        marks.append(Mark(modality, i, i + len(words)))
        resume = i + len(words)
    return marks


# Value-bound upper relations ("below", "under"), which a negation turns round.
UPPER = frozenset(tuple(phrase.split()) for phrase in _VALUE_BOUND[_M.MAX])


def _match(index: dict[str, _Opener], tokens: Sequence[str], i: int) -> _Entry | None:
    """Return the longest phrase of `index` at `i` with its modality, or None."""
    opener = index.get(tokens[i])
    if opener is None:
        return None
    if opener.by_second and i + 1 < len(tokens):
        entries = opener.by_second.get(tokens[i + 1])
        if entries:
            window = tuple(tokens[i : i + _MAX_WORDS])
            for words, modality in entries:
                if window[: len(words)] == words:
                    return words, modality
    return opener.alone


def _value_named_back(tokens: Sequence[str], start: int, end: int) -> bool:
    """Tell whether a bound word points back at a value said before it ("more than that").

    "Max dose is 4 g per day; never suggest more than that": the anaphor right after the
    bound word is the value earlier in the sentence, so the words are a bound on it.
    """
    if end >= len(tokens) or tokens[end] not in _VALUE_ANAPHORS:
        return False
    if end + 1 < len(tokens) and tokens[end + 1].isalpha() and tokens[end + 1] not in _CLOSERS:
        return False  # "more than that many": "that" opens a phrase of its own
    return any(value_follows(tokens[:start], i) for i in range(start))


_VALUE_ANAPHORS = frozenset({"that", "this", "it"})
_CLOSERS = frozenset({"and", "or", "but", "either", "again", "ever", "per"})


def value_follows(tokens: Sequence[str], start: int) -> bool:
    """Tell whether a number, money or time word follows within three tokens."""
    for token in tokens[start : start + _BOUND_REACH]:
        if (
            is_numeric(token)
            or _numeric_range(token)
            or token[0] in "$\u20ac\u00a3\u00a5"
            or token in _NUMBER_WORDS
            or _compound_number(token)
        ):
            return True
    return False


def _numeric_range(token: str) -> bool:
    """Tell whether a token is a range of two numbers ("18-24"): "above 18-24" is a bound."""
    low, dash, high = token.replace("\u2013", "-").partition("-")
    return bool(dash) and is_numeric(low) and is_numeric(high)


def _compound_number(token: str) -> bool:
    """Tell whether a hyphenated token is a number in words ("twenty-five", not "one-time")."""
    tens, _, unit = token.partition("-")
    return tens in _NUMBER_WORDS and unit in _NUMBER_WORDS


_NUMBER_WORDS = frozenset(
    _phrases(
        """
        one, two, three, four, five, six, seven, eight, nine, ten, eleven, twelve, fifteen,
        twenty, thirty, forty, fifty, sixty, hundred, thousand, noon, midnight
        """,
    ),
)
