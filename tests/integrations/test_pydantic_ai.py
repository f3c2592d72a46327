"""pydantic-ai 2.x: `history_processor` inside a real Agent, with its own FunctionModel/TestModel.

The function model records the messages of every request, so the assertions are about
what the model saw: one current block after a compaction, every tool call paired.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import TYPE_CHECKING, Any

import pytest

pytest.importorskip("pydantic_ai.capabilities")

from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    CompactionPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from compaction_guard.errors import CodecError
from compaction_guard.guard import Guard
from compaction_guard.integrations.pydantic_ai import (
    PairingError,
    PydanticAICodec,
    history_processor,
)
from compaction_guard.integrations.pydantic_ai import pairing_problems as problems_in
from tests.integrations import (
    CONSTRAINTS,
    assert_cap_reported_mutated,
    assert_one_current_block,
    blocks_in,
    recipe,
)

pytestmark = pytest.mark.extras

QUESTIONS = [f"How many orders in week {n}?" for n in range(1, 7)]
CODEC = PydanticAICodec()

if TYPE_CHECKING:
    from collections.abc import Iterator


@pytest.fixture(autouse=True)
def _close_run_sync_loop() -> Iterator[None]:
    """`run_sync` sets an event loop of its own and never closes it; close it after the test."""
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:  # none was set (async tests run their own)
            return
    loop.close()
    asyncio.set_event_loop(None)


class Recorder:
    """A FunctionModel body: a tool call per question, then an answer from its return."""

    def __init__(self) -> None:
        self.seen: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages))
        if any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
            return ModelResponse(parts=[TextPart("1204 orders.")])
        return ModelResponse(parts=[ToolCallPart(
            "count_orders", {"week": "1"}, tool_call_id=f"call_{len(self.seen)}")])


def _texts(messages: list[ModelMessage]) -> list[str]:
    return [s.text for s in CODEC.render(messages).segments]


def summarise(messages: list[ModelMessage]) -> list[ModelMessage]:
    """Keep the newest user turn and what follows; the summary turns $500 into $5000."""
    start = max(i for i, m in enumerate(messages) if isinstance(m, ModelRequest)
                and any(isinstance(p, UserPromptPart) for p in m.parts))
    summary = "Summary: weekly orders. The budget cap for this run is $5000."
    return [ModelRequest(parts=[CompactionPart(content=summary)]), *messages[start:]]


def _agent(guard: Guard, recorder: Recorder, compactor: Any = summarise) -> Agent[None, str]:
    agent = Agent(FunctionModel(recorder), capabilities=[ProcessHistory(
        history_processor(guard, compactor, trigger_tokens=250))])

    @agent.tool_plain
    def count_orders(week: str) -> str:
        """Count the orders of one week."""
        return f"1204 orders in week {week}. " + "Per-day breakdown. " * 10

    return agent


def _assert_sound(recorder: Recorder, guard: Guard) -> None:
    first = next((i for i, seen in enumerate(recorder.seen) if blocks_in(_texts(seen))), None)
    assert first is not None, "no request saw a block; nothing compacted"
    assert len(recorder.seen) - first >= 4
    for seen in recorder.seen[first:]:
        assert_one_current_block(_texts(seen), guard)
        assert problems_in(seen) == []
    assert_cap_reported_mutated(guard)


def test_multi_turn_with_tools_sync() -> None:
    guard, recorder = Guard(CONSTRAINTS), Recorder()
    agent = _agent(guard, recorder)
    history = None
    for question in QUESTIONS:
        result = agent.run_sync(question, message_history=history)
        history = result.all_messages()
    _assert_sound(recorder, guard)
    guard.assert_present(history, codec=CODEC)  # the block is in the history the user keeps


def test_multi_turn_with_tools_async_and_an_async_compactor() -> None:
    guard, recorder = Guard(CONSTRAINTS), Recorder()

    async def compactor(messages: list[ModelMessage]) -> list[ModelMessage]:
        await asyncio.sleep(0)
        return summarise(messages)

    agent = _agent(guard, recorder, compactor)

    async def run() -> None:
        history = None
        for question in QUESTIONS:
            result = await agent.run(question, message_history=history)
            history = result.all_messages()

    asyncio.run(run())
    _assert_sound(recorder, guard)


def test_run_context_form_of_the_compactor() -> None:
    guard, recorder = Guard(CONSTRAINTS), Recorder()
    contexts: list[Any] = []

    def compactor(ctx: RunContext[None], messages: list[ModelMessage]) -> list[ModelMessage]:
        contexts.append(ctx)
        return summarise(messages)

    agent = _agent(guard, recorder, compactor)
    history = None
    for question in QUESTIONS:
        history = agent.run_sync(question, message_history=history).all_messages()
    assert contexts
    assert all(isinstance(ctx, RunContext) for ctx in contexts)
    _assert_sound(recorder, guard)


def test_with_test_model_and_tools() -> None:
    guard = Guard(CONSTRAINTS)
    agent = Agent(TestModel(), capabilities=[ProcessHistory(
        history_processor(guard, summarise, trigger_tokens=60))])

    @agent.tool_plain
    def count_orders(week: str) -> str:
        """Count the orders of one week."""
        return "1204 orders " * 10

    history: Any = None
    for question in QUESTIONS[:4]:
        history = agent.run_sync(question, message_history=history).all_messages()
    assert guard.last_report is not None
    assert_one_current_block(_texts(history), guard)
    assert problems_in(history) == []


def test_a_compactor_that_orphans_a_tool_return_is_refused() -> None:
    guard, recorder = Guard(CONSTRAINTS), Recorder()

    def tail(messages: list[ModelMessage]) -> list[ModelMessage]:
        return messages[-1:]  # the newest request: a tool return whose call is dropped

    agent = _agent(guard, recorder, tail)

    def run() -> None:
        history = None
        for question in QUESTIONS:
            history = agent.run_sync(question, message_history=history).all_messages()

    with pytest.raises(PairingError, match="answers no call") as caught:
        run()
    assert caught.value.report is guard.last_report
    for seen in recorder.seen:
        assert problems_in(seen) == []


def test_readme_recipe_runs(capsys: pytest.CaptureFixture[str]) -> None:
    recorder = Recorder()
    namespace: dict[str, Any] = {"model": FunctionModel(recorder), "questions": QUESTIONS}
    exec(compile(recipe("pydantic_ai"), "recipe", "exec"), namespace)
    guard: Guard = namespace["guard"]
    first = next(i for i, seen in enumerate(recorder.seen) if blocks_in(_texts(seen)))
    for seen in recorder.seen[first:]:
        assert_one_current_block(_texts(seen), guard)
        assert problems_in(seen) == []
    assert "mode: owned | repaired: True" in capsys.readouterr().out


# --- the codec -------------------------------------------------------------------------------


def test_codec_reads_every_part_it_knows() -> None:
    with pytest.warns(Warning, match="deprecated"):  # still in histories saved by 1.x
        retry = RetryPromptPart("try again")
    messages: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart("Be brief."), UserPromptPart("count orders")]),
        ModelResponse(parts=[ThinkingPart("hmm"), TextPart("Counting."),
                             ToolCallPart("count", {"q": 1}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("count", "1204", tool_call_id="c1"),
                            retry]),
        ModelResponse(parts=[CompactionPart(content="summary text")]),
    ]
    rendering = CODEC.render(messages)
    assert rendering.shape == "pydantic-ai"
    assert [(s.text, s.tool) for s in rendering.segments] == [
        ("Be brief.", False), ("count orders", False), ("Counting.", False),
        ('{"q": 1}', True), ("1204", True), ("try again", True), ("summary text", False),
    ]
    assert rendering.notes == ("1 thinking part not rendered",)


def test_codec_refuses_an_unknown_part_by_name() -> None:
    class HologramPart:
        part_kind = "hologram"

    with pytest.raises(CodecError, match="HologramPart with part_kind 'hologram'"):
        CODEC.render([ModelRequest(parts=[HologramPart()])])  # type: ignore[list-item]
    with pytest.raises(CodecError, match="ModelRequest/ModelResponse"):
        CODEC.render([{"role": "user", "content": "hi"}])


def test_inject_keeps_one_block_after_the_tool_returns() -> None:
    guard = Guard(CONSTRAINTS)
    block = guard.reassertion_block()
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("count"), UserPromptPart(block)]),
        ModelResponse(parts=[ToolCallPart("count", {}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("count", "1204", tool_call_id="c1")]),
    ]
    out: Any = CODEC.inject(messages, block)
    assert_one_current_block(_texts(out), guard)
    assert isinstance(out[-1].parts[0], ToolReturnPart)
    assert isinstance(out[-1].parts[-1], UserPromptPart)
    assert len(messages[0].parts) == 2  # input untouched


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        history_processor(Guard(CONSTRAINTS), summarise, trigger_tokens=0)
    with pytest.raises(TypeError, match="callable"):
        history_processor(Guard(CONSTRAINTS), None, trigger_tokens=10)  # type: ignore[arg-type]
