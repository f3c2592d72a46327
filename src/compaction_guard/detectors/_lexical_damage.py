"""The damage rules, each reading one Context and returning a Reading or None.

lifted and polarity decide contradicted, anchor_diff mutated, hedge and modality_loss
weakened.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from compaction_guard.anchors import are_siblings, comparable, values_equal
from compaction_guard.detectors._lexical_context import (
    MAX_GAP,
    POINTED,
    SCOPED,
    STRONG_COVERAGE,
    TOPIC_COVERAGE,
    Context,
    Reading,
    is_name,
    modality_evidence,
    names_core,
    names_in,
    read_only_kept,
)
from compaction_guard.detectors._lexical_lexicon import RELATIONS, STOPWORDS, WRITE_VERBS
from compaction_guard.detectors._lexical_modality import NEGATIVE, STRONG, Modality
from compaction_guard.normalize import stem
from compaction_guard.taxonomy import Kind

if TYPE_CHECKING:
    from collections import Counter

    from compaction_guard.anchors import Value
    from compaction_guard.detectors._lexical_align import Part
    from compaction_guard.detectors._lexical_text import Analysis

__all__ = ["anchor_diff", "changed_identifier", "hedge", "lifted", "modality_loss", "polarity"]

_SLOT_REACH = 6
_LOOSE_COVERAGE = 0.34
_M = Modality
_EXPLICIT = frozenset(
    {_M.FORBID, _M.OBLIGE, _M.ALLOW, _M.OPTIONAL, _M.SOFT_FORBID, _M.NEGATION, _M.HEDGE},
)
_SOFTENERS = (_M.HEDGE, _M.SOFT_FORBID, _M.CONDITION, _M.APPROX)
_LIMITERS = (_M.HEDGE, _M.CONDITION, _M.PARTIAL, _M.ONLY, _M.APPROX)


def lifted(ctx: Context) -> Reading | None:
    """Find a statement that the rule was lifted, waived or no longer applies."""
    c_lift = ctx.part.classes[_M.LIFT] + ctx.part.classes[_M.LIFT_VERB]
    if ctx.al.coverage < TOPIC_COVERAGE:
        # "The customer limit no longer applies": a plain lifting phrase naming the
        # rule's most specific word decides even when the sentence names little else.
        if ctx.w_classes[_M.LIFT] > ctx.part.classes[_M.LIFT] and _loosely_named(ctx):
            return ctx.reading(
                Kind.CONTRADICTED,
                "lifted",
                explicit=True,
                strong=True,
                evidence={
                    "why": "a lifting phrase names the rule",
                    "modality": modality_evidence(ctx),
                },
            )
        return None
    if ctx.w_classes[_M.LIFT] + ctx.w_classes[_M.LIFT_VERB] > c_lift:
        return _contradicted(ctx, "lifted", "the window says the rule was lifted")
    if c_lift or not ctx.topical:
        return None
    for classes, where in ctx.afterthoughts:
        if (classes[_M.LIFT] or classes[_M.LIFT_VERB]) and not classes[SCOPED]:
            return _contradicted(ctx, "lifted", f"a lifting statement follows in the {where}")
    return None


def polarity(ctx: Context) -> Reading | None:
    """Find negation inserted or removed, or an incompatible bound or permission."""
    if not ctx.topical:
        return None
    for check in (_bound_reversed, _made_writable, _opened_up, _afterthought_permits, _negated):
        why = check(ctx)
        if why is not None:
            return _contradicted(ctx, "polarity", why)
    return None


def _bound_reversed(ctx: Context) -> str | None:
    acts = len(ctx.act_swaps)
    if ctx.bound_swap and (ctx.part.parity + acts) % 2 == ctx.w_parity:
        return "an upper bound became a lower bound or back"
    return None


def _made_writable(ctx: Context) -> str | None:
    if _read_only(ctx.part) and not read_only_kept(ctx) and _w_writable(ctx):
        return "read-only became writable"
    return None


def _opened_up(ctx: Context) -> str | None:
    part, w = ctx.part.classes, ctx.w_classes
    if not part[_M.ONLY] or w[_M.ONLY]:
        return None
    if w[_M.EXTEND] > part[_M.EXTEND]:
        return "an exclusive rule was opened up"
    if w[_M.ALLOW] and _alternative_added(ctx):
        return "an exclusive rule now permits an alternative"
    return None


def _afterthought_permits(ctx: Context) -> str | None:
    for classes, where in ctx.afterthoughts:
        if _reverses(ctx.part, classes):
            return f"the {where} permits what the rule limits"
    return None


def _negated(ctx: Context) -> str | None:
    if _flipped(ctx) and not _limited_permission(ctx) and not _hedged_negation(ctx):
        swaps = ctx.relation_swaps + ctx.act_swaps
        return f"opposite words {swaps}" if swaps else "negation or permission reversed"
    return None


def _flipped(ctx: Context) -> bool:
    swaps = ctx.relation_swaps
    acts = ctx.act_swaps
    explicit = swaps or any(ctx.w_classes[m] for m in _EXPLICIT)
    turns = len(swaps) + len(acts) + ctx.bound_swap
    flipped = (ctx.part.parity + turns) % 2 != ctx.w_parity
    return bool(flipped and explicit and _predicate_kept(ctx))


def _hedged_negation(ctx: Context) -> bool:
    """Tell whether an extra negation belongs to a hedge around the rule's own force.

    "Never exceed 5 replicas where it does not hurt latency": the rule keeps its force
    and gains a softened condition, so it is weakened, not reversed.
    """
    part, w = ctx.part.classes, ctx.w_classes
    force = [m for m in (*STRONG, _M.NEGATION) if part[m]]
    kept = bool(force) and all(w[m] >= part[m] for m in force)
    return kept and any(w[m] > part[m] for m in _SOFTENERS)


def _limited_permission(ctx: Context) -> bool:
    """Tell whether a permission is hemmed in ("allowed occasionally", "only if approved").

    Such an exception weakens the rule rather than reversing it.
    """
    w = ctx.w_classes
    return bool(w[_M.ALLOW]) and any(w[m] for m in _LIMITERS)


def _loosely_named(ctx: Context) -> bool:
    return ctx.al.coverage >= _LOOSE_COVERAGE and names_core(ctx)


def _alternative_added(ctx: Context) -> bool:
    """`or` in the window but not in the rule: "from X or from spreadsheets"."""
    in_part = "or" in ctx.part.analysis.tokens
    return not in_part and any(ctx.win.tokens[i] == "or" for i in ctx.region_tokens)


def _reverses(part: Part, classes: Counter[Modality]) -> bool:
    """Tell whether an afterthought opens, permits or makes optional what the rule binds."""
    parity = sum(n for m, n in classes.items() if m in NEGATIVE) % 2
    if part.classes[_M.ONLY] and classes[_M.EXTEND] and (classes[_M.ALLOW] or parity == 0):
        return True
    if part.parity == 1 and classes[_M.ALLOW] and parity == 0:
        return True
    return bool(any(part.classes[m] for m in STRONG) and classes[_M.OPTIONAL])


def _predicate_kept(ctx: Context) -> bool:
    """Tell whether the words the rule's negations govern are in the window too.

    A reversal must be about the same act: "must not ship" and "may ship", not "wait".
    """
    for mark in ctx.part.analysis.marks:
        if mark.modality not in NEGATIVE:
            continue
        governed = next((i for i in ctx.part.content if i >= mark.end), None)
        if governed is not None and governed not in ctx.al.matches:
            return False
    return True


def _contradicted(ctx: Context, rule: str, why: str) -> Reading:
    # A reversal or a lift about the rule outweighs a copy elsewhere whenever it speaks
    # about the rule squarely, restated or not; the cost of missing one is a false pass.
    strong = ctx.al.coverage >= STRONG_COVERAGE or _restates(ctx)
    return ctx.reading(
        Kind.CONTRADICTED,
        rule,
        explicit=True,
        strong=strong,
        evidence={"why": why, "modality": modality_evidence(ctx)},
    )


def _read_only(part: Part) -> bool:
    stems = {stem(token) for token in part.analysis.tokens}
    return bool(part.classes[_M.READONLY]) or (part.parity == 1 and bool(stems & WRITE_VERBS))


def _w_writable(ctx: Context) -> bool:
    if ctx.w_classes[_M.WRITE]:
        return True
    permits = ctx.w_classes[_M.ALLOW] or ctx.w_classes[_M.OBLIGE]
    return bool(permits and ctx.w_parity == 0 and ctx.region_stems & WRITE_VERBS)


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
    loose = bool(ctx.lost) and ctx.al.coverage < STRONG_COVERAGE
    c_values = ctx.part.analysis.values
    for wanted in c_values:
        if any(values_equal(wanted, found) for found in ctx.region_values):
            continue
        rivals = [
            found
            for found in ctx.region_values
            if comparable(wanted, found) and not any(values_equal(c, found) for c in c_values)
        ]
        for found in rivals:
            if loose and not _same_frame(ctx, wanted, found):
                continue
            alone = len(rivals) == 1 and ctx.al.coverage >= STRONG_COVERAGE
            if _slot_aligned(ctx, wanted, found) or (alone and ctx.al.matched_keys >= 2):  # noqa: PLR2004
                return _mutated(ctx, wanted.surface, found.surface, "value changed")
    return None


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
    for index, weight in zip(ctx.part.content, ctx.part.weights, strict=True):
        token = tokens[index]
        if index in ctx.al.matches or not is_name(token):
            continue
        sibling = _sibling(ctx, token)
        if sibling is None:
            continue
        rest = (ctx.al.coverage * ctx.part.total) / max(ctx.part.total - weight, 1.0)
        # A restatement keeps every other word, so only then is the walk worth it.
        if rest >= 1.0 - 1e-9 and _one_replacement(ctx) == (token, sibling):
            return _mutated(ctx, token, sibling, "identifier replaced", strong=True)
        if rest >= STRONG_COVERAGE and ctx.al.matched_keys >= 2 and not ctx.lost:  # noqa: PLR2004
            return _mutated(ctx, token, sibling, "identifier replaced")
    return None


def _sibling(ctx: Context, token: str) -> str | None:
    region = set(ctx.region_tokens)
    for position, found in names_in(ctx.win.tokens):
        if position in region and found != token and are_siblings(token, found):
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


def _restates(ctx: Context) -> bool:
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
    strong = strong or _restates(ctx)
    return ctx.reading(
        Kind.MUTATED,
        "anchor_diff",
        explicit=True,
        strong=strong,
        evidence={"why": why, "expected": wanted, "found": found},
    )


def hedge(ctx: Context) -> Reading | None:
    """Find a hedge, condition or approximation wrapped around the rule."""
    if not ctx.topical or ctx.complement:
        return None
    for check in (_softened, _afterthought_softens):
        why = check(ctx)
        if why is not None:
            return _weakened(ctx, "hedge", why)
    return None


def _softened(ctx: Context) -> str | None:
    part, w = ctx.part.classes, ctx.w_classes
    if _flipped(ctx) and _limited_permission(ctx):
        return "an exception to the rule was allowed"
    if _flipped(ctx) and _hedged_negation(ctx):
        return "the rule was wrapped in a negated hedge"
    for modality in _SOFTENERS:
        if w[modality] > part[modality]:
            return f"{modality.value} added"
    if part[_M.UNIVERSAL] and w[_M.PARTIAL] > part[_M.PARTIAL]:
        return "all became some"
    if ctx.part.parity == 1 == ctx.w_parity and w[_M.ALLOW] > part[_M.ALLOW]:
        return "an exception was added to a prohibition"
    return None


def _afterthought_softens(ctx: Context) -> str | None:
    for classes, where in ctx.afterthoughts:
        if classes[SCOPED] and (classes[_M.LIFT] or classes[_M.LIFT_VERB]):
            return f"the {where} lifts the rule for some cases"
        if where == "next sentence" and not classes[POINTED]:
            continue  # a condition in the next sentence must point back to soften this rule
        for modality in _SOFTENERS:
            if classes[modality] > ctx.part.classes[modality]:
                return f"{modality.value} added in the {where}"
    return None


def modality_loss(ctx: Context) -> Reading | None:
    """Obligation turned into permission, or `or` and `and` swapped between terms."""
    if not ctx.topical or ctx.complement:
        return None
    part, w = ctx.part.classes, ctx.w_classes
    has_strong = any(part[m] for m in STRONG)
    if has_strong and not any(w[m] for m in STRONG) and w[_M.ALLOW] > part[_M.ALLOW]:
        return _weakened(ctx, "modality_loss", "must became may")
    swap = _connective_swap(ctx)
    if swap:
        return _weakened(ctx, "modality_loss", f"connective changed: {swap}")
    return None


def _connective_swap(ctx: Context) -> str | None:
    """`or` and `and` swapped between two aligned terms of the rule.

    Under a negation written after both terms ("A and B must never ...") the swap is De
    Morgan's restatement of "never A or B", not a change.
    """
    tokens = ctx.part.analysis.tokens
    matched = sorted(ctx.al.matches.items())
    negations = [m.start for m in ctx.win.marks if m.modality in NEGATIVE]
    for (c_left, w_left), (c_right, w_right) in itertools.pairwise(matched):
        if w_right <= w_left:
            continue
        c_between = {t for t in tokens[c_left + 1 : c_right] if t in {"and", "or"}}
        w_between = {t for t in ctx.win.tokens[w_left + 1 : w_right] if t in {"and", "or"}}
        if len(c_between) == 1 and len(w_between) == 1 and c_between != w_between:
            if ctx.part.parity == 1 and not any(n < w_left for n in negations):
                continue
            return f"{c_between.pop()}->{w_between.pop()}"
    return None


def _weakened(ctx: Context, rule: str, why: str) -> Reading:
    strong = ctx.al.coverage >= STRONG_COVERAGE or _restates(ctx)
    evidence = {"why": why, "modality": modality_evidence(ctx)}
    return ctx.reading(Kind.WEAKENED, rule, explicit=True, strong=strong, evidence=evidence)
