"""LangChain 1.x: the guarded SummarizationMiddleware inside a real `create_agent` graph."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, SummarizationMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from pydantic import Field

from compaction_guard.block import parse_blocks
from compaction_guard.codec import AutoCodec
from compaction_guard.errors import BlockIntegrityError, CodecError, InvariantViolation
from compaction_guard.guard import Guard
from compaction_guard.integrations.langchain import (
    GuardedSummarizationMiddleware,
    LangChainCodec,
    guard_middleware,
)
from compaction_guard.taxonomy import Mode, Policy
from tests.integrations import (
    CAP,
    CONSTRAINTS,
    READ_ONLY,
    assert_cap_reported_mutated,
    assert_one_current_block,
    blocks_in,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

THREAD = {"configurable": {"thread_id": "thread-1"}}


class RecordingModel(BaseChatModel):
    """A chat model that records every message list it receives.

    It calls the `lookup` tool when the newest message asks for a lookup, else answers.
    """

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "recording"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        turn = len(self.seen)
        last = messages[-1]
        if isinstance(last, HumanMessage) and "lookup" in str(last.content):
            call = {"name": "lookup", "args": {"query": f"q{turn}"}, "id": f"call-{turn}"}
            reply = AIMessage(content="", tool_calls=[call])
        else:
            reply = AIMessage(content=f"answer number {turn}")
        return ChatResult(generations=[ChatGeneration(message=reply)])


@tool
def lookup(query: str) -> str:
    """Look a value up."""
    return f"result for {query}: 42 rows"


class Summariser:
    """A summariser callable that records its calls; `fail=True` makes it raise."""

    def __init__(self, text: str = "The user asked questions. The budget cap for this run is $5000.",
                 *, fail: bool = False) -> None:
        self.text = text
        self.fail = fail
        self.calls: list[list[BaseMessage]] = []

    def __call__(self, messages: Sequence[BaseMessage]) -> str:
        self.calls.append(list(messages))
        if self.fail:
            raise RuntimeError("summariser is down")
        return self.text


class SpySummarization(SummarizationMiddleware):
    """The real middleware, recording which of its hooks the graph ran."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hooks: list[str] = []

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        self.hooks.append("before_model")
        return super().before_model(state, runtime)

    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        self.hooks.append("abefore_model")
        return await super().abefore_model(state, runtime)


def _agent(guard: Guard, summariser: Summariser, model: RecordingModel,
           *, checkpointer: Any = None, tools: list[Any] | None = None, keep: int = 3,
           spy: SpySummarization | None = None) -> Any:
    summarization = spy or SpySummarization(
        model=model, trigger=("messages", 6), keep=("messages", keep), summarizer=summariser,
    )
    return create_agent(
        model, tools=tools or [], middleware=[guard_middleware(summarization, guard)],
        checkpointer=checkpointer or InMemorySaver(),
    )


def _questions(count: int) -> list[str]:
    first = f"{CAP} {READ_ONLY} Let us start."
    return [first, *(f"question {n}: how many rows?" for n in range(1, count))]


def _is_summarised(messages: list[BaseMessage]) -> bool:
    return any(m.additional_kwargs.get("lc_source") == "summarization" for m in messages)


def _texts(messages: list[BaseMessage]) -> list[str]:
    return [m.content if isinstance(m.content, str) else str(m.content) for m in messages]


def _assert_guarded_run(guard: Guard, summariser: Summariser, model: RecordingModel,
                        reports: list[Any]) -> None:
    assert len(summariser.calls) >= 2, "summarisation should have fired at least twice"
    assert len(reports) == len(summariser.calls)
    assert all(r.mode is Mode.OWNED and r.repaired for r in reports)
    first = next(i for i, seen in enumerate(model.seen) if _is_summarised(seen))
    assert not any(blocks_in(_texts(seen)) for seen in model.seen[:first])
    for seen in model.seen[first:]:
        assert_one_current_block(_texts(seen), guard)


def test_guard_middleware_invoke_keeps_one_verified_block_in_every_later_model_call() -> None:
    reports: list[Any] = []
    guard = Guard(CONSTRAINTS, on_report=reports.append)
    summariser, model = Summariser(), RecordingModel()
    spy = SpySummarization(model=model, trigger=("messages", 6), keep=("messages", 3),
                           summarizer=summariser)
    agent = _agent(guard, summariser, model, spy=spy)
    for question in _questions(8):
        agent.invoke({"messages": [HumanMessage(question)]}, THREAD)
    _assert_guarded_run(guard, summariser, model, reports)
    assert guard.last_report is reports[-1]
    assert set(spy.hooks) == {"before_model"}


def test_guard_middleware_ainvoke_keeps_one_verified_block_in_every_later_model_call() -> None:
    reports: list[Any] = []
    guard = Guard(CONSTRAINTS, on_report=reports.append)
    summariser, model = Summariser(), RecordingModel()
    spy = SpySummarization(model=model, trigger=("messages", 6), keep=("messages", 3),
                           summarizer=summariser)
    agent = _agent(guard, summariser, model, spy=spy)

    async def run() -> None:
        for question in _questions(8):
            await agent.ainvoke({"messages": [HumanMessage(question)]}, THREAD)

    asyncio.run(run())
    _assert_guarded_run(guard, summariser, model, reports)
    assert set(spy.hooks) == {"abefore_model"}


def test_guard_middleware_report_classifies_the_summary() -> None:
    """The summariser turned $500 into $5000: never certified, and the block repairs it."""
    guard = Guard(CONSTRAINTS)
    agent = _agent(guard, Summariser(), RecordingModel())
    for question in _questions(4):
        agent.invoke({"messages": [HumanMessage(question)]}, THREAD)
    assert_cap_reported_mutated(guard, owned_repair=False)


def test_guard_middleware_block_never_splits_a_tool_call_pair() -> None:
    guard = Guard(CONSTRAINTS)
    model = RecordingModel()
    agent = _agent(guard, Summariser(), model, tools=[lookup])
    questions = [q.replace("how many rows?", "please lookup the rows") for q in _questions(8)]
    for question in questions:
        agent.invoke({"messages": [HumanMessage(question)]}, THREAD)
    summarised_with_calls = [
        seen for seen in model.seen
        if _is_summarised(seen) and any(isinstance(m, ToolMessage) for m in seen)
    ]
    assert summarised_with_calls, "no compaction kept a tool-call pair; the test proves nothing"
    for seen in model.seen:
        for index, message in enumerate(seen):
            if isinstance(message, AIMessage) and message.tool_calls:
                answer = seen[index + 1]
                assert isinstance(answer, ToolMessage)
                assert answer.tool_call_id == message.tool_calls[0]["id"]


def test_guard_middleware_summariser_error_leaves_state_untouched() -> None:
    saver = InMemorySaver()
    guard = Guard(CONSTRAINTS)
    summariser = Summariser(fail=True)
    agent = _agent(guard, summariser, RecordingModel(), checkpointer=saver)
    before: list[BaseMessage] = []
    question = HumanMessage("never sent")
    for text in _questions(10):
        before = list(agent.get_state(THREAD).values.get("messages", []))
        question = HumanMessage(text, id=f"q-{len(before)}")
        try:
            agent.invoke({"messages": [question]}, THREAD)
        except RuntimeError:
            break
    else:
        pytest.fail("the summariser was never called")
    after = agent.get_state(THREAD).values["messages"]
    assert [m.id for m in after] == [*(m.id for m in before), question.id]
    assert [m.content for m in after[:-1]] == [m.content for m in before]
    assert guard.last_report is None


def test_guard_middleware_raise_policy_refusal_leaves_state_untouched() -> None:
    guard = Guard(CONSTRAINTS, policy=Policy.RAISE)
    agent = _agent(guard, Summariser(), RecordingModel())
    before: list[BaseMessage] = []
    with pytest.raises(InvariantViolation):  # noqa: PT012 - the refusal comes mid-run
        for text in _questions(10):
            before = list(agent.get_state(THREAD).values.get("messages", []))
            agent.invoke({"messages": [HumanMessage(text)]}, THREAD)
    after = agent.get_state(THREAD).values["messages"]
    assert [m.id for m in after[:-1]] == [m.id for m in before]
    assert not _is_summarised(after)


def test_guard_middleware_model_call_raises_when_the_block_is_removed() -> None:
    guard = Guard(CONSTRAINTS)
    # keep=1 leaves room for one more turn before the next summary re-pins the block.
    agent = _agent(guard, Summariser(), RecordingModel(), keep=1)
    for question in _questions(4):
        agent.invoke({"messages": [HumanMessage(question)]}, THREAD)
    messages = agent.get_state(THREAD).values["messages"]
    (marker,) = [m for m in messages if parse_blocks(str(m.content))]
    agent.update_state(THREAD, {"messages": [RemoveMessage(id=marker.id)]})
    with pytest.raises(BlockIntegrityError, match="missing"):
        agent.invoke({"messages": [HumanMessage("one more")]}, THREAD)


def test_guard_middleware_async_model_call_raises_when_the_block_is_edited() -> None:
    guard = Guard(CONSTRAINTS)
    agent = _agent(guard, Summariser(), RecordingModel(), keep=1)

    async def run() -> None:
        for question in _questions(4):
            await agent.ainvoke({"messages": [HumanMessage(question)]}, THREAD)
        messages = agent.get_state(THREAD).values["messages"]
        (marker,) = [m for m in messages if parse_blocks(str(m.content))]
        edited = HumanMessage(str(marker.content).replace("$500", "$5000"), id=marker.id)
        await agent.aupdate_state(THREAD, {"messages": [edited]})
        await agent.ainvoke({"messages": [HumanMessage("one more")]}, THREAD)

    with pytest.raises(BlockIntegrityError, match="does not verify"):
        asyncio.run(run())


def test_guard_middleware_unsummarised_thread_owes_no_block() -> None:
    """One guard serves many threads: a thread that was never summarised is not held to it."""
    guard = Guard(CONSTRAINTS)
    agent = _agent(guard, Summariser(), RecordingModel())
    for question in _questions(4):
        agent.invoke({"messages": [HumanMessage(question)]}, THREAD)
    other = {"configurable": {"thread_id": "thread-2"}}
    result = agent.invoke({"messages": [HumanMessage("hello")]}, other)
    assert isinstance(result["messages"][-1], AIMessage)


class _ShapeMiddleware(AgentMiddleware):
    """Returns a fixed update from before_model, like a middleware version we do not know."""

    def __init__(self, update: dict[str, Any]) -> None:
        super().__init__()
        self.update = update

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self.update if len(state["messages"]) >= 3 else None


@pytest.mark.parametrize(
    "update",
    [
        {"messages": [HumanMessage("summary")]},
        {"messages": [RemoveMessage(id="m-1"), HumanMessage("summary")]},
        {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("s")], "count": 1},
        {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)]},
        {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), {"role": "user", "content": "s"}]},
        {"messages": "summary"},
    ],
    ids=["append", "targeted-remove", "extra-key", "no-summary", "dict-message", "not-a-list"],
)
def test_guard_middleware_unknown_update_shape_raises_codec_error(update: dict[str, Any]) -> None:
    middleware = guard_middleware(_ShapeMiddleware(update), Guard(CONSTRAINTS))
    state = {"messages": [HumanMessage("a"), AIMessage("b"), HumanMessage("c")]}
    with pytest.raises(CodecError, match="full-replacement update"):
        middleware.before_model(state, None)  # type: ignore[arg-type]


def test_guard_middleware_unknown_update_shape_fails_the_agent_run() -> None:
    model = RecordingModel()
    middleware = guard_middleware(
        _ShapeMiddleware({"messages": [HumanMessage("summary")]}), Guard(CONSTRAINTS),
    )
    agent: Any = create_agent(model, tools=[], middleware=[middleware], checkpointer=InMemorySaver())
    agent.invoke({"messages": [HumanMessage("one")]}, THREAD)
    with pytest.raises(CodecError):
        agent.invoke({"messages": [HumanMessage("two")]}, THREAD)


def test_guard_middleware_rejects_what_is_not_middleware() -> None:
    with pytest.raises(TypeError, match="AgentMiddleware"):
        guard_middleware(object(), Guard(CONSTRAINTS))  # type: ignore[arg-type]


def test_guard_middleware_is_named_after_the_inner_middleware() -> None:
    inner = SummarizationMiddleware(model=RecordingModel(), trigger=("messages", 6))
    middleware = guard_middleware(inner, Guard(CONSTRAINTS))
    assert isinstance(middleware, GuardedSummarizationMiddleware)
    # Frameworks merge middleware by name (create_deep_agent replaces its default by it).
    assert middleware.name == inner.name == "SummarizationMiddleware"


def test_guard_middleware_keeps_the_guard_working_on_other_shapes() -> None:
    guard = Guard(CONSTRAINTS)
    guard_middleware(SummarizationMiddleware(model=RecordingModel()), guard)
    chat = [{"role": "user", "content": f"{CAP} {READ_ONLY}"}, {"role": "assistant", "content": "ok"}]
    out = guard.compact(chat, lambda messages: [{"role": "user", "content": "summary"}])
    assert_one_current_block([m["content"] for m in out], guard)


def _block(guard: Guard) -> str:
    return guard.reassertion_block()


def test_langchain_codec_places_block_after_summary_and_before_a_tool_call() -> None:
    guard = Guard(CONSTRAINTS)
    summary = HumanMessage("summary", additional_kwargs={"lc_source": "summarization"})
    call = AIMessage("", tool_calls=[{"name": "lookup", "args": {}, "id": "c1"}])
    messages = [SystemMessage("sys"), summary, call, ToolMessage("42", tool_call_id="c1")]
    out = LangChainCodec().inject(messages, _block(guard))
    assert isinstance(out, list)
    assert out[:2] == messages[:2]
    assert parse_blocks(out[2].content)
    assert out[3:] == messages[2:]


def test_langchain_codec_never_places_block_in_front_of_a_tool_result() -> None:
    guard = Guard(CONSTRAINTS)
    messages = [ToolMessage("42", tool_call_id="c1"), HumanMessage("next")]
    out = LangChainCodec().inject(messages, _block(guard))
    assert isinstance(out, list)
    assert isinstance(out[0], ToolMessage)
    assert parse_blocks(out[1].content)


def test_langchain_codec_inject_replaces_the_old_block_without_mutating_input() -> None:
    guard = Guard(CONSTRAINTS)
    codec = LangChainCodec()
    once = codec.inject([HumanMessage("hi"), AIMessage("hello")], _block(guard))
    assert isinstance(once, list)
    snapshot = [m.model_copy(deep=True) for m in once]
    twice = codec.inject(once, _block(guard))
    assert isinstance(twice, list)
    assert once == snapshot
    assert len(twice) == len(once)
    assert_one_current_block(_texts(twice), guard)
    assert twice[0].id is not None
    assert twice[0].id != once[0].id


def test_langchain_codec_strips_block_parts_from_list_content() -> None:
    guard = Guard(CONSTRAINTS)
    old = HumanMessage([{"type": "text", "text": "keep me"},
                        {"type": "text", "text": _block(guard)}])
    out = LangChainCodec().inject([old], _block(guard))
    assert isinstance(out, list)
    assert out[1].content == [{"type": "text", "text": "keep me"}]
    assert_one_current_block(_texts(out), guard)


def test_langchain_codec_hands_other_shapes_to_its_fallback() -> None:
    guard = Guard(CONSTRAINTS)
    codec = LangChainCodec()
    chat = [{"role": "user", "content": "hi"}]
    assert codec.render(chat) == AutoCodec().render(chat)
    assert codec.inject(chat, _block(guard)) == AutoCodec().inject(chat, _block(guard))


def test_langchain_codec_strips_an_edge_block_unless_the_message_is_kept() -> None:
    guard = Guard(CONSTRAINTS)
    quoted = HumanMessage(f"my notes\n\n{_block(guard)}")
    stripped = LangChainCodec().inject([quoted], _block(guard))
    kept = LangChainCodec().inject([quoted], _block(guard), keep={0})
    assert isinstance(stripped, list)
    assert isinstance(kept, list)
    assert stripped[1].content == "my notes"
    assert kept[1] is quoted


# -- instruct_summariser: the guard's clause in SummarizationMiddleware's own prompt --


class SummaryModel(BaseChatModel):
    """The summarisation model: records each prompt it is sent and answers a summary."""

    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "summary-recording"

    def _generate(self, messages: list[BaseMessage], stop: Any = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.prompts.append(str(messages[-1].content))
        reply = AIMessage(content=f"The user asked questions. {CAP}")
        return ChatResult(generations=[ChatGeneration(message=reply)])


def _instructed_agent(guard: Guard, summary_model: SummaryModel, *, instruct: bool = True) -> Any:
    summarization = SummarizationMiddleware(
        model=summary_model, trigger=("messages", 6), keep=("messages", 3),
    )
    middleware = guard_middleware(summarization, guard, instruct_summariser=instruct)
    return create_agent(RecordingModel(), tools=[], middleware=[middleware],
                        checkpointer=InMemorySaver())


def test_instruct_summariser_puts_every_constraint_in_the_summary_prompt() -> None:
    guard, summary_model = Guard(CONSTRAINTS), SummaryModel()
    agent = _instructed_agent(guard, summary_model)
    for question in _questions(8):
        agent.invoke({"messages": [HumanMessage(question)]}, THREAD)
    assert summary_model.prompts, "summarisation should have fired"
    clause = guard.summary_instructions()
    for prompt in summary_model.prompts:
        assert clause in prompt
        assert prompt.index(clause) < prompt.index("<messages>")
        for text in CONSTRAINTS:
            assert text in prompt
        assert not blocks_in([prompt.split("<messages>")[0]])


def test_instruct_summariser_async_path_and_later_constraints() -> None:
    guard, summary_model = Guard(CONSTRAINTS), SummaryModel()
    agent = _instructed_agent(guard, summary_model)
    later = "Never email customers {directly}."

    async def run() -> None:
        for n, question in enumerate(_questions(12)):
            if n == 6:
                guard.add(later)
            await agent.ainvoke({"messages": [HumanMessage(question)]}, THREAD)

    asyncio.run(run())
    assert len(summary_model.prompts) >= 2
    assert later not in summary_model.prompts[0]
    assert later in summary_model.prompts[-1]


def test_instruct_summariser_is_off_by_default() -> None:
    guard, summary_model = Guard(CONSTRAINTS), SummaryModel()
    agent = _instructed_agent(guard, summary_model, instruct=False)
    for question in _questions(8):
        agent.invoke({"messages": [HumanMessage(question)]}, THREAD)
    assert summary_model.prompts
    assert all(guard.summary_instructions() not in prompt for prompt in summary_model.prompts)


def test_instruct_summariser_refuses_a_custom_summarizer() -> None:
    summarization = SummarizationMiddleware(
        model=SummaryModel(), trigger=("messages", 6), summarizer=Summariser(),
    )
    with pytest.raises(TypeError, match="summary_instructions"):
        guard_middleware(summarization, Guard(CONSTRAINTS), instruct_summariser=True)
