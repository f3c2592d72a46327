"""OpenAI Agents SDK: a `Session` that keeps the guard's block in the history it stores.

With a compactor the guard runs it (mode `owned`); around the SDK's own
`OpenAIResponsesCompactionSession` it can only re-assert (mode `unobserved`). Needs the
`[openai-agents]` extra. Modes and limits: docs/integrations.md.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compaction_guard import group_trim
from compaction_guard._extras import require, require_version
from compaction_guard._wire.formats import detect_format
from compaction_guard._wire.pairing import CALL_WITHOUT_RESULT, read_groups
from compaction_guard.errors import BlockIntegrityError, CodecError
from compaction_guard.group_trim import estimate_tokens
from compaction_guard.integrations._pairing import PairingError

require("agents", extra="openai-agents", feature="compaction_guard.integrations.openai_agents")
# The lowest release the tests pass on; pyproject's [openai-agents] extra states the same bound.
MINIMUM_VERSION = "0.20"
require_version(
    "openai-agents", MINIMUM_VERSION, extra="openai-agents",
    feature="compaction_guard.integrations.openai_agents",
)

# Imported only after the extra check, so a missing SDK fails with the install command.
from agents.memory import is_openai_responses_compaction_aware_session  # noqa: E402
from agents.memory.session_settings import resolve_session_limit  # noqa: E402

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from agents.items import TResponseInputItem
    from agents.memory import Session, SessionSettings
    from agents.memory.session import OpenAIResponsesCompactionArgs
    from agents.run_config import CallModelData, ModelInputData
    from agents.run_context import RunContextWrapper

    from compaction_guard.guard import Guard

    Compactor = Callable[
        [list[TResponseInputItem]],
        list[TResponseInputItem] | Awaitable[list[TResponseInputItem]],
    ]

__all__ = ["GuardedSession", "PairingError", "call_model_input_filter"]

# responses.compact keeps user messages and replaces the rest with one opaque item.
_UNOBSERVED_NOTE = (
    "server-side compaction (responses.compact) replaced the history with an opaque "
    "compaction item; its summary cannot be read, so no constraint could be checked"
)
# The SDK's own "every item" read; a limit of None would apply session_settings.limit.
_ALL_ITEMS = 2_147_483_647


def __dir__() -> list[str]:
    return list(__all__)


class GuardedSession:
    """An Agents SDK `Session` around `inner` that keeps `guard`'s block in the history.

    With `compactor` (sync or async, items in, items out): once the stored history passes
    `trigger_tokens` (group_trim's chars/4 estimate) it runs through `Guard.compact`
    (mode `owned`) and the history is replaced by the result, which holds exactly one
    verified block; full fetches then run `assert_present`. Without a compactor, around
    an `OpenAIResponsesCompactionSession`: each server-side compaction is reported with
    mode `unobserved` and, when the block no longer verifies, a fresh one is appended as a
    user input item. Mutations are serialised; a compaction that fails leaves `inner` as
    it was.

    ```python
    session = GuardedSession(SQLiteSession("chat", "chat.db"), guard,
                             compactor=summarise, trigger_tokens=8000)
    await Runner.run(agent, "next question", session=session)
    ```
    """

    def __init__(
        self,
        inner: Session,
        guard: Guard,
        compactor: Compactor | None = None,
        trigger_tokens: int = 8000,
    ) -> None:
        if isinstance(trigger_tokens, bool) or not isinstance(trigger_tokens, int):
            raise TypeError(f"trigger_tokens must be an int, got {type(trigger_tokens).__name__}")
        if trigger_tokens <= 0:
            raise ValueError(f"trigger_tokens must be positive, got {trigger_tokens}")
        self.inner = inner
        self.guard = guard
        self.compactor = compactor
        self.trigger_tokens = trigger_tokens
        self.session_id: str = inner.session_id
        self._lock = asyncio.Lock()
        # True once this session placed a block it must keep verifying (reset by clear).
        self._owes_block = False

    @property
    def session_settings(self) -> SessionSettings | None:
        """The inner session's settings (its default `limit` applies to `get_items`)."""
        return self.inner.session_settings

    @session_settings.setter
    def session_settings(self, value: SessionSettings | None) -> None:
        self.inner.session_settings = value

    async def get_items(
        self, limit: int | None = None, *, wrapper: RunContextWrapper[Any] | None = None,
    ) -> list[TResponseInputItem]:
        """Return the stored items; once this session placed a block, it is always in them.

        A full fetch returns the history as stored. A limited fetch (`limit`, or
        `session_settings.limit`, which the Runner applies) whose window would miss the
        block returns the block followed by the newest `limit - 1` items, never more than
        `limit`; a window never starts inside a call/output pair (the answered half
        would be orphaned), so it may hold fewer. In mode `owned` every fetch runs
        `assert_present`: BlockIntegrityError when the block is missing or edited.
        """
        items: list[TResponseInputItem]
        async with self._lock:
            resolved = resolve_session_limit(limit, self.session_settings)
            if resolved is None or not self._owes_block:
                items = await _call(self.inner.get_items, limit, wrapper=wrapper)
            else:
                items = _window(await self.inner.get_items(_ALL_ITEMS), resolved, self.guard)
        if self._owes_block and self.compactor is not None:
            self.guard.assert_present(items)
        return items

    async def add_items(
        self,
        items: list[TResponseInputItem],
        *,
        wrapper: RunContextWrapper[Any] | None = None,
    ) -> None:
        """Store `items`; called directly (not by the Runner), compact if due.

        The Runner passes its run context (`wrapper`) and keeps the run's model input in
        memory, so a compaction here would be invisible to the rest of that run: writes
        from the Runner never compact, its `run_compaction` call after a settled turn
        does. A direct call compacts when the history passes the trigger and no tool call
        in it waits for its output. Raises TypeError, before storing anything, when an
        item is not a mapping. An error from the compactor or the guard propagates with
        `items` stored and the rest of the history as it was.
        """
        _check_items(items, "add_items")
        async with self._lock:
            await _call(self.inner.add_items, items, wrapper=wrapper)
            if self.compactor is not None and wrapper is None:
                await self._compact_locked(force=False, only_if_settled=True)

    async def pop_item(
        self, *, wrapper: RunContextWrapper[Any] | None = None,
    ) -> TResponseInputItem | None:
        """Remove and return the newest item (None when the session is empty)."""
        async with self._lock:
            item: TResponseInputItem | None = await _call(self.inner.pop_item, wrapper=wrapper)
            return item

    async def clear_session(self, *, wrapper: RunContextWrapper[Any] | None = None) -> None:
        """Remove every item; an empty session owes no block."""
        async with self._lock:
            await _call(self.inner.clear_session, wrapper=wrapper)
            self._owes_block = False

    async def run_compaction(
        self,
        args: OpenAIResponsesCompactionArgs | None = None,
        *,
        wrapper: RunContextWrapper[Any] | None = None,
    ) -> None:
        """Compact now if due (`force` compacts anyway); the Runner calls this after a turn.

        With a compactor this is an owned compaction. Otherwise it delegates to `inner`'s
        `run_compaction` when it has one and re-asserts the block if the history changed.
        """
        force = bool(args.get("force", False)) if args else False
        async with self._lock:
            if self.compactor is not None:
                await self._compact_locked(force=force)
            elif is_openai_responses_compaction_aware_session(self.inner):
                await self._observe_server_compaction(args, wrapper)

    async def _compact_locked(self, *, force: bool, only_if_settled: bool = False) -> None:
        compactor = self.compactor
        if compactor is None:
            return
        items = await self.inner.get_items(_ALL_ITEMS)
        if not items or not (force or _estimate(items) > self.trigger_tokens):
            return
        if only_if_settled and _pending_call(items):
            return
        # Snapshot first: the compactor may mutate its input, and the guard diffs against it.
        before = copy.deepcopy(items)
        result = compactor(items)
        if inspect.isawaitable(result):
            result = await result
        if not result:
            raise CodecError(
                "the compactor returned no items; return the compacted history (a summary "
                "item and the items to keep). The session was left as it was",
            )
        replay = functools.wraps(compactor)(lambda _context: result)
        output = self.guard.compact(before, replay, method="openai_agents.GuardedSession")
        _check_items(output, "the compacted history")
        problems = _pairing(output)
        if problems:
            raise PairingError("the compacted history", problems, report=self.guard.last_report)
        await self._replace(before, list(output))
        self._owes_block = True

    async def _replace(
        self, previous: list[TResponseInputItem], new: list[TResponseInputItem],
    ) -> None:
        try:
            await self.inner.clear_session()
            await self.inner.add_items(new)
        except BaseException:
            # Put the history back as it was before surfacing the failure.
            await self.inner.clear_session()
            await self.inner.add_items(previous)
            raise

    async def _observe_server_compaction(
        self,
        args: OpenAIResponsesCompactionArgs | None,
        wrapper: RunContextWrapper[Any] | None,
    ) -> None:
        before = await self.inner.get_items(_ALL_ITEMS)
        run_compaction: Any = getattr(self.inner, "run_compaction")  # noqa: B009 - checked above
        if wrapper is not None and _accepts_wrapper(run_compaction):
            await run_compaction(args, wrapper=wrapper)
        else:
            await run_compaction(args)
        after = await self.inner.get_items(_ALL_ITEMS)
        if after == before:
            return
        self.guard.report_unobserved(_UNOBSERVED_NOTE)
        if self._block_verifies(after):
            return
        block = self.guard.reassertion_block()
        if block:
            await self.inner.add_items([_user_item(block)])
            self._owes_block = True

    def _block_verifies(self, items: list[TResponseInputItem]) -> bool:
        if not self._owes_block:
            return False
        try:
            self.guard.assert_present(items)
        except BlockIntegrityError:
            return False
        return True


def call_model_input_filter(
    guard: Guard,
) -> Callable[[CallModelData[Any]], ModelInputData]:
    """Return a `RunConfig(call_model_input_filter=...)` that checks every model call's input.

    Runs `guard.assert_present` on the input the Runner is about to send, after the
    session's history and any handoff filtering, and passes it on unchanged. Raises
    BlockIntegrityError, failing the run before the model is called, when the guard has
    issued a block (or the input carries guard-format text, say from a process that ran
    before) and the input lacks the current block, carries it edited or stale, or holds a
    rival. Before the first compaction an input without any block is let through.

    ```python
    run_config = RunConfig(call_model_input_filter=call_model_input_filter(guard))
    ```
    """

    def guarded(data: CallModelData[Any]) -> ModelInputData:
        items = data.model_data.input
        if guard.issued or guard.codec.marked_segments(items):
            guard.assert_present(items)
        return data.model_data

    return guarded


def _pairing(items: list[TResponseInputItem]) -> list[str]:
    try:
        return [problem.message for problem in group_trim.validate(items)]
    except (TypeError, ValueError) as exc:
        return [f"it cannot be read as Responses input items ({exc})"]


def _pending_call(items: list[TResponseInputItem]) -> bool:
    """Whether a call in `items` still waits for its output (or the items are unreadable)."""
    try:
        problems = group_trim.validate(items)
    except (TypeError, ValueError):
        return True
    return any(problem.kind == CALL_WITHOUT_RESULT for problem in problems)


def _window(items: list[TResponseInputItem], limit: int, guard: Guard) -> list[TResponseInputItem]:
    """Return the newest `limit` items, holding the newest block, from a group boundary."""
    placed = [s.message for s in guard.codec.marked_segments(items) if not s.tool]
    if not placed:
        raise BlockIntegrityError(
            "the guard block this session placed is gone from the stored history (was it "
            "edited through the inner session?); re-pin: run_compaction({'force': True})",
        )
    block_at = placed[-1]
    if limit <= 0:
        return []
    start = len(items) - limit
    if block_at >= start:
        return items[_group_start(items, max(start, 0)) :]
    start = len(items) - (limit - 1)
    tail = items[_group_start(items, start) :] if limit > 1 else []
    return [items[block_at], *tail]


def _group_start(items: list[TResponseInputItem], start: int) -> int:
    """Return the first index at or after `start` where a call group begins."""
    try:
        starts = read_groups(items, detect_format(items)).starts
    except (TypeError, ValueError):
        return start
    return next((index for index in starts if index >= start), len(items))


async def _call(method: Any, *args: Any, wrapper: RunContextWrapper[Any] | None) -> Any:
    """Call an inner session method, passing the Runner's context on when it takes one."""
    if wrapper is not None and _accepts_wrapper(method):
        return await method(*args, wrapper=wrapper)
    return await method(*args)


def _accepts_wrapper(method: Any) -> bool:
    # The SDK passes its run context only to methods that declare `wrapper`; so do we.
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return "wrapper" in parameters


def _user_item(text: str) -> TResponseInputItem:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _estimate(items: list[TResponseInputItem]) -> int:
    return sum(estimate_tokens(item) for item in items)


def _check_items(items: object, where: str) -> None:
    if not isinstance(items, list | tuple):
        raise TypeError(f"{where} takes a list of input items, got {type(items).__name__}")
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise TypeError(
                f"{where}: item {index} is a {type(item).__name__}, not a mapping; session "
                "items are Responses input items (dicts), e.g. from ModelResponse.to_input_items()",
            )
