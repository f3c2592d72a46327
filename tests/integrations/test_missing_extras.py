"""Each integration imported without its extra fails at once with the install command."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from compaction_guard.errors import MissingExtraError

ROOT = Path(__file__).resolve().parents[2]


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


BOUNDS = [
    ("langchain", "langchain", "langchain", "langchain"),
    ("openai_agents", "agents", "openai-agents", "openai-agents"),
    ("pydantic_ai", "pydantic_ai", "pydantic-ai-slim", "pydantic-ai"),
    ("anthropic", "anthropic", "anthropic", "anthropic"),
]


@pytest.mark.parametrize(("integration", "module", "distribution", "extra"), BOUNDS)
def test_a_release_below_the_bound_is_refused_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch, integration: str, module: str, distribution: str,
    extra: str,
) -> None:
    pytest.importorskip(module)
    name = f"compaction_guard.integrations.{integration}"
    real = metadata.version
    monkeypatch.setattr(
        metadata, "version", lambda dist: "0.0.1" if dist == distribution else real(dist),
    )
    monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.raises(MissingExtraError) as caught:
        importlib.import_module(name)
    assert f"pip install 'compaction-guard[{extra}]'" in str(caught.value)
    assert "0.0.1 is installed" in str(caught.value)
    monkeypatch.undo()
    importlib.import_module(name)  # leave the real module loaded for other tests


@pytest.mark.parametrize(("integration", "module", "distribution", "extra"), BOUNDS)
def test_each_adapter_states_the_bound_its_extra_states(
    integration: str, module: str, distribution: str, extra: str,
) -> None:
    pytest.importorskip(module)
    adapter = importlib.import_module(f"compaction_guard.integrations.{integration}")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    requirements = pyproject["project"]["optional-dependencies"][extra]
    major = int(adapter.MINIMUM_VERSION.split(".")[0])
    assert f"{distribution}>={adapter.MINIMUM_VERSION},<{major + 1}" in requirements


def test_release_numbers_compare_as_numbers() -> None:
    from compaction_guard._extras import _release

    assert _release("1.10.0") > _release("1.9")
    assert _release("2.68.0rc1") == (2, 68, 0)
    assert _release("0.24.0") < _release("1")
