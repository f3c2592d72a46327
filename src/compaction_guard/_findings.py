"""The findings of one compaction: one per registered constraint, in registration order.

The detector chain decides each (`detect`); a context no codec can read leaves every
constraint `unverifiable` (`unverifiable`). See docs/DESIGN.md, "Detector chain".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compaction_guard.report import Finding
from compaction_guard.taxonomy import Kind

if TYPE_CHECKING:
    from collections.abc import Sequence

    from compaction_guard.detectors.base import DetectorChain
    from compaction_guard.invariant import Invariant
    from compaction_guard.view import SummaryView

__all__ = ["detect", "unverifiable"]


def detect(
    chain: DetectorChain, invariants: Sequence[Invariant], view: SummaryView
) -> tuple[Finding, ...]:
    """Run the chain on every constraint at once and return one finding per constraint.

    All at once, so a batching layer (a judge) gets every undecided constraint in one call;
    the layers the chain passed through go to the evidence as `trail`.
    """
    findings = []
    for invariant, result in zip(invariants, chain.run_all(invariants, view), strict=True):
        verdict = result.verdict
        evidence = dict(verdict.evidence)
        if result.trail:
            evidence["trail"] = list(result.trail)
        findings.append(
            Finding(
                invariant_id=invariant.id, kind=verdict.kind, severity=invariant.severity,
                decided_by=result.decided_by, evidence=evidence, score=verdict.score,
                survived_in=verdict.survived_in, at_risk=verdict.at_risk,
            ),
        )
    return tuple(findings)


def unverifiable(
    invariants: Sequence[Invariant], reason: str, decided_by: str
) -> tuple[Finding, ...]:
    """Return every constraint `unverifiable`, decided by `decided_by`, for `reason`."""
    return tuple(
        Finding(
            invariant_id=inv.id, kind=Kind.UNVERIFIABLE, severity=inv.severity,
            decided_by=decided_by, evidence={"reason": reason},
        )
        for inv in invariants
    )
