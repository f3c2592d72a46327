"""OpenAI Agents SDK: GuardedSession with your own compactor (mode owned). Runs offline.

Needs `pip install 'compaction-guard[openai-agents]'`. Swap the fake model for a real one.
"""

import asyncio
import tempfile
from pathlib import Path

from agents import Agent, RunConfig, Runner, SQLiteSession
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

import compaction_guard as cg
from compaction_guard.integrations.openai_agents import GuardedSession


class FakeModel(Model):
    """Answers every turn with a fixed text; stands in for an OpenAI model."""

    async def get_response(self, *_args, **_kwargs):
        text = ResponseOutputText(type="output_text", text="Working on it. " * 8, annotations=[])
        message = ResponseOutputMessage(id="msg_1", type="message", role="assistant",
                                        status="completed", content=[text])
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *_args, **_kwargs):
        raise NotImplementedError


def summarise(items):
    # Stand-in for your summariser: one summary item plus the newest two items.
    return [{"role": "user", "content": "Summary: we are analysing orders."}, *items[-2:]]


async def main():
    guard = cg.Guard([
        "The budget cap for this run is $500.",
        "The database orders_prod is production. Read-only queries only.",
    ])
    with tempfile.TemporaryDirectory() as folder:
        inner = SQLiteSession("demo", Path(folder) / "history.db")
        session = GuardedSession(inner, guard, compactor=summarise, trigger_tokens=200)
        agent = Agent(name="analyst", instructions="Answer briefly.", model=FakeModel())
        for question in ["How many orders last week?", "And the week before?", "Thanks."]:
            await Runner.run(agent, question, session=session,
                             run_config=RunConfig(tracing_disabled=True))
        for item in await session.get_items():  # a full fetch runs assert_present
            print(item.get("role"), str(item.get("content"))[:70])
        inner.close()
    report = guard.last_report
    print("mode:", report.mode.value, "| repaired:", report.repaired)


asyncio.run(main())
