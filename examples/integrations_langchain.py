"""LangChain 1.x: a guarded SummarizationMiddleware inside create_agent, with a tool. Offline.

Needs `pip install 'compaction-guard[langchain]'`. The chat model is a local stand-in that
calls the tool for each question and writes the summaries; use a real one instead.
"""

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class FakeChatModel(BaseChatModel):
    """Calls count_orders for each question, answers from its result, writes summaries."""

    @property
    def _llm_type(self):
        return "fake"

    def bind_tools(self, *_args, **_kwargs):
        return self

    def _generate(self, messages, *_args, **_kwargs):
        last = messages[-1]
        if "summar" in str(last.content).lower():  # the summary prompt
            reply = AIMessage("Counting weekly orders. The budget cap for this run is $5000.")
        elif isinstance(last, HumanMessage):
            reply = AIMessage("", tool_calls=[{"name": "count_orders", "args": {"week": "last"},
                                               "id": f"call_{len(messages)}"}])
        else:
            reply = AIMessage(f"Done: {str(last.content)[:30]}")
        return ChatResult(generations=[ChatGeneration(message=reply)])


model = FakeChatModel()  # e.g. init_chat_model("openai:gpt-5.1")
questions = ["How many orders last week?", "And the week before?", "And in March?",
             "Compare them.", "Thanks."]

# --- recipe: langchain ---
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

import compaction_guard as cg
from compaction_guard.integrations.langchain import guard_middleware


@tool
def count_orders(week: str) -> str:
    """Count the orders placed in one week."""
    return f"1204 orders in week {week}"


guard = cg.Guard(["The budget cap for this run is $500."])
summarization = SummarizationMiddleware(model=model, trigger=("messages", 8),
                                        keep=("messages", 4))
agent = create_agent(model, tools=[count_orders],
                     middleware=[guard_middleware(summarization, guard)],
                     checkpointer=InMemorySaver())
thread = {"configurable": {"thread_id": "orders"}}
for question in questions:
    agent.invoke({"messages": [{"role": "user", "content": question}]}, thread)
print("mode:", guard.last_report.mode.value, "| repaired:", guard.last_report.repaired)
# --- end recipe ---

for finding in guard.last_report.findings:
    print(finding.invariant_id, finding.kind.value, finding.decided_by)
for message in agent.get_state(thread).values["messages"]:
    print(f"{type(message).__name__}: {str(message.content)[:70]!r}")
