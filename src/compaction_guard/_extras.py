"""Lazy imports of optional extras, with the install command in the failure."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from compaction_guard.errors import MissingExtraError

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["require"]


def require(module: str, *, extra: str, feature: str) -> ModuleType:
    """Import `module` or raise MissingExtraError naming `pip install 'compaction-guard[extra]'`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(module=module, extra=extra, feature=feature) from exc
