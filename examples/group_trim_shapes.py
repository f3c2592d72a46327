"""group_trim on each wire format it reads: OpenAI chat, OpenAI Responses, Anthropic.

Run: python examples/group_trim_shapes.py
"""

from __future__ import annotations

from typing import Any

from compaction_guard.group_trim import (
    CompactResult,
    compact,
    compact_with_summary,
    trimmer,
    validate,
)


def label(message: dict[str, Any]) -> str:
    """A short name for a message: its role or item type, plus its tool ids."""
    kind = str(message.get("type") or message.get("role"))
    ids = [c["id"] for c in message.get("tool_calls") or []]
    ids += [message[key] for key in ("tool_call_id", "call_id") if key in message]
    content = message.get("content")
    if isinstance(content, list):
        ids += [
            b.get("id") or b["tool_use_id"] for b in content if {"id", "tool_use_id"} & b.keys()
        ]
        kind += "[" + ",".join(b["type"] for b in content) + "]"
    return f"{kind}({','.join(ids)})" if ids else kind


def show(result: CompactResult) -> None:
    """Print what a compaction kept and dropped, and whether the kept list validates."""
    print("tokens:", result.tokens_before, "->", result.tokens_after, "fits:", result.fits)
    print("kept:   ", [label(m) for m in result.messages])
    print("dropped:", [label(m) for m in result.dropped])
    print("valid:  ", validate(result.messages) == [])


def openai_chat() -> None:
    messages = [
        {"role": "system", "content": "You answer questions about orders."},
        {"role": "user", "content": "Where are orders 17 and 18?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "track", "arguments": "17"},
                },
                {
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "track", "arguments": "18"},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_b", "content": '{"status":"delivered"}'},
        {"role": "tool", "tool_call_id": "call_a", "content": '{"status":"in transit"}'},
        {"role": "assistant", "content": "17 arrives Friday; 18 was delivered."},
        {"role": "user", "content": "Thanks. Can I change the address for 17?"},
    ]
    show(compact(messages, max_tokens=120, keep_head=1, keep_tail=2))


def openai_responses() -> None:
    patch = {"type": "update_file", "path": "dates.py", "diff": "-y % 4 == 0\n+isleap(y)"}
    done = "Fixed the leap-year check."
    items = [
        {"role": "developer", "content": "Use tools before answering."},
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA...opaque"},
        {"role": "user", "content": "Find the failing test and fix it."},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA...r1"},
        {"type": "function_call", "call_id": "fc_1", "name": "run_tests", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "fc_1", "output": "FAILED test_leap_year"},
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "gAAAA...r2"},
        {"type": "apply_patch_call", "call_id": "ap_1", "status": "completed", "operation": patch},
        {"type": "apply_patch_call_output", "call_id": "ap_1", "status": "completed"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": done}],
        },
        {"role": "user", "content": "Now run the whole suite."},
    ]
    result = compact_with_summary(
        items,
        max_tokens=180,
        keep_head=1,
        keep_tail=1,
        summarize=lambda dropped: f"Summary of {len(dropped)} earlier items: ...",
    )
    print("summary:", result.summary)
    show(result)


def anthropic() -> None:
    messages = [
        {"role": "user", "content": "What's the weather in Oslo and Bergen?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": "Two cities, two lookups.",
                    "signature": "EqQB...",
                },
                {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "weather",
                    "input": {"city": "Bergen"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "-3C, snow"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "4C, rain"},
            ],
        },
        {"role": "assistant", "content": "Oslo: -3C and snow. Bergen: 4C and rain."},
        {"role": "user", "content": "Should I fly or take the train?"},
    ]
    show(compact(messages, max_tokens=150, keep_head=0, keep_tail=1))
    tight = trimmer(100, keep_head=0, keep_tail=1)  # a ready compactor for Guard.compact
    kept = tight(messages)
    print("trimmer:", [label(m) for m in kept], "valid:", validate(kept) == [])
    broken = [messages[0], messages[2], *messages[3:]]  # a naive trim that lost the tool_use turn
    for problem in validate(broken):
        print("problem:", problem.index, problem.kind, "-", problem.message)


if __name__ == "__main__":
    for example in (openai_chat, openai_responses, anthropic):
        print(f"== {example.__name__}")
        example()
