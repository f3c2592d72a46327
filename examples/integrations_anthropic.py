"""Anthropic server-side compaction paused for inspection, and the Claude Code hook output.

Runs offline: the paused response is built locally with the SDK's own beta types when the
`anthropic` package is installed, and as the equivalent dict otherwise.
"""

import json

import compaction_guard as cg
from compaction_guard.integrations.anthropic import session_start_hook_output, verify_and_reassert

guard = cg.Guard([
    "The budget cap for this run is $500.",
    "The database orders_prod is production. Read-only queries only.",
])
summary = ("The user is analysing orders. The budget cap for this run is $5000. "
           "The database orders_prod is production.")

try:
    from anthropic.types.beta import BetaCompactionBlock, BetaMessage, BetaUsage
except ImportError:
    response = {"role": "assistant", "stop_reason": "compaction",
                "content": [{"type": "compaction", "content": summary}]}
else:
    response = BetaMessage(
        id="msg_1", type="message", role="assistant", model="claude-sonnet-4-5",
        stop_reason="compaction", usage=BetaUsage(input_tokens=150_000, output_tokens=800),
        content=[BetaCompactionBlock(type="compaction", content=summary)],
    )

# In a real loop: response = client.beta.messages.create(..., context_management={"edits": [
#     {"type": "compact_20260112", "pause_after_compaction": True}]}, betas=[...])
report, continuation_text = verify_and_reassert(guard, response)
print("mode:", report.mode.value)
for finding in report.findings:
    print(finding.invariant_id, finding.kind.value, finding.decided_by)
print(continuation_text)  # send as the next user turn, after the compaction block

print(json.dumps(json.loads(session_start_hook_output(guard)), indent=2))
