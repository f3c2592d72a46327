"""The policy steps of `Guard.compact`: gate, verify the block, fit a budget, seal a receipt.

Each branch is its own function so `guard.py` reads as the numbered pipeline.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compaction_guard import group_trim
from compaction_guard.codec import ContextCodec, without_guard_blocks
from compaction_guard.errors import CodecError, InvariantViolation
from compaction_guard.report import PairingProblem

if TYPE_CHECKING:
    import os
    from collections.abc import Callable

    from compaction_guard.report import CompactionReport

__all__ = [
    "check_pairing",
    "fit_to_budget",
    "gates",
    "refuse_if_gating",
    "seal_receipt",
    "validate_call",
]

_HEAD_ROLES = frozenset({"system", "developer"})


def gates(report: CompactionReport) -> bool:
    """Whether Policy.RAISE refuses `report` (see `refuse_if_gating`)."""
    return bool(report.gating or report.pairing or report.foreign_blocks)


def refuse_if_gating(report: CompactionReport) -> None:
    """Raise InvariantViolation for what gates under Policy.RAISE.

    That is gating findings, tool calls or results left unpaired, and guard-format text
    the guard may not edit.
    """
    reasons = [f"{f.invariant_id}={f.kind.value}" for f in report.gating]
    reasons += [f"{p.kind} at message {p.message}" for p in report.pairing]
    reasons += [f"{p.what} in {p.where}" for p in report.foreign_blocks]
    if not reasons:
        return
    raise InvariantViolation(
        f"compaction refused under Policy.RAISE: {', '.join(reasons)}. Your original context "
        "is untouched; fix the summariser (or remove the guard-format text from tool "
        "results and kept messages), or use Policy.REPAIR to re-inject the constraints",
        report=report,
    )


def validate_call(codec: object, context: object, max_tokens: object) -> None:
    """Refuse bad input before any work: a non-codec, a bad budget, an untrimmable context.

    Raises TypeError or CodecError saying what to pass.
    """
    if not isinstance(codec, ContextCodec):
        raise TypeError(
            f"codec must be a ContextCodec (render, inject, marked_segments), got "
            f"{type(codec).__name__}; leave it out to use AutoCodec()",
        )
    if max_tokens is None:
        return
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int | float) or not (
        0 < max_tokens < math.inf  # NaN fails this too
    ):
        raise TypeError(
            f"max_tokens must be a positive number of tokens, got {max_tokens!r}; "
            "pass e.g. max_tokens=8000, or leave it out",
        )
    if not isinstance(context, list | tuple) or not all(isinstance(m, Mapping) for m in context):
        raise CodecError(
            "max_tokens trimming works on lists of provider messages (dicts); this context "
            f"is a {type(context).__name__}. Trim it yourself or drop max_tokens",
        )


def check_pairing(output: object) -> tuple[PairingProblem, ...]:
    """Return the tool calls and results `output` leaves unpaired (`group_trim.validate`).

    Only lists of provider messages are checked; anything else has no pairing to break.
    """
    if not isinstance(output, list | tuple) or not all(isinstance(m, Mapping) for m in output):
        return ()
    try:
        problems = group_trim.validate(output)
    except (TypeError, ValueError):
        return ()  # a shape group_trim cannot read; the codec reports it
    return tuple(PairingProblem(p.index, p.kind, p.message) for p in problems)


def _holds_block(message: Any, block_text: str) -> bool:
    if not isinstance(message, dict):
        return False
    content = message.get("content")
    if isinstance(content, str):
        return block_text in content
    if isinstance(content, list):
        return any(isinstance(p, dict) and p.get("text") == block_text for p in content)
    return False


def _is_turn_start(message: Any) -> bool:
    """Tell whether a message opens a user turn (not the guard's block, not tool results)."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return False
    content = message.get("content")
    if without_guard_blocks(content) is None:
        return False
    if isinstance(content, list) and content:
        first = content[0]
        return not (isinstance(first, dict) and first.get("type") == "tool_result")
    return True


def fit_to_budget(
    output: Any,
    report: CompactionReport,
    max_tokens: float,
    block_text: str,
    *,
    count_tokens: group_trim.CountTokens | None = None,
) -> tuple[Any, CompactionReport]:
    """Trim `output` group-safely to `max_tokens`, never dropping the block, head or newest turn.

    `count_tokens` is the guard's counter (None: group_trim's estimate).

    Returns the trimmed context and the report with `fits`, `tokens_before`, `tokens_after`.
    """
    if not isinstance(output, (list, tuple)) or not all(isinstance(m, dict) for m in output):
        raise CodecError(
            "max_tokens trimming works on lists of provider messages (dicts); "
            f"this context is {report.shape or type(output).__name__}. Trim it yourself "
            "or drop max_tokens",
        )
    messages = list(output)
    head = 0
    while head < len(messages) and messages[head].get("role") in _HEAD_ROLES:
        head += 1
    turn = max(
        (i for i, m in enumerate(messages) if _is_turn_start(m)),
        default=len(messages) - 1,
    )
    tail = max(1, len(messages) - max(turn, head))
    try:
        result = group_trim.compact(
            messages, max_tokens=max_tokens, keep_head=head, keep_tail=tail,
            protect=lambda m: _holds_block(m, block_text), count_tokens=count_tokens,
        )
    except ValueError as exc:
        raise CodecError(f"max_tokens trimming could not group this context: {exc}") from exc
    trimmed: Any = tuple(result.messages) if isinstance(output, tuple) else result.messages
    report = dataclasses.replace(
        report, fits=result.fits, tokens_before=result.tokens_before,
        tokens_after=result.tokens_after,
    )
    return trimmed, report


def seal_receipt(
    receipt: Any,
    post: Any,
    path: str | os.PathLike[str],
    report: CompactionReport,
    *,
    compactor: Callable[[Any], Any],
    method: str,
) -> str:
    """Seal one receipt row for pre vs `post`, carrying the verdict summary; return its digest."""
    receipt.record_kept(post)
    name = getattr(compactor, "__qualname__", None) or type(compactor).__name__
    annotations = {
        "guard": {
            "mode": report.mode.value,
            "policy": report.policy.value,
            "block_checksum": report.block_checksum,
            "repaired": report.repaired,
            "verdicts": {f.invariant_id: f.kind.value for f in report.findings},
        },
    }
    row = receipt.seal(path, compactor=str(name), method=method, annotations=annotations)
    return str(row["receipt_digest"])
