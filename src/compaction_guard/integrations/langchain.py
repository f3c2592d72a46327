"""LangChain 1.x: `SummarizationMiddleware` whose compactions run through `Guard.compact`.

Mode `owned`, sync and async hooks, `assert_present` before every model call of a
summarised thread. Needs the `[langchain]` extra. Modes and limits:
docs/integrations.md.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from compaction_guard._extras import require, require_version
from compaction_guard.codec import AutoCodec, ContextCodec, Rendering, without_guard_blocks
from compaction_guard.errors import CodecError

require("langchain", extra="langchain", feature="compaction_guard.integrations.langchain")
# The lowest release the tests pass on; pyproject's [langchain] extra states the same bound.
MINIMUM_VERSION = "1.4.10"
require_version(
    "langchain", MINIMUM_VERSION, extra="langchain",
    feature="compaction_guard.integrations.langchain",
)

# Imported only after the extra check, so a missing LangChain fails with the install command.
from langchain.agents.middleware import AgentMiddleware, AgentState  # noqa: E402
from langchain_core.messages import (  # noqa: E402
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.graph.message import REMOVE_ALL_MESSAGES  # noqa: E402

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from langchain.agents.middleware import ModelRequest, ModelResponse
    from langchain.agents.middleware.types import ExtendedModelResponse
    from langgraph.runtime import Runtime

    from compaction_guard.guard import Guard
    from compaction_guard.view import Segment

__all__ = ["GuardedSummarizationMiddleware", "LangChainCodec", "guard_middleware"]

# Marks the messages LangChain's middleware writes and the one this adapter writes.
_SOURCE = "lc_source"
_SUMMARY_SOURCE = "summarization"
_BLOCK_SOURCE = "compaction_guard"
_EXPECTED = (
    "{'messages': [RemoveMessage(id=REMOVE_ALL_MESSAGES), <summary message>, *<kept messages>]}"
)


def __dir__() -> list[str]:
    return list(__all__)


def guard_middleware(
    summarization_middleware: AgentMiddleware[Any, Any, Any],
    guard: Guard,
    *,
    instruct_summariser: bool = False,
) -> GuardedSummarizationMiddleware:
    """Wrap a summarization middleware so each compaction runs through `guard`.

    Takes LangChain's `SummarizationMiddleware` (it summarises in `before_model`) and
    deepagents' (it summarises in `wrap_model_call`). Put the result where the original
    went; it carries the original's `.name`, so `create_deep_agent` puts it in place of
    its default summarisation rather than running both. Raises TypeError, naming the
    hook, for middleware that implements a hook the guard cannot see through
    (`after_model`, `wrap_tool_call`, ...). The guard's codec is wrapped in a
    `LangChainCodec` (every other context shape still goes to the codec it had).
    `instruct_summariser=True` adds `guard.summary_instructions()` to the middleware's
    `summary_prompt` before each summary (a request to the model; the block stays the
    guarantee); TypeError when the middleware has no such prompt or a custom `summarizer`.

    ```python
    middleware = guard_middleware(SummarizationMiddleware(model=..., trigger=...), guard)
    agent = create_agent(model, tools, middleware=[middleware])
    ```
    """
    return GuardedSummarizationMiddleware(
        summarization_middleware, guard, instruct_summariser=instruct_summariser,
    )


# The hooks a wrapper can run the guard around; any other hook of the inner middleware
# would change the conversation where the guard cannot see it.
_WRAPPABLE = ("before_model", "abefore_model", "wrap_model_call", "awrap_model_call")
_HOOKS = (
    "before_agent", "abefore_agent", "before_model", "abefore_model", "after_model",
    "aafter_model", "wrap_model_call", "awrap_model_call", "after_agent", "aafter_agent",
    "wrap_tool_call", "awrap_tool_call",
)
# deepagents keeps its summary in this state key instead of rewriting state["messages"].
_EVENT_KEY = "_summarization_event"


def _overrides(middleware: object, hook: str) -> bool:
    return getattr(type(middleware), hook, None) is not getattr(AgentMiddleware, hook, None)


class GuardedSummarizationMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """The wrapped middleware: summaries pass through `Guard.compact` (mode `owned`).

    `before_model`/`abefore_model` run the inner middleware; a full-replacement update is
    diffed, classified, repaired and verified by the guard, and any other update shape
    raises CodecError. When the inner middleware summarises in `wrap_model_call` (as
    deepagents' does, recording a `_summarization_event` and leaving `state["messages"]`
    alone), the request it passes on is checked the same way when it carries a new
    summary, and given the block again on every later call, because its state never
    holds the block. Every model call of a thread that holds a summary runs
    `assert_present`. An error from the summariser propagates before anything is
    written, so the agent state stays as it was.
    """

    def __init__(
        self,
        inner: AgentMiddleware[Any, Any, Any],
        guard: Guard,
        *,
        instruct_summariser: bool = False,
    ) -> None:
        if not isinstance(inner, AgentMiddleware):
            raise TypeError(
                f"guard_middleware wraps a LangChain AgentMiddleware such as "
                f"SummarizationMiddleware, got {type(inner).__name__}",
            )
        unseen = [hook for hook in _HOOKS if hook not in _WRAPPABLE and _overrides(inner, hook)]
        if unseen:
            raise TypeError(
                f"guard_middleware cannot fully wrap {type(inner).__name__}: it implements "
                f"{', '.join(unseen)}, where it would change the conversation out of the "
                f"guard's sight (only {', '.join(_WRAPPABLE)} can be wrapped). Pass it in "
                "middleware=[...] on its own, not through guard_middleware",
            )
        super().__init__()
        self.inner = inner
        self.guard = guard
        self.state_schema = inner.state_schema
        self.tools = list(getattr(inner, "tools", ()))
        self.codec = LangChainCodec(fallback=guard.codec)
        self._checked_summary: BaseMessage | None = None
        self._base_prompt = _summary_prompt(inner) if instruct_summariser else None

    @property
    def name(self) -> str:
        """The inner middleware's name: frameworks merge and replace middleware by name."""
        return self.inner.name

    def before_model(
        self, state: AgentState[Any], runtime: Runtime[Any],
    ) -> dict[str, Any] | None:
        """Run the inner hook; return its update with the guard's verdict applied."""
        self._instruct()
        before = list(state["messages"])
        return self._guarded(before, self.inner.before_model(state, runtime))

    async def abefore_model(
        self, state: AgentState[Any], runtime: Runtime[Any],
    ) -> dict[str, Any] | None:
        """Async `before_model`: the inner `abefore_model`, then the same guard step."""
        self._instruct()
        before = list(state["messages"])
        return self._guarded(before, await self.inner.abefore_model(state, runtime))

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        """Run the inner hook with the guard between it and the model.

        Raises BlockIntegrityError if a summarised thread lost its block.
        """
        self._instruct()
        if not _overrides(self.inner, "wrap_model_call"):
            self._check(request.messages)
            return handler(request)
        before = _effective(request)

        def guarded(inner_request: ModelRequest[Any]) -> ModelResponse[Any]:
            return handler(self._guard_request(before, inner_request))

        return self.inner.wrap_model_call(request, guarded)

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        """Async `wrap_model_call`."""
        self._instruct()
        if not _overrides(self.inner, "awrap_model_call"):
            self._check(request.messages)
            return await handler(request)
        before = _effective(request)

        async def guarded(inner_request: ModelRequest[Any]) -> ModelResponse[Any]:
            return await handler(self._guard_request(before, inner_request))

        return await self.inner.awrap_model_call(request, guarded)

    def _instruct(self) -> None:
        # Read the registry at every call, so constraints added later reach the summariser.
        if self._base_prompt is not None:
            clause = self.guard.summary_instructions()
            self.inner.summary_prompt = _with_clause(self._base_prompt, clause)  # type: ignore[attr-defined]

    def _check(self, messages: Sequence[BaseMessage]) -> None:
        # A thread never summarised owes no block, so one guard can serve many threads.
        if any(_source(message) == _SUMMARY_SOURCE for message in messages):
            self.guard.assert_present(list(messages), codec=self.codec)

    def _guard_request(
        self, before: list[BaseMessage], request: ModelRequest[Any],
    ) -> ModelRequest[Any]:
        """Return the request the model gets: a new summary checked, the block in place."""
        messages = list(request.messages)
        summary = next((m for m in messages if _source(m) == _SUMMARY_SOURCE), None)
        if summary is None or not self.guard.invariants():
            self._check(messages)
            return request
        # The request carries the earlier summary when it has the same summary and as many
        # messages as before it; a new summary stands for fewer. A retry of one call
        # passes the same summary object again.
        earlier = bool(before) and before[0] == summary and len(messages) == len(before)
        if earlier or summary is self._checked_summary:
            # An earlier summary: the inner state holds it without the block; place it again.
            output: Any = self.codec.inject(messages, self.guard.reassertion_block())
        else:
            replay = functools.wraps(type(self.inner).wrap_model_call)(lambda _context: messages)
            output = self.guard.compact(
                before, replay, method=f"langchain.{self.inner.name}", codec=self.codec,
            )
            self._checked_summary = summary
        self.guard.assert_present(output, codec=self.codec)
        return request.override(messages=list(output))

    def _guarded(self, before: Sequence[BaseMessage], update: object) -> dict[str, Any] | None:
        if update is None:
            return None
        kept = _replacement(update)
        name = getattr(self.inner, "name", type(self.inner).__name__)
        replay = functools.wraps(type(self.inner).before_model)(lambda _context: kept)
        output = self.guard.compact(
            list(before), replay, method=f"langchain.{name}", codec=self.codec,
        )
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *output]}


def _summary_prompt(inner: object) -> str:
    prompt = getattr(inner, "summary_prompt", None)
    if not isinstance(prompt, str) or getattr(inner, "summarizer", None) is not None:
        has = "a custom summarizer" if isinstance(prompt, str) else "none"
        raise TypeError(
            f"instruct_summariser=True needs middleware that formats a summary_prompt str, and "
            f"{type(inner).__name__} has {has}; add guard.summary_instructions() to your "
            "summariser's prompt yourself",
        )
    return prompt


def _with_clause(prompt: str, clause: str) -> str:
    """Put `clause` before the template's messages (or at its end), braces escaped for format."""
    if not clause:
        return prompt
    escaped = clause.replace("{", "{{").replace("}", "}}")
    for marker in ("<messages>", "{messages}"):
        at = prompt.find(marker)
        if at != -1:
            return f"{prompt[:at]}{escaped}\n\n{prompt[at:]}"
    return f"{prompt.rstrip()}\n\n{escaped}"


def _effective(request: ModelRequest[Any]) -> list[BaseMessage]:
    """Return the conversation the model would see before this call's summarisation.

    deepagents applies its last `_summarization_event` to every request: the summary,
    then the state's messages from the event's cutoff on.
    """
    messages: list[BaseMessage] = list(request.messages)
    state = getattr(request, "state", None)
    event = state.get(_EVENT_KEY) if isinstance(state, Mapping) else None
    if not isinstance(event, Mapping):
        return messages
    summary, cutoff = event.get("summary_message"), event.get("cutoff_index")
    if not isinstance(summary, BaseMessage) or not isinstance(cutoff, int):
        return messages
    return [summary, *messages[cutoff:]]


def _replacement(update: object) -> list[BaseMessage]:
    """Return the messages after the remove-all marker, or raise CodecError for other shapes."""
    if not isinstance(update, Mapping) or set(update) != {"messages"}:
        keys = sorted(update) if isinstance(update, Mapping) else type(update).__name__
        raise CodecError(_unknown(f"an update with keys {keys}"))
    messages = update["messages"]
    if not isinstance(messages, list) or not messages:
        raise CodecError(_unknown(f"'messages' holding a {type(messages).__name__}"))
    first, rest = messages[0], messages[1:]
    if not (isinstance(first, RemoveMessage) and first.id == REMOVE_ALL_MESSAGES):
        raise CodecError(_unknown("an update that does not start with the remove-all marker"))
    for index, message in enumerate(rest, start=1):
        if not isinstance(message, BaseMessage) or isinstance(message, RemoveMessage):
            raise CodecError(_unknown(f"item {index} of type {type(message).__name__}"))
    if not rest:
        raise CodecError(_unknown("a remove-all marker with no summary message after it"))
    return list(rest)


def _unknown(what: str) -> str:
    return (
        f"the summarization middleware returned {what}; this adapter reads only the "
        f"full-replacement update {_EXPECTED} that langchain 1.x SummarizationMiddleware "
        "emits. Pin a langchain version whose middleware emits it, or report the new shape"
    )


def _source(message: object) -> object:
    extra = getattr(message, "additional_kwargs", None)
    return extra.get(_SOURCE) if isinstance(extra, Mapping) else None


class LangChainCodec(ContextCodec):
    """Reads and writes lists of LangChain messages; every other context goes to `fallback`.

    The block is written as its own `HumanMessage`, after the leading system and summary
    messages and never in front of a `ToolMessage`, so no tool-call pair is split. Blocks
    already standing alone in non-tool messages are removed first.
    """

    def __init__(self, fallback: ContextCodec | None = None) -> None:
        self.fallback: ContextCodec = fallback if fallback is not None else AutoCodec()
        self._messages = AutoCodec()

    def render(self, context: object) -> Rendering:
        """Return the context's text (LangChain messages read as `.content` objects)."""
        return self._pick(context).render(context)

    def inject(self, context: object, block: str, *, keep: Collection[int] = ()) -> object:
        """Return a new message list holding exactly one block message; never mutate input.

        Messages listed in `keep` (kept verbatim by the compactor) lose only text that is
        nothing but blocks, never a block quoted at their edge.
        """
        if not _is_messages(context):
            return self.fallback.inject(context, block, keep=keep)
        messages: Sequence[BaseMessage] = context  # type: ignore[assignment] # checked above
        out = [
            cleaned
            for index, message in enumerate(messages)
            if (cleaned := _without_block(message, kept=index in keep)) is not None
        ]
        marker = HumanMessage(
            content=block, id=str(uuid.uuid4()), additional_kwargs={_SOURCE: _BLOCK_SOURCE},
        )
        out.insert(_block_position(out), marker)
        return tuple(out) if isinstance(context, tuple) else out

    def marked_segments(self, context: object) -> list[Segment]:
        """Return the segments whose text holds the block marker."""
        return self._pick(context).marked_segments(context)

    def _pick(self, context: object) -> ContextCodec:
        return self._messages if _is_messages(context) else self.fallback


def _is_messages(context: object) -> bool:
    return (
        isinstance(context, list | tuple)
        and bool(context)
        and all(isinstance(message, BaseMessage) for message in context)
    )


def _without_block(message: BaseMessage, *, kept: bool) -> BaseMessage | None:
    """Return `message` without the guard's blocks, None when nothing else was in it."""
    if isinstance(message, ToolMessage):
        return message
    content = message.content
    cleaned = without_guard_blocks(content, kept=kept)
    if cleaned is content:
        return message
    if cleaned or (isinstance(message, AIMessage) and message.tool_calls):
        return message.model_copy(update={"content": cleaned or ""})
    return None


def _block_position(messages: Sequence[BaseMessage]) -> int:
    index = 0
    while index < len(messages) and (
        isinstance(messages[index], SystemMessage) or _source(messages[index]) == _SUMMARY_SOURCE
    ):
        index += 1
    # A ToolMessage must follow its call; step past any, never in front of one.
    while index < len(messages) and isinstance(messages[index], ToolMessage):
        index += 1
    return index
