"""The guard's receipts: one row per successful `Guard.compact`, carrying its verdicts.

The receipt opens over the context handed in, before the compactor runs, and seals over
the context returned, with `annotations.guard`: ids and kinds, the block checksum, mode
and policy, never constraint text. See docs/DESIGN.md, "Receipts".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from compaction_guard.receipt import CompactionReceipt

if TYPE_CHECKING:
    import os
    from collections.abc import Callable

    from compaction_guard.report import CompactionReport

__all__ = ["open_receipt", "seal_receipt"]


def open_receipt(
    path: str | os.PathLike[str] | None, context: Any, key: bytes | None
) -> CompactionReceipt | None:
    """Open a receipt over `context` when receipts are on (`path` given); None otherwise."""
    if path is None:
        return None
    return CompactionReceipt.open(context, key=key)


def seal_receipt(
    receipt: CompactionReceipt,
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
