"""The codec and group_trim read one table of wire formats, so they name the same format."""

from __future__ import annotations

from typing import Any

import pytest

from compaction_guard import group_trim
from compaction_guard._wire.formats import (
    ANTHROPIC,
    CHAT,
    FORMATS,
    RESPONSES,
    detect_format,
    formats_of,
    is_provider_item,
    is_responses_item,
    part_formats,
)
from compaction_guard._wire.pairing import read_groups
from compaction_guard.codec import SHAPES, AutoCodec
from compaction_guard.errors import CodecError

LISTS: list[tuple[list[dict[str, Any]], str]] = [
    ([{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}], "openai-chat"),
    (
        [
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "function": {}}]},
            {"role": "tool", "tool_call_id": "c", "content": "ok"},
        ],
        "openai-chat",
    ),
    (
        [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}],
        "openai-chat",
    ),
    (
        [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]},
            {"type": "function_call", "call_id": "f", "name": "n", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "f", "output": "r"},
        ],
        "openai-responses",
    ),
    (
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
        ],
        "anthropic",
    ),
    (
        [{"role": "user", "content": [{"type": "web_fetch_tool_result", "tool_use_id": "t"}]}],
        "anthropic",
    ),
]


@pytest.mark.parametrize(("messages", "name"), LISTS)
def test_codec_and_group_trim_name_the_same_format(
    messages: list[dict[str, Any]], name: str
) -> None:
    assert AutoCodec().render(messages).shape == name
    assert detect_format(messages).name == name


MIXED: list[list[dict[str, Any]]] = [
    [
        {"role": "user", "content": [{"type": "input_text", "text": "q"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
    ],
    [
        {"role": "system", "content": "s"},
        {"role": "user", "content": [{"type": "image", "source": {}}]},
    ],
    [{"type": "message", "role": "user", "content": "q", "tool_calls": []}],
]


@pytest.mark.parametrize("messages", MIXED)
def test_both_readers_refuse_a_list_that_mixes_formats(messages: list[dict[str, Any]]) -> None:
    with pytest.raises(CodecError):
        AutoCodec().render(messages)
    with pytest.raises(ValueError, match="index"):
        group_trim.validate(messages)


def test_every_format_has_one_name_the_codec_reports() -> None:
    assert [fmt.name for fmt in FORMATS] == ["openai-chat", "openai-responses", "anthropic"]
    assert {fmt.name for fmt in FORMATS} <= set(SHAPES)
    assert len({fmt.bit for fmt in FORMATS}) == len(FORMATS)


def test_content_none_and_chat_fields_narrow_to_chat() -> None:
    assert formats_of({"role": "user", "content": None}) == CHAT.bit
    assert formats_of({"role": "assistant", "content": "x", "tool_calls": []}) == CHAT.bit
    assert formats_of({"type": "message", "role": "user", "content": "x"}) == RESPONSES.bit
    assert formats_of({"type": 5, "role": "user", "content": "x"}) == 0


def test_part_types_narrow_and_unknown_ones_do_not() -> None:
    assert part_formats("code_execution_tool_result") == ANTHROPIC.bit
    assert part_formats("input_text") == RESPONSES.bit
    assert part_formats("text") == CHAT.bit | ANTHROPIC.bit
    every = CHAT.bit | RESPONSES.bit | ANTHROPIC.bit
    assert part_formats("a_future_part") == every
    assert part_formats(None) == every


def test_codec_refuses_an_unknown_responses_item_and_group_trim_keeps_it() -> None:
    items = [{"role": "user", "content": "q"}, {"type": "future_thing", "id": "x"}]
    assert not is_responses_item("future_thing")
    with pytest.raises(CodecError, match="not an OpenAI Responses item type"):
        AutoCodec().render(items)
    assert read_groups(items, detect_format(items)).starts == [0, 1]
    assert group_trim.validate(items) == []


@pytest.mark.parametrize(
    ("kind", "provider"),
    [
        ("reasoning", True),
        ("compaction", True),
        ("mcp_approval_request", True),
        ("function_call_output", True),
        ("a_new_kind_of_call", True),
        ("message", False),
        ("user", False),
        ("assistant", False),
    ],
)
def test_provider_items_are_never_editable(kind: str, *, provider: bool) -> None:
    assert is_provider_item(kind) is provider


def _future(kind: str, call: str) -> dict[str, Any]:
    return {"type": f"future_{kind}", "id": call, "output": "ok"}


def test_calls_of_an_unknown_type_group_with_the_outputs_after_them() -> None:
    user = {"role": "user", "content": "q"}
    calls = [_future("call", "x"), _future("call", "y")]
    outputs = [_future("call_output", "y"), _future("call_output", "x")]
    items = [user, *calls, outputs[0], {"type": "reasoning", "id": "r"}, outputs[1], user]
    walk = read_groups(items, RESPONSES)
    assert walk.starts == [0, 1, 6]
    assert walk.open == (1,)
    assert walk.problems == []


def test_an_unknown_call_after_outputs_starts_a_new_group() -> None:
    user = {"role": "user", "content": "q"}
    first = [_future("call", "x"), _future("call_output", "x")]
    second = [_future("call", "y"), _future("call_output", "y")]
    assert read_groups([user, *first, *second, user], RESPONSES).starts == [0, 1, 3, 5]


def test_a_server_side_item_of_an_unknown_type_is_its_own_group_and_settled() -> None:
    user = {"role": "user", "content": "q"}
    search = {"type": "future_search_call", "id": "fs", "status": "completed"}
    items = [user, search, user, _future("call", "x"), _future("call_output", "x")]
    walk = read_groups(items, RESPONSES)
    assert walk.starts == [0, 1, 2, 3]
    assert walk.open == (3,)


def test_open_names_calls_still_waiting_for_their_answer() -> None:
    call = {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"}
    answered = {"type": "local_shell_call", "call_id": "b"}
    output = {"type": "local_shell_call_output", "id": "b", "output": "ok"}
    request = {"type": "mcp_approval_request", "id": "apr", "name": "t", "arguments": "{}"}
    items = [call, answered, output, request]
    assert read_groups(items, RESPONSES).open == (0, 3)


def test_group_trim_never_keeps_an_unknown_output_without_its_call() -> None:
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "0"},
        _future("call", "x"),
        _future("call_output", "x"),
        {"role": "user", "content": "1"},
        {"role": "user", "content": "2"},
    ]
    result = group_trim.compact(items, max_tokens=4, count_tokens=lambda _: 1, keep_tail=1)
    assert [id(m) for m in result.dropped] == [id(m) for m in items[1:3]]
