"""Tool-call pairing of a compactor's output, shared by the session-style adapters.

A compactor that keeps a tool result without the call it answers (or a call without its
result) produces a history the provider rejects, or one a framework repairs silently by
dropping or inventing results. The adapters refuse it instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compaction_guard.errors import CodecError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from compaction_guard.report import CompactionReport

__all__ = ["PairingError"]


class PairingError(CodecError):
    """The compacted history orphans a tool call or a tool result; nothing was written.

    `problems` lists each one as text; `report` is the guard's report of the refused
    compaction (also `guard.last_report`), so what the summary did is still on record.
    """

    def __init__(
        self, where: str, problems: Sequence[str], *, report: CompactionReport | None,
    ) -> None:
        self.problems = tuple(problems)
        self.report = report
        listed = "; ".join(self.problems)
        super().__init__(
            f"{where} orphans tool calls or results: {listed}. Nothing was written. Keep "
            "each call with its result, e.g. compactor=group_trim.trimmer(max_tokens=...), "
            "which drops and keeps whole call groups",
        )
