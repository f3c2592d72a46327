"""OpenAI Agents SDK: GuardedSession with a tool-safe compactor (mode owned). Runs offline.

Needs `pip install 'compaction-guard[openai-agents]'`. The model is a local stand-in that
calls the tool once per question; pass a model name such as "gpt-5.1" instead.
"""

import asyncio
import tempfile

from agents import set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

set_tracing_disabled(disabled=True)  # offline: no trace export


class FakeModel(Model):
    """Calls count_orders for each new question, then answers with its output."""

    def __init__(self):
        self.calls = 0

    async def get_response(self, *_args, **kwargs):
        self.calls += 1
        last = kwargs["input"][-1]
        if last.get("type") == "function_call_output":
            text = ResponseOutputText(type="output_text", annotations=[],
                                      text=f"Done: {last['output'][:40]}")
            output = [ResponseOutputMessage(id=f"msg_{self.calls}", type="message",
                                            role="assistant", status="completed", content=[text])]
        else:
            output = [ResponseFunctionToolCall(
                type="function_call", id=f"fc_{self.calls}", call_id=f"call_{self.calls}",
                name="count_orders", arguments='{"week": "last"}', status="completed")]
        return ModelResponse(output=output, usage=Usage(), response_id=f"resp_{self.calls}")

    def stream_response(self, *_args, **_kwargs):
        raise NotImplementedError


model = FakeModel()
questions = ["How many orders last week?", "And the week before?", "And in March?",
             "Compare them.", "Thanks."]

# --- recipe: openai_agents ---
from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool

import compaction_guard as cg
from compaction_guard import group_trim
from compaction_guard.integrations.openai_agents import GuardedSession, call_model_input_filter


@function_tool
def count_orders(week: str) -> str:
    """Count the orders placed in one week."""
    return f"1204 orders in week {week}. " + "Per-day breakdown follows. " * 20


def summarise(items):  # your summariser: the items being dropped in, summary text out
    return f"Earlier in this chat: {len(items)} items about weekly order counts."


async def main(db_path):
    guard = cg.Guard(["The budget cap for this run is $500."])
    session = GuardedSession(
        SQLiteSession("chat", db_path), guard,
        compactor=group_trim.trimmer(max_tokens=600, keep_tail=4, summarize=summarise),
        trigger_tokens=900,
    )
    agent = Agent(name="analyst", instructions="Answer briefly.", tools=[count_orders],
                  model=model)
    run_config = RunConfig(call_model_input_filter=call_model_input_filter(guard))
    for question in questions:
        result = await Runner.run(agent, question, session=session, run_config=run_config)
        print(question, "->", result.final_output[:30], "| mode:",
              guard.last_report.mode.value if guard.last_report else "no compaction yet")
    return guard, session
# --- end recipe ---


with tempfile.TemporaryDirectory() as folder:
    guard, session = asyncio.run(main(f"{folder}/chat.db"))
    session.inner.close()
print("model calls:", model.calls, "| repaired:", guard.last_report.repaired)
