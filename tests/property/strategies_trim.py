"""Hypothesis strategies for valid conversations in the three wire formats group_trim reads.

Every list drawn here validates cleanly (no orphan, no unanswered call), has unique call ids,
and mixes plain turns with parallel tool calls, reasoning items and thinking blocks.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

if TYPE_CHECKING:
    from collections.abc import Callable

Message = dict[str, Any]
Unit = list[Message]

# Mostly ASCII, with accents, CJK and astral emoji to exercise the UTF-16 count.
texts = st.text(
    alphabet=st.sampled_from("abcdefgh ijklm nopqrs tuvwxyz .,!?'\"\\\n\téüß中文🎉😀"),
    max_size=60,
)


def _ids() -> Callable[[str], str]:
    counter = itertools.count()
    return lambda prefix: f"{prefix}_{next(counter)}"


@st.composite
def _units(draw: st.DrawFn, unit: Callable[[st.DrawFn, Callable[[str], str]], Unit]) -> list[Unit]:
    new_id = _ids()
    count = draw(st.integers(min_value=0, max_value=12))
    return [unit(draw, new_id) for _ in range(count)]


def _flatten(head: Unit, units: list[Unit]) -> list[Message]:
    return head + [message for unit in units for message in unit]


# --- OpenAI chat ------------------------------------------------------------------------


def _chat_unit(draw: st.DrawFn, new_id: Callable[[str], str]) -> Unit:
    kind = draw(st.sampled_from(["user", "assistant", "tools", "tools", "legacy"]))
    if kind in {"user", "assistant"}:
        return [{"role": kind, "content": draw(texts)}]
    if kind == "legacy":
        name = draw(st.sampled_from(["lookup", "search"]))
        call = {"name": name, "arguments": draw(texts)}
        return [
            {"role": "assistant", "content": None, "function_call": call},
            {"role": "function", "name": name, "content": draw(texts)},
        ]
    call_ids = [new_id("call") for _ in range(draw(st.integers(1, 3)))]
    calls = [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": draw(texts)}}
        for i in call_ids
    ]
    content = draw(st.none() | texts)
    answers = draw(st.permutations(call_ids))
    return [
        {"role": "assistant", "content": content, "tool_calls": calls},
        *({"role": "tool", "tool_call_id": i, "content": draw(texts)} for i in answers),
    ]


@st.composite
def chat_conversations(draw: st.DrawFn) -> list[Message]:
    """OpenAI chat lists: system head, parallel tool calls answered in any order, legacy calls."""
    head = [{"role": "system", "content": draw(texts)}] if draw(st.booleans()) else []
    units = draw(_units(_chat_unit))
    return _flatten(head, units)


# --- OpenAI Responses -----------------------------------------------------------------------

CALL_PAIRS = [  # every Responses call item type with the output item that answers it
    ("function_call", "function_call_output"),
    ("custom_tool_call", "custom_tool_call_output"),
    ("computer_call", "computer_call_output"),
    ("local_shell_call", "local_shell_call_output"),
    ("shell_call", "shell_call_output"),
    ("apply_patch_call", "apply_patch_call_output"),
    ("tool_search_call", "tool_search_output"),
]


def _reasoning(draw: st.DrawFn, new_id: Callable[[str], str]) -> Unit:
    if not draw(st.booleans()):
        return []
    return [
        {"type": "reasoning", "id": new_id("rs"), "summary": [], "encrypted_content": draw(texts)}
    ]


def _responses_calls(draw: st.DrawFn, new_id: Callable[[str], str]) -> Unit:
    pairs = [
        (draw(st.sampled_from(CALL_PAIRS)), new_id("call")) for _ in range(draw(st.integers(1, 3)))
    ]
    calls: Unit = []
    for (call_type, _output), call_id in pairs:
        calls += _reasoning(draw, new_id)
        call: Message = {"type": call_type, "call_id": call_id, "arguments": draw(texts)}
        if call_type == "tool_search_call":
            call["execution"] = "client"
        calls.append(call)
    outputs = [
        {"type": output, "call_id": call_id, "output": draw(texts)}
        for (_call, output), call_id in draw(st.permutations(pairs))
    ]
    return calls + outputs


FUTURE_CALL = ("future_call", "future_call_output")  # a call type newer than the wire table


def _responses_future(draw: st.DrawFn, new_id: Callable[[str], str]) -> Unit:
    """Parallel calls of an unknown type; the outputs name them in 'id' or in 'call_id'."""
    field = draw(st.sampled_from(["id", "call_id"]))
    call_ids = [new_id("future") for _ in range(draw(st.integers(1, 3)))]
    call_type, output_type = FUTURE_CALL
    calls = [{"type": call_type, field: i, "arguments": draw(texts)} for i in call_ids]
    outputs = [
        {"type": output_type, field: i, "output": draw(texts)}
        for i in draw(st.permutations(call_ids))
    ]
    return calls + outputs


def _responses_user(draw: st.DrawFn, _new_id: Callable[[str], str]) -> Unit:
    if draw(st.booleans()):
        return [{"role": draw(st.sampled_from(["user", "developer"])), "content": draw(texts)}]
    part = {"type": "input_text", "text": draw(texts)}
    return [{"type": "message", "role": "user", "content": [part]}]


def _responses_answer(draw: st.DrawFn, new_id: Callable[[str], str]) -> Unit:
    part = {"type": "output_text", "text": draw(texts)}
    return [*_reasoning(draw, new_id), {"type": "message", "role": "assistant", "content": [part]}]


def _responses_approval(draw: st.DrawFn, new_id: Callable[[str], str]) -> Unit:
    request_id = new_id("apr")
    request = {
        "type": "mcp_approval_request",
        "id": request_id,
        "name": "t",
        "arguments": draw(texts),
    }
    response = {"type": "mcp_approval_response", "approval_request_id": request_id, "approve": True}
    return [{**request, "server_label": "s"}, response]


def _responses_server(draw: st.DrawFn, new_id: Callable[[str], str]) -> Unit:
    action = {"type": "search", "query": draw(texts)}
    return [
        {"type": "web_search_call", "id": new_id("ws"), "status": "completed", "action": action}
    ]


def _responses_compaction(draw: st.DrawFn, new_id: Callable[[str], str]) -> Unit:
    return [{"type": "compaction", "id": new_id("cmp"), "encrypted_content": draw(texts)}]


_RESPONSES_UNITS: list[Callable[[st.DrawFn, Callable[[str], str]], Unit]] = [
    _responses_user,
    _responses_user,
    _responses_answer,
    _responses_calls,
    _responses_calls,
    _responses_future,
    _responses_approval,
    _responses_server,
    _responses_compaction,
]


def _responses_unit(draw: st.DrawFn, new_id: Callable[[str], str]) -> Unit:
    return draw(st.sampled_from(_RESPONSES_UNITS))(draw, new_id)


@st.composite
def responses_conversations(draw: st.DrawFn) -> list[Message]:
    """Responses items: every paired call type and a newer one, reasoning, approvals, compaction."""
    head = [{"role": "developer", "content": draw(texts)}] if draw(st.booleans()) else []
    return _flatten(head, draw(_units(_responses_unit)))


# --- Anthropic ------------------------------------------------------------------------------


def _anthropic_tools(draw: st.DrawFn, new_id: Callable[[str], str]) -> Unit:
    blocks: list[Message] = []
    if draw(st.booleans()):
        blocks.append({"type": "thinking", "thinking": draw(texts), "signature": "sig"})
    if draw(st.booleans()):
        blocks.append({"type": "text", "text": draw(texts)})
    use_ids = [new_id("toolu") for _ in range(draw(st.integers(1, 3)))]
    blocks += [
        {"type": "tool_use", "id": i, "name": "f", "input": {"q": draw(texts)}} for i in use_ids
    ]
    results: list[Message] = [
        {"type": "tool_result", "tool_use_id": i, "content": draw(texts)}
        for i in draw(st.permutations(use_ids))
    ]
    if draw(st.booleans()):
        results.append({"type": "text", "text": draw(texts)})
    return [{"role": "assistant", "content": blocks}, {"role": "user", "content": results}]


def _anthropic_unit(draw: st.DrawFn, new_id: Callable[[str], str]) -> Unit:
    kind = draw(st.sampled_from(["user", "assistant", "blocks", "tools", "tools", "server"]))
    if kind in {"user", "assistant"}:
        return [{"role": kind, "content": draw(texts)}]
    if kind == "blocks":
        return [{"role": "user", "content": [{"type": "text", "text": draw(texts)}]}]
    if kind == "server":
        use_id = new_id("srvtoolu")
        return [{"role": "assistant", "content": [
            {"type": "server_tool_use", "id": use_id, "name": "web_search", "input": {"query": draw(texts)}},
            {"type": "web_search_tool_result", "tool_use_id": use_id, "content": []},
            {"type": "text", "text": draw(texts)},
        ]}]  # fmt: skip
    return _anthropic_tools(draw, new_id)


@st.composite
def anthropic_conversations(draw: st.DrawFn) -> list[Message]:
    """Anthropic messages: tool_use turns with thinking blocks, results first, server tools."""
    head = [{"role": "user", "content": draw(texts)}] if draw(st.booleans()) else []
    return _flatten(head, draw(_units(_anthropic_unit)))


conversations = st.one_of(
    chat_conversations(), responses_conversations(), anthropic_conversations()
)
