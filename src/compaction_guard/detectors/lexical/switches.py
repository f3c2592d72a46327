"""Rule switches: every catalogued rule can be switched off, so a test can show it is needed.

See `catalogue.RULES` and tests/detectors/test_lexical_catalogue.py (the ablation test).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["is_on", "switched_off"]

_OFF: set[str] = set()


def is_on(rule: str) -> bool:
    """Tell whether the rule with catalogue id `lexical.<rule>` is switched on (the default)."""
    return not _OFF or rule not in _OFF


@contextlib.contextmanager
def switched_off(*rules: str) -> Iterator[None]:
    """Switch the named rules (ids without the `lexical.` prefix) off inside the block."""
    added = set(rules) - _OFF
    _OFF.update(added)
    try:
        yield
    finally:
        _OFF.difference_update(added)
