"""docs/integrations.md shows each recipe exactly as the example (which the tests run) has it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.integrations import recipe

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
NAMES = ["anthropic", "openai_agents", "langchain", "deepagents", "pydantic_ai"]



@pytest.mark.parametrize("name", NAMES)
def test_the_page_shows_the_recipe_the_tests_run(name: str) -> None:
    blocks = [block.rstrip() for block in re.findall(r"```python\n(.*?)```", PAGE, re.DOTALL)]
    assert recipe(name).rstrip() in blocks
    assert f"`examples/integrations_{name}.py`" in PAGE


def test_the_page_states_a_bound_for_every_integration_extra() -> None:
    for extra in ("anthropic", "openai-agents", "langchain", "deepagents", "pydantic-ai"):
        assert f"| `[{extra}]` |" in PAGE
