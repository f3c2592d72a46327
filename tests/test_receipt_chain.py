import fcntl
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from compaction_guard.errors import ReceiptIntegrityError, ReceiptSealError
from compaction_guard.receipt import (
    ChainDefect,
    CompactionReceipt,
    HeadPin,
    ReceiptHead,
    _digests,
    _log_file,
    receipt_head,
    recover,
    verify_chain,
)
from tests.support import seal_one


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "receipts.jsonl"
    for index in range(3):
        seal_one(path, f"row-{index}")
    return path


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def test_chain_row_zero_carries_log_id_and_genesis(log: Path) -> None:
    first = json.loads(lines(log)[0])
    assert first["seq"] == 0
    assert len(first["log_id"]) == 32
    assert first["prev"] == _digests.genesis_prev(first["log_id"])


def test_chain_rows_link_to_the_previous_digest(log: Path) -> None:
    rows = [json.loads(line) for line in lines(log)]
    assert [row["seq"] for row in rows] == [0, 1, 2]
    assert [row["prev"] for row in rows[1:]] == [row["chain"] for row in rows[:-1]]
    assert all("log_id" not in row for row in rows[1:])


def test_chain_each_log_gets_its_own_id(tmp_path: Path) -> None:
    first = seal_one(tmp_path / "a.jsonl", "x")
    second = seal_one(tmp_path / "b.jsonl", "x")
    assert first["log_id"] != second["log_id"]


def test_chain_rows_are_canonical_lines_ending_in_newline(log: Path) -> None:
    data = log.read_bytes()
    assert data.endswith(b"\n")
    for line in lines(log):
        assert line == json.dumps(json.loads(line), sort_keys=True, separators=(",", ":")).encode()


def test_verify_chain_clean_log_is_ok_and_unanchored(log: Path) -> None:
    report = verify_chain(log)
    assert report.ok
    assert report.rows == 3
    assert report.scope == "unanchored"
    assert report.problems == ()


def test_verify_chain_empty_log_is_not_verified(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    report = verify_chain(path)
    assert not report.ok
    assert [problem.defect for problem in report.problems] == [ChainDefect.EMPTY_LOG]


def test_verify_chain_missing_log_is_not_verified(tmp_path: Path) -> None:
    report = verify_chain(tmp_path / "absent.jsonl")
    assert not report.ok
    assert report.problems[0].defect == ChainDefect.MISSING_LOG


def test_receipt_head_text_round_trips(log: Path) -> None:
    head = receipt_head(log)
    assert head.size == 3
    assert head.digest == json.loads(lines(log)[-1])["chain"]
    assert ReceiptHead.parse(head.to_text()) == head
    assert str(head).startswith("compaction-guard-head:v1 ")
    assert "\n" not in str(head)


@pytest.mark.parametrize(
    "text",
    ["", "compaction-guard-head:v1 abc 3 sha256:row:v1:" + "0" * 64,
     "compaction-guard-head:v1 " + "a" * 32 + " 0 sha256:row:v1:" + "0" * 64,
     "compaction-guard-head:v1 " + "a" * 32 + " 3 sha256:receipt:v1:" + "0" * 64,
     "other:v1 " + "a" * 32 + " 3 sha256:row:v1:" + "0" * 64],
)
def test_receipt_head_parse_refuses_malformed_text(text: str) -> None:
    with pytest.raises(ValueError, match="expected 'compaction-guard-head:v1"):
        ReceiptHead.parse(text)


def test_receipt_head_refuses_an_unverified_log(log: Path) -> None:
    data = bytearray(log.read_bytes())
    data[10] ^= 1
    log.write_bytes(bytes(data))
    with pytest.raises(ReceiptIntegrityError) as caught:
        receipt_head(log)
    assert caught.value.line_number == 1


def test_verify_chain_with_pinned_head_is_anchored(log: Path) -> None:
    head = receipt_head(log)
    seal_one(log, "later")
    report = verify_chain(log, expected_head=head)
    assert report.ok
    assert report.scope == "anchored"


def test_head_pin_moves_forward_only(log: Path, tmp_path: Path) -> None:
    pin = HeadPin(tmp_path / "receipts.head")
    assert pin.read() is None
    assert pin.advance(log).size == 3
    seal_one(log, "later")
    assert pin.advance(log).size == 4
    log.write_bytes(b"".join(line + b"\n" for line in lines(log)[:2]))
    with pytest.raises(ReceiptIntegrityError, match="truncated"):
        pin.advance(log)
    assert pin.read() is not None
    assert pin.read().size == 4  # type: ignore[union-attr]
    assert pin.verify(log).problems[0].defect == ChainDefect.TRUNCATED


def test_head_pin_replaces_its_file_atomically(log: Path, tmp_path: Path) -> None:
    pin = HeadPin(tmp_path / "receipts.head")
    pin.advance(log)
    seal_one(log, "later")
    pin.advance(log)
    leftovers = [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]
    assert leftovers == []
    assert (tmp_path / "receipts.head").read_text().count("\n") == 1


def test_head_pin_refuses_a_corrupt_pin_file(log: Path, tmp_path: Path) -> None:
    (tmp_path / "receipts.head").write_text("garbage\n")
    with pytest.raises(ReceiptIntegrityError, match="not a receipt head"):
        HeadPin(tmp_path / "receipts.head").read()


def test_seal_lock_timeout_raises_and_writes_nothing(log: Path) -> None:
    before = log.read_bytes()
    holder = os.open(f"{log}.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        with pytest.raises(TimeoutError, match="Nothing was written"):
            seal_one(log, "blocked", lock_timeout=0.05)
    finally:
        os.close(holder)
    assert log.read_bytes() == before
    seal_one(log, "after")  # the lock is free again
    assert verify_chain(log).rows == 4


def test_seal_after_a_failed_seal_asks_for_a_new_receipt(log: Path) -> None:
    receipt = CompactionReceipt.open(["a", "b"])
    receipt.record_kept(["a"])
    holder = os.open(f"{log}.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        with pytest.raises(TimeoutError):
            receipt.seal(log, compactor="c", method="m", lock_timeout=0.01)
    finally:
        os.close(holder)
    with pytest.raises(ReceiptSealError, match="open a new receipt"):
        receipt.seal(log, compactor="c", method="m")


def test_seal_write_error_raises_and_log_stays_valid(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(fd: int, buffers: list[bytes]) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "writev", broken)
    with pytest.raises(OSError, match="No space left"):
        seal_one(log, "full disk")
    monkeypatch.undo()
    assert verify_chain(log).rows == 3


def test_seal_short_write_raises_and_next_append_recovers(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_writev = os.writev

    def short(fd: int, buffers: list[bytes]) -> int:
        return real_writev(fd, [b"".join(buffers)[:25]])

    monkeypatch.setattr(os, "writev", short)
    with pytest.raises(OSError, match="short write"):
        seal_one(log, "torn")
    monkeypatch.undo()
    assert verify_chain(log).problems[0].defect == ChainDefect.TORN_TAIL
    seal_one(log, "next")
    rows = [json.loads(line) for line in lines(log)]
    assert [row["schema"].split(":")[1] for row in rows] == ["receipt"] * 3 + ["recovery", "receipt"]
    assert verify_chain(log).ok


def test_seal_fsync_error_raises(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def failing(fd: int) -> None:
        calls.append(fd)
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(OSError, match="Input/output error"):
        seal_one(log, "unsynced")
    assert len(calls) == 1  # not retried


def test_seal_fsyncs_the_directory_only_when_creating(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[Path] = []
    monkeypatch.setattr(_log_file, "_fsync_dir", synced.append)
    path = tmp_path / "new.jsonl"
    seal_one(path, "first")
    seal_one(path, "second")
    assert synced == [tmp_path]


def test_verify_chain_reports_a_torn_tail_with_its_offset(log: Path) -> None:
    size = log.stat().st_size
    with log.open("ab") as handle:
        handle.write(b'{"compactor":"half')
    report = verify_chain(log)
    assert not report.ok
    assert report.rows == 3
    problem = report.problems[0]
    assert problem.defect == ChainDefect.TORN_TAIL
    assert problem.offset == size
    assert problem.line_number == 4


def test_recover_moves_the_fragment_and_records_it(log: Path) -> None:
    size = log.stat().st_size
    with log.open("ab") as handle:
        handle.write(b'{"compactor":"half')
    recovery = recover(log)
    assert recovery is not None
    assert recovery.offset == size
    assert recovery.sidecar.read_bytes() == b'{"compactor":"half'
    assert recovery.row["fragment"]["bytes"] == 18
    assert recovery.row["seq"] == 3
    report = verify_chain(log)
    assert report.ok
    assert report.rows == 4


def test_recover_clean_or_missing_log_does_nothing(log: Path, tmp_path: Path) -> None:
    before = log.read_bytes()
    assert recover(log) is None
    assert log.read_bytes() == before
    assert recover(tmp_path / "absent.jsonl") is None


def test_recover_a_log_that_is_only_a_fragment_starts_a_new_chain(tmp_path: Path) -> None:
    path = tmp_path / "receipts.jsonl"
    path.write_bytes(b'{"sche')
    recovery = recover(path)
    assert recovery is not None
    assert recovery.row["seq"] == 0
    assert verify_chain(path).ok


def test_seal_refuses_to_chain_onto_a_foreign_last_line(log: Path) -> None:
    with log.open("ab") as handle:
        handle.write(b"not json\n")
    with pytest.raises(ReceiptIntegrityError, match="not a receipt row"):
        seal_one(log, "next")


def test_crash_sweep_every_cut_of_the_last_row(log: Path, tmp_path: Path) -> None:
    """Cut at every byte of the last row: complete rows verify, the tail is named, none lost."""
    data = log.read_bytes()
    start = data.rindex(b"\n", 0, len(data) - 1) + 1
    kept = data[:start]
    cut = tmp_path / "cut.jsonl"
    for end in range(start, len(data)):
        cut.write_bytes(data[:end])
        report = verify_chain(cut)
        assert report.rows == 2, end
        if end == start:
            assert report.ok
            continue
        assert [p.defect for p in report.problems] == [ChainDefect.TORN_TAIL], end
        assert report.problems[0].offset == start
        recovery = recover(cut)
        assert recovery is not None
        assert recovery.sidecar.read_bytes() == data[start:end]
        recovery.sidecar.unlink()
        assert cut.read_bytes().startswith(kept)
        assert verify_chain(cut).ok, end


def _row_labels(path: Path) -> list[str]:
    return [json.loads(line)["compactor"] for line in lines(path)]


def test_concurrent_threads_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    path = tmp_path / "receipts.jsonl"

    def writer(thread: int) -> None:
        for index in range(500):
            seal_one(path, f"t{thread}-{index}")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    labels = _row_labels(path)
    assert len(labels) == 2000
    assert len(set(labels)) == 2000
    report = verify_chain(path)
    assert report.ok, report.problems


_WORKER = """
import sys
from compaction_guard.receipt import CompactionReceipt
path, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
for index in range(count):
    receipt = CompactionReceipt.open(["turn " + worker, "shared"])
    receipt.record_kept(["shared", "summary"])
    receipt.seal(path, compactor=f"p{worker}-{index}", method="test")
"""


def test_concurrent_processes_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    path = tmp_path / "receipts.jsonl"
    workers = [
        subprocess.Popen([sys.executable, "-c", _WORKER, str(path), str(n), "1000"])
        for n in range(8)
    ]
    assert [worker.wait(timeout=300) for worker in workers] == [0] * 8
    labels = _row_labels(path)
    assert len(labels) == 8000
    assert len(set(labels)) == 8000
    report = verify_chain(path)
    assert report.ok, report.problems
    assert report.rows == 8000
