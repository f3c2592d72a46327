"""The policy step of `Guard.compact`: what Policy.RAISE refuses, and the refusal it raises.

WARN only observes and REPAIR re-injects the block (in `guard`); RAISE refuses gating
findings, broken tool pairing and guard-format text the guard may not edit. See
docs/DESIGN.md, "The composition in Guard.compact".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compaction_guard.errors import InvariantViolation

if TYPE_CHECKING:
    from compaction_guard.report import CompactionReport

__all__ = ["gates", "refuse_if_gating"]


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
