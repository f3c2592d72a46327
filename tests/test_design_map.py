"""docs/DESIGN.md stays the map of src/: every section pointer resolves, every module is listed."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "compaction_guard"
DESIGN = ROOT / "docs" / "DESIGN.md"

# The one spelling of a pointer: docs/DESIGN.md, "<section>" (the quote may wrap a line).
POINTER = re.compile(r'docs/DESIGN\.md,\s+"([^"]+)"')
ANY_MENTION = re.compile(r"DESIGN\.md")
MAP_ROW = re.compile(r"^\| `([^`]+\.py)` \|", re.MULTILINE)


def _headings() -> set[str]:
    return {m.group(1).strip() for m in re.finditer(r"^#+ (.+)$", DESIGN.read_text(), re.MULTILINE)}


def _section(title: str) -> str:
    text = DESIGN.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_design_pointers_use_one_spelling() -> None:
    """Every mention of DESIGN.md in src/ is a `docs/DESIGN.md, "<section>"` pointer."""
    odd = []
    for path in _sources():
        text = path.read_text()
        mentions = len(ANY_MENTION.findall(text))
        if mentions != len(POINTER.findall(text)):
            odd.append(f"{path.relative_to(PACKAGE)}: {mentions - len(POINTER.findall(text))}")
    assert not odd, f'write each pointer as docs/DESIGN.md, "<section>": {odd}'


def test_design_pointers_resolve_to_headings() -> None:
    headings = _headings()
    missing = [
        f"{path.relative_to(PACKAGE)}: {name!r}"
        for path in _sources()
        for name in POINTER.findall(path.read_text())
        if " ".join(name.split()) not in headings
    ]
    assert not missing, f"add these sections to docs/DESIGN.md or fix the pointer: {missing}"


def test_module_map_lists_every_module() -> None:
    listed = MAP_ROW.findall(_section("Module map"))
    present = [path.relative_to(PACKAGE).as_posix() for path in _sources()]
    unlisted = sorted(set(present) - set(listed))
    gone = sorted(set(listed) - set(present))
    assert not unlisted, f"add these modules to docs/DESIGN.md, Module map: {unlisted}"
    assert not gone, f"drop these modules from docs/DESIGN.md, Module map: {gone}"
    assert len(listed) == len(set(listed)), "list each module once"


def test_pointer_pattern_catches_a_dangling_section() -> None:
    """The checks above read real pointers: a made-up one is extracted and does not resolve."""
    sample = 'See docs/DESIGN.md,\n"No such section".'
    assert POINTER.findall(sample) == ["No such section"]
    assert "No such section" not in _headings()


PROMISE_REF = re.compile(r"\(promises? ([^)]*)\)")
PROMISE_ITEM = re.compile(r"^\s*(\d+a?)\. ", re.MULTILINE)


def _promise_numbers(ref: str) -> list[str]:
    numbers = []
    for start, end in re.findall(r"(\d+a?)(?:-(\d+))?", ref):
        numbers += [str(n) for n in range(int(start), int(end) + 1)] if end else [start]
    return numbers


def test_promise_pointers_resolve() -> None:
    """`(promise 10)`, `(promises 5-7)` in src name items of docs/DESIGN.md, "Promises"."""
    listed = set(PROMISE_ITEM.findall(_section("Promises")))
    missing = [
        f"{path.relative_to(PACKAGE)}: promise {number}"
        for path in _sources()
        for ref in PROMISE_REF.findall(path.read_text())
        for number in _promise_numbers(ref)
        if number not in listed
    ]
    assert not missing, f"no such item in docs/DESIGN.md, Promises: {missing}"
    assert _promise_numbers("1, 2 and 12") == ["1", "2", "12"]
    assert _promise_numbers("5-7") == ["5", "6", "7"]
