"""One `Guard.compact` call: its arguments refused before any work, the compactor run.

`Call` is what the call carries between its steps. See docs/DESIGN.md, "The composition
in Guard.compact".
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compaction_guard.codec import ContextCodec
from compaction_guard.errors import CodecError

if TYPE_CHECKING:
    from collections.abc import Callable

    from compaction_guard.receipt import CompactionReceipt

__all__ = ["Call", "elapsed_ms", "run_compactor", "start_call", "validate_call"]


@dataclasses.dataclass(slots=True)
class Call:
    """What one `compact()` call carries between its steps."""

    started: float
    compactor: Callable[[Any], Any]
    method: str
    codec: ContextCodec
    receipt: CompactionReceipt | None = None


def start_call(
    compactor: object, context: object, *, codec: ContextCodec, method: str, max_tokens: object
) -> Call:
    """Start the clock and refuse bad input before the compactor, the receipt or any rendering.

    Raises TypeError or CodecError saying what to pass (see `validate_call`).
    """
    if not callable(compactor):
        raise TypeError(
            f"compactor must be a callable taking the context, got "
            f"{type(compactor).__name__}; pass your summariser, or lambda c: c to re-pin",
        )
    started = time.perf_counter()
    validate_call(codec, context, max_tokens)
    return Call(started=started, compactor=compactor, method=method, codec=codec)


def validate_call(codec: object, context: object, max_tokens: object) -> None:
    """Refuse bad input before any work: a non-codec, a bad budget, an untrimmable context.

    Raises TypeError or CodecError saying what to pass.
    """
    if not isinstance(codec, ContextCodec):
        raise TypeError(
            f"codec must be a ContextCodec (render, inject, marked_segments), got "
            f"{type(codec).__name__}; leave it out to use AutoCodec()",
        )
    if max_tokens is None:
        return
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int | float) or not (
        0 < max_tokens < math.inf  # NaN fails this too
    ):
        raise TypeError(
            f"max_tokens must be a positive number of tokens, got {max_tokens!r}; "
            "pass e.g. max_tokens=8000, or leave it out",
        )
    if not isinstance(context, list | tuple) or not all(isinstance(m, Mapping) for m in context):
        raise CodecError(
            "max_tokens trimming works on lists of provider messages (dicts); this context "
            f"is a {type(context).__name__}. Trim it yourself or drop max_tokens",
        )


def run_compactor(compactor: Callable[[Any], Any], context: Any) -> Any:
    """Run the compactor on `context`; its own exceptions propagate.

    Raises CodecError when it returns None (any other shape the codec judges later).
    """
    after = compactor(context)
    if after is None:
        raise CodecError(
            "the compactor returned None; return the compacted context "
            "(the same shape you passed in: str, list of messages, ...)",
        )
    return after


def elapsed_ms(started: float) -> float:
    """Milliseconds since `started` (a `time.perf_counter()` reading), to the microsecond."""
    return round((time.perf_counter() - started) * 1000.0, 3)
