"""Lazy imports of optional extras, with the install command in the failure."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from compaction_guard.errors import MissingExtraError

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["require", "require_version"]


def require(module: str, *, extra: str, feature: str) -> ModuleType:
    """Import `module` or raise MissingExtraError naming `pip install 'compaction-guard[extra]'`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(module=module, extra=extra, feature=feature) from exc


def require_version(distribution: str, minimum: str, *, extra: str, feature: str) -> None:
    """Raise MissingExtraError when `distribution` is older than `minimum` (the extra's bound).

    An adapter imported against an older release would fail later in ways that do not say
    what to do (a bare ImportError, a keyword silently ignored); this says it up front.
    """
    from importlib import metadata  # noqa: PLC0415 - only adapters need it

    try:
        installed = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return  # imported from a source tree: nothing to compare
    if _release(installed) < _release(minimum):
        raise MissingExtraError(
            module=f"{distribution}>={minimum} ({installed} is installed)",
            extra=extra,
            feature=feature,
        )


def _release(version: str) -> tuple[int, ...]:
    """Return the leading numeric release of a version: '1.5.2rc1' -> (1, 5, 2)."""
    parts: list[int] = []
    for piece in version.split("."):
        digits = ""
        for char in piece:
            if not char.isdigit():
                break
            digits += char
        if not digits:
            break
        parts.append(int(digits))
        if len(digits) < len(piece):
            break
    return tuple(parts)
