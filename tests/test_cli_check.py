"""`compaction-guard check`, `--json` and `--version`: what a CI job runs and reads."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from compaction_guard import __version__
from compaction_guard.cli import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, main
from tests.support import seal_one

READ_ONLY = "The database orders_prod is production. Read-only queries only."
BUDGET = "The budget cap for this run is $500."
KEPT = f"Summary so far. {READ_ONLY} {BUDGET}"
MUTATED = f"Summary so far. {READ_ONLY} The budget cap for this run is $5000."
DROPPED = f"Summary so far. {READ_ONLY}"
PARTIAL = f"Summary: investigating orders_prod. {BUDGET}"  # read-only rule: unverifiable


@pytest.fixture
def constraints(tmp_path: Path) -> Path:
    path = tmp_path / "constraints.txt"
    path.write_text(f"# rules\n{READ_ONLY}\n\n{BUDGET}\n", encoding="utf-8")
    return path


def _summary(tmp_path: Path, text: str) -> str:
    path = tmp_path / "summary.txt"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _json(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    return data


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == "compaction-guard 0.2.0"
    assert __version__ == "0.2.0"


def test_check_passes_when_every_constraint_survives(
    constraints: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--constraints", str(constraints), _summary(tmp_path, KEPT)]) == EXIT_OK
    out = capsys.readouterr().out
    assert out.count("preserved") == 2
    assert "ok: no finding gates" in out


def test_check_fails_on_a_mutated_constraint_and_names_it(
    constraints: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["check", "--constraints", str(constraints), _summary(tmp_path, MUTATED)])
    assert code == EXIT_PROBLEMS
    out = capsys.readouterr().out
    assert "FAIL: 1 finding(s) gate (bc6b15f05ff7 mutated)" in out
    assert "The budget cap for this run..." in out


def test_check_json_on_a_file(
    constraints: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["check", "--constraints", str(constraints), "--json", _summary(tmp_path, DROPPED)]
    assert main(args) == EXIT_PROBLEMS
    data = _json(capsys)
    assert data["ok"] is False
    assert data["gating"] == ["bc6b15f05ff7"]
    assert data["version"] == __version__
    report = data["report"]
    assert isinstance(report, dict)
    kinds = {f["invariant_id"]: f["kind"] for f in report["findings"]}
    assert kinds == {"2e3839289c22": "preserved", "bc6b15f05ff7": "dropped"}
    assert report["mode"] == "reasserted"


def test_check_json_on_stdin(
    constraints: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(KEPT))
    assert main(["check", "--constraints", str(constraints), "--json", "-"]) == EXIT_OK
    data = _json(capsys)
    assert data["ok"] is True
    assert data["summary"] == "-"


def test_check_reads_stdin_by_default_through_the_real_command(constraints: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "compaction_guard", "check", "--constraints", str(constraints)],
        input=MUTATED, capture_output=True, text=True, check=False, timeout=120,
    )
    assert done.returncode == EXIT_PROBLEMS, done.stderr
    assert "against stdin" in done.stdout
    assert "mutated" in done.stdout


def test_fail_closed_makes_unverifiable_gate(
    constraints: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    summary = _summary(tmp_path, PARTIAL)
    assert main(["check", "--constraints", str(constraints), summary]) == EXIT_OK
    assert "unverifiable" in capsys.readouterr().out
    code = main(["check", "--constraints", str(constraints), "--fail-closed", summary])
    assert code == EXIT_PROBLEMS
    assert "2e3839289c22 unverifiable" in capsys.readouterr().out


def test_gate_chooses_the_kinds_that_fail(
    constraints: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    summary = _summary(tmp_path, DROPPED)
    assert main(["check", "--constraints", str(constraints), "--gate", "mutated", summary]) == 0
    assert "gating kinds: mutated" in capsys.readouterr().out
    args = ["check", "--constraints", str(constraints), "--gate", "mutated,dropped", summary]
    assert main(args) == EXIT_PROBLEMS


def test_an_unknown_gate_kind_is_a_usage_error(
    constraints: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["check", "--constraints", str(constraints), "--gate", "broken", "-"])
    assert exited.value.code == EXIT_USAGE
    assert "unknown kind" in capsys.readouterr().err


def test_unreadable_inputs_exit_two_not_one(
    constraints: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """A CI job must tell 'the summary lost a rule' (1) from 'the job is misconfigured' (2)."""
    missing = str(tmp_path / "absent.txt")
    assert main(["check", "--constraints", missing, _summary(tmp_path, KEPT)]) == EXIT_USAGE
    assert "cannot read" in capsys.readouterr().err
    assert main(["check", "--constraints", str(constraints), missing]) == EXIT_USAGE
    assert "absent.txt: cannot read" in capsys.readouterr().err
    binary = tmp_path / "summary.bin"
    binary.write_bytes(b"\xff\xfe\x00 not text")
    assert main(["check", "--constraints", str(constraints), str(binary)]) == EXIT_USAGE
    assert "not UTF-8 text" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n", encoding="utf-8")
    assert main(["check", "--constraints", str(empty), _summary(tmp_path, KEPT)]) == EXIT_USAGE
    assert "no constraints found" in capsys.readouterr().err


def test_verify_and_head_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "receipts.jsonl"
    for index in range(2):
        seal_one(log, f"c{index}")
    assert main(["head", str(log), "--json"]) == EXIT_OK
    head = _json(capsys)
    assert head["ok"] is True
    assert isinstance(head["head"], str)
    assert main(["verify", str(log), "--json", "--head", head["head"]]) == EXIT_OK
    verified = _json(capsys)
    assert verified["rows"] == 2
    assert verified["anchored"] is True
    assert verified["problems"] == []
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(lines[0])
    assert main(["verify", str(log), "--json", "--head", head["head"]]) == EXIT_PROBLEMS
    cut = _json(capsys)
    assert cut["ok"] is False
    assert cut["problems"]


def test_verify_json_of_a_missing_or_unreadable_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["verify", str(tmp_path / "absent.jsonl"), "--json"]) == EXIT_PROBLEMS
    missing = _json(capsys)
    assert missing["ok"] is False
    assert missing["problems"]
    assert main(["verify", str(tmp_path), "--json"]) == EXIT_PROBLEMS  # a directory
    unreadable = _json(capsys)
    assert unreadable["ok"] is False
    assert "cannot read" in str(unreadable["error"])
