"""The receipts log on disk: its lock, locked appends, torn-tail recovery, atomic replace.

See docs/DESIGN.md, "Receipts". What a row says is in `_row`, how a log verifies in
`_verify_chain`.
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compaction_guard.errors import CanonicalJSONError, ReceiptIntegrityError, ReceiptLockError
from compaction_guard.receipt._canonical_json import Members, dumps, loads, object_chunks
from compaction_guard.receipt._digests import (
    RAW_RECIPE,
    chain_digest,
    chain_recipe,
    genesis_prev,
)
from compaction_guard.receipt._row import (
    CHAIN_FIELDS,
    RECOVERY_SCHEMA,
    check_digest,
    row_chain,
    row_seq,
    utc_timestamp,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "FILE_MODE",
    "LOCK_TIMEOUT",
    "Recovery",
    "append_row",
    "hold_lock",
    "last_newline",
    "os_lock",
    "recover",
    "replace_atomically",
]

LOCK_TIMEOUT = 30.0
FILE_MODE = 0o600
"""Receipt logs, lock files, sidecars and pins are private to their owner."""
SCAN_CHUNK = 1 << 20
_IOV_MAX = 1000
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)  # absent on Windows


@dataclass(frozen=True)
class Recovery:
    """A torn tail moved aside: where it was, how long, its digest, and the recovery row."""

    offset: int
    size: int
    digest: str
    sidecar: Path
    row: dict[str, Any]


_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _reset_thread_locks() -> None:
    # A lock held by another thread at fork time would never be released in the child.
    global _thread_locks_guard  # noqa: PLW0603 - rebuilt in the child after fork
    _thread_locks.clear()
    _thread_locks_guard = threading.Lock()


if hasattr(os, "register_at_fork"):  # POSIX only
    os.register_at_fork(after_in_child=_reset_thread_locks)


def os_lock(fd: int, *, acquire: bool) -> bool:
    """Take (without waiting) or release the exclusive OS lock on open file `fd`.

    Returns False when another holder has it. `fcntl.flock` on POSIX, `msvcrt.locking`
    of the first byte on Windows; the platform module is imported here, on first use, so
    importing the package needs neither.
    """
    if sys.platform == "win32":
        import msvcrt  # noqa: PLC0415 - platform module, imported on use

        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK if acquire else msvcrt.LK_UNLCK, 1)
        except OSError:
            return False
        return True
    import fcntl  # noqa: PLC0415 - platform module, imported on use

    try:
        fcntl.flock(fd, (fcntl.LOCK_EX | fcntl.LOCK_NB) if acquire else fcntl.LOCK_UN)
    except BlockingIOError:
        return False
    return True


@contextmanager
def hold_lock(path: Path, timeout: float) -> Iterator[None]:
    """Hold this process's lock for `path`, then the OS lock (`os_lock`) on `<path>.lock`.

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
        fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT | _CLOEXEC, FILE_MODE)
        try:
            _lock_until(fd, deadline, path, timeout)
            try:
                yield
            finally:
                os_lock(fd, acquire=False)
        finally:
            os.close(fd)
    finally:
        thread_lock.release()


def _lock_until(fd: int, deadline: float, path: Path, timeout: float) -> None:
    delay = 0.0002
    while not os_lock(fd, acquire=True):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _timeout(path, timeout)
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.005)


def _timeout(path: Path, timeout: float) -> ReceiptLockError:
    return ReceiptLockError(
        f"could not lock {path}.lock within {timeout:g} s; another writer holds it. "
        "Nothing was written: retry, or raise lock_timeout"
    )


def append_row(
    path: Path, body: Members, *, lock_timeout: float, key: bytes | None = None
) -> dict[str, Any]:
    """Append one row under the lock, recovering a torn tail first; return its chain fields.

    The row is written with one write call and fsynced (with its directory when the file
    is new) before this returns; a new log is created 0600. Its `chain` digest is
    HMAC-SHA256 under `key`. Write and fsync errors raise OSError.
    """
    # The tail "schema", "seq", "ts" names the row's seq (see _row.row_seq).
    if CHAIN_FIELDS & body.keys() or any(k > "schema" for k in body):
        raise ValueError("row bodies may not use chain fields or keys sorting after 'schema'")
    with hold_lock(path, lock_timeout):
        fd, created = _open_log(path)
        try:
            _recover_locked(fd, path, key)
            return _write_next_row(fd, path, body, created=created, key=key)
        finally:
            os.close(fd)


def recover(
    path: str | os.PathLike[str],
    *,
    lock_timeout: float = LOCK_TIMEOUT,
    key: bytes | None = None,
) -> Recovery | None:
    """Move a torn last line to a sidecar file and record a recovery row; None if clean.

    A keyed log needs its `key`, or the recovery row would not verify under it.
    """
    path = Path(path)
    if not path.exists():
        return None
    with hold_lock(path, lock_timeout):
        fd, _ = _open_log(path)
        try:
            return _recover_locked(fd, path, key)
        finally:
            os.close(fd)


def _open_log(path: Path) -> tuple[int, bool]:
    flags = os.O_RDWR | os.O_APPEND | _CLOEXEC
    try:
        return os.open(path, flags | os.O_CREAT | os.O_EXCL, FILE_MODE), True
    except FileExistsError:
        return os.open(path, flags), False


def _write_next_row(
    fd: int, path: Path, body: Members, *, created: bool, key: bytes | None
) -> dict[str, Any]:
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
    members.update((key, [dumps(value)]) for key, value in fields.items())
    fields["chain"] = chain_digest(members, key)
    members["chain"] = [dumps(fields["chain"])]
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
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _last_row(fd: int, path: Path, size: int) -> tuple[int, str]:
    seq = row_seq(os.pread(fd, min(size, 4096), max(0, size - 4096)))
    start = last_newline(fd, size - 1) + 1
    digest = row_chain(os.pread(fd, min(size - start, 1 << 16), start))
    if seq is not None and digest is not None:
        return seq, digest
    try:
        row = loads(os.pread(fd, size - start, start))
    except CanonicalJSONError as exc:
        row = {"unreadable": str(exc)}
    seq, digest = (row.get("seq"), row.get("chain")) if isinstance(row, dict) else (None, None)
    recipes = (chain_recipe(None), chain_recipe(b"k"))
    if type(seq) is not int or check_digest(digest, "chain", recipes) is not None:
        raise ReceiptIntegrityError(
            f"the last line of {path} is not a receipt row, so nothing can be chained to it; "
            f"run `compaction-guard verify {path}` and move the bad line aside",
        )
    return seq, str(digest)


def _recover_locked(fd: int, path: Path, key: bytes | None) -> Recovery | None:
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return None
    start = last_newline(fd, size) + 1
    sidecar, digest = _copy_fragment(fd, path, start, size)
    os.ftruncate(fd, start)
    os.fsync(fd)
    fragment = {"offset": start, "bytes": size - start, "digest": digest, "sidecar": sidecar.name}
    body = {
        "schema": [dumps(RECOVERY_SCHEMA)],
        "fragment": [dumps(fragment)],
    }
    row = {"schema": RECOVERY_SCHEMA, "fragment": fragment}
    row.update(_write_next_row(fd, path, body, created=False, key=key))
    return Recovery(offset=start, size=size - start, digest=digest, sidecar=sidecar, row=row)


def _copy_fragment(fd: int, path: Path, start: int, end: int) -> tuple[Path, str]:
    sidecar = path.with_name(f"{path.name}.torn-{start}-{secrets.token_hex(4)}")
    hasher = hashlib.sha256()
    out = os.open(sidecar, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC, FILE_MODE)
    try:
        position = start
        while position < end:
            data = os.pread(fd, min(SCAN_CHUNK, end - position), position)
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
    """Write `data` to a temporary 0600 file beside `path`, fsync it, rename it over `path`."""
    temporary = path.with_name(f".{path.name}.tmp-{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC, FILE_MODE)
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


def last_newline(fd: int, end: int) -> int:
    """Return the offset of the last newline before `end`, or -1."""
    position = end
    while position > 0:
        start = max(0, position - SCAN_CHUNK)
        found = os.pread(fd, position - start, start).rfind(b"\n")
        if found >= 0:
            return start + found
        position = start
    return -1
