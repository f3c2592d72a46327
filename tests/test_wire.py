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
