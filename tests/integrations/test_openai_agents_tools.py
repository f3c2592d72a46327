"""OpenAI Agents SDK with tools: the real Runner, function tools, SQLiteSession, a fake model.

The model records the input of every call, so the assertions are about what the model
would have been sent: exactly one current block after a compaction, and no tool output
without its call.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest

pytest.importorskip("agents")

from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.memory import SessionSettings
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from compaction_guard import group_trim
from compaction_guard.errors import BlockIntegrityError
from compaction_guard.guard import Guard
from compaction_guard.integrations.openai_agents import (
    GuardedSession,
    PairingError,
    call_model_input_filter,
)
from compaction_guard.taxonomy import Mode
from tests.integrations import CONSTRAINTS, assert_one_current_block, blocks_in, recipe

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

pytestmark = pytest.mark.extras

NO_TRACING = RunConfig(tracing_disabled=True)
QUESTIONS = [f"How many orders in week {n}?" for n in range(1, 7)]


@pytest.fixture(autouse=True)
def _no_trace_export() -> Iterator[None]:
    set_tracing_disabled(disabled=True)
    yield
    set_tracing_disabled(disabled=False)


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[SQLiteSession]:
    session = SQLiteSession("tools-1", tmp_path / "history.db")
    yield session
    session.close()


class ToolModel(Model):
    """Calls count_orders for each new question, then answers with the tool's output."""

    def __init__(self) -> None:
        self.inputs: list[list[Any]] = []

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        model_input = kwargs["input"]
        self.inputs.append(list(model_input))
        n = len(self.inputs)
        last = model_input[-1]
        output: list[Any]
        if last.get("type") == "function_call_output":
            text = ResponseOutputText(type="output_text", annotations=[], text=f"Done {n}.")
            output = [ResponseOutputMessage(id=f"msg_{n}", type="message", role="assistant",
                                            status="completed", content=[text])]
        else:
            output = [ResponseFunctionToolCall(
                type="function_call", id=f"fc_{n}", call_id=f"call_{n}", name="count_orders",
                arguments='{"week": "1"}', status="completed")]
        return ModelResponse(output=output, usage=Usage(), response_id=f"resp_{n}")

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


@function_tool
def count_orders(week: str) -> str:
    """Count the orders of one week."""
    return f"1204 orders in week {week}. " + "Per-day breakdown. " * 20


def _texts(items: list[Any]) -> list[str]:
    texts = []
    for item in items:
        content = item.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(part.get("text", "") for part in content if isinstance(part, dict))
    return texts


def assert_every_call_after_compaction_is_sound(model: ToolModel, guard: Guard) -> None:
    first = next((i for i, seen in enumerate(model.inputs) if blocks_in(_texts(seen))), None)
    assert first is not None, "no model call saw a block; no compaction ran"
    assert len(model.inputs) - first >= 4
    for seen in model.inputs[first:]:
        assert_one_current_block(_texts(seen), guard)
        assert group_trim.validate(seen) == [], "a tool result without its call"


def _agent(model: ToolModel) -> Agent[Any]:
    return Agent(name="analyst", instructions="Answer briefly.", tools=[count_orders],
                 model=model)



def test_readme_recipe_runs_with_tools_and_every_call_sees_one_block(tmp_path: Path) -> None:
    model = ToolModel()
    namespace: dict[str, Any] = {"model": model, "questions": QUESTIONS}
    exec(compile(recipe("openai_agents"), "recipe", "exec"), namespace)
    guard, session = asyncio.run(namespace["main"](tmp_path / "chat.db"))
    session.inner.close()
    assert guard.last_report is not None
    assert guard.last_report.mode is Mode.OWNED
    assert_every_call_after_compaction_is_sound(model, guard)


def test_the_old_readme_compactor_is_refused_for_orphaning_tool_outputs(
    sqlite: SQLiteSession,
) -> None:
    """Regression: `[summary, *items[-2:]]` sent orphaned function_call_output items."""
    guard = Guard(CONSTRAINTS)

    def summarise(items: list[Any]) -> list[Any]:
        return [{"role": "user", "content": "Summary: weekly orders."}, *items[-2:]]

    # Before the fix this history reached the trigger as the turn's final message was
    # stored; the cut kept [function_call_output, message], and 4 of 12 model calls got
    # the orphaned output.
    session = GuardedSession(sqlite, guard, compactor=summarise, trigger_tokens=470)
    model = ToolModel()

    async def run() -> None:
        for question in QUESTIONS:
            await Runner.run(_agent(model), question, session=session, run_config=NO_TRACING)

    with pytest.raises(PairingError, match="function_call_output") as caught:
        asyncio.run(run())
    assert caught.value.report is guard.last_report
    assert caught.value.report is not None
    for seen in model.inputs:
        assert group_trim.validate(seen) == []


def test_a_refused_compaction_leaves_the_history_as_it_was(sqlite: SQLiteSession) -> None:
    guard = Guard(CONSTRAINTS)
    session = GuardedSession(sqlite, guard, compactor=lambda items: items[-2:],
                             trigger_tokens=1)
    items: list[Any] = [
        {"role": "user", "content": "count"},
        {"type": "function_call", "call_id": "c1", "name": "count_orders", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "1204"},
        {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "1204.", "annotations": []}]},
    ]

    async def run() -> list[Any]:
        await sqlite.add_items(items)
        with pytest.raises(PairingError):
            await session.run_compaction({"force": True})
        return await session.get_items()

    assert asyncio.run(run()) == items


def test_a_limited_fetch_always_includes_the_block(tmp_path: Path) -> None:
    """Regression: with SessionSettings(limit=4), calls after a compaction saw no block."""
    inner = SQLiteSession("limited", tmp_path / "h.db",
                          session_settings=SessionSettings(limit=4))
    guard = Guard(CONSTRAINTS)
    session = GuardedSession(inner, guard, compactor=group_trim.trimmer(600, keep_tail=4),
                             trigger_tokens=700)
    model = ToolModel()

    async def run() -> None:
        for question in QUESTIONS:
            await Runner.run(_agent(model), question, session=session, run_config=NO_TRACING)

    asyncio.run(run())
    inner.close()
    assert_every_call_after_compaction_is_sound(model, guard)
    assert all(len(seen) <= 4 + 3 for seen in model.inputs)  # the window plus this run's items


def test_limited_get_items_holds_the_block_and_never_splits_a_pair(
    sqlite: SQLiteSession,
) -> None:
    guard = Guard(CONSTRAINTS)
    session = GuardedSession(sqlite, guard, compactor=lambda items: items, trigger_tokens=1)
    history: list[Any] = [{"role": "user", "content": "count"}]
    for n in range(3):
        history += [
            {"type": "function_call", "call_id": f"c{n}", "name": "count_orders",
             "arguments": "{}"},
            {"type": "function_call_output", "call_id": f"c{n}", "output": f"{n}"},
        ]

    async def run() -> None:
        await sqlite.add_items(history[:1])
        await session.run_compaction({"force": True})  # places the block after item 0
        await sqlite.add_items(history[1:])
        everything = await session.get_items()
        assert len(everything) == 8
        for limit in range(1, 9):
            window = await session.get_items(limit=limit)
            assert len(window) <= limit
            guard.assert_present(window)
            assert group_trim.validate(window) == []
        assert (await session.get_items(limit=3))[1:] == everything[-2:]

    asyncio.run(run())


def test_call_model_input_filter_refuses_input_without_the_block(
    sqlite: SQLiteSession,
) -> None:
    guard = Guard(CONSTRAINTS)
    guard.reassertion_block()  # the guard has issued a block: from now on it is owed
    model = ToolModel()
    config = RunConfig(tracing_disabled=True,
                       call_model_input_filter=call_model_input_filter(guard))
    with pytest.raises(BlockIntegrityError, match="missing"):
        asyncio.run(Runner.run(_agent(model), "count", session=sqlite, run_config=config))
    assert model.inputs == []  # refused before the model was called


def test_call_model_input_filter_passes_input_with_the_block(sqlite: SQLiteSession) -> None:
    guard = Guard(CONSTRAINTS)
    model = ToolModel()
    config = RunConfig(tracing_disabled=True,
                       call_model_input_filter=call_model_input_filter(guard))
    result = asyncio.run(Runner.run(_agent(model), [
        {"role": "user", "content": guard.reassertion_block()},
        {"role": "user", "content": "count"},
    ], session=sqlite, run_config=config))
    assert result.final_output.startswith("Done")
    assert len(model.inputs) == 2


def test_a_direct_add_waits_while_a_call_has_no_output(sqlite: SQLiteSession) -> None:
    calls: list[int] = []

    def compactor(items: list[Any]) -> list[Any]:
        calls.append(len(items))
        return items

    session = GuardedSession(sqlite, Guard(CONSTRAINTS), compactor=compactor,
                             trigger_tokens=1)
    call: Any = {"type": "function_call", "call_id": "c1", "name": "count_orders",
                 "arguments": "{}"}

    async def run() -> None:
        await session.add_items([{"role": "user", "content": "count"}, call])
        assert calls == []
        await session.add_items([{"type": "function_call_output", "call_id": "c1",
                                  "output": "1"}])
        assert calls == [3]

    asyncio.run(run())


def test_runner_writes_never_compact_mid_run(sqlite: SQLiteSession) -> None:
    """Compaction inside a run would be invisible to the rest of it: only run_compaction."""
    guard = Guard(CONSTRAINTS)
    sizes: list[int] = []

    def compactor(items: list[Any]) -> list[Any]:
        sizes.append(len(items))
        return group_trim.trimmer(600, keep_tail=4)(items)

    session = GuardedSession(sqlite, guard, compactor=compactor, trigger_tokens=500)
    model = ToolModel()
    config = RunConfig(tracing_disabled=True,
                       call_model_input_filter=call_model_input_filter(guard))

    async def run() -> None:
        for question in QUESTIONS:
            await Runner.run(_agent(model), question, session=session, run_config=config)

    asyncio.run(run())
    assert sizes, "no compaction ran"
    assert_every_call_after_compaction_is_sound(model, guard)
