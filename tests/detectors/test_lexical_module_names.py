"""No module of the lexical tier binds one module-level name twice.

The readers share large word tables by name; a second table given a name already in use
silently replaces the first for every reader read after it (three such collisions in
world.py changed verdicts before the fixtures caught them). mypy flags a rebinding only
when the type changes, so this test reads the modules' own top-level statements.
"""

from __future__ import annotations

import ast
import collections
from pathlib import Path

import pytest

from compaction_guard.detectors import lexical

MODULES = sorted(Path(lexical.__file__).parent.glob("*.py"))


def _bound(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return [node.name]
    return []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_module_level_name_is_bound_twice(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    counts = collections.Counter(name for node in tree.body for name in _bound(node))
    assert [name for name, count in counts.items() if count > 1] == []


def test_a_rebinding_is_found() -> None:
    tree = ast.parse("A = 1\ndef f(): pass\nA = 2\n")
    counts = collections.Counter(name for node in tree.body for name in _bound(node))
    assert counts["A"] == 2
