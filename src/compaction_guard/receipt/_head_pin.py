"""A verified log's head, read once (`receipt_head`) or kept in a pin file (`HeadPin`).

A pin only moves forward, so a log cut short, rolled back or forked no longer verifies
against it. See docs/DESIGN.md, "Receipts".
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from compaction_guard.errors import ReceiptIntegrityError
from compaction_guard.receipt._log_file import LOCK_TIMEOUT, hold_lock, replace_atomically
from compaction_guard.receipt._verify_chain import ChainReport, ReceiptHead, verify_chain

if TYPE_CHECKING:
    import os

__all__ = ["HeadPin", "receipt_head"]


def receipt_head(path: str | os.PathLike[str], *, key: bytes | str | None = None) -> ReceiptHead:
    """Verify the log and return its head; raises ReceiptIntegrityError naming the first problem."""
    report = verify_chain(path, key=key)
    if report.head is None:
        first = report.problems[0]
        raise ReceiptIntegrityError(f"{path}: {first}", line_number=first.line_number)
    return report.head


class HeadPin:
    """The last verified head of a log, kept in `file`; it only moves forward.

    `advance(log)` verifies the log against the pin, then pins its new head;
    `verify(log)` then sees truncation, rollback and forks. The pin file is 0600; `key`
    verifies a keyed log:

        pin = HeadPin("receipts.head")
        pin.advance("receipts.jsonl")
        assert pin.verify("receipts.jsonl").ok
    """

    def __init__(self, file: str | os.PathLike[str], *, key: bytes | str | None = None) -> None:
        self.path = Path(file)
        self._key = key

    def read(self) -> ReceiptHead | None:
        """Return the pinned head, or None when nothing is pinned yet."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            return ReceiptHead.parse(text)
        except ValueError as exc:
            raise ReceiptIntegrityError(f"{self.path}: {exc}") from None

    def verify(self, log: str | os.PathLike[str]) -> ChainReport:
        """Verify `log` against the pinned head (unanchored while nothing is pinned)."""
        return verify_chain(log, expected_head=self.read(), key=self._key)

    def advance(
        self, log: str | os.PathLike[str], *, lock_timeout: float = LOCK_TIMEOUT
    ) -> ReceiptHead:
        """Verify `log` against the pin and, if it holds, pin its new head (atomic replace).

        Raises ReceiptIntegrityError when the log does not extend the pinned head.
        """
        with hold_lock(self.path, lock_timeout):
            current = self.read()
            report = verify_chain(log, expected_head=current, key=self._key)
            if report.head is None:
                first = report.problems[0]
                raise ReceiptIntegrityError(
                    f"{log}: {first}; the pin in {self.path} was not moved",
                    line_number=first.line_number,
                )
            if report.head != current:
                replace_atomically(self.path, (report.head.to_text() + "\n").encode())
            return report.head
