"""Each integration imported without its extra fails at once with the install command."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from compaction_guard.errors import MissingExtraError


@pytest.mark.parametrize(
    ("integration", "blocked", "extra"),
    [
        ("langchain", "langchain", "langchain"),
        ("openai_agents", "agents", "openai-agents"),
        ("pydantic_ai", "pydantic_ai", "pydantic-ai"),
    ],
)
def test_integration_without_its_extra_names_the_pip_command(
    monkeypatch: pytest.MonkeyPatch, integration: str, blocked: str, extra: str,
) -> None:
    name = f"compaction_guard.integrations.{integration}"
    monkeypatch.setitem(sys.modules, blocked, None)
    monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.raises(MissingExtraError) as caught:
        importlib.import_module(name)
    assert isinstance(caught.value, ImportError)
    assert f"pip install 'compaction-guard[{extra}]'" in str(caught.value)
    assert caught.value.extra == extra


def test_anthropic_integration_imports_without_the_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Documented exception: strings in, strings out, so no SDK is needed."""
    name = "compaction_guard.integrations.anthropic"
    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.delitem(sys.modules, name, raising=False)
    module = importlib.import_module(name)
    assert callable(module.verify_and_reassert)


def test_anthropic_integration_loads_no_sdk() -> None:
    code = "import sys, compaction_guard.integrations.anthropic; print('anthropic' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert run.stdout.strip() == "False"
