"""The JSONL hash chain under receipts: locked appends, torn-tail recovery, streaming verify.

See DESIGN.md "receipt: promises". Rows are RFC 8785 objects, one per newline-ended line.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import hashlib
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, BinaryIO

from compaction_guard import _jcs
from compaction_guard.errors import ReceiptIntegrityError, ReceiptLockError

__all__ = [
    "LOCK_TIMEOUT",
    "MAX_LINE_BYTES",
    "RAW_RECIPE",
    "ChainDefect",
    "ChainProblem",
    "ChainReport",
    "Members",
    "ReceiptHead",
    "Recovery",
    "RowCheck",
    "append_row",
    "check_digest",
    "hold_lock",
    "object_chunks",
    "recover",
    "replace_atomically",
    "utc_timestamp",
    "verify_chain",
]

RECOVERY_SCHEMA = "compaction-guard:recovery:v1"
RAW_RECIPE = "sha256:raw:v1:"
ROW_RECIPE = "sha256:row:v1:"
GENESIS_RECIPE = "sha256:genesis:v1:"
# Hash domains: a row digest can never equal a genesis value or any other digest kind.
DOMAIN_ROW = b"compaction-guard/row/v1\n"
DOMAIN_GENESIS = b"compaction-guard/genesis/v1\n"
HEAD_PREFIX = "compaction-guard-head:v1"
LOCK_TIMEOUT = 30.0
MAX_LINE_BYTES = 1 << 30
CHAIN_FIELDS = frozenset({"seq", "prev", "log_id", "ts", "row_digest"})

_HEX64 = re.compile(r"[0-9a-f]{64}")
_LOG_ID = re.compile(r"[0-9a-f]{32}")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z")
# Canonical rows end with these members (no key sorts after them), so the tail names the row.
_TAIL = re.compile(
    rb'"row_digest":"(sha256:row:v1:[0-9a-f]{64})","schema":"[^"\\\n]*",'
    rb'"seq":(0|[1-9][0-9]{0,15}),"ts":"[^"\\\n]*"}\n?\Z'
)
_IOV_MAX = 1000
_SCAN_CHUNK = 1 << 20

Members = dict[str, list[bytes]]
"""An object being written: key -> canonical encoding of its value, possibly in chunks."""


class ChainDefect(StrEnum):
    """Why a line of a receipts log does not verify (values are stable in JSON and the CLI)."""

    ROW_EDITED = "row-edited"
    ROW_MISSING = "row-missing"
    OUT_OF_ORDER = "out-of-order"
    DUPLICATED = "duplicated"
    LINK_BROKEN = "link-broken"
    GENESIS_MISMATCH = "genesis-mismatch"
    MALFORMED_ROW = "malformed-row"
    UNKNOWN_SCHEMA = "unknown-schema"
    NON_CANONICAL = "non-canonical"
    TORN_TAIL = "torn-tail"
    TRUNCATED = "truncated"
    FORKED = "forked"
    LOG_ID_MISMATCH = "log-id-mismatch"
    EMPTY_LOG = "empty-log"
    MISSING_LOG = "missing-log"


RowCheck = Callable[[dict[str, Any], Members], "tuple[ChainDefect, str] | None"]
"""Checks one parsed row of a schema the caller owns; returns the first problem or None."""


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
    """The last row of a verified log: its log id, row count and row digest."""

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
        expected = f"expected '{HEAD_PREFIX} <32 hex log id> <rows> sha256:row:v1:<64 hex>'"
        if len(parts) != 4 or parts[0] != HEAD_PREFIX:  # noqa: PLR2004 - four fields
            raise ValueError(f"not a receipt head: {text[:120]!r}; {expected}")
        _, log_id, size, digest = parts
        if not (
            _LOG_ID.fullmatch(log_id)
            and size.isascii()
            and size.isdigit()
            and int(size) > 0
            and digest.startswith(ROW_RECIPE)
            and _HEX64.fullmatch(digest[len(ROW_RECIPE) :])
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


@dataclass(frozen=True)
class Recovery:
    """A torn tail moved aside: where it was, how long, its digest, and the recovery row."""

    offset: int
    size: int
    digest: str
    sidecar: Path
    row: dict[str, Any]


def utc_timestamp() -> str:
    """Return the current UTC time as `YYYY-MM-DDTHH:MM:SSZ`."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_digest(
    value: Any, field: str, recipes: tuple[str, ...]
) -> tuple[ChainDefect, str] | None:
    """Check a `sha256:<recipe>:<version>:<hex>` digest against the accepted recipe prefixes."""
    if not isinstance(value, str):
        return ChainDefect.MALFORMED_ROW, f"{field} must be a digest string"
    parts = value.split(":")
    if len(parts) != 4:  # noqa: PLR2004 - algorithm, recipe, version, hex
        return ChainDefect.MALFORMED_ROW, f"{field} must read sha256:<recipe>:<version>:<hex>"
    if parts[0] != "sha256":
        return ChainDefect.UNKNOWN_SCHEMA, f"{field} uses unknown algorithm {parts[0][:20]!r}"
    prefix = ":".join(parts[:3]) + ":"
    if prefix not in recipes:
        return ChainDefect.UNKNOWN_SCHEMA, f"{field} uses unknown recipe {prefix[:40]!r}"
    if not _HEX64.fullmatch(parts[3]):
        return ChainDefect.MALFORMED_ROW, f"{field} must end in 64 lowercase hex digits"
    return None


def object_chunks(members: Mapping[str, list[bytes]], *, without: str = "") -> list[bytes]:
    """Return the canonical encoding of an object from its encoded members, in key order."""
    chunks: list[bytes] = []
    opening = True
    for key in _jcs.sort_keys([key for key in members if key != without]):
        chunks.append(_member_prefix(key, opening=opening))
        chunks.extend(members[key])
        opening = False
    chunks.append(b"}" if chunks else b"{}")
    return chunks


@functools.lru_cache(maxsize=512)
def _member_prefix(key: str, *, opening: bool) -> bytes:
    return (b"{" if opening else b",") + _jcs.dumps(key) + b":"


def row_digest(members: Mapping[str, list[bytes]]) -> str:
    """Digest a row over its canonical bytes without the `row_digest` member."""
    hasher = hashlib.sha256(DOMAIN_ROW)
    for chunk in object_chunks(members, without="row_digest"):
        hasher.update(chunk)
    return ROW_RECIPE + hasher.hexdigest()


def genesis_prev(log_id: str) -> str:
    """Return the `prev` of row 0, which binds the row to its log's id."""
    return GENESIS_RECIPE + hashlib.sha256(DOMAIN_GENESIS + log_id.encode("ascii")).hexdigest()


_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _reset_thread_locks() -> None:
    # A lock held by another thread at fork time would never be released in the child.
    global _thread_locks_guard  # noqa: PLW0603 - rebuilt in the child after fork
    _thread_locks.clear()
    _thread_locks_guard = threading.Lock()


os.register_at_fork(after_in_child=_reset_thread_locks)


@contextmanager
def hold_lock(path: Path, timeout: float) -> Iterator[None]:
    """Hold this process's lock for `path`, then `flock` on `<path>.lock`.

    Raises ReceiptLockError when either stays taken past `timeout`.

    flock (unlike lockf) also excludes other open files in this process; the thread
    lock keeps threads from polling each other.
    """
    deadline = time.monotonic() + timeout
    key = os.path.abspath(path)  # noqa: PTH100 - no symlink resolution per append
    with _thread_locks_guard:
        thread_lock = _thread_locks.setdefault(key, threading.Lock())
    if not thread_lock.acquire(timeout=max(timeout, 0.0)):
        raise _timeout(path, timeout)
    try:
        fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            _flock_until(fd, deadline, path, timeout)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    finally:
        thread_lock.release()


def _flock_until(fd: int, deadline: float, path: Path, timeout: float) -> None:
    delay = 0.0002
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _timeout(path, timeout) from None
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.005)
        else:
            return


def _timeout(path: Path, timeout: float) -> ReceiptLockError:
    return ReceiptLockError(
        f"could not lock {path}.lock within {timeout:g} s; another writer holds it. "
        "Nothing was written: retry, or raise lock_timeout"
    )


def append_row(path: Path, body: Members, *, lock_timeout: float) -> dict[str, Any]:
    """Append one row under the lock, recovering a torn tail first; return its chain fields.

    The row is written with one write call and fsynced (with its directory when the file
    is new) before this returns. Write and fsync errors raise OSError.
    """
    if CHAIN_FIELDS & body.keys() or any(k > "row_digest" and k != "schema" for k in body):
        raise ValueError("row bodies may not use chain fields or keys sorting after 'row_digest'")
    with hold_lock(path, lock_timeout):
        fd, created = _open_log(path)
        try:
            _recover_locked(fd, path)
            return _write_next_row(fd, path, body, created=created)
        finally:
            os.close(fd)


def recover(path: str | os.PathLike[str], *, lock_timeout: float = LOCK_TIMEOUT) -> Recovery | None:
    """Move a torn last line to a sidecar file and record a recovery row; None if clean."""
    path = Path(path)
    if not path.exists():
        return None
    with hold_lock(path, lock_timeout):
        fd, _ = _open_log(path)
        try:
            return _recover_locked(fd, path)
        finally:
            os.close(fd)


def _open_log(path: Path) -> tuple[int, bool]:
    flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
    try:
        return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
    except FileExistsError:
        return os.open(path, flags), False


def _write_next_row(fd: int, path: Path, body: Members, *, created: bool) -> dict[str, Any]:
    size = os.fstat(fd).st_size
    fields: dict[str, Any]
    if size == 0:
        log_id = secrets.token_hex(16)
        fields = {"seq": 0, "prev": genesis_prev(log_id), "log_id": log_id}
    else:
        seq, digest = _last_row(fd, path, size)
        fields = {"seq": seq + 1, "prev": digest}
    fields["ts"] = utc_timestamp()
    members = dict(body)
    members.update((key, [_jcs.dumps(value)]) for key, value in fields.items())
    fields["row_digest"] = row_digest(members)
    members["row_digest"] = [_jcs.dumps(fields["row_digest"])]
    chunks = object_chunks(members)
    chunks.append(b"\n")
    _write_once(fd, chunks, path)
    os.fsync(fd)
    if created or size == 0:
        _fsync_dir(path.parent)
    return fields


def _write_once(fd: int, chunks: list[bytes], path: Path) -> None:
    total = sum(map(len, chunks))
    written = os.writev(fd, chunks) if len(chunks) <= _IOV_MAX else os.write(fd, b"".join(chunks))
    if written != total:
        raise OSError(
            errno.EIO,
            f"short write to {path}: {written} of {total} bytes; the torn row is moved "
            "aside by the next append or recover()",
        )


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _last_row(fd: int, path: Path, size: int) -> tuple[int, str]:
    tail = os.pread(fd, min(size, 4096), max(0, size - 4096))
    match = _TAIL.search(tail)
    if match is not None:
        return int(match.group(2)), match.group(1).decode("ascii")
    start = _last_newline(fd, size - 1) + 1
    try:
        row = _jcs.loads(os.pread(fd, size - start, start))
    except _jcs.CanonicalJSONError as exc:
        row = {"unreadable": str(exc)}
    seq, digest = (row.get("seq"), row.get("row_digest")) if isinstance(row, dict) else (None, None)
    if type(seq) is not int or check_digest(digest, "row_digest", (ROW_RECIPE,)) is not None:
        raise ReceiptIntegrityError(
            f"the last line of {path} is not a receipt row, so nothing can be chained to it; "
            f"run `compaction-guard verify {path}` and move the bad line aside",
        )
    return seq, str(digest)


def _last_newline(fd: int, end: int) -> int:
    """Return the offset of the last newline before `end`, or -1."""
    position = end
    while position > 0:
        start = max(0, position - _SCAN_CHUNK)
        found = os.pread(fd, position - start, start).rfind(b"\n")
        if found >= 0:
            return start + found
        position = start
    return -1


def _recover_locked(fd: int, path: Path) -> Recovery | None:
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return None
    start = _last_newline(fd, size) + 1
    sidecar, digest = _copy_fragment(fd, path, start, size)
    os.ftruncate(fd, start)
    os.fsync(fd)
    fragment = {"offset": start, "bytes": size - start, "digest": digest, "sidecar": sidecar.name}
    body = {
        "schema": [_jcs.dumps(RECOVERY_SCHEMA)],
        "fragment": [_jcs.dumps(fragment)],
    }
    row = {"schema": RECOVERY_SCHEMA, "fragment": fragment}
    row.update(_write_next_row(fd, path, body, created=False))
    return Recovery(offset=start, size=size - start, digest=digest, sidecar=sidecar, row=row)


def _copy_fragment(fd: int, path: Path, start: int, end: int) -> tuple[Path, str]:
    sidecar = path.with_name(f"{path.name}.torn-{start}-{secrets.token_hex(4)}")
    hasher = hashlib.sha256()
    out = os.open(sidecar, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        position = start
        while position < end:
            data = os.pread(fd, min(_SCAN_CHUNK, end - position), position)
            hasher.update(data)
            view = memoryview(data)
            while view:
                view = view[os.write(out, view) :]
            position += len(data)
        os.fsync(out)
    finally:
        os.close(out)
    _fsync_dir(path.parent)
    return sidecar, RAW_RECIPE + hasher.hexdigest()


def replace_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, fsync it, rename it over `path`."""
    temporary = path.with_name(f".{path.name}.tmp-{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        temporary.replace(path)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def verify_chain(
    path: str | os.PathLike[str],
    *,
    expected_head: ReceiptHead | None = None,
    check_row: RowCheck,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> ChainReport:
    """Stream the log and report the first bad line (plus a torn tail or a failed pin)."""
    path = Path(path)
    walk = _Walk(path, expected_head, check_row)
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

    def __init__(self, path: Path, head: ReceiptHead | None, check_row: RowCheck) -> None:
        self.path = path
        self.head = head
        self.check_row = check_row
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
            self.problems.append(
                _file_problem(
                    ChainDefect.TRUNCATED,
                    f"the log has {self.rows} row(s) but the pinned head has {self.head.size}: "
                    "rows were removed or the file was rolled back to an older copy",
                )
            )

    def _note_torn_tail(self, handle: BinaryIO) -> None:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(size - 1)
        if handle.read(1) != b"\n":
            start = _last_newline(handle.fileno(), size) + 1
            self.problems.append(_torn(start, size - start, None))

    def check_line(
        self, raw: bytes, line_number: int, offset: int, handle: BinaryIO, max_line_bytes: int
    ) -> tuple[ChainDefect, str] | None:
        if not raw.endswith(b"\n"):
            if len(raw) > max_line_bytes:
                return ChainDefect.MALFORMED_ROW, f"line is longer than {max_line_bytes} bytes"
            if b"\r" in raw:
                return ChainDefect.NON_CANONICAL, "CR line endings: rows end with \\n only"
            torn = _torn(offset, len(raw), line_number)
            return torn.defect, torn.message
        line = raw[:-1]
        framing = _framing(line)
        if framing is not None:
            return framing
        try:
            row, members = _parse(line)
        except _LineError as exc:
            return exc.defect, exc.message
        found_problem = (
            _chain_fields(row)
            or _content(row, members, self.check_row)
            or self.link(row, line_number, handle)
        )
        if found_problem is None:
            self.rows += 1
            self.last_digest = row["row_digest"]
        return found_problem

    def link(
        self, row: dict[str, Any], line_number: int, handle: BinaryIO
    ) -> tuple[ChainDefect, str] | None:
        seq = row["seq"]
        if seq != self.rows:
            return self.misplaced(seq, line_number, row["row_digest"], handle)
        if seq == 0:
            found = self.genesis(row)
        elif row["prev"] != self.last_digest:
            found = (
                ChainDefect.LINK_BROKEN,
                (
                    f"prev does not match the digest of row {seq - 1} (line {line_number - 1}): "
                    "that row or this one was changed"
                ),
            )
        else:
            found = None
        head = self.head
        if (
            found is None
            and head is not None
            and seq == head.size - 1
            and row["row_digest"] != head.digest
        ):
            found = (
                ChainDefect.FORKED,
                (
                    f"row {seq} differs from the pinned head ({head.digest[:30]}...): "
                    "this copy diverged from the pinned one"
                ),
            )
        return found

    def genesis(self, row: dict[str, Any]) -> tuple[ChainDefect, str] | None:
        log_id = row.get("log_id")
        if not isinstance(log_id, str) or not _LOG_ID.fullmatch(log_id):
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

    def misplaced(
        self, seq: int, line_number: int, digest: str, handle: BinaryIO
    ) -> tuple[ChainDefect, str]:
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
    match = _TAIL.search(raw[-300:])
    if match is None:
        return None, ""
    return int(match.group(2)), match.group(1).decode("ascii")


def _framing(line: bytes) -> tuple[ChainDefect, str] | None:
    if not line.strip(b" \t\r\n\f\v"):
        return ChainDefect.MALFORMED_ROW, "blank line"
    if line.startswith(b"\xef\xbb\xbf"):
        return ChainDefect.NON_CANONICAL, "line starts with a UTF-8 byte order mark"
    cr = line.find(b"\r")
    if cr >= 0:
        return ChainDefect.NON_CANONICAL, f"raw CR byte at column {cr + 1} (CRLF or CR line ending)"
    nul = line.find(b"\x00")
    if nul >= 0:
        return ChainDefect.MALFORMED_ROW, f"NUL byte at column {nul + 1}"
    return None


class _LineError(Exception):
    def __init__(self, defect: ChainDefect, message: str) -> None:
        super().__init__(message)
        self.defect = defect
        self.message = message


def _parse(line: bytes) -> tuple[dict[str, Any], Members]:
    """Parse a line strictly and re-encode it; raise _LineError unless it is canonical."""
    try:
        row = _jcs.loads(line)
        if not isinstance(row, dict):
            raise _LineError(ChainDefect.MALFORMED_ROW, "row is not a JSON object")
        members = {key: [_jcs.dumps(value)] for key, value in row.items()}
    except _jcs.CanonicalJSONError:
        try:  # name the path from the row's root
            _jcs.dumps(_jcs.loads(line))
        except _jcs.CanonicalJSONError as exc:
            raise _LineError(ChainDefect.MALFORMED_ROW, str(exc)) from None
        raise  # pragma: no cover - a member refused means the row refuses
    canonical = b"".join(object_chunks(members))
    if canonical != line:
        column = next(
            (i for i, (a, b) in enumerate(zip(canonical, line, strict=False)) if a != b),
            min(len(canonical), len(line)),
        )
        raise _LineError(
            ChainDefect.NON_CANONICAL,
            f"not RFC 8785 canonical JSON (first difference at column {column + 1}); "
            "rows are written by compaction-guard and never re-encoded",
        )
    return row, members


def _chain_fields(row: dict[str, Any]) -> tuple[ChainDefect, str] | None:
    seq = row.get("seq")
    if type(seq) is not int or seq < 0:
        return ChainDefect.MALFORMED_ROW, "seq must be a non-negative integer"
    if "log_id" in row and seq != 0:
        return ChainDefect.MALFORMED_ROW, "log_id belongs on row 0 only"
    ts = row.get("ts")
    if not isinstance(ts, str) or not _TIMESTAMP.fullmatch(ts):
        return ChainDefect.MALFORMED_ROW, "ts must be a UTC timestamp like 2026-01-31T12:00:00Z"
    return check_digest(row.get("prev"), "prev", (ROW_RECIPE, GENESIS_RECIPE)) or check_digest(
        row.get("row_digest"), "row_digest", (ROW_RECIPE,)
    )


def _content(
    row: dict[str, Any], members: Members, check_row: RowCheck
) -> tuple[ChainDefect, str] | None:
    if row_digest(members) != row["row_digest"]:
        return (
            ChainDefect.ROW_EDITED,
            "row_digest does not match the row's bytes: the row was edited after it was written",
        )
    if row.get("schema") == RECOVERY_SCHEMA:
        return _recovery_fields(row)
    return check_row(row, members)


def _recovery_fields(row: dict[str, Any]) -> tuple[ChainDefect, str] | None:
    fragment = row.get("fragment")
    keys = {"offset", "bytes", "digest", "sidecar"}
    if set(row) - {"log_id"} != {"schema", "fragment", "seq", "prev", "ts", "row_digest"}:
        return ChainDefect.MALFORMED_ROW, "a recovery row holds schema, fragment and chain fields"
    if not isinstance(fragment, dict) or set(fragment) != keys:
        return ChainDefect.MALFORMED_ROW, f"fragment must hold exactly {sorted(keys)}"
    if not all(type(fragment[k]) is int and fragment[k] >= 0 for k in ("offset", "bytes")):
        return ChainDefect.MALFORMED_ROW, "fragment offset and bytes must be non-negative integers"
    if not isinstance(fragment["sidecar"], str):
        return ChainDefect.MALFORMED_ROW, "fragment sidecar must be a file name"
    return check_digest(fragment["digest"], "fragment.digest", (RAW_RECIPE,))
