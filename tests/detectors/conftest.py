"""Fixtures for the detector tests: constraint records and the offline embedding model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from compaction_guard.detectors.embedding import BUNDLED_MODEL
from compaction_guard.invariant import Invariant, invariant_id

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

# The model ships inside the package (src/compaction_guard/models/minilm-m2v-int8).
M2V_DIR = BUNDLED_MODEL


@pytest.fixture
def make_invariant() -> Callable[[str], Invariant]:
    def make(text: str) -> Invariant:
        return Invariant(id=invariant_id(text), text=text)

    return make


@pytest.fixture(scope="session")
def m2v_dir() -> Path:
    pytest.importorskip("model2vec", reason="the [embeddings] extra is not installed")
    assert (M2V_DIR / "model.safetensors").is_file(), f"the bundled model is missing at {M2V_DIR}"
    return M2V_DIR


@pytest.fixture(scope="session")
def m2v_model(m2v_dir: Path) -> Any:
    """One loaded StaticModel shared by the tests that do not test loading itself."""
    from model2vec import StaticModel

    return StaticModel.from_pretrained(m2v_dir)
