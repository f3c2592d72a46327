"""pydantic-ai 2.x: a history processor whose compactions run through `Guard.compact`.

`Agent(capabilities=[ProcessHistory(history_processor(guard, compactor, trigger_tokens=...))])`
runs before every model request: past the trigger it compacts (mode `owned`), refuses a
result that orphans a tool call or return, and checks the block on every request. Needs
the `[pydantic-ai]` extra (`pydantic-ai-slim`). Modes and limits: docs/integrations.md.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import json
import math
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from compaction_guard._extras import require, require_version
from compaction_guard.codec import ContextCodec, Rendering, without_guard_blocks
from compaction_guard.errors import CodecError, MissingExtraError
from compaction_guard.integrations._pairing import PairingError
from compaction_guard.view import Segment

_pydantic_ai = require(
    "pydantic_ai",
    extra="pydantic-ai",
    feature="compaction_guard.integrations.pydantic_ai",
)
# The lowest release the tests pass on; pyproject's [pydantic-ai] extra states the same bound.
MINIMUM_VERSION = "2.62"
require_version(
    "pydantic-ai-slim", MINIMUM_VERSION, extra="pydantic-ai",
    feature="compaction_guard.integrations.pydantic_ai",
)
_capabilities = require(
    "pydantic_ai.capabilities",
    extra="pydantic-ai",
    feature="compaction_guard.integrations.pydantic_ai (pydantic-ai 2.x capabilities)",
)
if not hasattr(_capabilities, "ProcessHistory"):  # pragma: no cover - only on old releases
    raise MissingExtraError(
        module="pydantic_ai.capabilities.ProcessHistory",
        extra="pydantic-ai",
        feature="compaction_guard.integrations.pydantic_ai (needs pydantic-ai-slim >= 2.0)",
    )

# Imported only after the extra check, so a missing pydantic-ai fails with the install command.
# At run time: pydantic-ai resolves the processor's annotations to spot the RunContext form.
from pydantic_ai import RunContext  # noqa: E402, TC002
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelRequest,
    ModelResponse,
    UserPromptPart,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from compaction_guard.guard import Guard

    Compactor = Callable[..., list[ModelMessage] | Awaitable[list[ModelMessage]]]

__all__ = ["PairingError", "PydanticAICodec", "history_processor"]

SHAPE = "pydantic-ai"

# part_kind -> how it reads. Text parts carry prose the block may sit in; tool parts are
# tool text (never where the block counts); quiet parts hold no text for the model to
# read as conversation (control deltas, media, reasoning) and are noted, not rendered.
_TEXT_KINDS = frozenset({"system-prompt", "user-prompt", "text", "compaction"})
_TOOL_KINDS = frozenset(
    {"tool-return", "builtin-tool-return", "retry-prompt", "retry-feedback", "tool-call",
     "builtin-tool-call"},
)
_QUIET_KINDS = {
    "thinking": "thinking part",
    "file": "file part",
    "speech": "speech part",
    "tool-availability-delta": "tool availability change",
    "capability-load-delta": "capability load",
    "model-settings-delta": "model settings change",
    "instruction-delta": "instruction change",
    "instruction-baseline": "instruction baseline",
}
_CALLS = frozenset({"tool-call"})
_ANSWERS = frozenset({"tool-return", "retry-prompt"})


def __dir__() -> list[str]:
    return list(__all__)


def history_processor(
    guard: Guard,
    compactor: Compactor,
    *,
    trigger_tokens: int,
) -> Callable[[RunContext[Any], list[ModelMessage]], Awaitable[list[ModelMessage]]]:
    """Return a processor for `ProcessHistory` that compacts through `guard`.

    Before every model request: once the history passes `trigger_tokens` (its rendered
    text's chars/4), `compactor` runs through `Guard.compact` (mode `owned`) and its
    result, with exactly one verified block, becomes the history. `compactor` takes the
    messages (or `(ctx, messages)`, pydantic-ai's `RunContext` form) and returns the
    messages to keep; it may be async, and its summary may be a `CompactionPart`. Once
    the guard has issued a block, every request runs `assert_present`.

    Raises PairingError (nothing replaced) when the result keeps a tool return without
    its call or a call without its return: pydantic-ai would otherwise drop or invent
    returns silently before the request. BlockIntegrityError when the block is gone.

    ```python
    agent = Agent(model, capabilities=[ProcessHistory(
        history_processor(guard, summarise, trigger_tokens=8000))])
    ```
    """
    if isinstance(trigger_tokens, bool) or not isinstance(trigger_tokens, int):
        raise TypeError(f"trigger_tokens must be an int, got {type(trigger_tokens).__name__}")
    if trigger_tokens <= 0:
        raise ValueError(f"trigger_tokens must be positive, got {trigger_tokens}")
    if not callable(compactor):
        raise TypeError(f"compactor must be callable, got {type(compactor).__name__}")
    codec = PydanticAICodec()
    takes_ctx = _takes_context(compactor)

    async def process(ctx: RunContext[Any], messages: list[ModelMessage]) -> list[ModelMessage]:
        if _tokens(codec.render(messages)) > trigger_tokens:
            before = copy.deepcopy(messages)
            result = compactor(ctx, messages) if takes_ctx else compactor(messages)
            if inspect.isawaitable(result):
                result = await result
            replay = functools.wraps(compactor)(lambda _context: result)
            output = guard.compact(
                before, replay, method="pydantic_ai.history_processor", codec=codec,
            )
            problems = pairing_problems(output)
            if problems:
                raise PairingError(
                    "the compacted history", problems, report=guard.last_report,
                )
            messages = list(output)
        if guard.issued:  # before the first compaction the history is the caller's own
            guard.assert_present(messages, codec=codec)
        return messages

    return process


def _takes_context(compactor: Callable[..., Any]) -> bool:
    try:
        parameters = [
            p for p in inspect.signature(compactor).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        return False
    return len(parameters) >= 2  # noqa: PLR2004 - (ctx, messages)


def _tokens(rendering: Rendering) -> int:
    return math.ceil(sum(len(segment.text) for segment in rendering.segments) / 4)


def pairing_problems(messages: Sequence[ModelMessage]) -> list[str]:
    """Describe every tool return without its call and call without its return."""
    problems: list[str] = []
    open_calls: dict[str, int] = {}
    for index, message in enumerate(messages):
        parts: list[Any] = list(message.parts)
        kinds = [(getattr(p, "part_kind", None), p) for p in parts]
        if isinstance(message, ModelRequest):
            answered: set[str] = {
                str(p.tool_call_id) for kind, p in kinds
                if kind in _ANSWERS and getattr(p, "tool_name", None) is not None
            }
            problems.extend(
                f"tool return {call!r} in message {index} answers no call in the message "
                "before it" for call in sorted(answered - set(open_calls))
            )
            problems.extend(
                f"tool call {call!r} in message {at} has no return in the next request"
                for call, at in open_calls.items() if call not in answered
            )
            open_calls = {}
        else:
            open_calls = {str(p.tool_call_id): index for kind, p in kinds if kind in _CALLS}
    return problems


class PydanticAICodec(ContextCodec):
    """Reads and writes lists of pydantic-ai `ModelMessage`s (`ModelRequest`/`ModelResponse`).

    The block is written as a `UserPromptPart` at the end of the last request (after any
    tool returns, so no call/return pair is split), or as a request of its own when the
    history ends with a response. Part types this version does not know are refused.
    """

    def render(self, context: object) -> Rendering:
        """Return the messages' text; raise CodecError for anything else."""
        messages = _checked(context)
        segments: list[Segment] = []
        keys: list[Any] = []
        skipped: dict[str, int] = {}
        for index, message in enumerate(messages):
            role = "user" if isinstance(message, ModelRequest) else "assistant"
            pieces: list[tuple[str, bool]] = []
            for number, part in enumerate(message.parts):
                pieces.extend(_part_pieces(part, index, number, skipped))
            segments.extend(Segment(text, index, _role(role, tool), tool) for text, tool in pieces)
            keys.append((role, *(x for piece in pieces for x in piece)))
        notes = tuple(
            f"{n} {what}{'' if n == 1 else 's'} not rendered" for what, n in skipped.items()
        )
        return Rendering(SHAPE, tuple(segments), tuple(keys), notes)

    def marked_segments(self, context: object) -> list[Segment]:
        """Return the segments whose text holds the block marker."""
        from compaction_guard.block import MARKER  # noqa: PLC0415

        return [s for s in self.render(context).segments if MARKER in s.text]

    def inject(self, context: object, block: str, *, keep: Collection[int] = ()) -> object:
        """Return new messages holding exactly one block part; never mutate `context`."""
        messages = _checked(context)
        out: list[ModelMessage] = []
        for index, message in enumerate(messages):
            cleaned = _without_block(message, kept=index in keep)
            if cleaned is not None:
                out.append(cleaned)
        part = UserPromptPart(content=block)
        if out and isinstance(out[-1], ModelRequest):
            out[-1] = dataclasses.replace(out[-1], parts=[*out[-1].parts, part])
        else:
            out.append(ModelRequest(parts=[part]))
        return out


def _role(role: str, tool: bool) -> str:  # noqa: FBT001
    return "tool" if tool else role


def _checked(context: object) -> list[ModelMessage]:
    if not isinstance(context, list | tuple) or not all(
        isinstance(m, ModelRequest | ModelResponse) for m in context
    ):
        raise CodecError(
            "PydanticAICodec reads a list of pydantic-ai ModelRequest/ModelResponse messages, "
            f"got {type(context).__name__}",
        )
    return list(context)


def _part_pieces(
    part: object, index: int, number: int, skipped: dict[str, int],
) -> list[tuple[str, bool]]:
    kind = getattr(part, "part_kind", None)
    if kind in _QUIET_KINDS:
        skipped[_QUIET_KINDS[kind]] = skipped.get(_QUIET_KINDS[kind], 0) + 1
        return []
    if kind in _TOOL_KINDS:
        value = getattr(part, "args", None) if kind.endswith("call") else getattr(
            part, "content", None,
        )
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        return [(text, True)]
    if kind in _TEXT_KINDS:
        content = getattr(part, "content", None)
        if isinstance(content, str):
            return [(content, False)]
        if content is None:
            return []
        items = content if isinstance(content, Sequence) else [content]
        texts = [(item, False) for item in items if isinstance(item, str)]
        if len(texts) < len(items):
            skipped["non-text user content"] = skipped.get("non-text user content", 0) + 1
        return texts
    raise CodecError(
        f"message {index}, part {number} is a {type(part).__name__} with part_kind "
        f"{kind!r}, which compaction-guard does not know; upgrade compaction-guard or "
        "leave that part out of the history",
    )


def _without_block(message: ModelMessage, *, kept: bool) -> ModelMessage | None:
    """Return `message` without the guard's blocks in its prompt text, None if emptied."""
    parts: list[Any] = []
    changed = False
    original: list[Any] = list(message.parts)
    for part in original:
        kind = getattr(part, "part_kind", None)
        content = getattr(part, "content", None)
        if kind in {"user-prompt", "text"} and isinstance(content, str):
            cleaned = without_guard_blocks(content, kept=kept)
            if cleaned is not content:
                changed = True
                if cleaned:
                    parts.append(dataclasses.replace(part, content=cleaned))
                continue
        parts.append(part)
    if not changed:
        return message
    copy_of: Any = message
    return dataclasses.replace(copy_of, parts=parts) if parts else None
