"""What one compaction did: a finding per registered constraint, and tool calls left unpaired.

The detector chain decides each constraint (`detect`); a context no codec can read leaves
every constraint `unverifiable` (`unverifiable`); group_trim's validator names tool calls
and results the compactor's output leaves unpaired (`check_pairing`). See docs/DESIGN.md,
"Detector chain".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from compaction_guard import group_trim
from compaction_guard.report import Finding, PairingProblem
from compaction_guard.taxonomy import Kind

if TYPE_CHECKING:
    from collections.abc import Sequence

    from compaction_guard.detectors.base import DetectorChain
    from compaction_guard.invariant import Invariant
    from compaction_guard.view import SummaryView

__all__ = ["check_pairing", "detect", "unverifiable"]


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
