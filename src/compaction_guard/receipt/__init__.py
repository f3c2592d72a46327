"""Compaction receipts: digests of what a compaction kept, dropped and introduced, chained to JSONL.

The public names of the receipt part, re-exported; no logic. Inside: canonical JSON
(`_canonical_json`) and the lossless encoding (`_lossless`), digests and keys (`_digests`),
one log row (`_row`), the log file with its lock and recovery (`_log_file`), sealing
(`_compaction_receipt`), row and chain verification (`_verify_receipt`, `_verify_chain`),
and head pins (`_head_pin`). See docs/DESIGN.md, "Receipts".
"""

from __future__ import annotations

from compaction_guard.errors import CanonicalJSONError
from compaction_guard.receipt._compaction_receipt import CompactionReceipt, item_digest
from compaction_guard.receipt._digests import RECEIPT_SCHEMA, resolve_key
from compaction_guard.receipt._head_pin import HeadPin, receipt_head
from compaction_guard.receipt._log_file import Recovery, recover
from compaction_guard.receipt._row import ChainDefect
from compaction_guard.receipt._verify_chain import (
    ChainProblem,
    ChainReport,
    ReceiptHead,
    verify_chain,
)
from compaction_guard.receipt._verify_receipt import verify_receipt

__all__ = [
    "RECEIPT_SCHEMA",
    "CanonicalJSONError",
    "ChainDefect",
    "ChainProblem",
    "ChainReport",
    "CompactionReceipt",
    "HeadPin",
    "ReceiptHead",
    "Recovery",
    "item_digest",
    "receipt_head",
    "recover",
    "resolve_key",
    "verify_chain",
    "verify_receipt",
]


def __dir__() -> list[str]:
    return list(__all__)
