"""LangChain 1.x: a guarded SummarizationMiddleware inside create_agent. Runs offline.

Needs `pip install 'compaction-guard[langchain]'`. Swap the fake model for a real one.
"""

import itertools

from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

import compaction_guard as cg
from compaction_guard.integrations.langchain import guard_middleware

guard = cg.Guard([
    "The budget cap for this run is $500.",
    "The database orders_prod is production. Read-only queries only.",
])

model = GenericFakeChatModel(messages=(AIMessage(f"Noted ({n}).") for n in itertools.count()))
summarization = SummarizationMiddleware(
    model=model,
    trigger=("messages", 6),
    keep=("messages", 2),
    # Stand-in for the summary model: it keeps the task and gets the budget wrong.
    summarizer=lambda _messages: "We are analysing orders. The budget cap for this run is $5000.",
)
agent = create_agent(
    model, tools=[], middleware=[guard_middleware(summarization, guard)],
    checkpointer=InMemorySaver(),
)

thread = {"configurable": {"thread_id": "demo"}}
opening = ("The budget cap for this run is $500. The database orders_prod is production. "
           "Read-only queries only.")
for text in [opening, "How many orders last week?", "And the week before?", "Thanks."]:
    agent.invoke({"messages": [{"role": "user", "content": text}]}, thread)

report = guard.last_report
print("mode:", report.mode.value, "| repaired:", report.repaired)
for finding in report.findings:
    print(finding.invariant_id, finding.kind.value, finding.decided_by)
for message in agent.get_state(thread).values["messages"]:
    print(f"{type(message).__name__}: {str(message.content)[:70]!r}")
