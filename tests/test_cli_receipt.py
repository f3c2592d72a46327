import subprocess
import sys
from pathlib import Path

import pytest

from compaction_guard.cli import SUBCOMMANDS, build_parser, main
from compaction_guard.receipt import CompactionReceipt
from tests.support import seal_one


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "receipts.jsonl"
    for index in range(3):
        seal_one(path, f"c{index}")
    return path


def test_cli_verify_clean_log_exits_zero(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(log)]) == 0
    out = capsys.readouterr().out
    assert "verified 3 row(s), unanchored" in out
    assert "pass --head" in out


def test_cli_verify_edited_log_names_the_line(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log.write_bytes(log.read_bytes().replace(b'"c1"', b'"cX"'))
    assert main(["verify", str(log)]) == 1
    expected = (
        f"{log}:2: row-edited: the chain digest does not match the row's bytes: "
        "the row was edited after it was written"
    )
    assert capsys.readouterr().out.splitlines() == [expected]


def test_cli_verify_prints_a_line_per_problem(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log.write_bytes(log.read_bytes().replace(b'"c1"', b'"cX"') + b'{"torn')
    assert main(["verify", str(log)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[1] for line in out] == ["row-edited", "torn-tail"]


def test_cli_verify_empty_log_is_not_verified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert main(["verify", str(empty)]) == 1
    assert "empty-log" in capsys.readouterr().out


def test_cli_verify_missing_log_is_not_verified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path / "absent.jsonl")]) == 1
    assert "missing-log" in capsys.readouterr().out


def test_cli_verify_unreadable_path_is_not_verified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path)]) == 1
    assert "cannot read" in capsys.readouterr().out


def test_cli_head_then_verify_with_head_catches_truncation(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["head", str(log)]) == 0
    head = capsys.readouterr().out.strip()
    assert head.startswith("compaction-guard-head:v1 ")
    assert main(["verify", str(log), "--head", head]) == 0
    assert "anchored" in capsys.readouterr().out
    log.write_bytes(b"".join(line + b"\n" for line in log.read_bytes().split(b"\n")[:2]))
    assert main(["verify", str(log)]) == 0  # unanchored: truncation is invisible
    capsys.readouterr()
    assert main(["verify", str(log), "--head", head]) == 1
    assert "truncated" in capsys.readouterr().out


def test_cli_head_of_a_bad_log_exits_one(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log.write_bytes(log.read_bytes()[:-1])
    assert main(["head", str(log)]) == 1
    assert "torn-tail" in capsys.readouterr().out


def test_cli_verify_rejects_a_malformed_head(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["verify", str(log), "--head", "not a head"])
    assert caught.value.code == 2
    assert "expected 'compaction-guard-head:v1" in capsys.readouterr().err


def test_cli_requires_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main([])
    assert caught.value.code == 2


def test_cli_parser_registers_every_subcommand() -> None:
    help_text = build_parser().format_help()
    assert len(SUBCOMMANDS) >= 2
    assert "verify" in help_text
    assert "head" in help_text


def test_cli_python_dash_m_runs_the_same_command(log: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "compaction_guard", "verify", str(log)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert "verified 3 row(s)" in done.stdout


@pytest.fixture
def keyed_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RECEIPT_KEY", "a secret of thirty-two characters")
    path = tmp_path / "keyed.jsonl"
    for index in range(2):
        receipt = CompactionReceipt.open([f"turn {index}", "shared"], key="RECEIPT_KEY")
        receipt.record_kept(["shared", f"summary {index}"])
        receipt.seal(path, compactor="test", method="test")
    return path


def test_cli_verify_keyed_log_with_key_env(keyed_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(keyed_log), "--key-env", "RECEIPT_KEY"]) == 0
    assert "verified 2 row(s)" in capsys.readouterr().out


def test_cli_verify_keyed_log_without_the_key_says_so(
    keyed_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", str(keyed_log)]) == 1
    assert "key-required" in capsys.readouterr().out


def test_cli_verify_keyed_log_with_the_wrong_key_fails(
    keyed_log: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OTHER_KEY", "another secret of the same length!")
    assert main(["verify", str(keyed_log), "--key-env", "OTHER_KEY", "--json"]) == 1
    assert '"ok": false' in capsys.readouterr().out


def test_cli_head_with_an_unset_key_variable_names_it(
    keyed_log: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("UNSET_KEY", raising=False)
    assert main(["head", str(keyed_log), "--key-env", "UNSET_KEY"]) == 1
    assert "UNSET_KEY" in capsys.readouterr().out
