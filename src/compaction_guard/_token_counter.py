"""One token counter per guard: the block budget, `compact(max_tokens=)` and group_trim.

`Guard(count_tokens=f)` calls `f(message)` on each provider message when trimming and on
each block line (a `str`) when sizing the block, so the budget a constraint is refused
against and the budget a context is trimmed to are measured the same way. Without one,
both fall back to their character estimates. `token_estimator=` (a `str` counter for the
block only) is the deprecated spelling; it keeps its old meaning.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from compaction_guard.invariant import estimate_block_tokens

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["resolve_counter"]

def resolve_counter(
    count_tokens: Callable[[Any], int] | None,
    token_estimator: Callable[[str], int] | None,
) -> tuple[Callable[[Any], int] | None, Callable[[str], int]]:
    """Return (the counter for trimming or None, the block-line counter the registry uses)."""
    if token_estimator is not None:
        if count_tokens is not None:
            raise TypeError(
                "pass count_tokens= only: token_estimator= is its deprecated, block-only "
                "spelling, and the two would disagree",
            )
        warnings.warn(
            "Guard(token_estimator=) is deprecated and sizes only the block; pass "
            "count_tokens=, which also measures compact(max_tokens=) and group_trim",
            DeprecationWarning,
            stacklevel=3,
        )
        return None, _checked(token_estimator, "token_estimator")
    if count_tokens is None:
        return None, estimate_block_tokens
    if not callable(count_tokens):
        raise TypeError(
            f"count_tokens must be a callable taking one message and returning an int, got "
            f"{type(count_tokens).__name__}",
        )
    return count_tokens, _checked(count_tokens, "count_tokens")


def _checked(counter: Callable[[Any], int], name: str) -> Callable[[str], int]:
    """Wrap `counter` so a result that is not a non-negative int fails with what to fix."""

    def count(line: str) -> int:
        value = counter(line)
        if value.__class__ is not int or value < 0:
            raise TypeError(
                f"{name} returned {value!r} for a block line; it must return a "
                "non-negative int (a token count) for any message, str included",
            )
        return value

    return count
