"""Receipts that keep secrets: file modes, keyed digests and chains, the lossless recipe."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import stat
import subprocess
import sys
import types
from typing import TYPE_CHECKING, Any

import pytest

import compaction_guard as cg
from compaction_guard.detectors.lexical import LexicalDetector
from compaction_guard.receipt import (
    CanonicalJSONError,
    ChainDefect,
    CompactionReceipt,
    HeadPin,
    _log_file,
    item_digest,
    recover,
    verify_chain,
    verify_receipt,
)

if TYPE_CHECKING:
    from pathlib import Path

KEY = b"0123456789abcdef0123456789abcdef"
PRE = ["user: account 483920 is the payout target", "assistant: noted", "user: go on"]
POST = ["user: go on", "summary: payouts discussed"]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _seal(log: Path, *, key: bytes | str | None = None, pre: Any = PRE, post: Any = POST) -> dict[str, Any]:
    receipt = CompactionReceipt.open(pre, key=key)
    receipt.record_kept(post)
    return receipt.seal(log, compactor="summarizer", method="llm-summary")


def _rows(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_receipt_log_and_lock_are_created_owner_only(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    _seal(log)
    assert _mode(log) == 0o600
    assert _mode(tmp_path / "receipts.jsonl.lock") == 0o600


def test_head_pin_file_is_created_owner_only(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    _seal(log)
    pin = HeadPin(tmp_path / "receipts.head")
    pin.advance(log)
    assert _mode(tmp_path / "receipts.head") == 0o600


def test_torn_tail_sidecar_is_created_owner_only(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    _seal(log)
    with log.open("ab") as handle:
        handle.write(b'{"compactor":"half')
    recovery = recover(log)
    assert recovery is not None
    assert _mode(recovery.sidecar) == 0o600


def test_rows_carry_the_seed_fields_ts_and_chain(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    first, second = _seal(log), _seal(log)
    assert {"ts", "chain"} <= first.keys()
    assert "row_digest" not in first
    assert second["prev"] == first["chain"]
    assert verify_receipt(second) | {"notes": []} == {
        "ok": True, "self_consistent": True, "content": "skipped", "schema": "v2",
        "understatement_check": "full", "notes": [],
    }


def test_keyed_item_digests_name_the_hmac_recipe(tmp_path: Path) -> None:
    row = _seal(tmp_path / "r.jsonl", key=KEY)
    assert row["dropped"]["items"] == [item_digest(PRE[0], key=KEY), item_digest(PRE[1], key=KEY)]
    assert all(d.startswith("sha256:hmac-raw:v1:") for d in row["dropped"]["items"])
    for field in ("pre", "post"):
        assert row[field]["digest"].startswith("sha256:hmac-items:v1:")
    assert row["receipt_digest"].startswith("sha256:hmac-receipt:v1:")
    assert row["chain"].startswith("sha256:hmac-row:v1:")


def test_keyed_digest_of_a_guess_list_recovers_nothing(tmp_path: Path) -> None:
    """A six-digit account number cannot be recovered from a keyed manifest by guessing."""
    row = _seal(tmp_path / "r.jsonl", key=KEY)
    manifest = {d.rsplit(":", 1)[1] for d in row["dropped"]["items"]}
    guesses = (f"user: account {n:06d} is the payout target" for n in range(483_000, 484_000))
    assert not any(hashlib.sha256(g.encode()).hexdigest() in manifest for g in guesses)


def test_unkeyed_digest_of_a_guess_list_finds_the_item(tmp_path: Path) -> None:
    """The contrast: unkeyed manifests are plain SHA-256, so a guess list finds the item."""
    row = _seal(tmp_path / "r.jsonl")
    manifest = {d.rsplit(":", 1)[1] for d in row["dropped"]["items"]}
    guesses = (f"user: account {n:06d} is the payout target" for n in range(483_000, 484_000))
    assert sum(hashlib.sha256(g.encode()).hexdigest() in manifest for g in guesses) == 1


def test_keyed_receipt_verifies_only_with_its_key(tmp_path: Path) -> None:
    row = _seal(tmp_path / "r.jsonl", key=KEY)
    assert verify_receipt(row, PRE, POST, key=KEY)["ok"]
    without = verify_receipt(row)
    assert not without["ok"]
    assert "keyed" in without["notes"][0]
    assert not verify_receipt(row, key=b"another key entirely")["ok"]


def test_key_from_an_environment_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CG_TEST_RECEIPT_KEY", KEY.decode())
    log = tmp_path / "r.jsonl"
    row = _seal(log, key="CG_TEST_RECEIPT_KEY")
    assert verify_receipt(row, PRE, POST, key=KEY)["ok"]
    assert verify_chain(log, key="CG_TEST_RECEIPT_KEY").ok


def test_unset_key_variable_is_a_clear_error() -> None:
    with pytest.raises(cg.ReceiptKeyError, match="CG_TEST_UNSET_KEY"):
        CompactionReceipt.open(PRE, key="CG_TEST_UNSET_KEY")


def test_keyed_chain_verifies_with_the_key_and_not_without(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    for _ in range(3):
        _seal(log, key=KEY)
    assert verify_chain(log, key=KEY).ok
    report = verify_chain(log)
    assert (report.problems[0].defect, report.problems[0].line_number) == (ChainDefect.KEY_REQUIRED, 1)
    wrong = verify_chain(log, key=b"not the key").problems[0]
    assert (wrong.defect, wrong.line_number) == (ChainDefect.ROW_EDITED, 1)


def test_reminted_unkeyed_chain_fails_under_the_key(tmp_path: Path) -> None:
    """Someone who can write the file but lacks the key re-mints the log: the key sees it."""
    log, forged = tmp_path / "r.jsonl", tmp_path / "forged.jsonl"
    _seal(log, key=KEY)
    _seal(forged, pre=PRE, post=PRE)  # "kept everything", sealed without the key
    forged.replace(log)
    assert verify_chain(log).ok  # unkeyed, the re-minted chain is self-consistent
    problem = verify_chain(log, key=KEY).problems[0]
    assert problem.defect is ChainDefect.UNKEYED_ROW


def test_keyed_head_pin_verifies_a_keyed_log(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    _seal(log, key=KEY)
    pin = HeadPin(tmp_path / "r.head", key=KEY)
    head = pin.advance(log)
    assert head.digest.startswith("sha256:hmac-row:v1:")
    _seal(log, key=KEY)
    assert pin.verify(log).ok


def test_keyed_log_recovers_a_torn_tail_with_its_key(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    _seal(log, key=KEY)
    with log.open("ab") as handle:
        handle.write(b'{"compactor":"half')
    _seal(log, key=KEY)
    assert verify_chain(log, key=KEY).ok


def test_lossless_recipe_for_lone_surrogates_and_deep_nesting(tmp_path: Path) -> None:
    deep: Any = "leaf"
    for _ in range(500):
        deep = [deep]
    pre = ["bad \ud800 text", deep, {"role": "user", "content": "fine"}]
    post = [pre[2], "summary"]
    row = _seal(tmp_path / "r.jsonl", pre=pre, post=post)
    items = row["dropped"]["items"]
    assert [d.split(":")[1] for d in items] == ["lossless", "lossless"]
    assert verify_receipt(row, pre, post)["ok"]
    assert not verify_receipt(row, ["bad \ud801 text", deep, pre[2]], post)["ok"]


def test_lossless_recipe_tells_values_apart() -> None:
    values = ["\ud800", "\ud801", ["\ud800"], {"a": "\ud800"}, {"a": ["\ud800"]}, [["\ud800"]]]
    digests = {item_digest(value) for value in values}
    assert len(digests) == len(values)


def test_cycle_is_refused_naming_the_path() -> None:
    loop: list[Any] = ["x"]
    loop.append(loop)
    with pytest.raises(CanonicalJSONError) as caught:
        CompactionReceipt.open(["ok", {"content": loop}])
    assert caught.value.path == "$[1].content[1]"


def test_guard_compaction_over_a_lone_surrogate_with_receipts_succeeds(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    guard = cg.Guard(["The budget cap is $500."], detectors=[LexicalDetector()], receipts=log,
                     receipt_key=KEY)
    pre = [{"role": "user", "content": "bad \ud800 text"}, {"role": "user", "content": "next"}]
    out = guard.compact(pre, compactor=lambda m: m[1:])
    guard.assert_present(out)
    assert verify_chain(log, key=KEY).ok
    row = _rows(log)[-1]
    assert guard.last_report is not None
    assert guard.last_report.receipt == row["receipt_digest"]
    assert verify_receipt(row, pre, out, key=KEY)["ok"]


@dataclasses.dataclass
class _Turn:
    role: str
    content: str


def test_lossless_recipe_hashes_objects_by_class_and_fields() -> None:
    """Framework messages are objects: a dataclass or pydantic model gets a digest."""
    turn = _Turn("user", "hello")
    assert item_digest(turn).startswith("sha256:lossless:v1:")
    assert item_digest(turn) == item_digest(_Turn("user", "hello"))
    assert item_digest(turn) != item_digest(_Turn("user", "hello!"))
    assert item_digest(turn) != item_digest({"role": "user", "content": "hello"})


def test_guard_compaction_over_message_objects_with_receipts_succeeds(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    guard = cg.Guard(["The budget cap is $500."], detectors=[LexicalDetector()], receipts=log)
    pre = [_Turn("user", "The budget cap is $500."), _Turn("assistant", "ok"), _Turn("user", "next")]
    out = guard.compact(pre, compactor=lambda m: m[2:])
    assert verify_chain(log).ok
    row = _rows(log)[-1]
    assert row["dropped"]["count"] == 2
    assert verify_receipt(row, pre, out)["ok"]
    assert not verify_receipt(row, [_Turn("user", "edited"), *pre[1:]], out)["ok"]


@pytest.mark.extras
def test_guard_compaction_over_langchain_messages_with_receipts_succeeds(tmp_path: Path) -> None:
    messages = pytest.importorskip("langchain_core.messages")
    log = tmp_path / "receipts.jsonl"
    guard = cg.Guard(["The budget cap is $500."], detectors=[LexicalDetector()], receipts=log)
    pre = [messages.HumanMessage("The budget cap is $500."), messages.AIMessage("ok"),
           messages.HumanMessage("next")]
    out = guard.compact(pre, compactor=lambda m: m[2:])
    guard.assert_present(out)
    assert verify_chain(log).ok
    assert verify_receipt(_rows(log)[-1], pre, out)["ok"]


def test_package_imports_without_fcntl() -> None:
    """Windows has no fcntl: importing the package (and its receipts) must not need it."""
    code = (
        "import sys; sys.modules['fcntl'] = None; sys.modules['msvcrt'] = None\n"
        "import compaction_guard, compaction_guard.receipt\n"
        "print(sorted(m for m in ('fcntl', 'msvcrt') if sys.modules.get(m)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )
    assert result.stdout.strip() == "[]"


def test_os_lock_uses_msvcrt_on_windows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int]] = []

    def locking(fd: int, mode: int, nbytes: int) -> None:
        calls.append((mode, nbytes))
        if mode == 1 and len(calls) > 1:
            raise OSError("locked")

    fake = types.SimpleNamespace(LK_NBLCK=1, LK_UNLCK=0, locking=locking)
    monkeypatch.setitem(sys.modules, "msvcrt", fake)
    monkeypatch.setattr(sys, "platform", "win32")
    fd = os.open(tmp_path / "x.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        assert _log_file.os_lock(fd, acquire=True)
        assert not _log_file.os_lock(fd, acquire=True)
        assert _log_file.os_lock(fd, acquire=False)
    finally:
        os.close(fd)
    assert calls == [(1, 1), (1, 1), (0, 1)]


def test_os_lock_excludes_a_second_open_file_on_posix(tmp_path: Path) -> None:
    first = os.open(tmp_path / "x.lock", os.O_RDWR | os.O_CREAT, 0o600)
    second = os.open(tmp_path / "x.lock", os.O_RDWR)
    try:
        assert _log_file.os_lock(first, acquire=True)
        assert not _log_file.os_lock(second, acquire=True)
        assert _log_file.os_lock(first, acquire=False)
        assert _log_file.os_lock(second, acquire=True)
    finally:
        os.close(first)
        os.close(second)
