"""The lexical rules for one constraint part against one window of sentences.

`evaluate` runs the damage rules first (lifted, polarity, anchor_diff, hedge,
modality_loss), then the certifying rules (verbatim, near_verbatim, paraphrase), then
the absence rules. Every rule returns a Reading with the evidence that decided it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compaction_guard.anchors import is_identifier
from compaction_guard.detectors._lexical_align import align
from compaction_guard.detectors._lexical_context import (
    MAX_GAP,
    STRONG_COVERAGE,
    TOPIC_COVERAGE,
    Context,
    Reading,
    Window,
    build_context,
    extra_values,
    has_sibling,
    is_name,
    missing_values,
)
from compaction_guard.detectors._lexical_damage import (
    anchor_diff,
    changed_identifier,
    hedge,
    lifted,
    modality_loss,
    polarity,
)
from compaction_guard.detectors._lexical_lexicon import GENERIC, RELATIONS, REPORTING, STOPWORDS
from compaction_guard.detectors._lexical_modality import Modality
from compaction_guard.normalize import stem
from compaction_guard.taxonomy import Kind

if TYPE_CHECKING:
    from compaction_guard.detectors._lexical_align import Alignment, Part
    from compaction_guard.detectors._lexical_text import Analysis

__all__ = ["Reading", "Window", "evaluate"]

_M = Modality
_BLOCKERS = (
    _M.HEDGE,
    _M.SOFT_FORBID,
    _M.CONDITION,
    _M.APPROX,
    _M.PARTIAL,
    _M.LIFT,
    _M.LIFT_VERB,
    _M.OPTIONAL,
    _M.ALLOW,
    _M.WRITE,
)


def evaluate(part: Part, window: Window) -> Reading | None:
    """Return what `window` says about `part`, or None when it carries no trace of it."""
    al = align(part, window.analysis)
    if not _is_trace(part, al, window.analysis):
        return None
    ctx = build_context(part, window, al)
    if al.coverage < TOPIC_COVERAGE and not ctx.topical:
        # A weak trace: only an edited name can be stated damage (every other rule needs
        # the topic); otherwise it just keeps the constraint from being called dropped.
        return changed_identifier(ctx) or _absence(ctx)
    for damage in (lifted, polarity, anchor_diff, hedge, modality_loss):
        reading = damage(ctx)
        if reading is not None:
            return reading
    for certify in (_verbatim, _near_verbatim, _paraphrase):
        reading = certify(ctx)
        if reading is not None:
            return reading
    return _absence(ctx)


def _is_trace(part: Part, al: Alignment, window: Analysis) -> bool:
    if not al.matches:
        return False
    if al.coverage < TOPIC_COVERAGE and has_sibling(part, al, window):
        return True
    ids = any(part.analysis.keys[i].startswith("id:") for i in al.matches)  # type: ignore[union-attr]
    return ids or al.matched_keys >= min(2, part.key_count) or al.coverage >= TOPIC_COVERAGE


def _verbatim(ctx: Context) -> Reading | None:
    """Certify a contiguous copy of the part with nothing around it that changes it."""
    wanted = ctx.part.analysis.tokens
    tokens = ctx.win.tokens
    width = len(wanted)
    for start in range(len(tokens) - width + 1):
        if tokens[start] == wanted[0] and tokens[start : start + width] == wanted:
            if _clean(ctx, (start, start + width)) is None:
                return _certified(ctx, Kind.PRESERVED, "verbatim")
            return None
    return None


def _near_verbatim(ctx: Context) -> Reading | None:
    """Every significant token in order, whole; only function words added or dropped."""
    part = ctx.part.analysis
    wanted = [part.tokens[i] for i in ctx.part.significant]
    if not wanted:
        return None
    tokens = ctx.win.tokens
    for start in [i for i, t in enumerate(tokens) if t == wanted[0]]:
        span = _subsequence(tokens, wanted, start)
        if span is not None:
            if _clean(ctx, span) is None:
                return _certified(ctx, Kind.PRESERVED, "near_verbatim")
            return None
    return None


def _subsequence(tokens: tuple[str, ...], wanted: list[str], start: int) -> tuple[int, int] | None:
    position = start
    extra = 0
    for token in wanted[1:]:
        position += 1
        while position < len(tokens) and tokens[position] != token:
            if tokens[position] not in STOPWORDS or tokens[position] in RELATIONS:
                return None
            extra += 1
            position += 1
        if position >= len(tokens) or extra > MAX_GAP:
            return None
    return start, position + 1


def _paraphrase(ctx: Context) -> Reading | None:
    """All content, values, identifiers and modality in one window, in other words."""
    if not ctx.al.complete or not ctx.topical:
        return None
    if ctx.lost or not _order_kept(ctx) or _clean(ctx, None) is not None:
        return None
    return _certified(ctx, Kind.PARAPHRASED, "paraphrase")


def _certified(ctx: Context, kind: Kind, rule: str) -> Reading:
    values = [v.surface for v in ctx.part.analysis.values]
    ids = [t for t in ctx.part.analysis.tokens if is_name(t)]
    evidence = {"anchors": {"values": values, "identifiers": ids}}
    return ctx.reading(kind, rule, strong=True, evidence=evidence)


def _clean(ctx: Context, span: tuple[int, int] | None) -> str | None:
    """Return why the window cannot certify the part, or None when it can."""
    for check in (_force_differs, _values_differ, _extra_content, _qualifier_follows):
        why = check(ctx, span)
        if why is not None:
            return why
    return None


def _force_differs(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    if ctx.w_parity != ctx.part.parity:
        return "polarity differs"
    for modality in _BLOCKERS:
        added = ctx.w_classes[modality] > ctx.part.classes[modality]
        if added and not _bounded_permission(ctx, modality):
            return f"{modality.value} added"
    return None


def _values_differ(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    return "values differ" if missing_values(ctx) or extra_values(ctx) else None


def _extra_content(ctx: Context, span: tuple[int, int] | None) -> str | None:
    """Name a content word the part does not have in the topic clauses (a qualifier)."""
    inside = range(*span) if span else range(0)
    skip = _attributions(ctx) | ctx.al.covered
    for index in ctx.region_tokens:
        key = ctx.win.keys[index]
        if index in skip or index in inside or key is None or key in ctx.part.family:
            continue
        extra = not key.startswith("~") and key not in GENERIC
        if extra and ctx.win.clauses[index] in ctx.al.topic_clauses:
            return f"extra content {ctx.win.tokens[index]!r}"
    return None


def _qualifier_follows(ctx: Context, span: tuple[int, int] | None) -> str | None:
    """Name a relation word right after a copy in its clause: it narrows ("... for X")."""
    if not span or span[1] >= len(ctx.win.tokens) or ctx.win.tokens[span[1]] not in RELATIONS:
        return None
    same_clause = ctx.win.clauses[span[1]] == ctx.win.clauses[span[1] - 1]
    return "a qualifier follows" if same_clause else None


def _bounded_permission(ctx: Context, modality: Modality) -> bool:
    """`may` inside a kept bound ("no more than 4 may run") does not loosen the rule."""
    if modality is not _M.ALLOW:
        return False
    return any(ctx.part.classes[m] and ctx.w_classes[m] for m in (_M.ONLY, _M.MAX, _M.MIN))


def _attributions(ctx: Context) -> set[int]:
    """Return the tokens that say who stated the rule ("the team lead said that ...").

    That is a clause up to a reporting verb placed before the clause's first matched word.
    """
    win = ctx.win
    first: dict[int, int] = {}
    for position in ctx.al.matches.values():
        clause = win.clauses[position]
        first[clause] = min(first.get(clause, position), position)
    framing: set[int] = set()
    for clause, stop in first.items():
        start = stop
        while start > 0 and win.clauses[start - 1] == clause:
            start -= 1
        said = [i for i in range(start, stop) if stem(win.tokens[i]) in REPORTING]
        if said:
            framing.update(range(start, said[-1] + 1))
    return framing


def _order_kept(ctx: Context) -> bool:
    """Directional words keep their arguments: `from A to B` never certifies `from B to A`."""
    part = ctx.part.analysis
    for index, position in ctx.al.matches.items():
        before = {t for t in part.tokens[max(0, index - 2) : index] if t in _DIRECTIONS}
        if not before:
            continue
        seen = {t for t in ctx.win.tokens[max(0, position - 3) : position] if t in _DIRECTIONS}
        if seen and not before & _directions(seen):
            return False
    return True


_DIRECTIONS = frozenset({"from", "to", "into", "onto", "than", "toward", "towards"})


def _directions(words: set[str]) -> set[str]:
    grouped = set(words)
    if words & {"to", "into", "onto", "toward", "towards"}:
        grouped |= {"to", "into", "onto", "toward", "towards"}
    return grouped


def _absence(ctx: Context) -> Reading:
    """Something the part binds is missing: a value, an identifier, or its force."""
    missing = [v.surface for v in missing_values(ctx)]
    ids = _missing_identifiers(ctx)
    lost = ctx.lost
    strong = ctx.al.coverage >= STRONG_COVERAGE and ctx.topical
    evidence = {"missing": missing + ids, "lost": lost}
    if missing and strong:
        return ctx.reading(
            Kind.MUTATED, "anchor_diff", evidence=evidence | {"why": "value vanished"}
        )
    if ids and _rest_coverage(ctx, ids) >= STRONG_COVERAGE and ctx.al.matched_keys >= 2:  # noqa: PLR2004
        return ctx.reading(
            Kind.MUTATED, "anchor_diff", evidence=evidence | {"why": "identifier vanished"}
        )
    if lost and strong and not missing:
        return ctx.reading(
            Kind.WEAKENED, "modality_loss", evidence=evidence | {"why": "force lost"}
        )
    signs = bool(missing or ids or lost) or (ctx.topical and _clean(ctx, None) is not None)
    rule = "suspect" if ctx.topical else "trace"
    return ctx.reading(None, rule, signs=signs, evidence=evidence)


def _missing_identifiers(ctx: Context) -> list[str]:
    tokens = ctx.part.analysis.tokens
    return [
        tokens[i] for i in ctx.part.content if i not in ctx.al.matches and is_identifier(tokens[i])
    ]


def _rest_coverage(ctx: Context, ids: list[str]) -> float:
    lost = sum(3.0 for _ in ids)
    return (ctx.al.coverage * ctx.part.total) / max(ctx.part.total - lost, 1.0)
