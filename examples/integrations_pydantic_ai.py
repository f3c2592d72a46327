"""pydantic-ai 2.x: a guarded history processor with a tool, over several runs. Offline.

Needs `pip install 'compaction-guard[pydantic-ai]'`. The model is pydantic-ai's own
FunctionModel standing in for a real one: it calls the tool once per question.
"""

from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel


def fake_llm(messages, _info):
    if any(isinstance(part, ToolReturnPart) for part in messages[-1].parts):
        return ModelResponse(parts=[TextPart("1204 orders.")])
    return ModelResponse(parts=[ToolCallPart("count_orders", {"week": "last"},
                                             tool_call_id=f"call_{len(messages)}")])


model = FunctionModel(fake_llm)  # e.g. "openai:gpt-5.1"
questions = ["How many orders last week?", "And the week before?", "And in March?",
             "Compare them.", "Thanks."]

# --- recipe: pydantic_ai ---
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import CompactionPart, ModelRequest, UserPromptPart

import compaction_guard as cg
from compaction_guard.integrations.pydantic_ai import history_processor


def summarise(messages):
    """Summarise all before the newest user prompt; keep it and what follows (tool-safe)."""
    start = max(i for i, message in enumerate(messages) if isinstance(message, ModelRequest)
                and any(isinstance(part, UserPromptPart) for part in message.parts))
    summary = f"Earlier in this chat: {start} messages about weekly order counts."
    return [ModelRequest(parts=[CompactionPart(content=summary)]), *messages[start:]]


guard = cg.Guard(["The budget cap for this run is $500."])
agent = Agent(model, capabilities=[ProcessHistory(
    history_processor(guard, summarise, trigger_tokens=300))])


@agent.tool_plain
def count_orders(week: str) -> str:
    """Count the orders placed in one week."""
    return f"1204 orders in week {week}. " + "Per-day breakdown follows. " * 10


history = None
for question in questions:
    result = agent.run_sync(question, message_history=history)
    history = result.all_messages()
    print(question, "->", result.output)
print("mode:", guard.last_report.mode.value, "| repaired:", guard.last_report.repaired)
# --- end recipe ---
