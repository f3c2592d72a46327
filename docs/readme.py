"""Render README.md from docs/README.template.md.

Directives, each alone on a line:
  <!-- include: PATH -->   the file's text (sections, evidence/table.md, bench/results.txt)
  <!-- output: PATH -->    a fenced block with what `python PATH` prints (run in a temp dir)
Usage: python docs/readme.py [--check]   (--check exits 1 when README.md is stale)
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "docs" / "README.template.md"
README = ROOT / "README.md"
DIRECTIVE = re.compile(r"^<!-- (include|output): (\S+) -->$")


def _output(path: Path) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [sys.executable, str(path)], capture_output=True, text=True, check=True, cwd=tmp,
        )
    return "```\n" + result.stdout + "```"


def render() -> str:
    """Return the README text the template renders to."""
    out: list[str] = []
    for line in TEMPLATE.read_text(encoding="utf-8").splitlines():
        match = DIRECTIVE.match(line)
        if match is None:
            out.append(line)
            continue
        kind, rel = match.groups()
        path = ROOT / rel
        if kind == "include":
            out.append(path.read_text(encoding="utf-8").rstrip("\n"))
        else:
            out.append(_output(path))
    return "\n".join(out) + "\n"


def main() -> int:
    """Write README.md, or with --check report whether it is stale."""
    text = render()
    if "--check" in sys.argv[1:]:
        if README.read_text(encoding="utf-8") != text:
            print("README.md is stale: run `python docs/readme.py`", file=sys.stderr)
            return 1
        return 0
    README.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
