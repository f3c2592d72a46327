"""Anthropic through the real SDK: its objects, its HTTP layer (on a mock transport), its runner.

Every request the SDK sends is captured at the transport, so the assertions are about what
the model would see, not about what the adapter returned.
"""

from __future__ import annotations

import asyncio
import json
import typing
from typing import Any

import pytest

from compaction_guard import group_trim
from compaction_guard._wire.sdk_blocks import SDK_BLOCK_TYPES
from compaction_guard.codec import AutoCodec
from compaction_guard.errors import BlockIntegrityError, CodecError
from compaction_guard.guard import Guard
from compaction_guard.taxonomy import Mode
from tests.integrations import CAP, CONSTRAINTS, assert_one_current_block, recipe

anthropic = pytest.importorskip("anthropic")
httpx2 = pytest.importorskip("httpx2")
beta = pytest.importorskip("anthropic.types.beta")

pytestmark = pytest.mark.extras

SUMMARY = f"The user is counting orders. {CAP}"



def visible_texts(messages: list[dict[str, Any]]) -> list[str]:
    """Texts of user/assistant text blocks the API keeps: those after the newest compaction."""
    flat: list[tuple[str, dict[str, Any]]] = []
    for message in messages:
        content = message["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        flat.extend((message["role"], part) for part in parts)
    cut = max((i for i, (_, part) in enumerate(flat) if part["type"] == "compaction"), default=-1)
    return [part["text"] for _, part in flat[cut + 1 :] if part["type"] == "text"]


class FakeAPI:
    """The Messages API: tool calls; a compaction pause (at most two) once `compact_at`
    messages follow the newest compaction; an answer from the sixth request on."""

    def __init__(self, compact_at: int = 3) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.compact_at = compact_at
        self.compactions = 0

    @property
    def compacted(self) -> bool:
        return self.compactions > 0

    def __call__(self, request: Any) -> Any:
        body = json.loads(request.content)
        self.bodies.append(body)
        messages = body["messages"]
        since = next((len(messages) - 1 - i for i, m in enumerate(reversed(messages))
                      if isinstance(m["content"], list)
                      and any(p.get("type") == "compaction" for p in m["content"])),
                     len(messages))
        n = len(self.bodies)
        content: list[dict[str, Any]]
        if "compaction" in body or (self.compactions < 2 and since >= self.compact_at):
            self.compactions += 1
            content, stop = [{"type": "compaction", "content": SUMMARY}], "compaction"
        elif n < 6:
            content = [{"type": "text", "text": "Checking."},
                       {"type": "tool_use", "id": f"toolu_{n}", "name": "count_orders",
                        "input": {"week": str(n)}}]
            stop = "tool_use"
        else:
            content, stop = [{"type": "text", "text": "1,204 orders."}], "end_turn"
        return httpx2.Response(200, json={
            "id": f"msg_{n}", "type": "message", "role": "assistant",
            "model": body["model"], "content": content, "stop_reason": stop,
            "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5},
        })


def client_for(api: FakeAPI, *, asynchronous: bool = False) -> Any:
    if asynchronous:
        transport = httpx2.MockTransport(api)
        return anthropic.AsyncAnthropic(
            api_key="offline", http_client=httpx2.AsyncClient(transport=transport),
        )
    return anthropic.Anthropic(
        api_key="offline", http_client=httpx2.Client(transport=httpx2.MockTransport(api)),
    )


def assert_after_compaction_one_block(api: FakeAPI, guard: Guard) -> None:
    seen = [b for b in api.bodies if any(
        isinstance(m["content"], list) and any(p["type"] == "compaction" for p in m["content"])
        for m in b["messages"])]
    assert seen, "no request carried a compaction block"
    for body in seen:
        assert_one_current_block(visible_texts(body["messages"]), guard)
        assert group_trim.validate(body["messages"]) == []


# --- the README recipe, as a user copies it -------------------------------------------------


def test_readme_recipe_runs_with_sdk_objects_tools_and_a_compaction() -> None:
    """Regression: `response.content` (SDK objects) in the history made assert_present raise."""
    api = FakeAPI()
    namespace: dict[str, Any] = {
        "client": client_for(api),
        "tools": [{"name": "count_orders", "description": "Count orders.",
                   "input_schema": {"type": "object", "properties": {"week": {"type": "string"}}}}],
        "TOOLS": {"count_orders": lambda week: f"{week}: 1204"},
    }
    exec(compile(recipe("anthropic"), "recipe", "exec"), namespace)
    guard: Guard = namespace["guard"]
    assert namespace["report"].mode is Mode.REASSERTED
    assert any(isinstance(p, beta.BetaToolUseBlock)
               for m in namespace["messages"] for p in m["content"] if not isinstance(m["content"], str))
    assert api.compactions == 2
    assert len(api.bodies) >= 6
    assert_after_compaction_one_block(api, guard)
    guard.assert_present(namespace["messages"])


# --- the codec reads and writes SDK objects -------------------------------------------------


def _union_types(union: Any) -> set[str]:
    members = typing.get_args(typing.get_args(union)[0])
    return {typing.get_args(cls.model_fields["type"].annotation)[0] for cls in members}


def test_codec_knows_every_content_block_type_of_the_sdk() -> None:
    assert _union_types(anthropic.types.ContentBlock) <= SDK_BLOCK_TYPES
    assert _union_types(beta.BetaContentBlock) <= SDK_BLOCK_TYPES


def test_codec_renders_sdk_blocks_like_their_params() -> None:
    blocks = [
        beta.BetaThinkingBlock(type="thinking", thinking="hmm", signature="s"),
        beta.BetaTextBlock(type="text", text="Counting now."),
        beta.BetaToolUseBlock(type="tool_use", id="toolu_1", name="count", input={"q": "x"}),
    ]
    objects = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": blocks}]
    params = [{"role": "user", "content": "hi"},
              {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in blocks]}]
    codec = AutoCodec()
    assert codec.render(objects) == codec.render(params)
    assert codec.render(objects).shape == "anthropic"


def test_codec_refuses_an_unknown_sdk_block_by_name() -> None:
    block = beta.BetaTextBlock.model_construct(type="hologram", text="?")
    context = [{"role": "assistant", "content": [block]}]
    with pytest.raises(CodecError, match=r"BetaTextBlock with type 'hologram'"):
        AutoCodec().render(context)
    with pytest.raises(CodecError, match="hologram"):
        AutoCodec().marked_segments(context)


def test_inject_removes_a_block_held_in_an_sdk_text_block() -> None:
    guard = Guard(CONSTRAINTS)
    block = guard.reassertion_block()
    context: list[Any] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [beta.BetaTextBlock(type="text", text=block),
                                          beta.BetaTextBlock(type="text", text="ok")]},
        {"role": "user", "content": "go on"},
    ]
    out: Any = AutoCodec().inject(context, block)
    assert out[1]["content"] == [context[1]["content"][1]]  # the untouched block is the same object
    texts = [s.text for s in AutoCodec().marked_segments(out)]
    assert_one_current_block(texts, guard)


def test_inject_refuses_to_split_an_sdk_tool_use_from_its_result() -> None:
    guard = Guard(CONSTRAINTS)
    use = beta.BetaToolUseBlock(type="tool_use", id="toolu_1", name="count", input={})
    context = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [use]}]
    with pytest.raises(CodecError, match="tool_use without its tool_result"):
        AutoCodec().inject(context, guard.reassertion_block())


# --- context before the newest compaction block is not model-visible ------------------------


def test_a_block_before_the_newest_compaction_does_not_count() -> None:
    """Regression: assert_present passed though the API drops everything before compaction."""
    guard = Guard(CONSTRAINTS)
    block = guard.reassertion_block()
    compaction: Any = {"type": "compaction", "content": SUMMARY}
    context: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "count orders"},
                                     {"type": "text", "text": block}]},
        {"role": "assistant", "content": [compaction]},
    ]
    with pytest.raises(BlockIntegrityError, match="missing"):
        guard.assert_present(context)
    # Earlier in the same message is dropped too.
    same_message = [{"role": "assistant", "content": [
        {"type": "text", "text": block}, compaction, {"type": "text", "text": "Continuing."}]}]
    with pytest.raises(BlockIntegrityError, match="missing"):
        guard.assert_present(same_message)
    after = [*context, {"role": "user", "content": [{"type": "text", "text": block}]}]
    guard.assert_present(after)
    sdk = beta.BetaCompactionBlock(type="compaction", content=SUMMARY)
    with pytest.raises(BlockIntegrityError, match="missing"):
        guard.assert_present([context[0], {"role": "assistant", "content": [sdk]}])


def test_only_the_newest_compaction_cuts() -> None:
    guard = Guard(CONSTRAINTS)
    block = guard.reassertion_block()
    context = [
        {"role": "assistant", "content": [{"type": "compaction", "content": "old summary"}]},
        {"role": "user", "content": [{"type": "text", "text": block}]},
        {"role": "assistant", "content": [{"type": "compaction", "content": SUMMARY}]},
    ]
    with pytest.raises(BlockIntegrityError):
        guard.assert_present(context)
    guard.assert_present([*context, {"role": "user", "content": block}])


def test_the_compaction_summary_is_rendered_as_model_visible_text() -> None:
    rendering = AutoCodec().render(
        [{"role": "assistant", "content": [beta.BetaCompactionBlock(type="compaction",
                                                                    content=SUMMARY)]}],
    )
    assert [s.text for s in rendering.segments] == [SUMMARY]


# --- group_trim keeps the newest compaction block -------------------------------------------


def test_group_trim_never_drops_the_newest_compaction_block() -> None:
    """Regression: the trimmer dropped the message holding Anthropic's compaction summary."""
    filler = "x" * 400
    messages: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    messages += [{"role": "assistant", "content": [{"type": "compaction", "content": SUMMARY}]}]
    for n in range(6):
        messages += [{"role": "user", "content": f"{filler} {n}"},
                     {"role": "assistant", "content": f"{filler} reply {n}"}]
    result = group_trim.trimmer(300, keep_head=1, keep_tail=2)(messages)
    assert len(result) < len(messages)
    assert messages[1] in result


def test_group_trim_reads_sdk_blocks() -> None:
    use = beta.BetaToolUseBlock(type="tool_use", id="toolu_1", name="count", input={})
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [beta.BetaTextBlock(type="text", text="x" * 500), use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": "1"}]},
        {"role": "assistant", "content": [beta.BetaCompactionBlock(type="compaction",
                                                                   content=SUMMARY)]},
        {"role": "user", "content": "more"},
    ]
    assert group_trim.validate(messages) == []
    assert group_trim.estimate_tokens(messages[1]) > 100
    result = group_trim.compact(messages, max_tokens=60, keep_head=1, keep_tail=1)
    assert messages[3] in result.messages
    assert messages[2] not in result.messages  # the pair went as one group
    assert messages[1] not in result.messages


# --- BetaToolRunner's compaction step -------------------------------------------------------


def _paused() -> Any:
    return beta.BetaMessage(
        id="msg_paused", type="message", role="assistant", model="claude-sonnet-5-5",
        content=[beta.BetaCompactionBlock(type="compaction", content=SUMMARY)],
        stop_reason="compaction", usage=beta.BetaUsage(input_tokens=1, output_tokens=1),
    )


def _count_orders_tool() -> Any:
    @anthropic.beta_tool  # type: ignore[untyped-decorator]
    def count_orders(week: str) -> str:
        """Count the orders of one week."""
        return f"{week}: 1204"

    return count_orders


def test_tool_runner_refuses_append_during_compaction() -> None:
    """What the helper works around: appending while the runner compacts raises ValueError."""
    api = FakeAPI(compact_at=99)
    runner = client_for(api).beta.messages.tool_runner(
        model="claude-sonnet-5-5", max_tokens=100, tools=[_count_orders_tool()],
        messages=[{"role": "user", "content": "count"}], betas=["compact-2026-09-04"],
    )
    for message in runner:
        if message.stop_reason == "tool_use":
            runner.compact_before_next_turn()
        if message.stop_reason == "compaction":
            with pytest.raises(ValueError, match="being compacted"):
                runner.append_messages({"role": "user", "content": "block"})


def test_tool_runner_compaction_is_checked_and_the_block_follows_it() -> None:
    from compaction_guard.integrations.anthropic import reassert_in_tool_runner

    guard = Guard(CONSTRAINTS)
    api = FakeAPI(compact_at=99)
    runner = client_for(api).beta.messages.tool_runner(
        model="claude-sonnet-5-5", max_tokens=100, tools=[_count_orders_tool()],
        messages=[{"role": "user", "content": "count"}], betas=["compact-2026-09-04"],
    )
    reports = []
    for message in runner:
        if message.stop_reason == "tool_use" and not api.compacted:
            runner.compact_before_next_turn()
        if message.stop_reason == "compaction":
            reports.append(reassert_in_tool_runner(runner, guard, message))
    assert [r.mode for r in reports] == [Mode.REASSERTED]
    after = api.bodies[api.bodies.index(next(b for b in api.bodies if "compaction" in b)) + 1 :]
    assert after, "the runner sent nothing after compacting"
    assert_after_compaction_one_block(api, guard)


def test_async_tool_runner_compaction_is_checked_and_the_block_follows_it() -> None:
    from compaction_guard.integrations.anthropic import reassert_in_tool_runner

    @anthropic.beta_async_tool  # type: ignore[untyped-decorator]
    async def count_orders(week: str) -> str:
        """Count the orders of one week."""
        return f"{week}: 1204"

    guard = Guard(CONSTRAINTS)
    api = FakeAPI(compact_at=99)
    runner = client_for(api, asynchronous=True).beta.messages.tool_runner(
        model="claude-sonnet-5-5", max_tokens=100, tools=[count_orders],
        messages=[{"role": "user", "content": "count"}], betas=["compact-2026-09-04"],
    )
    modes = []

    async def drive() -> None:
        async for message in runner:
            if message.stop_reason == "tool_use" and not api.compacted:
                runner.compact_before_next_turn()
            if message.stop_reason == "compaction":
                modes.append(reassert_in_tool_runner(runner, guard, message).mode)

    asyncio.run(drive())
    assert modes == [Mode.REASSERTED]
    assert_after_compaction_one_block(api, guard)


def test_reassert_in_tool_runner_refuses_what_is_not_a_runner() -> None:
    from compaction_guard.integrations.anthropic import reassert_in_tool_runner

    with pytest.raises(TypeError, match="BetaToolRunner"):
        reassert_in_tool_runner(object(), Guard(CONSTRAINTS), _paused())
