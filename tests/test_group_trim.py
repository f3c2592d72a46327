from __future__ import annotations

import ast
import asyncio
import copy
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from compaction_guard import group_trim
from compaction_guard.group_trim import (
    CompactResult,
    CompactResultWithSummary,
    Problem,
    acompact_with_summary,
    compact,
    compact_with_summary,
    estimate_tokens,
    trimmer,
    validate,
)
from tests.property.strategies_trim import CALL_PAIRS

# --- builders -------------------------------------------------------------------------


def text(role: str, words: int = 20, tag: str = "") -> dict[str, Any]:
    return {"role": role, "content": f"{tag}{' '.join(['word'] * words)}"}


def chat_calls(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
        ],
    }


def chat_result(call_id: str, size: int = 40) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "r" * size}


def kinds(problems: list[Problem]) -> list[tuple[int, str]]:
    return [(p.index, p.kind) for p in problems]


def ids(messages: list[Any]) -> list[int]:
    return [id(m) for m in messages]


def readme_messages() -> list[dict[str, Any]]:
    def call(call_id: str, city: str) -> dict[str, Any]:
        arguments = json.dumps({"city": city}, separators=(",", ":"))
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": arguments},
                }
            ],
        }

    return [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "What is the weather in Denver?"},
        call("call_1", "Denver"),
        {"role": "tool", "tool_call_id": "call_1", "content": '{"tempF":72}'},
        {"role": "assistant", "content": "It is 72F in Denver."},
        {"role": "user", "content": "What about Austin?"},
        call("call_2", "Austin"),
        {"role": "tool", "tool_call_id": "call_2", "content": '{"tempF":88}'},
        {"role": "assistant", "content": "It is 88F in Austin."},
        {"role": "user", "content": "And tomorrow in Denver?"},
    ]


def one_each(_message: Any) -> int:
    return 1


class Recorder:
    """A summariser that records what it was given."""

    def __init__(self) -> None:
        self.calls: list[list[Any]] = []

    def __call__(self, dropped: list[Any]) -> str:
        self.calls.append(dropped)
        return "s"


def by_count(
    messages: list[Any], budget: int, *, keep_head: int = 1, keep_tail: int = 1
) -> CompactResult:
    """Compact counting one token a message."""
    return compact(
        messages, max_tokens=budget, count_tokens=one_each, keep_head=keep_head, keep_tail=keep_tail
    )


# --- the seed's documented behaviour ----------------------------------------------------


def test_compact_readme_example_reproduces_documented_numbers() -> None:
    messages = readme_messages()
    result = compact(messages, max_tokens=150, keep_head=1, keep_tail=2)
    assert (result.tokens_before, result.tokens_after, result.fits) == (195, 124, True)
    assert result.dropped == messages[1:4]


def test_compact_with_summary_readme_example_reproduces_documented_numbers() -> None:
    result = compact_with_summary(
        readme_messages(),
        max_tokens=150,
        keep_head=1,
        keep_tail=2,
        summarize=lambda dropped: (
            f"Earlier in this conversation: {len(dropped)} messages were removed."
        ),
    )
    assert result.summary == "Earlier in this conversation: 3 messages were removed."
    assert (result.tokens_after, result.fits) == (145, True)
    assert result.messages[1] == {"role": "user", "content": result.summary}


def test_compact_fitting_input_comes_back_unchanged() -> None:
    messages = readme_messages()
    result = compact(messages, max_tokens=10_000)
    assert ids(result.messages) == ids(messages)
    assert result.dropped == []
    assert result.tokens_before == result.tokens_after == 195
    assert result.fits is True


def test_compact_result_is_frozen_dataclass() -> None:
    result = compact(readme_messages(), max_tokens=10_000)
    assert isinstance(result, CompactResult)
    with pytest.raises(AttributeError):
        result.fits = False  # type: ignore[misc]


def test_compact_uses_default_keep_head_1_and_keep_tail_4() -> None:
    messages = [text("system")] + [
        text("user" if i % 2 else "assistant", tag=str(i)) for i in range(8)
    ]
    result = compact(messages, max_tokens=1, count_tokens=one_each)
    assert ids(result.messages) == ids([messages[0], *messages[-4:]])


def test_compact_drops_oldest_droppable_groups_first() -> None:
    messages = [text("system")] + [text("user", tag=str(i)) for i in range(6)]
    result = by_count(messages, 5)
    assert result.dropped == messages[1:3]
    assert result.tokens_after == 5


def test_compact_dropped_is_in_original_order() -> None:
    messages = [
        text("system"),
        text("user", tag="a"),
        chat_calls("c1", "c2"),
        chat_result("c1"),
        chat_result("c2"),
        text("assistant", tag="b"),
        text("user", tag="z"),
    ]
    result = by_count(messages, 2)
    assert ids(result.dropped) == ids(messages[1:6])


def test_compact_never_splits_parallel_tool_calls_from_their_results() -> None:
    messages = [
        text("system"),
        chat_calls("c1", "c2"),
        chat_result("c2"),
        chat_result("c1"),
        text("user", tag="q"),
        text("assistant", tag="a"),
    ]
    result = by_count(messages, 4, keep_tail=2)
    assert result.dropped == messages[1:4]
    assert result.fits is True


def test_compact_keep_head_snaps_outward_to_group_boundary() -> None:
    messages = [chat_calls("c1"), chat_result("c1"), text("user", tag="a"), text("user", tag="b")]
    result = by_count(messages, 1, keep_tail=0)
    assert ids(result.messages) == ids(messages[:2])


def test_compact_keep_tail_snaps_outward_to_group_boundary() -> None:
    messages = [text("user", tag="a"), text("user", tag="b"), chat_calls("c1"), chat_result("c1")]
    result = by_count(messages, 1, keep_head=0)
    assert ids(result.messages) == ids(messages[2:])


def test_compact_reports_not_fitting_when_head_and_tail_cover_everything() -> None:
    messages = [text("system"), text("user"), text("assistant")]
    result = by_count(messages, 1, keep_tail=4)
    assert ids(result.messages) == ids(messages)
    assert (result.dropped, result.fits, result.tokens_after) == ([], False, 3)


def test_compact_budget_below_head_and_tail_drops_only_the_middle() -> None:
    messages = [text("system")] + [text("user", tag=str(i)) for i in range(6)]
    result = by_count(messages, 1, keep_tail=2)
    assert ids(result.messages) == ids([messages[0], *messages[-2:]])
    assert result.fits is False
    assert result.tokens_after == 3


def test_compact_keeps_going_past_the_middle_only_until_it_fits() -> None:
    messages = [text("system")] + [text("user", tag=str(i)) for i in range(6)]
    result = by_count(messages, 6)
    assert result.dropped == [messages[1]]


def test_compact_orphan_tool_message_is_its_own_group() -> None:
    messages = [
        text("system"),
        chat_calls("c1"),
        chat_result("c1"),
        chat_result("zz"),
        text("user", tag="a"),
        text("user", tag="b"),
    ]
    result = by_count(messages, 4)
    assert result.dropped == messages[1:3]


def test_compact_legacy_function_call_stays_with_its_function_message() -> None:
    call = {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}}
    answer = {"role": "function", "name": "f", "content": "42"}
    messages = [text("system"), call, answer, text("user"), text("assistant")]
    result = by_count(messages, 4)
    assert result.dropped == [call, answer]


def test_compact_count_tokens_replaces_the_default_estimate() -> None:
    messages = [text("system"), text("user"), text("assistant")]
    result = compact(messages, max_tokens=100, count_tokens=lambda m: 7)
    assert result.tokens_before == 21


def test_compact_accepts_a_float_budget() -> None:
    result = compact([text("user")], max_tokens=1.5, count_tokens=one_each)
    assert result.fits is True


def test_compact_does_not_mutate_its_input() -> None:
    messages = readme_messages()
    before = copy.deepcopy(messages)
    compact(messages, max_tokens=100, keep_head=1, keep_tail=2)
    assert messages == before


@pytest.mark.parametrize("budget", [0, -5, math.nan, math.inf, True, False, "100", None, [100]])
def test_compact_rejects_a_budget_that_is_not_a_positive_number(budget: Any) -> None:
    with pytest.raises(TypeError, match="max_tokens must be a positive number"):
        compact(readme_messages(), max_tokens=budget)


def test_compact_requires_max_tokens() -> None:
    with pytest.raises(TypeError, match="max_tokens"):
        compact(readme_messages())  # type: ignore[call-arg]


# --- estimate_tokens ------------------------------------------------------------------


def test_estimate_tokens_is_ceil_of_compact_json_length_over_4() -> None:
    message = {"role": "user", "content": "a b", "name": "x"}
    serialised = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    assert estimate_tokens(message) == math.ceil(len(serialised) / 4)


def test_estimate_tokens_keeps_non_ascii_unescaped() -> None:
    message = {"role": "user", "content": "é" * 40}
    assert estimate_tokens(message) == math.ceil((len('{"role":"user","content":""}') + 40) / 4)


def test_estimate_tokens_counts_astral_characters_as_two_utf16_units() -> None:
    message = {"role": "user", "content": "🎉" * 10}
    assert estimate_tokens(message) == math.ceil((len('{"role":"user","content":""}') + 20) / 4)


def test_estimate_tokens_counts_a_lone_surrogate_as_one_unit() -> None:
    message = {"role": "user", "content": "\ud83d🎉"}
    assert estimate_tokens(message) == math.ceil((len('{"role":"user","content":""}') + 3) / 4)


def test_estimate_tokens_uses_the_given_count_tokens() -> None:
    assert estimate_tokens(text("user"), lambda m: 11) == 11


def test_estimate_tokens_names_the_fix_for_unserialisable_messages() -> None:
    with pytest.raises(TypeError, match="count_tokens="):
        estimate_tokens({"role": "user", "content": "x", "meta": object()})


def test_compact_unserialisable_message_error_names_its_index() -> None:
    messages = [text("user"), {"role": "user", "content": "x", "meta": {1, 2}}]
    with pytest.raises(TypeError, match="index 1"):
        compact(messages, max_tokens=10)


# --- compact_with_summary / acompact_with_summary / trimmer ---------------------------------


def test_compact_with_summary_without_summarize_matches_compact() -> None:
    plain = compact(readme_messages(), max_tokens=150, keep_head=1, keep_tail=2)
    summary = compact_with_summary(readme_messages(), max_tokens=150, keep_head=1, keep_tail=2)
    assert isinstance(summary, CompactResultWithSummary)
    assert summary.summary is None
    assert (summary.messages, summary.dropped, summary.tokens_after) == (
        plain.messages,
        plain.dropped,
        plain.tokens_after,
    )


def test_compact_with_summary_does_not_call_summarize_when_nothing_is_dropped() -> None:
    summarize = Recorder()
    result = compact_with_summary(readme_messages(), max_tokens=10_000, summarize=summarize)
    assert (summarize.calls, result.summary) == ([], None)


def test_compact_with_summary_passes_the_dropped_messages_to_summarize() -> None:
    summarize = Recorder()
    messages = readme_messages()
    compact_with_summary(messages, max_tokens=150, keep_head=1, keep_tail=2, summarize=summarize)
    assert ids(summarize.calls[0]) == ids(messages[1:4])


def test_compact_with_summary_drops_more_groups_to_make_room_for_the_summary() -> None:
    messages = [text("system")] + [text("user", tag=str(i)) for i in range(6)]
    result = compact_with_summary(
        messages,
        max_tokens=5,
        count_tokens=one_each,
        keep_head=1,
        keep_tail=1,
        summarize=lambda dropped: "summary",
    )
    assert ids(result.dropped) == ids(messages[1:4])
    assert result.messages[1] == {"role": "user", "content": "summary"}
    assert (result.tokens_after, result.fits) == (5, True)


def test_compact_with_summary_reports_not_fitting_when_retrim_runs_out() -> None:
    messages = [text("system"), text("user", tag="a"), text("user", tag="b")]
    result = compact_with_summary(
        messages,
        max_tokens=1,
        count_tokens=one_each,
        keep_head=1,
        keep_tail=1,
        summarize=lambda dropped: "summary",
    )
    assert [m["content"] for m in result.messages][1] == "summary"
    assert (result.tokens_after, result.fits) == (3, False)


def test_compact_with_summary_inserts_summary_after_the_snapped_head() -> None:
    messages = [
        chat_calls("c1"),
        chat_result("c1"),
        text("user", tag="a"),
        text("user", tag="b"),
        text("user", tag="c"),
    ]
    result = compact_with_summary(
        messages,
        max_tokens=4,
        count_tokens=one_each,
        keep_head=1,
        keep_tail=1,
        summarize=lambda dropped: "s",
    )
    assert result.messages[2] == {"role": "user", "content": "s"}


def test_compact_with_summary_uses_summary_role() -> None:
    result = compact_with_summary(
        readme_messages(),
        max_tokens=150,
        keep_head=1,
        keep_tail=2,
        summarize=lambda d: "s",
        summary_role="system",
    )
    assert result.messages[1] == {"role": "system", "content": "s"}


def test_compact_with_summary_rejects_a_role_the_shape_does_not_have() -> None:
    messages = [{"role": "user", "content": [{"type": "image", "source": {}}]}, text("user")]
    with pytest.raises(ValueError, match="summary_role 'system'"):
        compact_with_summary(messages, max_tokens=1, summarize=lambda d: "s", summary_role="system")


def test_compact_with_summary_rejects_a_non_string_summary() -> None:
    with pytest.raises(TypeError, match="must return a str"):
        compact_with_summary(readme_messages(), max_tokens=150, keep_tail=2, summarize=lambda d: 3)  # type: ignore[arg-type,return-value]


def test_compact_with_summary_rejects_an_async_summarizer() -> None:
    async def summarize(dropped: list[Any]) -> str:
        return "s"

    with pytest.raises(TypeError, match="acompact_with_summary"):
        compact_with_summary(readme_messages(), max_tokens=150, keep_tail=2, summarize=summarize)  # type: ignore[arg-type]


def test_compact_with_summary_summarizer_error_propagates_and_input_is_untouched() -> None:
    messages = readme_messages()
    before = copy.deepcopy(messages)

    def summarize(dropped: list[Any]) -> str:
        dropped.clear()
        raise RuntimeError("model down")

    with pytest.raises(RuntimeError, match="model down"):
        compact_with_summary(messages, max_tokens=150, keep_tail=2, summarize=summarize)
    assert messages == before


def test_acompact_with_summary_awaits_an_async_summarizer() -> None:
    async def summarize(dropped: list[Any]) -> str:
        await asyncio.sleep(0)
        return f"{len(dropped)} dropped"

    result = asyncio.run(
        acompact_with_summary(readme_messages(), max_tokens=150, keep_tail=2, summarize=summarize)
    )
    assert (result.summary, result.tokens_after) == ("3 dropped", result.tokens_after)
    assert result.messages[1] == {"role": "user", "content": "3 dropped"}


def test_acompact_with_summary_accepts_a_sync_summarizer() -> None:
    result = asyncio.run(
        acompact_with_summary(
            readme_messages(), max_tokens=150, keep_tail=2, summarize=lambda d: "s"
        )
    )
    assert result.summary == "s"


def test_acompact_with_summary_matches_the_sync_result() -> None:
    sync = compact_with_summary(
        readme_messages(), max_tokens=150, keep_tail=2, summarize=lambda d: "s"
    )
    result = asyncio.run(
        acompact_with_summary(
            readme_messages(), max_tokens=150, keep_tail=2, summarize=lambda d: "s"
        )
    )
    assert (result.messages, result.tokens_after, result.fits) == (
        sync.messages,
        sync.tokens_after,
        sync.fits,
    )


def test_trimmer_returns_a_compactor_of_messages() -> None:
    messages = readme_messages()
    trim = trimmer(150, keep_head=1, keep_tail=2)
    assert trim(messages) == compact(messages, max_tokens=150, keep_head=1, keep_tail=2).messages


def test_trimmer_inserts_the_summary() -> None:
    trim = trimmer(150, keep_tail=2, summarize=lambda dropped: "earlier turns")
    assert trim(readme_messages())[1] == {"role": "user", "content": "earlier turns"}


def test_trimmer_passes_protect_through() -> None:
    messages = readme_messages()
    trim = trimmer(150, keep_tail=2, protect=lambda m: m is messages[1])
    assert messages[1] in trim(messages)


@pytest.mark.parametrize("budget", [0, math.nan, True])
def test_trimmer_rejects_a_bad_budget_when_built(budget: Any) -> None:
    with pytest.raises(TypeError, match="max_tokens must be a positive number"):
        trimmer(budget)


def test_trimmer_rejects_an_async_summarizer_when_built() -> None:
    async def summarize(dropped: list[Any]) -> str:
        return "s"

    with pytest.raises(TypeError, match="synchronous"):
        trimmer(100, summarize=summarize)  # type: ignore[arg-type]


# --- protect --------------------------------------------------------------------------------


def test_compact_protect_keeps_the_whole_group_of_a_protected_message() -> None:
    messages = [
        text("system"),
        chat_calls("c1"),
        chat_result("c1"),
        text("user", tag="a"),
        text("user", tag="b"),
    ]
    result = compact(
        messages,
        max_tokens=1,
        count_tokens=one_each,
        keep_head=1,
        keep_tail=1,
        protect=lambda m: m is messages[2],
    )
    assert ids(result.dropped) == ids([messages[3]])
    assert result.fits is False


def test_compact_protect_skips_to_the_next_droppable_group() -> None:
    messages = [text("system")] + [text("user", tag=str(i)) for i in range(5)]
    result = compact(
        messages,
        max_tokens=4,
        count_tokens=one_each,
        keep_head=1,
        keep_tail=1,
        protect=lambda m: m is messages[1],
    )
    assert ids(result.dropped) == ids(messages[2:4])


def test_compact_with_summary_retrim_never_drops_a_protected_message() -> None:
    messages = [text("system")] + [text("user", tag=str(i)) for i in range(5)]
    result = compact_with_summary(
        messages,
        max_tokens=3,
        count_tokens=one_each,
        keep_head=1,
        keep_tail=1,
        protect=lambda m: m is messages[3],
        summarize=lambda d: "s",
    )
    assert messages[3] in result.messages
    assert result.fits is False


# --- OpenAI Responses items ----------------------------------------------------------------


def r_user(tag: str = "") -> dict[str, Any]:
    return {"role": "user", "content": f"question {tag}"}


def r_call(call_id: str, call_type: str = "function_call") -> dict[str, Any]:
    return {"type": call_type, "call_id": call_id, "name": "f", "arguments": "{}"}


def r_output(call_id: str, output_type: str = "function_call_output") -> dict[str, Any]:
    return {"type": output_type, "call_id": call_id, "output": "o" * 30}


def r_reasoning(tag: str = "") -> dict[str, Any]:
    return {"type": "reasoning", "id": f"rs_{tag}", "summary": []}


def r_answer(tag: str = "") -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": tag}],
    }


def test_compact_responses_keeps_parallel_calls_with_their_outputs() -> None:
    items = [
        r_user("0"),
        r_call("a"),
        r_call("b"),
        r_output("b"),
        r_output("a"),
        r_user("1"),
        r_user("2"),
    ]
    result = by_count(items, 3)
    assert ids(result.dropped) == ids(items[1:5])


def test_compact_responses_reasoning_travels_with_the_item_after_it() -> None:
    items = [r_user("0"), r_reasoning("1"), r_answer("1"), r_user("2"), r_user("3")]
    result = by_count(items, 4)
    assert ids(result.dropped) == ids(items[1:3])


def test_compact_responses_reasoning_before_a_call_joins_the_call_group() -> None:
    items = [r_user("0"), r_reasoning("1"), r_call("a"), r_output("a"), r_user("2"), r_user("3")]
    result = by_count(items, 4)
    assert ids(result.dropped) == ids(items[1:4])


@pytest.mark.parametrize(("call_type", "output_type"), CALL_PAIRS)
def test_compact_responses_pairs_each_call_type_with_its_output(
    call_type: str, output_type: str
) -> None:
    items = [
        r_user("0"),
        r_call("a", call_type),
        r_user("x"),
        r_output("a", output_type),
        r_user("1"),
    ]
    result = by_count(items, 2)
    assert ids(result.dropped) == ids(items[1:4])


def test_compact_responses_local_shell_output_may_name_its_call_in_id() -> None:
    output = {"type": "local_shell_call_output", "id": "a", "output": "ok"}
    items = [r_user("0"), r_call("a", "local_shell_call"), output, r_user("1")]
    assert validate(items) == []


def test_compact_responses_keeps_mcp_approval_request_with_its_response() -> None:
    request = {
        "type": "mcp_approval_request",
        "id": "apr_1",
        "name": "t",
        "arguments": "{}",
        "server_label": "s",
    }
    response = {"type": "mcp_approval_response", "approval_request_id": "apr_1", "approve": True}
    items = [r_user("0"), request, response, r_user("1"), r_user("2")]
    result = by_count(items, 3)
    assert ids(result.dropped) == ids([request, response])


def test_compact_responses_never_drops_the_latest_compaction_item() -> None:
    compaction = {"type": "compaction", "encrypted_content": "opaque"}
    items = [r_user("0"), r_user("1"), compaction, r_user("2"), r_user("3")]
    result = by_count(items, 1)
    assert ids(result.messages) == ids([items[0], compaction, items[4]])


def test_compact_responses_may_drop_an_earlier_compaction_item() -> None:
    old = {"type": "compaction", "encrypted_content": "old"}
    new = {"type": "compaction", "encrypted_content": "new"}
    items = [r_user("0"), old, r_user("1"), new, r_user("2")]
    result = by_count(items, 1)
    assert old in result.dropped
    assert new in result.messages


def test_compact_responses_summary_is_an_easy_input_message() -> None:
    items = [r_user("0"), r_call("a"), r_output("a"), r_user("1")]
    result = compact_with_summary(
        items,
        max_tokens=3,
        count_tokens=one_each,
        keep_head=1,
        keep_tail=1,
        summarize=lambda d: "s",
    )
    assert result.messages == [items[0], {"role": "user", "content": "s"}, items[3]]
    assert validate(result.messages) == []


# --- Anthropic messages ---------------------------------------------------------------------


def a_uses(*use_ids: str, thinking: bool = False) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    if thinking:
        blocks.append({"type": "thinking", "thinking": "let me look", "signature": "sig"})
    blocks += [{"type": "tool_use", "id": i, "name": "f", "input": {}} for i in use_ids]
    return {"role": "assistant", "content": blocks}


def a_results(*use_ids: str, trailing_text: bool = False) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [
        {"type": "tool_result", "tool_use_id": i, "content": "done"} for i in use_ids
    ]
    if trailing_text:
        blocks.append({"type": "text", "text": "and then?"})
    return {"role": "user", "content": blocks}


def test_compact_anthropic_keeps_tool_use_with_the_next_user_turn() -> None:
    messages = [
        text("user", tag="0"),
        a_uses("t1", "t2"),
        a_results("t2", "t1", trailing_text=True),
        text("assistant", tag="1"),
        text("user", tag="2"),
    ]
    result = by_count(messages, 3)
    assert ids(result.dropped) == ids(messages[1:3])


def test_compact_anthropic_window_never_starts_with_tool_results() -> None:
    # Dropping two messages would fit, but would open the window on the tool results.
    messages = [
        text("user", tag="0"),
        a_uses("t1"),
        a_results("t1"),
        text("assistant"),
        text("user"),
    ]
    result = by_count(messages, 3, keep_head=0)
    assert ids(result.messages) == ids(messages[3:])
    assert validate(result.messages) == []


def test_compact_anthropic_leaves_thinking_blocks_untouched() -> None:
    turn = a_uses("t1", thinking=True)
    messages = [text("user", tag="0"), turn, a_results("t1"), text("user", tag="1")]
    before = copy.deepcopy(turn)
    result = by_count(messages, 2, keep_head=0, keep_tail=3)
    assert result.messages[0] is turn
    assert turn == before


def test_compact_anthropic_server_tool_use_with_result_in_turn_stands_alone() -> None:
    turn = {
        "role": "assistant",
        "content": [
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
            {"type": "text", "text": "found it"},
        ],
    }
    messages = [text("user", tag="0"), turn, text("user", tag="1"), text("user", tag="2")]
    result = by_count(messages, 3)
    assert ids(result.dropped) == ids([turn])
    assert validate(messages) == []


def test_compact_anthropic_server_tool_use_groups_with_results_in_the_next_turn() -> None:
    turn = {
        "role": "assistant",
        "content": [{"type": "server_tool_use", "id": "s1", "name": "x", "input": {}}],
    }
    answer = a_results("s1")
    messages = [text("user", tag="0"), turn, answer, text("user", tag="1")]
    result = by_count(messages, 2)
    assert ids(result.dropped) == ids([turn, answer])


# --- validate -------------------------------------------------------------------------------


def test_validate_returns_no_problems_for_a_clean_chat_list() -> None:
    assert validate(readme_messages()) == []


def test_validate_reports_a_chat_orphan_tool_message() -> None:
    assert kinds(validate([text("user"), chat_result("c9")])) == [(1, "orphan_result")]


def test_validate_reports_a_chat_call_without_its_tool_message() -> None:
    assert kinds(validate([text("user"), chat_calls("c1", "c2"), chat_result("c1")])) == [
        (1, "call_without_result")
    ]


def test_validate_reports_a_chat_result_separated_from_its_call() -> None:
    messages = [chat_calls("c1"), text("user"), chat_result("c1")]
    assert kinds(validate(messages)) == [(0, "call_without_result"), (2, "orphan_result")]


def test_validate_reports_a_legacy_function_call_without_answer() -> None:
    call = {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}}
    assert kinds(validate([call, text("user")])) == [(0, "call_without_result")]


def test_validate_reports_a_legacy_function_message_without_call() -> None:
    answer = {"role": "function", "name": "f", "content": "42"}
    assert kinds(validate([text("user"), answer])) == [(1, "orphan_result")]


def test_validate_reports_a_chat_context_starting_with_a_tool_result() -> None:
    assert kinds(validate([chat_result("c1"), text("user")])) == [(0, "orphan_result")]


def test_validate_reports_a_responses_orphan_output() -> None:
    assert kinds(validate([r_user(), r_output("a")])) == [(1, "orphan_result")]


def test_validate_reports_a_responses_output_before_its_call() -> None:
    assert kinds(validate([r_output("a"), r_call("a")])) == [
        (0, "orphan_result"),
        (1, "call_without_result"),
    ]


def test_validate_reports_a_responses_call_without_output() -> None:
    assert kinds(validate([r_user(), r_call("a")])) == [(1, "call_without_result")]


def test_validate_accepts_a_server_side_tool_search_without_output() -> None:
    search = {"type": "tool_search_call", "call_id": "a", "execution": "server", "arguments": {}}
    assert validate([r_user(), search]) == []


def test_validate_reports_reasoning_at_the_end() -> None:
    assert kinds(validate([r_user(), r_reasoning()])) == [(1, "reasoning_without_item")]


def test_validate_reports_reasoning_followed_by_a_user_message() -> None:
    assert kinds(validate([r_reasoning(), r_user()])) == [(0, "reasoning_without_item")]


def test_validate_reports_reasoning_followed_by_an_output() -> None:
    items = [r_call("a"), r_reasoning(), r_output("a")]
    assert kinds(validate(items)) == [(1, "reasoning_without_item")]


def test_validate_reports_an_orphan_mcp_approval_response() -> None:
    response = {"type": "mcp_approval_response", "approval_request_id": "apr_9", "approve": False}
    assert kinds(validate([r_user(), response])) == [(1, "orphan_result")]


def test_validate_reports_an_anthropic_tool_result_not_first_in_its_turn() -> None:
    late = {
        "role": "user",
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "tool_result", "tool_use_id": "t1", "content": "x"},
        ],
    }
    assert kinds(validate([a_uses("t1"), late])) == [(1, "result_not_first")]


def test_validate_reports_an_anthropic_orphan_tool_result() -> None:
    assert kinds(validate([text("user"), text("assistant"), a_results("t1")])) == [
        (2, "orphan_result")
    ]


def test_validate_reports_an_anthropic_tool_use_without_result() -> None:
    assert kinds(validate([text("user"), a_uses("t1", "t2"), a_results("t1")])) == [
        (1, "call_without_result")
    ]


def test_validate_reports_an_anthropic_tool_use_at_the_end() -> None:
    assert kinds(validate([text("user"), a_uses("t1")])) == [(1, "call_without_result")]


def test_validate_reports_duplicate_call_ids() -> None:
    assert kinds(validate([chat_calls("c1", "c1"), chat_result("c1")])) == [
        (0, "duplicate_call_id")
    ]


@pytest.mark.parametrize(
    "messages",
    [
        [r_output("x"), r_call("a"), r_user(), r_reasoning()],
        [chat_calls("c1", "c2"), chat_result("c1"), chat_result("c1"), chat_result("c9")],
        [text("user"), a_uses("t1", "t1"), a_results("t9")],
    ],
)
def test_validate_lists_problems_in_index_order(messages: list[Any]) -> None:
    indices = [p.index for p in validate(messages)]
    assert len(indices) >= 2
    assert indices == sorted(indices)


def test_validate_problem_message_names_the_call_id() -> None:
    (problem,) = validate([text("user"), chat_result("c9")])
    assert "'c9'" in problem.message


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize("messages", [{"role": "user"}, "hello", None, (m for m in [text("user")])])
def test_compact_rejects_input_that_is_not_a_list(messages: Any) -> None:
    with pytest.raises(TypeError, match="messages must be a list"):
        compact(messages, max_tokens=10)


def test_compact_accepts_a_tuple_of_messages() -> None:
    messages = tuple(readme_messages())
    assert compact(messages, max_tokens=10_000).messages == list(messages)


@pytest.mark.parametrize("bad", ["just text", 42, None, ["role", "user"]])
def test_compact_rejects_a_message_that_is_not_a_mapping(bad: Any) -> None:
    with pytest.raises(TypeError, match="message at index 1 is a"):
        compact([text("user"), bad], max_tokens=10)


def test_compact_rejects_a_message_without_role() -> None:
    with pytest.raises(ValueError, match="index 2 has no 'role'"):
        compact([text("user"), text("assistant"), {"content": "hi"}], max_tokens=10)


def test_compact_rejects_an_unknown_role() -> None:
    with pytest.raises(ValueError, match="role 'bot'"):
        compact([{"role": "bot", "content": "hi"}], max_tokens=10)


def test_compact_rejects_a_non_string_role() -> None:
    with pytest.raises(TypeError, match="non-string 'role'"):
        compact([{"role": ["user"], "content": "hi"}], max_tokens=10)


@pytest.mark.parametrize(
    "part", [{"type": "text", "text": 5}, {"type": "input_text", "text": None}]
)
def test_compact_rejects_a_text_part_whose_text_is_not_a_string(part: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match="content part 0 of message 1"):
        compact([text("user"), {"role": "user", "content": [part]}], max_tokens=10)


@pytest.mark.parametrize("part", ["plain string", 7, None])
def test_compact_rejects_a_content_part_that_is_not_a_mapping(part: Any) -> None:
    with pytest.raises(TypeError, match="content part 1 of message 0"):
        compact([{"role": "user", "content": [{"type": "text", "text": "a"}, part]}], max_tokens=10)


def test_compact_rejects_a_content_part_without_type() -> None:
    with pytest.raises(TypeError, match="no string 'type'"):
        compact([{"role": "user", "content": [{"text": "a"}]}], max_tokens=10)


def test_compact_rejects_content_that_is_neither_text_nor_parts() -> None:
    with pytest.raises(TypeError, match="content of type int"):
        compact([{"role": "user", "content": 5}], max_tokens=10)


def test_compact_rejects_duplicate_chat_tool_call_ids() -> None:
    with pytest.raises(ValueError, match=r"'c1'.*own id"):
        compact([text("user"), chat_calls("c1", "c1"), chat_result("c1")], max_tokens=10)


def test_compact_rejects_a_chat_tool_call_answered_twice() -> None:
    with pytest.raises(ValueError, match="answered a second time"):
        compact([chat_calls("c1"), chat_result("c1"), chat_result("c1")], max_tokens=10)


def test_compact_rejects_duplicate_responses_call_ids() -> None:
    items = [r_call("a"), r_output("a"), r_call("a"), r_output("a")]
    with pytest.raises(ValueError, match="second function_call"):
        compact(items, max_tokens=10)


def test_compact_rejects_duplicate_anthropic_tool_use_ids() -> None:
    with pytest.raises(ValueError, match="twice in one assistant turn"):
        compact([text("user"), a_uses("t1", "t1"), a_results("t1")], max_tokens=10)


def test_compact_rejects_a_tool_call_without_id() -> None:
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"type": "function", "function": {}}],
    }
    with pytest.raises(ValueError, match="tool call 0 of message 0 has no string 'id'"):
        compact([call], max_tokens=10)


def test_compact_rejects_mixed_shapes_naming_the_first_offending_index() -> None:
    messages = [
        text("user"),
        chat_calls("c1"),
        chat_result("c1"),
        text("user"),
        a_uses("t1"),
        a_results("t1"),
    ]
    with pytest.raises(ValueError, match=r"index 4 reads as Anthropic.*OpenAI chat"):
        compact(messages, max_tokens=10)


def test_compact_rejects_responses_items_after_anthropic_blocks() -> None:
    messages = [a_uses("t1"), a_results("t1"), r_call("a")]
    with pytest.raises(ValueError, match="index 2 reads as OpenAI Responses"):
        compact(messages, max_tokens=10)


def test_compact_rejects_a_message_that_mixes_formats_itself() -> None:
    bad = {**chat_calls("c1"), "content": [{"type": "thinking", "thinking": "x"}]}
    with pytest.raises(ValueError, match="index 0 matches no supported shape"):
        compact([bad], max_tokens=10)


def test_compact_rejects_a_responses_message_with_tool_role() -> None:
    with pytest.raises(ValueError, match="role 'tool'"):
        compact([{"type": "message", "role": "tool", "content": "x"}], max_tokens=10)


@pytest.mark.parametrize("value", [-1, -3.0])
def test_compact_rejects_a_negative_count(value: Any) -> None:
    with pytest.raises(ValueError, match=r"non-negative int.*index 0"):
        compact([text("user")], max_tokens=10, count_tokens=lambda m: value)


@pytest.mark.parametrize("value", [2.5, "3", None, True, math.nan, math.inf])
def test_compact_rejects_a_count_that_is_not_an_int(value: Any) -> None:
    with pytest.raises(TypeError, match="non-negative int"):
        compact([text("user")], max_tokens=10, count_tokens=lambda m: value)


def test_compact_accepts_an_integral_float_count() -> None:
    result = compact([text("user")], max_tokens=10, count_tokens=lambda m: 3.0)  # type: ignore[arg-type,return-value]
    assert (result.tokens_before, type(result.tokens_before)) == (3, int)


def test_estimate_tokens_rejects_a_negative_count() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        estimate_tokens(text("user"), lambda m: -2)


def test_compact_with_summary_checks_the_summary_count() -> None:
    counts = iter([1, 1, 1, -1])
    with pytest.raises(ValueError, match="summary message"):
        compact_with_summary(
            [text("user"), text("user"), text("user")],
            max_tokens=2,
            keep_head=0,
            keep_tail=1,
            count_tokens=lambda m: next(counts),
            summarize=lambda d: "s",
        )


@pytest.mark.parametrize(
    ("name", "value", "error"),
    [
        ("keep_head", -1, ValueError),
        ("keep_tail", -2, ValueError),
        ("keep_head", 1.5, TypeError),
        ("keep_tail", True, TypeError),
        ("keep_head", None, TypeError),
    ],
)
def test_compact_rejects_bad_keep_counts(name: str, value: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match=name):
        compact([text("user")], max_tokens=10, **{name: value})


def test_compact_with_summary_rejects_a_non_callable_summarize() -> None:
    with pytest.raises(TypeError, match="callable"):
        compact_with_summary(readme_messages(), max_tokens=150, summarize="summary")  # type: ignore[arg-type]


def test_compact_empty_list_fits() -> None:
    result = compact([], max_tokens=1)
    assert (result.messages, result.dropped, result.tokens_before, result.fits) == ([], [], 0, True)


# --- the module itself ---------------------------------------------------------------------


def test_group_trim_dir_lists_the_public_names() -> None:
    assert dir(group_trim) == list(group_trim.__all__)
    assert all(hasattr(group_trim, name) for name in group_trim.__all__)


@pytest.mark.parametrize(
    "module", ["group_trim.py", "_wire/formats.py", "_wire/pairing.py", "_wire/sdk_blocks.py"]
)
def test_group_trim_imports_only_the_stdlib_and_its_own_helpers(module: str) -> None:
    source = (Path(group_trim.__file__).parent / module).read_text(encoding="utf-8")
    allowed = {
        "compaction_guard.errors", "compaction_guard",
        # the wire-format table, tool-call pairing and SDK blocks read as params
        "compaction_guard._wire.formats", "compaction_guard._wire.pairing",
        "compaction_guard._wire.sdk_blocks",
    }
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            top = node.module.split(".")[0]
            assert (
                node.module in allowed or top in sys.stdlib_module_names or top == "__future__"
            ), node.module
        elif isinstance(node, ast.Import):
            assert all(alias.name.split(".")[0] in sys.stdlib_module_names for alias in node.names)
