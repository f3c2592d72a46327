import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NEEDS = {
    "integrations_langchain.py": "langchain",
    "integrations_openai_agents.py": "agents",
}


def run_example(name: str, tmp_path: Path) -> str:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "examples").glob("*.py")))
def test_example_runs_offline(name: str, tmp_path: Path) -> None:
    module = NEEDS.get(name)
    if module is not None and importlib.util.find_spec(module) is None:
        pytest.skip(f"needs the {module} extra")
    assert run_example(name, tmp_path).strip()


def test_group_trim_section_shows_what_the_example_prints(tmp_path: Path) -> None:
    """Every output block in the README's group_trim section is real output."""
    section = (ROOT / "docs" / "sections" / "group_trim.md").read_text(encoding="utf-8")
    blocks = re.findall(r"Output:\n\n```text\n(.*?)```", section, flags=re.DOTALL)
    printed = run_example("group_trim_shapes.py", tmp_path)
    assert blocks
    for block in blocks:
        assert block in printed
