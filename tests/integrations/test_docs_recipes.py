"""docs/integrations.md shows each recipe exactly as the example (which the tests run) has it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
NAMES = ["anthropic", "openai_agents", "langchain", "deepagents", "pydantic_ai"]


def _recipe(name: str) -> str:
    source = (ROOT / "examples" / f"integrations_{name}.py").read_text(encoding="utf-8")
    start = source.index(f"# --- recipe: {name} ---\n")
    return source[start : source.index("# --- end recipe ---")].split("\n", 1)[1].rstrip()


@pytest.mark.parametrize("name", NAMES)
def test_the_page_shows_the_recipe_the_tests_run(name: str) -> None:
    blocks = [block.rstrip() for block in re.findall(r"```python\n(.*?)```", PAGE, re.DOTALL)]
    assert _recipe(name) in blocks
    assert f"`examples/integrations_{name}.py`" in PAGE


def test_the_page_states_a_bound_for_every_integration_extra() -> None:
    for extra in ("anthropic", "openai-agents", "langchain", "deepagents", "pydantic-ai"):
        assert f"| `[{extra}]` |" in PAGE
