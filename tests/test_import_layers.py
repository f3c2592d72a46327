"""Imports in src/ follow the layer table of docs/DESIGN.md and form no cycle.

Every import counts: module level, inside functions, and under `if TYPE_CHECKING:`.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "compaction_guard"
DESIGN = ROOT / "docs" / "DESIGN.md"
TOP = "compaction_guard"
# Private modules of these rows are shared helpers: a helper two parts need moves down here.
SHARED_ROWS = frozenset({"0 names", "1 records"})


def _name(path: Path) -> str:
    """`detectors/lexical/context.py` -> `detectors/lexical/context`; a package is its folder."""
    rel = path.relative_to(PACKAGE).with_suffix("").as_posix()
    return rel.removesuffix("/__init__") if rel != "__init__" else "__init__"


MODULES = {_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _target(dotted: str) -> str | None:
    """Map `compaction_guard.a.b` to the module name it loads, or None outside the package."""
    if dotted == TOP:
        return "__init__"
    if not dotted.startswith(TOP + "."):
        return None
    name = dotted[len(TOP) + 1 :].replace(".", "/")
    return name if name in MODULES else None


def _imports(name: str) -> set[str]:
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition("/")[0]
    return _parse_imports(path.read_text(), package) - {name}


def _parse_imports(source: str, package: str) -> set[str]:
    """Return the package modules `source` imports anywhere (functions, TYPE_CHECKING too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(t for alias in node.names if (t := _target(alias.name)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = [TOP, *(package.split("/") if package not in {"", "__init__"} else [])]
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                target = _target(f"{base}.{alias.name}") or _target(base)
                if target:
                    found.add(target)
    return found


def _table(title: str) -> list[list[str]]:
    text = DESIGN.read_text()
    start = text.index(f"\n### {title}\n")
    rows: list[list[str]] = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if not set(cells[0]) <= {"-", " "}:
            rows.append(cells)
    return rows[1:]


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _layers() -> tuple[dict[str, str], dict[str, set[str]]]:
    """Return module -> row and row -> rows it may import from, read from the table."""
    row_of: dict[str, str] = {}
    may: dict[str, set[str]] = {}
    above: list[str] = []
    for cell, patterns, allowed, *_ in _table("Layers"):
        row = cell.strip("`")
        may[row] = set(above) if allowed == "rows above" else set(_ticked(allowed))
        above.append(row)
        for pattern in _ticked(patterns):
            for module in fnmatch.filter(MODULES, pattern) or [pattern]:
                assert module not in row_of, f"{module} sits in two rows: {row_of[module]}, {row}"
                row_of[module] = row
    return row_of, may


def _exceptions() -> set[tuple[str, str]]:
    return {(a, b) for a, b in (_ticked(" ".join(r[:2])) for r in _table("Allowed exceptions"))}


def _graph() -> dict[str, set[str]]:
    edges = {name: _imports(name) for name in MODULES}
    for importer, imported in _exceptions():
        edges[importer].discard(imported)
    return edges


def _is_private(name: str) -> bool:
    return any(part.startswith("_") and part != "__init__" for part in name.split("/"))


def test_every_module_sits_in_exactly_one_row() -> None:
    row_of, _ = _layers()
    unplaced = sorted(set(MODULES) - set(row_of))
    unknown = sorted(set(row_of) - set(MODULES))
    assert not unplaced, f"add these modules to docs/DESIGN.md, Layers: {unplaced}"
    assert not unknown, f"these entries of docs/DESIGN.md, Layers name no module: {unknown}"


def test_imports_follow_the_layer_table() -> None:
    row_of, may = _layers()
    wrong = []
    for importer, targets in _graph().items():
        for imported in sorted(targets):
            mine, theirs = row_of[importer], row_of[imported]
            if mine == theirs:
                continue
            if theirs not in may[mine]:
                wrong.append(f"{importer} ({mine}) -> {imported} ({theirs})")
            elif _is_private(imported) and theirs not in SHARED_ROWS:
                wrong.append(f"{importer} -> {imported}: private to row {theirs}")
    assert not wrong, f"imports against docs/DESIGN.md, Layers: {wrong}"


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle (type-only imports count): " + " -> ".join(cycle or [])


def test_allowed_exceptions_are_real_imports() -> None:
    """An exception the code no longer needs is deleted from the table, not kept as a licence."""
    stale = [pair for pair in sorted(_exceptions()) if pair[1] not in _imports(pair[0])]
    assert not stale, f"drop these from docs/DESIGN.md, Allowed exceptions: {stale}"


def test_cycle_finder_sees_a_type_only_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_type_checking_and_function_imports_are_read() -> None:
    source = (
        "if TYPE_CHECKING:\n    from compaction_guard.report import CompactionReport\n"
        "def f():\n    from . import codec\n    from .detectors import base\n"
    )
    assert _parse_imports(source, "") == {"report", "codec", "detectors/base"}
