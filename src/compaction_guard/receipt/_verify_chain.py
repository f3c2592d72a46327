"""Streaming verification of a receipts log: the first bad line, a torn tail, a pinned head.

See docs/DESIGN.md, "Receipts". What one line says on its own is in `_row`; receipt rows
are checked by `_verify_receipt`, recovery rows by `_row`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from compaction_guard.receipt._digests import chain_recipe, genesis_prev, resolve_key
from compaction_guard.receipt._log_file import last_newline
from compaction_guard.receipt._row import (
    HEX64,
    LOG_ID,
    ChainDefect,
    Problem,
    RowCheck,
    read_row,
    row_chain,
    row_seq,
)
from compaction_guard.receipt._verify_receipt import check_row

if TYPE_CHECKING:
    from compaction_guard.receipt._canonical_json import Members

__all__ = [
    "MAX_LINE_BYTES",
    "ChainProblem",
    "ChainReport",
    "ReceiptHead",
    "verify_chain",
]

HEAD_PREFIX = "compaction-guard-head:v1"
MAX_LINE_BYTES = 1 << 30


@dataclass(frozen=True)
class ChainProblem:
    """One problem: its class, the 1-based line (None for the whole file) and byte offset."""

    defect: ChainDefect
    line_number: int | None
    offset: int | None
    message: str

    def __str__(self) -> str:
        where = "file" if self.line_number is None else f"line {self.line_number}"
        return f"{where}: {self.defect}: {self.message}"


@dataclass(frozen=True)
class ReceiptHead:
    """The last row of a verified log: its log id, row count and `chain` digest."""

    log_id: str
    size: int
    digest: str

    def to_text(self) -> str:
        """Return the one-line form `compaction-guard-head:v1 <log_id> <size> <digest>`."""
        return f"{HEAD_PREFIX} {self.log_id} {self.size} {self.digest}"

    def __str__(self) -> str:
        return self.to_text()

    @classmethod
    def parse(cls, text: str) -> ReceiptHead:
        """Parse the one-line form; raises ValueError naming the expected form."""
        parts = text.strip().split(" ")
        expected = (
            f"expected '{HEAD_PREFIX} <32 hex log id> <rows> sha256:row:v1:<64 hex>' "
            "(sha256:hmac-row:v1: for a keyed log)"
        )
        if len(parts) != 4 or parts[0] != HEAD_PREFIX:  # noqa: PLR2004 - four fields
            raise ValueError(f"not a receipt head: {text[:120]!r}; {expected}")
        _, log_id, size, digest = parts
        if not (
            LOG_ID.fullmatch(log_id)
            and size.isascii()
            and size.isdigit()
            and int(size) > 0
            and any(
                digest.startswith(recipe) and HEX64.fullmatch(digest[len(recipe) :])
                for recipe in (chain_recipe(None), chain_recipe(b"k"))
            )
        ):
            raise ValueError(f"not a receipt head: {text[:120]!r}; {expected}")
        return cls(log_id=log_id, size=int(size), digest=digest)


@dataclass(frozen=True)
class ChainReport:
    """What `verify_chain` found. `ok` needs at least one row and no problem."""

    path: str
    rows: int
    head: ReceiptHead | None
    anchored: bool
    problems: tuple[ChainProblem, ...]

    @property
    def ok(self) -> bool:
        """True when every line verified, the log is not empty, and any pinned head held."""
        return not self.problems and self.rows > 0

    @property
    def scope(self) -> str:
        """`anchored` when checked against a pinned head; `unanchored` otherwise."""
        return "anchored" if self.anchored else "unanchored"


def verify_chain(
    path: str | os.PathLike[str],
    *,
    expected_head: ReceiptHead | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    key: bytes | str | None = None,
) -> ChainReport:
    """Stream a receipts log and name the first bad line with its ChainDefect.

    Without `expected_head` the scope is "unanchored": rows cut from the end cannot be
    seen from the file alone. An empty or missing log is never `ok`. A keyed log verifies
    only with its `key` (KEY_REQUIRED otherwise); under a key every row must be keyed.
    """
    secret = resolve_key(key)

    def check(row: dict[str, Any], members: Members) -> Problem | None:
        return check_row(row, members, secret)

    path = Path(path)
    walk = _Walk(path, expected_head, check, secret)
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        walk.problems.append(_file_problem(ChainDefect.MISSING_LOG, f"{path} does not exist"))
        return walk.report()
    with handle:
        walk.run(handle, max_line_bytes)
    return walk.report()


def _file_problem(defect: ChainDefect, message: str) -> ChainProblem:
    return ChainProblem(defect=defect, line_number=None, offset=None, message=message)


class _Walk:
    """State of one streaming pass: expected seq, previous digest, log id, head checks."""

    def __init__(
        self, path: Path, head: ReceiptHead | None, check_row: RowCheck, key: bytes | None
    ) -> None:
        self.path = path
        self.head = head
        self.check_row = check_row
        self.key = key
        self.rows = 0
        self.last_digest = ""
        self.log_id = ""
        self.problems: list[ChainProblem] = []

    def report(self) -> ChainReport:
        head = None
        if not self.problems and self.rows:
            head = ReceiptHead(log_id=self.log_id, size=self.rows, digest=self.last_digest)
        return ChainReport(
            path=str(self.path),
            rows=self.rows,
            head=head,
            anchored=self.head is not None,
            problems=tuple(self.problems),
        )

    def run(self, handle: BinaryIO, max_line_bytes: int) -> None:
        offset = 0
        line_number = 0
        while raw := handle.readline(max_line_bytes + 1):
            line_number += 1
            found = self.check_line(raw, line_number, offset, handle, max_line_bytes)
            if found is not None:
                self.problems.append(ChainProblem(found[0], line_number, offset, found[1]))
                if raw.endswith(b"\n"):
                    self._note_torn_tail(handle)
                return
            offset += len(raw)
        if line_number == 0:
            self.problems.append(_file_problem(ChainDefect.EMPTY_LOG, f"{self.path} is empty"))
        elif self.head is not None and self.rows < self.head.size:
            self.problems.append(self._truncated(self.head))

    def _truncated(self, head: ReceiptHead) -> ChainProblem:
        return _file_problem(
            ChainDefect.TRUNCATED,
            f"the log has {self.rows} row(s) but the pinned head has {head.size}: "
            "rows were removed or the file was rolled back to an older copy",
        )

    def _note_torn_tail(self, handle: BinaryIO) -> None:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(size - 1)
        if handle.read(1) != b"\n":
            start = last_newline(handle.fileno(), size) + 1
            self.problems.append(_torn(start, size - start, None))

    def check_line(
        self, raw: bytes, line_number: int, offset: int, handle: BinaryIO, max_line_bytes: int
    ) -> Problem | None:
        if not raw.endswith(b"\n"):
            return _unterminated(raw, line_number, offset, max_line_bytes)
        row, found = read_row(raw[:-1], self.check_row, self.key)
        if row is None:
            return found
        found = self.link(row, line_number, handle)
        if found is None:
            self.rows += 1
            self.last_digest = row["chain"]
        return found

    def link(self, row: dict[str, Any], line_number: int, handle: BinaryIO) -> Problem | None:
        seq = row["seq"]
        if seq != self.rows:
            return self.misplaced(seq, line_number, row["chain"], handle)
        found = self.genesis(row) if seq == 0 else _broken_link(row, self.last_digest, line_number)
        return found or self.diverged(row)

    def diverged(self, row: dict[str, Any]) -> Problem | None:
        """FORKED when this is the row the pinned head names and its digest differs."""
        head = self.head
        if head is None or row["seq"] != head.size - 1 or row["chain"] == head.digest:
            return None
        message = (
            f"row {row['seq']} differs from the pinned head ({head.digest[:30]}...): "
            "this copy diverged from the pinned one"
        )
        return ChainDefect.FORKED, message

    def genesis(self, row: dict[str, Any]) -> Problem | None:
        log_id = row.get("log_id")
        if not isinstance(log_id, str) or not LOG_ID.fullmatch(log_id):
            return ChainDefect.GENESIS_MISMATCH, "row 0 must carry a 32-hex-digit log_id"
        if row["prev"] != genesis_prev(log_id):
            return ChainDefect.GENESIS_MISMATCH, "row 0's prev is not the genesis value of its log"
        if self.head is not None and log_id != self.head.log_id:
            return (
                ChainDefect.LOG_ID_MISMATCH,
                f"log id {log_id} is not the pinned head's {self.head.log_id}: another log",
            )
        self.log_id = log_id
        return None

    def misplaced(self, seq: int, line_number: int, digest: str, handle: BinaryIO) -> Problem:
        expected = self.rows
        if seq > expected:
            for raw in handle:
                if _peek(raw)[0] == expected:
                    message = f"row {seq} stands where row {expected} belongs (found later)"
                    return ChainDefect.OUT_OF_ORDER, message
            message = f"expected row {expected}, found row {seq}: rows are missing"
            return ChainDefect.ROW_MISSING, message
        first_line, first_digest = self._find(seq, line_number)
        if first_digest == digest:
            return ChainDefect.DUPLICATED, f"row {seq} repeats line {first_line}"
        return (
            ChainDefect.FORKED,
            f"a second, different row {seq} (the first is at line {first_line}): the log forked",
        )

    def _find(self, seq: int, before: int) -> tuple[int, str]:
        with self.path.open("rb") as handle:
            for line_number, raw in enumerate(handle, start=1):
                if line_number >= before:
                    break
                found_seq, digest = _peek(raw)
                if found_seq == seq:
                    return line_number, digest
        return 0, ""  # pragma: no cover - rows before `before` verified in order


def _unterminated(raw: bytes, line_number: int, offset: int, max_line_bytes: int) -> Problem:
    if len(raw) > max_line_bytes:
        return ChainDefect.MALFORMED_ROW, f"line is longer than {max_line_bytes} bytes"
    if b"\r" in raw:
        return ChainDefect.NON_CANONICAL, "CR line endings: rows end with \\n only"
    torn = _torn(offset, len(raw), line_number)
    return torn.defect, torn.message


def _broken_link(row: dict[str, Any], last_digest: str, line_number: int) -> Problem | None:
    if row["prev"] == last_digest:
        return None
    seq = row["seq"]
    message = (
        f"prev does not match the digest of row {seq - 1} (line {line_number - 1}): "
        "that row or this one was changed"
    )
    return ChainDefect.LINK_BROKEN, message


def _torn(offset: int, size: int, line_number: int | None) -> ChainProblem:
    return ChainProblem(
        defect=ChainDefect.TORN_TAIL,
        line_number=line_number,
        offset=offset,
        message=(
            f"{size} byte(s) at offset {offset} have no final newline (a torn append); "
            "the next append or recover() moves them to a sidecar file"
        ),
    )


def _peek(raw: bytes) -> tuple[int | None, str]:
    return row_seq(raw[-300:]), row_chain(raw) or ""
