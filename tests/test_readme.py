import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_is_rendered_from_its_template() -> None:
    """README.md is generated (quickstart output, evidence table, bench results): never stale."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "readme.py"), "--check"],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr


def test_readme_setup_is_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = text.split("## Set up", 1)[1].split("```", 2)[1]
    commands = [line.split("#")[0].strip() for line in setup.strip().splitlines()]
    assert commands == ["make demo", "make check"]
