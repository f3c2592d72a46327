"""Render README.md and refresh the generated parts of the docs pages, so every output is real.

README.md is generated whole from docs/README.template.md: each directive line of the template
is replaced by what it names. A docs page (docs/*.md) is its own source: after each directive
line the script writes what the directive names, up to the next line `<!-- end -->`, and leaves
everything else as written. To show a new output in a page, write the directive line and an
`<!-- end -->` line under it, then run this script.

Directives, each alone on a line:
  <!-- include: PATH -->   the file's text (evidence/table.md, bench/results.md)
  <!-- file: PATH -->      the file's text in a fenced block (an example, or a file it reads)
  <!-- output: PATH -->    a fenced block with what `python PATH` prints (run in a temp dir)
  <!-- command: ARGS -->   a fenced block: `$ compaction-guard ARGS`, what it prints (stdout,
                           then stderr) and, when it is not 0, its exit status; it runs in
                           examples/, where the files it names live
Usage: python docs/readme.py [--check]   (--check exits 1 when any page is stale)
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "docs" / "README.template.md"
README = ROOT / "README.md"
PAGES = sorted(set((ROOT / "docs").glob("*.md")) - {TEMPLATE})
DIRECTIVE = re.compile(r"^<!-- (include|file|output|command): (.+?) -->$")
END = "<!-- end -->"


def _output(path: Path) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [sys.executable, str(path)], capture_output=True, text=True, check=True, cwd=tmp,
        )
    return "```\n" + result.stdout + "```"


def _command(args: str) -> str:
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "compaction_guard", *shlex.split(args)],
        capture_output=True, text=True, check=False, cwd=ROOT / "examples", env=env,
    )
    status = "" if result.returncode == 0 else f"[exit status {result.returncode}]\n"
    return f"```\n$ compaction-guard {args}\n{result.stdout}{result.stderr}{status}```"


def _expand(kind: str, argument: str) -> str:
    if kind in {"include", "file"}:
        text = (ROOT / argument).read_text(encoding="utf-8").rstrip("\n")
        fence = "```python" if argument.endswith(".py") else "```"
        return text if kind == "include" else f"{fence}\n{text}\n```"
    if kind == "output":
        return _output(ROOT / argument)
    return _command(argument)


def render() -> str:
    """Return the README text the template renders to."""
    out: list[str] = []
    for line in TEMPLATE.read_text(encoding="utf-8").splitlines():
        match = DIRECTIVE.match(line)
        out.append(line if match is None else _expand(*match.groups()))
    return "\n".join(out) + "\n"


def refresh(page: Path) -> str:
    """Return `page` with the text after each directive, up to its `<!-- end -->`, regenerated."""
    lines = page.read_text(encoding="utf-8").splitlines()
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        out.append(line)
        index += 1
        match = DIRECTIVE.match(line)
        if match is None:
            continue
        try:
            end = lines.index(END, index)
        except ValueError:
            raise SystemExit(f"{page.name}: `{line}` has no `{END}` line after it") from None
        out += [_expand(*match.groups()), END]
        index = end + 1
    return "\n".join(out) + "\n"


def main() -> int:
    """Write README.md and the docs pages, or with --check report which are stale."""
    rendered = {README: render()} | {page: refresh(page) for page in PAGES}
    stale = [path for path, text in rendered.items() if path.read_text(encoding="utf-8") != text]
    if "--check" in sys.argv[1:]:
        for path in stale:
            name = path.relative_to(ROOT)
            print(f"{name} is stale: run `python docs/readme.py`", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.write_text(rendered[path], encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
