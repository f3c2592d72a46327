"""The anchor_diff rule: a value, name or bound term of the rule replaced by another.

It also holds the word-by-word walk that tells a restatement of the rule (which may
outweigh a certified copy) from a mere mention.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from compaction_guard.anchors import (
    are_siblings,
    comparable,
    extract_values,
    period_words,
    singular,
    values_equal,
)
from compaction_guard.detectors.lexical.context import (
    MAX_GAP,
    STRONG_COVERAGE,
    Context,
    Reading,
)
from compaction_guard.detectors.lexical.lexicon import RELATIONS, STOPWORDS
from compaction_guard.detectors.lexical.switches import is_on
from compaction_guard.taxonomy import Kind

if TYPE_CHECKING:
    from compaction_guard.anchors import Value
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = ["anchor_diff", "changed_identifier", "distributed_rate", "rated_period", "restates"]

_SLOT_REACH = 6


def anchor_diff(ctx: Context) -> Reading | None:
    """Find a value, identifier or bound term of the constraint replaced by another."""
    for check in (_changed_value, changed_identifier, _substituted_word):
        reading = check(ctx)
        if reading is not None:
            return reading
    return None


def _changed_value(ctx: Context) -> Reading | None:
    """Find a value of the rule restated as another value of the same kind."""
    if not ctx.topical:
        return None
    # Without the rule's force a different value is a measurement ("spent $120 so far"
    # for "cap $500"), unless it sits in the same frame ("every 180 days" for "every 90").
    # A value under the opposite bound is a measurement too ("spend is above $120").
    loose = (bool(ctx.lost) and ctx.al.coverage < STRONG_COVERAGE) or ctx.bound_swap
    c_values = ctx.part.analysis.values
    for wanted in c_values:
        if any(values_equal(wanted, found) for found in ctx.region_values):
            continue
        rivals = [
            found
            for found in ctx.region_values
            if comparable(wanted, found)
            and not any(values_equal(c, found) for c in c_values)
            and not rated_period(ctx, wanted, found)
            and not distributed_rate(ctx, wanted, found)
        ]
        for found in rivals:
            if loose and not _same_frame(ctx, wanted, found):
                continue
            alone = len(rivals) == 1 and ctx.al.coverage >= STRONG_COVERAGE
            if _slot_aligned(ctx, wanted, found) or (alone and ctx.al.matched_keys >= 2):  # noqa: PLR2004
                return _mutated(ctx, wanted.surface, found.surface, "value changed")
    return None


def rated_period(ctx: Context, wanted: Value, found: Value) -> bool:
    """Tell whether two values differ only in a rate read from the period the rule names.

    "$1.2k monthly ceiling" for "$1,200 ... this month": the amount is the rule's, and
    "monthly" reads as "per month" where the rule names the month. That is not a changed
    value (nor the same one: it never certifies). "$1,200 daily" for "this month" is.
    """
    if bool(wanted.per) == bool(found.per):
        return False
    if not values_equal(dataclasses.replace(found, per=wanted.per), wanted):
        return False
    rated, plain = (found, ctx.part.analysis) if found.per else (wanted, ctx.win)
    return bool(period_words(rated.per) & {singular(t) for t in plain.tokens})


def distributed_rate(ctx: Context, wanted: Value, found: Value) -> bool:
    """Tell whether a value of two rates is said with one rate and the other distributed.

    "2 night shifts per nurse per week" is read as "2 night shifts per nurse" (one rate
    per value); "each nurse gets at most two night shifts per week" says the same with the
    nurse distributed by "each". The found value must be the rule's with its second rate,
    and the first rate's noun must follow a distributive word in the window ("each",
    "every", "per", "no"). Not a changed value, nor the same one: it never certifies.
    """
    if not is_on("distributed_rate") or not (wanted.per and found.per) or wanted.per == found.per:
        return False
    tokens = ctx.part.analysis.tokens
    end = wanted.end
    if end < 2 or tokens[end - 2] != "per" or end + 1 >= len(tokens) or tokens[end] != "per":  # noqa: PLR2004
        return False
    other = extract_values([*tokens[wanted.start : end - 2], *tokens[end : end + 2]])
    if not other or not values_equal(other[0], found):
        return False
    noun = singular(tokens[end - 1])
    win = ctx.win.tokens
    return any(
        win[i] in _DISTRIBUTIVE and singular(win[i + 1]) == noun for i in range(len(win) - 1)
    )


_DISTRIBUTIVE = frozenset({"each", "every", "per", "no", "any"})


def _same_frame(ctx: Context, wanted: Value, found: Value) -> bool:
    """Tell whether the same word stands before both values ("every 90", "every 180")."""
    before = _word_before(ctx.part.analysis, wanted.start)
    return before is not None and before == _word_before(ctx.win, found.start)


def _word_before(analysis: Analysis, start: int) -> str | None:
    for index in range(start - 1, max(-1, start - 3), -1):
        word = analysis.tokens[index]
        if word not in STOPWORDS or word in RELATIONS:
            return word
    return None


def _slot_aligned(ctx: Context, wanted: Value, found: Value) -> bool:
    before = [i for i in ctx.al.matches if i < wanted.start]
    after = [i for i in ctx.al.matches if i >= wanted.end]
    if not before and not after:
        return False
    left = ctx.al.matches[max(before)] if before else None
    right = ctx.al.matches[min(after)] if after else None
    if left is not None and found.start <= left:
        return False
    if right is not None and found.start >= right:
        return False
    near = [abs(found.start - p) for p in (left, right) if p is not None]
    return min(near) <= _SLOT_REACH


def changed_identifier(ctx: Context) -> Reading | None:
    """Find a name of the rule replaced by a sibling name in a restatement of the rule.

    `orders_prod` replaced by `orders_prod_archive`, `.env` by `.env.example`.
    """
    tokens = ctx.part.analysis.tokens
    for index in ctx.part.names:  # the content words that are names (`is_name`), in order
        if index in ctx.al.matches:
            continue
        token, weight = tokens[index], ctx.part.weight_at[index]
        rest = (ctx.al.coverage * ctx.part.total) / max(ctx.part.total - weight, 1.0)
        if rest < STRONG_COVERAGE:
            continue  # read first: neither reading below holds, whatever the window names
        sibling = _sibling(ctx, token)
        if sibling is None:
            continue
        # A restatement keeps every other word, so only then is the walk worth it.
        if rest >= 1.0 - 1e-9 and _one_replacement(ctx) == (token, sibling):
            return _mutated(ctx, token, sibling, "identifier replaced", strong=True)
        if ctx.al.matched_keys >= 2 and not ctx.lost:  # noqa: PLR2004
            return _mutated(ctx, token, sibling, "identifier replaced")
    return None


def _sibling(ctx: Context, token: str) -> str | None:
    # The region's tokens are those of its clauses (`Sentences.region`).
    clauses, region = ctx.win.clauses, ctx.al.region
    for position, found in ctx.facts.names:
        if found != token and clauses[position] in region and are_siblings(token, found):
            return found
    return None


def _substituted_word(ctx: Context) -> Reading | None:
    """One content word or name swapped in an otherwise near-verbatim sentence."""
    if ctx.al.complete or not ctx.topical:
        return None
    replaced = _one_replacement(ctx)
    if replaced is None:
        return None
    wanted, found = replaced
    return _mutated(ctx, wanted, found, "a bound term replaced", strong=True)


def _one_replacement(ctx: Context) -> tuple[str, str] | None:
    part = ctx.part.analysis
    wanted = list(ctx.part.significant)
    if len(wanted) < 3:  # noqa: PLR2004 - too short to tell a swap from a rewrite
        return None
    win = ctx.win
    for start in range(len(win.tokens)):
        if win.clauses[start] not in ctx.al.topic_clauses:
            continue
        found = _walk(part, wanted, win, start)
        if found is not None:
            return found
    return None


def _walk(part: Analysis, wanted: list[int], win: Analysis, start: int) -> tuple[str, str] | None:
    """Match `wanted` from `start`, allowing stopword insertions and one replacement."""
    found = _match(part, wanted, win, start, budget=1, replaceable=_replaceable)
    if not found:
        return None  # no match, or a match with nothing replaced
    index, position = found[0]
    return part.tokens[index], win.tokens[position]


def restates(ctx: Context) -> bool:
    """Tell whether the window says the part again word for word, up to two changed words.

    Only such a restatement (the changed value, name or force word aside) outweighs a
    certified copy elsewhere in the summary: "spent $120 of the cap" does not.
    """
    wanted = list(ctx.part.significant)
    if len(wanted) < 3:  # noqa: PLR2004 - too short to tell a restatement from a mention
        return ctx.al.coverage >= STRONG_COVERAGE
    part, win = ctx.part.analysis, ctx.win
    return any(
        _match(part, wanted, win, start, budget=2, replaceable=_any_word) is not None
        for start in range(len(win.tokens))
        if win.clauses[start] in ctx.al.topic_clauses
    )


def _any_word(_part: Analysis, _index: int, _win: Analysis, _position: int) -> bool:
    return True


def _match(
    part: Analysis,
    wanted: list[int],
    win: Analysis,
    start: int,
    *,
    budget: int,
    replaceable: Any,
) -> list[tuple[int, int]] | None:
    """Depth-first: match, else skip an inserted function word, else replace (`budget`).

    Return the replaced (part index, window position) pairs, or None when it fails.
    """

    def go(at: int, position: int, gap: int, replaced: list[tuple[int, int]]) -> Any:
        if at == len(wanted):
            return replaced
        if position >= len(win.tokens) or gap > MAX_GAP:
            return None
        index = wanted[at]
        if _same(part, index, win, position):
            return go(at + 1, position + 1, gap, replaced)
        token = win.tokens[position]
        if token in STOPWORDS and token not in RELATIONS:
            skipped = go(at, position + 1, gap + 1, replaced)
            if skipped is not None:
                return skipped
        if len(replaced) < budget and replaceable(part, index, win, position):
            return go(at + 1, position + 1, gap, [*replaced, (index, position)])
        return None

    found: list[tuple[int, int]] | None = go(0, start, 0, [])
    return found


def _same(part: Analysis, index: int, win: Analysis, position: int) -> bool:
    key = part.keys[index]
    if key is not None and not key.startswith("~"):
        return win.keys[position] == key
    return part.tokens[index] == win.tokens[position]


def _replaceable(part: Analysis, index: int, win: Analysis, position: int) -> bool:
    """Tell whether a content word or name may stand replaced here (force words may not)."""
    key = part.keys[index]
    if key is None or key.startswith("~") or part.mark_at[index] >= 0:
        return False
    token = win.tokens[position]
    if win.mark_at[position] >= 0 or token in RELATIONS or win.keys[position] is None:
        return False
    return any(v.start <= index < v.end for v in part.values) is False


def _mutated(ctx: Context, wanted: str, found: str, why: str, *, strong: bool = False) -> Reading:
    strong = strong or restates(ctx)
    return ctx.reading(
        Kind.MUTATED,
        "anchor_diff",
        explicit=True,
        strong=strong,
        evidence={"why": why, "expected": wanted, "found": found},
    )
