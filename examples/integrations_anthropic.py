"""Anthropic: a tool loop with server-side compaction paused for inspection. Runs offline.

Needs `pip install 'compaction-guard[anthropic]'`. The client talks to a local stand-in
for the API through the SDK's own HTTP layer; drop `http_client=` to use the real one.
"""

import json

import anthropic
import httpx2

COMPACT_AT = 3  # messages in the request that make the stand-in compact
SUMMARY = "Orders analysis. The budget cap for this run is $500."


def fake_api(request):
    """Stands in for the Messages API: a tool call, a compaction pause, then an answer."""
    body = json.loads(request.content)
    count = len(body["messages"])
    if count == COMPACT_AT:  # the input passed the trigger: compact and pause
        content, stop = [{"type": "compaction", "content": SUMMARY}], "compaction"
    elif count > COMPACT_AT:
        content, stop = [{"type": "text", "text": "1,204 orders last week."}], "end_turn"
    else:
        call = {"type": "tool_use", "id": "toolu_1", "name": "count_orders",
                "input": {"week": "last"}}
        content, stop = [{"type": "text", "text": "Let me count."}, call], "tool_use"
    return httpx2.Response(200, json={
        "id": f"msg_{count}", "type": "message", "role": "assistant",
        "model": body["model"], "content": content, "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": 1000, "output_tokens": 50},
    })


client = anthropic.Anthropic(api_key="offline", http_client=httpx2.Client(
    transport=httpx2.MockTransport(fake_api)))
tools = [{"name": "count_orders", "description": "Count orders in a week.",
          "input_schema": {"type": "object", "properties": {"week": {"type": "string"}}}}]
TOOLS = {"count_orders": lambda week: f"1204 orders in week {week}"}

# --- recipe: anthropic ---
import compaction_guard as cg
from compaction_guard.integrations.anthropic import verify_and_reassert

guard = cg.Guard(["The budget cap for this run is $500."])
# The host places the block itself in the first turn (a fresh guard owes it from the start).
messages = [{"role": "user", "content": [
    {"type": "text", "text": guard.reassertion_block()},
    {"type": "text", "text": "How many orders last week?"}]}]


def run_tools(content):
    return [{"type": "tool_result", "tool_use_id": block.id,
             "content": TOOLS[block.name](**block.input)}
            for block in content if block.type == "tool_use"]


while True:
    guard.assert_present(messages)  # before every request, after the newest compaction
    response = client.beta.messages.create(
        model="claude-sonnet-5-5", max_tokens=4096, messages=messages, tools=tools,
        betas=["compact-2026-01-12"],
        context_management={"edits": [
            {"type": "compact_20260112", "pause_after_compaction": True}]},
    )
    messages.append({"role": "assistant", "content": response.content})  # SDK objects, as returned
    if response.stop_reason == "compaction":
        report, continuation_text = verify_and_reassert(guard, response)
        messages.append({"role": "user", "content": continuation_text})
    elif response.stop_reason == "tool_use":
        messages.append({"role": "user", "content": run_tools(response.content)})
    else:
        break
# --- end recipe ---

print("mode:", report.mode.value)
for finding in report.findings:
    print(finding.invariant_id, finding.kind.value, finding.decided_by)
print("answer:", response.content[0].text)
