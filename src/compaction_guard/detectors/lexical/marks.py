"""Marks read in context: phrase marks, then the readings that need their neighbours.

"Keep X from going over", "no rows may", "never drop below". `find_modality` is the
one entry point. See docs/DESIGN.md, "Lexical layer".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compaction_guard.anchors import VALUE_WORDS, is_numeric
from compaction_guard.detectors.lexical.modality import (
    UPPER,
    Mark,
    Modality,
    match_phrases,
    value_follows,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["find_modality"]

_M = Modality
_BOUND_REACH = 3
_PERMISSION_REACH = 5


def find_modality(tokens: Sequence[str], *, named_back: bool = True) -> tuple[Mark, ...]:
    """Return the modality marks in `tokens`, each read with its neighbours.

    Phrases are matched longest first (see `match_phrases`); then a negation before a
    permission or a bound, a holding verb before "from", "zero" before a noun and an
    allowlist participle are read for what they say together.
    """
    marks = match_phrases(tokens, named_back=named_back)
    if not marks and _ADDING.isdisjoint(tokens):
        return ()  # most texts: no phrase, and none of the words a reading below adds on
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

    Only "from" before an -ing word, after a holding verb within eight words; without a
    "from" (most sentences) nothing is read, so the scan below is skipped.
    """
    if "from" not in tokens:
        return marks
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
    """Read "keep PII out of the logs" as a ban on what is kept out (needs an "out")."""
    if "out" not in tokens:
        return marks
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
    if "zero" not in tokens:
        return marks
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
    Without an allowlisting word every mark is kept as it is, in order (the marks come
    sorted by start), so most sentences return at the first test.
    """
    if _ALLOWLISTING.isdisjoint(tokens) or not _PARTIAL_LIST.isdisjoint(tokens):
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


# The words the readings above add a mark on where no phrase was found: "from" (`_kept_from`),
# "out" (`_kept_out`), "zero" (`_zero_negations`), an allowlist participle (`_allowlists`).
# The readings after them only recast or drop marks.
_ADDING = frozenset({"from", "out", "zero"}) | _LISTING_WORDS

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
    """Read "limited to $8,000" as an upper bound; "limited to admins" stays exclusive.

    A value with a bound of its own ("limited to at least 300 words", "confined to over
    5,000 rows") is bounded by that phrase alone: the limit word is absorbed and adds no
    cap, so a floor written after it is never read as the rule's ceiling.
    """
    bounded = {mark.start for mark in marks if mark.modality in (_M.MAX, _M.MIN)}
    result = []
    for mark in marks:
        if (
            mark.modality is _M.ONLY
            and tokens[mark.start] in {"limited", "restricted", "confined"}
            and value_follows(tokens, mark.end)
        ):
            modality = _M.ABSORBED if mark.end in bounded else _M.MAX
            mark = Mark(modality, mark.start, mark.end)  # noqa: PLW2901
        result.append(mark)
    return result


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
        if mark.modality is _M.MAX and tuple(tokens[mark.start : mark.end]) not in UPPER:
            continue
        other = _M.MAX if mark.modality is _M.MIN else _M.MIN
        before = marks[position - 1]
        if before.modality in _NEGATORS and mark.start - before.end <= _BOUND_REACH:
            marks[position] = Mark(other, mark.start, mark.end)
            left = _NEGATORS[before.modality]
            marks[position - 1] = Mark(left or other, before.start, before.end)
    return tuple(_trailing_bounds(tokens, marks))


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
