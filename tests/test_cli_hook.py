"""`compaction-guard hook session-start`: the JSON a Claude Code SessionStart hook prints."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from compaction_guard.block import parse_blocks
from compaction_guard.cli import main

if TYPE_CHECKING:
    from pathlib import Path

CAP = "The budget cap for this run is $500."
READ_ONLY = "The database orders_prod is production. Read-only queries only."


def _hook(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["hook", "session-start", "--constraints", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def _constraints_in(output: str) -> list[str]:
    payload = json.loads(output)
    assert payload["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    (block,) = parse_blocks(payload["hookSpecificOutput"]["additionalContext"])
    assert block.intact
    return [text for _, text in block.entries]


def test_hook_session_start_reads_one_constraint_per_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "constraints.txt"
    path.write_text(f"# project rules\n\n{CAP}\n   \n  {READ_ONLY}  \n# end\n", encoding="utf-8")
    code, out, err = _hook(path, capsys)
    assert (code, err) == (0, "")
    assert _constraints_in(out) == [CAP, READ_ONLY]


def test_hook_session_start_reads_a_json_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "constraints.json"
    path.write_text(json.dumps([CAP, "Line one.\nLine two of the same rule."]), encoding="utf-8")
    code, out, _ = _hook(path, capsys)
    assert code == 0
    assert _constraints_in(out) == [CAP, "Line one.\nLine two of the same rule."]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[not json", "not valid JSON"),
        ('[{"rule": "x"}]', "list of strings"),
        ("[1, 2]", "list of strings"),
        ("# only a comment\n\n", "no constraints found"),
        (f"{CAP}\n{CAP}\n", "cannot register"),
    ],
    ids=["bad-json", "json-objects", "json-numbers", "empty", "duplicate"],
)
def test_hook_session_start_bad_file_exits_1_with_the_reason_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, match: str,
) -> None:
    path = tmp_path / "constraints.txt"
    path.write_text(text, encoding="utf-8")
    code, out, err = _hook(path, capsys)
    assert code == 1
    assert out == ""
    assert match in err


def test_hook_session_start_missing_file_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _hook(tmp_path / "absent.txt", capsys)
    assert (code, out) == (1, "")
    assert "cannot read" in err


def test_hook_session_start_block_over_budget_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "constraints.txt"
    path.write_text(f"{CAP}\n{READ_ONLY}\n", encoding="utf-8")
    code = main(["hook", "session-start", "--constraints", str(path), "--max-block-tokens", "45"])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert "max_block_tokens" in err


def test_hook_session_start_in_a_process_prints_only_json(tmp_path: Path) -> None:
    """What Claude Code runs: a process whose stdout parses as the hook JSON."""
    path = tmp_path / "constraints.txt"
    path.write_text(f"{CAP}\n", encoding="utf-8")
    hook_input = json.dumps({"hook_event_name": "SessionStart", "source": "compact"})
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from compaction_guard.cli import main; sys.exit(main())",
         "hook", "session-start", "--constraints", str(path)],
        input=hook_input, capture_output=True, text=True, check=False, timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert _constraints_in(run.stdout) == [CAP]


def test_cli_import_loads_no_extra() -> None:
    code = (
        "import sys, compaction_guard.cli\n"
        "print(sorted(m for m in ('langchain', 'langchain_core', 'agents', 'openai', "
        "'anthropic') if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert run.stdout.strip() == "[]"
