"""The `compaction_guard` logger: what each report says, at the level an operator needs.

INFO, one line per report: mode, policy, worst kind, repaired, counts per kind, the block
checksum's prefix and the receipt digest. WARNING, one line per gating finding: id, kind,
rule. DEBUG, one line per constraint with its first words. Constraint text never appears
above DEBUG, so INFO and WARNING logs can be shipped where the rules themselves may not go.
The library adds only a NullHandler; configure `logging` in your application to see them.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from compaction_guard.report import CompactionReport

__all__ = ["LOGGER_NAME", "log_report"]

LOGGER_NAME = "compaction_guard"
_CHECKSUM_CHARS = 12

logger = logging.getLogger(LOGGER_NAME)
logger.addHandler(logging.NullHandler())


def log_report(report: CompactionReport) -> None:
    """Log one report: INFO summary, a WARNING per gating finding, DEBUG per constraint."""
    if logger.isEnabledFor(logging.INFO):
        counts = Counter(finding.kind.value for finding in report.findings)
        kinds = ",".join(f"{kind}={n}" for kind, n in sorted(counts.items())) or "none"
        worst = None if report.worst is None else report.worst.value
        checksum = (report.block_checksum or "")[:_CHECKSUM_CHARS] or None
        logger.info(
            "compaction mode=%s policy=%s worst=%s repaired=%s kinds=%s block=%s receipt=%s",
            report.mode.value, report.policy.value, worst, report.repaired, kinds,
            checksum, report.receipt,
        )
    for finding in report.gating:
        logger.warning(
            "constraint %s %s (decided by %s, severity %s, policy %s, repaired=%s)",
            finding.invariant_id, finding.kind.value, finding.decided_by,
            finding.severity.value, report.policy.value, report.repaired,
        )
    if logger.isEnabledFor(logging.DEBUG):
        for finding in report.findings:
            sites = ",".join(site.value for site in finding.survived_in) or "-"
            logger.debug(
                "constraint %s %r: %s by %s, survived in %s%s",
                finding.invariant_id, finding.excerpt, finding.kind.value,
                finding.decided_by, sites, " (at risk)" if finding.at_risk else "",
            )
