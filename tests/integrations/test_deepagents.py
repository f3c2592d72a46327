"""deepagents: `create_deep_agent` with its own summarisation wrapped by `guard_middleware`.

deepagents summarises in `wrap_model_call`: it records a `_summarization_event` and leaves
`state["messages"]` alone. The fake model records every request it gets, so the
assertions are about what the model saw.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("deepagents")

from deepagents import create_deep_agent
from deepagents.backends import StateBackend
from deepagents.middleware.summarization import SummarizationMiddleware as DeepSummarization
from langchain.agents.middleware import AgentMiddleware, SummarizationMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from compaction_guard import group_trim
from compaction_guard.guard import Guard
from compaction_guard.integrations.langchain import guard_middleware
from tests.integrations import (
    CAP,
    CONSTRAINTS,
    READ_ONLY,
    assert_cap_reported_mutated,
    assert_one_current_block,
    blocks_in,
    recipe,
)
from tests.integrations.test_langchain import RecordingModel, Summariser, lookup

pytestmark = pytest.mark.extras

THREAD = {"configurable": {"thread_id": "deep-1"}}


def _summarised(messages: list[BaseMessage]) -> bool:
    return any(m.additional_kwargs.get("lc_source") == "summarization" for m in messages)


def _texts(messages: list[BaseMessage]) -> list[str]:
    return [m.content if isinstance(m.content, str) else str(m.content) for m in messages]


def _questions(count: int) -> list[str]:
    return [f"{CAP} {READ_ONLY} Let us start.",
            *(f"question {n}: please lookup the rows" for n in range(1, count))]


def _deep_agent(guard: Guard, model: RecordingModel, summariser: Summariser) -> Any:
    summarization = DeepSummarization(
        model=model, backend=StateBackend(), trigger=("messages", 8), keep=("messages", 4),
        summarizer=summariser,
    )
    return create_deep_agent(
        model=model, tools=[lookup], middleware=[guard_middleware(summarization, guard)],
        checkpointer=InMemorySaver(),
    )


def _as_openai(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, ToolMessage):
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": "r"})
        elif isinstance(m, AIMessage) and m.tool_calls:
            out.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": c["id"], "type": "function",
                 "function": {"name": c["name"], "arguments": "{}"}} for c in m.tool_calls]})
        else:
            out.append({"role": "assistant" if isinstance(m, AIMessage) else "user",
                        "content": "x"})
    return out


def _assert_sound(model: RecordingModel, guard: Guard, summariser: Summariser) -> None:
    assert summariser.calls, "deepagents never summarised"
    after = [seen for seen in model.seen if _summarised(seen)]
    assert len(after) >= 3
    for seen in after:
        assert_one_current_block(_texts(seen), guard)
        assert group_trim.validate(_as_openai(seen)) == [], "a tool result without its call"
    assert_cap_reported_mutated(guard)  # the summary said $5000


def test_deep_agent_summarises_with_one_verified_block_and_reports() -> None:
    """Regression: wrapping deepagents' summarisation turned it off, silently."""
    guard = Guard(CONSTRAINTS)
    model, summariser = RecordingModel(), Summariser()
    agent = _deep_agent(guard, model, summariser)
    for question in _questions(8):
        agent.invoke({"messages": [HumanMessage(question)]}, THREAD)
    _assert_sound(model, guard, summariser)
    assert max(len(seen) for seen in model.seen[-3:]) < 14  # summarised, not growing


def test_deep_agent_async() -> None:
    guard = Guard(CONSTRAINTS)
    model, summariser = RecordingModel(), Summariser()
    agent = _deep_agent(guard, model, summariser)

    async def run() -> None:
        for question in _questions(8):
            await agent.ainvoke({"messages": [HumanMessage(question)]}, THREAD)

    asyncio.run(run())
    _assert_sound(model, guard, summariser)


def test_one_report_per_summary_not_per_call() -> None:
    reports: list[Any] = []
    guard = Guard(CONSTRAINTS, on_report=reports.append)
    model, summariser = RecordingModel(), Summariser()
    agent = _deep_agent(guard, model, summariser)
    for question in _questions(8):
        agent.invoke({"messages": [HumanMessage(question)]}, THREAD)
    assert len(reports) == len(summariser.calls)


def test_the_wrapper_replaces_the_default_summarisation_by_name() -> None:
    """create_deep_agent merges by .name: a differently named wrapper would run twice."""
    guard = Guard(CONSTRAINTS)
    model, summariser = RecordingModel(), Summariser()
    agent = _deep_agent(guard, model, summariser)
    names = [name for name in agent.get_graph().nodes if "Summarization" in name]
    assert names, "no summarisation node"
    assert not any("Guarded" in name for name in names)
    wrapped = guard_middleware(DeepSummarization(model=model, backend=StateBackend()), guard)
    assert wrapped.name == "SummarizationMiddleware"


class _AfterModel(AgentMiddleware):
    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return None


class _ToolWrapper(AgentMiddleware):
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)


@pytest.mark.parametrize(("middleware", "hook"), [(_AfterModel(), "after_model"),
                                                  (_ToolWrapper(), "wrap_tool_call")])
def test_guard_middleware_refuses_a_hook_it_cannot_see_through(
    middleware: AgentMiddleware, hook: str,
) -> None:
    with pytest.raises(TypeError, match=f"implements {hook}"):
        guard_middleware(middleware, Guard(CONSTRAINTS))


def test_both_summarisation_middlewares_are_accepted() -> None:
    guard = Guard(CONSTRAINTS)
    guard_middleware(SummarizationMiddleware(model=RecordingModel()), guard)
    guard_middleware(DeepSummarization(model=RecordingModel(), backend=StateBackend()), guard)


def test_a_thread_never_summarised_gets_no_block() -> None:
    guard = Guard(CONSTRAINTS)
    model, summariser = RecordingModel(), Summariser()
    agent = _deep_agent(guard, model, summariser)
    agent.invoke({"messages": [HumanMessage("hello")]}, THREAD)
    assert not summariser.calls
    assert not any(blocks_in(_texts(seen)) for seen in model.seen)


# --- the README recipes, as a user copies them ----------------------------------------------


class RecipeModel(BaseChatModel):
    """Calls count_orders for each question, answers from its result, writes summaries."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "recipe"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        last = messages[-1]
        if "summar" in str(last.content).lower():
            reply = AIMessage("Counting weekly orders. The budget cap for this run is $5000.")
        else:
            self.seen.append(list(messages))
            if isinstance(last, HumanMessage):
                reply = AIMessage("", tool_calls=[{"name": "count_orders",
                                                   "args": {"week": "1"},
                                                   "id": f"call_{len(self.seen)}"}])
            else:
                reply = AIMessage(f"Done {len(self.seen)}.")
        return ChatResult(generations=[ChatGeneration(message=reply)])



@pytest.mark.parametrize("name", ["langchain", "deepagents"])
def test_readme_recipe_runs_with_tools_and_one_block_per_call(
    name: str, capsys: pytest.CaptureFixture[str],
) -> None:
    model = RecipeModel()
    namespace: dict[str, Any] = {"model": model, "questions": [f"q{n}" for n in range(7)]}
    exec(compile(recipe(name), "recipe", "exec"), namespace)
    guard: Guard = namespace["guard"]
    after = [seen for seen in model.seen if _summarised(seen)]
    assert len(after) >= 3
    for seen in after:
        assert_one_current_block(_texts(seen), guard)
        assert group_trim.validate(_as_openai(seen)) == []
    assert "mode: owned | repaired: True" in capsys.readouterr().out
