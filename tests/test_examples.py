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
    "integrations_anthropic.py": "anthropic",
    "integrations_deepagents.py": "deepagents",
    "integrations_pydantic_ai.py": "pydantic_ai",
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


@pytest.mark.parametrize(
    ("section", "example", "lead"),
    [
        ("group_trim.md", "group_trim_shapes.py", r"Output:\n\n"),
        ("receipts.md", "receipt_basics.py", r"Output of `examples/receipt_basics.py`[^`]*?:\n\n"),
    ],
)
def test_readme_section_shows_what_its_example_prints(
    section: str, example: str, lead: str, tmp_path: Path,
) -> None:
    """Every output block in these README sections is what the example really prints."""
    text = (ROOT / "docs" / section).read_text(encoding="utf-8")
    blocks = re.findall(lead + r"```text\n(.*?)```", text, flags=re.DOTALL)
    printed = run_example(example, tmp_path)
    assert blocks
    for block in blocks:
        assert block in printed
