"""OpenAI Agents SDK: GuardedSession around the SDK's own sessions, driven by its Runner."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import pytest

pytest.importorskip("agents")

import httpx2
from agents import Agent, RunConfig, Runner, SQLiteSession
from agents.items import ModelResponse
from agents.memory import OpenAIResponsesCompactionSession, Session, SessionSettings
from agents.models.interface import Model
from agents.usage import Usage
from openai import AsyncOpenAI
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

from compaction_guard.errors import BlockIntegrityError, CodecError, InvariantViolation
from compaction_guard.guard import Guard
from compaction_guard.integrations.openai_agents import GuardedSession
from compaction_guard.taxonomy import Kind, Mode, Policy
from tests.integrations import (
    CAP,
    CONSTRAINTS,
    READ_ONLY,
    assert_cap_reported_mutated,
    assert_one_current_block,
    blocks_in,
)

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

NO_TRACING = RunConfig(tracing_disabled=True)


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[SQLiteSession]:
    session = SQLiteSession("session-1", tmp_path / "history.db")
    yield session
    session.close()


def _user(text: str) -> Any:
    return {"role": "user", "content": text}


def _assistant(text: str) -> Any:
    return {"type": "message", "role": "assistant", "status": "completed", "id": f"msg-{text}",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _texts(items: list[Any]) -> list[str]:
    return [json.dumps(item) for item in items]


def _block_texts(items: list[Any]) -> list[str]:
    """Each item's own text, so a block is counted once per item that holds it."""
    texts = []
    for item in items:
        content = item.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(part.get("text", "") for part in content if isinstance(part, dict))
    return texts


def summarise(items: list[Any]) -> list[Any]:
    """Keep the newest two items after a summary that turns $500 into $5000."""
    return [_user("Summary so far. The budget cap for this run is $5000."), *items[-2:]]


async def _fill(session: GuardedSession, turns: int) -> None:
    for turn in range(turns):
        await session.add_items([_user(f"question {turn} " + "x" * 80), _assistant(f"a{turn}")])


def test_guarded_session_add_get_pop_clear(sqlite: SQLiteSession) -> None:
    session = GuardedSession(sqlite, Guard(CONSTRAINTS))

    async def run() -> None:
        await session.add_items([_user("one"), _assistant("two")])
        await session.add_items([_user("three")])
        assert await session.get_items() == [_user("one"), _assistant("two"), _user("three")]
        assert await session.get_items(limit=1) == [_user("three")]
        assert await session.pop_item() == _user("three")
        assert await sqlite.get_items() == [_user("one"), _assistant("two")]
        await session.clear_session()
        assert await session.get_items() == []
        assert await session.pop_item() is None

    asyncio.run(run())


def test_guarded_session_is_an_sdk_session(sqlite: SQLiteSession) -> None:
    session = GuardedSession(sqlite, Guard(CONSTRAINTS))
    assert isinstance(session, Session)
    assert session.session_id == "session-1"
    session.session_settings = SessionSettings(limit=2)
    assert sqlite.session_settings == SessionSettings(limit=2)


def test_guarded_session_compacts_past_trigger_with_one_verified_block(
    sqlite: SQLiteSession,
) -> None:
    guard = Guard(CONSTRAINTS)
    session = GuardedSession(sqlite, guard, compactor=summarise, trigger_tokens=200)

    async def run() -> list[Any]:
        await session.add_items([_user(f"{CAP} {READ_ONLY}")])
        await _fill(session, 4)
        return await session.get_items()

    items = asyncio.run(run())
    assert_one_current_block(_block_texts(items), guard)
    assert items[0] == _user("Summary so far. The budget cap for this run is $5000.")
    assert_cap_reported_mutated(guard)


def test_guarded_session_under_trigger_leaves_history_alone(sqlite: SQLiteSession) -> None:
    guard = Guard(CONSTRAINTS)
    session = GuardedSession(sqlite, guard, compactor=summarise, trigger_tokens=100_000)
    asyncio.run(_fill(session, 3))
    assert len(asyncio.run(sqlite.get_items())) == 6
    assert guard.last_report is None


def test_guarded_session_async_compactor(sqlite: SQLiteSession) -> None:
    guard = Guard(CONSTRAINTS)

    async def asummarise(items: list[Any]) -> list[Any]:
        await asyncio.sleep(0)
        return summarise(items)

    session = GuardedSession(sqlite, guard, compactor=asummarise, trigger_tokens=200)
    asyncio.run(_fill(session, 4))
    assert_one_current_block(_block_texts(asyncio.run(session.get_items())), guard)


def test_guarded_session_full_fetch_raises_when_block_is_gone(sqlite: SQLiteSession) -> None:
    guard = Guard(CONSTRAINTS)
    session = GuardedSession(sqlite, guard, compactor=summarise, trigger_tokens=200)

    async def run() -> None:
        await _fill(session, 4)
        items = await sqlite.get_items()
        await sqlite.clear_session()
        await sqlite.add_items([item for item in items if not blocks_in(_texts([item]))])
        with pytest.raises(BlockIntegrityError, match="gone"):  # a limited fetch too
            await session.get_items(limit=2)
        with pytest.raises(BlockIntegrityError, match="missing"):
            await session.get_items()

    asyncio.run(run())


def test_guarded_session_cleared_session_owes_no_block(sqlite: SQLiteSession) -> None:
    session = GuardedSession(sqlite, Guard(CONSTRAINTS), compactor=summarise, trigger_tokens=200)

    async def run() -> list[Any]:
        await _fill(session, 4)
        await session.clear_session()
        return await session.get_items()

    assert asyncio.run(run()) == []


def test_guarded_session_compactor_error_leaves_history_as_it_was(sqlite: SQLiteSession) -> None:
    def broken(items: list[Any]) -> list[Any]:
        raise RuntimeError("summariser is down")

    session = GuardedSession(sqlite, Guard(CONSTRAINTS), compactor=broken, trigger_tokens=200)

    async def run() -> None:
        await _fill(session, 1)
        before = await sqlite.get_items()
        new = [_user("y" * 900)]
        with pytest.raises(RuntimeError, match="summariser is down"):
            await session.add_items(new)
        assert await sqlite.get_items() == [*before, *new]

    asyncio.run(run())


@pytest.mark.parametrize("nothing", [None, []], ids=["none", "empty-list"])
def test_guarded_session_compactor_returning_nothing_leaves_history_as_it_was(
    sqlite: SQLiteSession, nothing: list[Any] | None,
) -> None:
    session = GuardedSession(
        sqlite, Guard(CONSTRAINTS), compactor=lambda items: nothing,  # type: ignore[arg-type,return-value]
        trigger_tokens=200,
    )

    async def run() -> None:
        await _fill(session, 1)
        before = await sqlite.get_items()
        with pytest.raises(CodecError, match="left as it was"):
            await session.add_items([_user("y" * 900)])
        assert await sqlite.get_items() == [*before, _user("y" * 900)]

    asyncio.run(run())


def test_guarded_session_raise_policy_refusal_leaves_history_as_it_was(
    sqlite: SQLiteSession,
) -> None:
    guard = Guard(CONSTRAINTS, policy=Policy.RAISE)
    session = GuardedSession(sqlite, guard, compactor=summarise, trigger_tokens=200)

    async def run() -> None:
        await session.add_items([_user(f"{CAP} {READ_ONLY}"), _assistant("noted")])
        before = await sqlite.get_items()
        with pytest.raises(InvariantViolation):
            await session.add_items([_user("y" * 900)])
        assert await sqlite.get_items() == [*before, _user("y" * 900)]

    asyncio.run(run())


class _FailingWrites(SQLiteSession):
    """A SQLite session whose add_items fails once, for the batch that has `fail_on` items."""

    fail_on: int | None = None

    async def add_items(self, items: list[Any]) -> None:
        if len(items) == self.fail_on:
            self.fail_on = None
            raise OSError("disk full")
        await super().add_items(items)


def test_guarded_session_failed_replacement_restores_history(tmp_path: Path) -> None:
    inner = _FailingWrites("session-1", tmp_path / "history.db")
    session = GuardedSession(inner, Guard(CONSTRAINTS), compactor=summarise, trigger_tokens=200)

    async def run() -> None:
        await _fill(session, 1)
        before = await inner.get_items()
        inner.fail_on = 4  # summary + two kept items + the block
        with pytest.raises(OSError, match="disk full"):
            await session.add_items([_user("y" * 900)])
        assert await inner.get_items() == [*before, _user("y" * 900)]

    try:
        asyncio.run(run())
    finally:
        inner.close()


def test_guarded_session_concurrent_add_items_lose_nothing(sqlite: SQLiteSession) -> None:
    guard = Guard(CONSTRAINTS)
    compacted: list[Any] = []

    async def keep_tail(items: list[Any]) -> list[Any]:
        # Everything the summary replaces is recorded, so nothing can vanish unseen; the
        # pause lets the other writer in while this compaction is in flight.
        compacted.extend(items[:-2])
        await asyncio.sleep(0.002)
        return [_user("Summary."), *items[-2:]]

    session = GuardedSession(sqlite, guard, compactor=keep_tail, trigger_tokens=300)

    async def writer(name: str) -> None:
        for turn in range(15):
            await session.add_items([_user(f"{name}-{turn} " + "z" * 60)])
            await asyncio.sleep(0)

    async def run() -> list[Any]:
        await asyncio.gather(writer("a"), writer("b"))
        return await session.get_items()

    final = asyncio.run(run())
    assert guard.last_report is not None, "no compaction ran; the test proves nothing"
    seen = {json.dumps(item) for item in [*compacted, *final]}
    for name in ("a", "b"):
        for turn in range(15):
            assert json.dumps(_user(f"{name}-{turn} " + "z" * 60)) in seen
    assert_one_current_block(_block_texts(final), guard)


def test_guarded_session_non_mapping_item_raises_and_stores_nothing(sqlite: SQLiteSession) -> None:
    session = GuardedSession(sqlite, Guard(CONSTRAINTS))

    async def run() -> None:
        with pytest.raises(TypeError, match="item 1 is a str, not a mapping"):
            await session.add_items([_user("fine"), "not a mapping"])  # type: ignore[list-item]
        assert await sqlite.get_items() == []

    asyncio.run(run())


@pytest.mark.parametrize(("value", "error"), [(0, ValueError), (-5, ValueError),
                                               (1.5, TypeError), (True, TypeError)])
def test_guarded_session_rejects_bad_trigger_tokens(
    sqlite: SQLiteSession, value: Any, error: type[Exception],
) -> None:
    with pytest.raises(error, match="trigger_tokens"):
        GuardedSession(sqlite, Guard(CONSTRAINTS), compactor=summarise, trigger_tokens=value)


class RecordingModel(Model):
    """An Agents SDK model that answers every call and records the input it was given."""

    def __init__(self) -> None:
        self.inputs: list[list[Any]] = []

    async def get_response(  # noqa: PLR0917 - the SDK's signature
        self, system_instructions: Any, input: Any, model_settings: Any,  # noqa: A002
        tools: Any, output_schema: Any, handoffs: Any, tracing: Any, **kwargs: Any,
    ) -> ModelResponse:
        self.inputs.append(list(input) if isinstance(input, list) else [_user(input)])
        turn = len(self.inputs)
        text = ResponseOutputText(type="output_text", text=f"answer {turn} " + "y" * 80,
                                  annotations=[])
        message = ResponseOutputMessage(id=f"msg_{turn}", type="message", role="assistant",
                                        status="completed", content=[text])
        return ModelResponse(output=[message], usage=Usage(), response_id=f"resp_{turn}")

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def _assert_block_from_first_compaction_on(model: RecordingModel, guard: Guard) -> None:
    first = next(
        (i for i, seen in enumerate(model.inputs) if blocks_in(_block_texts(seen))), None,
    )
    assert first is not None, "no model call saw a block; no compaction ran"
    for seen in model.inputs[first:]:
        assert_one_current_block(_block_texts(seen), guard)


def test_guarded_session_runner_with_compactor(sqlite: SQLiteSession) -> None:
    guard = Guard(CONSTRAINTS)
    session = GuardedSession(sqlite, guard, compactor=summarise, trigger_tokens=200)
    model = RecordingModel()
    agent = Agent(name="analyst", instructions="Answer briefly.", model=model)

    async def run() -> None:
        await Runner.run(agent, f"{CAP} {READ_ONLY}", session=session, run_config=NO_TRACING)
        for turn in range(6):
            await Runner.run(agent, f"question {turn}", session=session, run_config=NO_TRACING)

    asyncio.run(run())
    _assert_block_from_first_compaction_on(model, guard)
    assert guard.last_report is not None
    assert guard.last_report.mode is Mode.OWNED


class CompactServer:
    """Answers POST /responses/compact like the API: user messages, then one opaque item.

    With `keep_users=False` it drops the user messages too, as a server might.
    """

    def __init__(self, *, keep_users: bool = True) -> None:
        self.keep_users = keep_users
        self.calls = 0

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        assert request.url.path.endswith("/responses/compact")
        self.calls += 1
        body = json.loads(request.content)
        output: list[dict[str, Any]] = []
        for item in body.get("input", []):
            if self.keep_users and item.get("role") == "user":
                content = item["content"]
                if isinstance(content, str):
                    content = [{"type": "input_text", "text": content}]
                output.append({"type": "message", "role": "user", "status": "completed",
                               "id": f"msg_u{len(output)}", "content": content})
        output.append({"type": "compaction", "id": f"cmp_{self.calls}",
                       "encrypted_content": "opaque-summary"})
        usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                 "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens_details": {"reasoning_tokens": 0}}
        return httpx2.Response(200, json={"id": f"cmp_resp_{self.calls}", "created_at": 0,
                                         "object": "response.compaction", "output": output,
                                         "usage": usage})


def _server_session(sqlite: SQLiteSession, server: CompactServer,
                    threshold: int = 2) -> tuple[OpenAIResponsesCompactionSession, AsyncOpenAI]:
    client = AsyncOpenAI(
        api_key="test-key", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(server)),
    )
    inner = OpenAIResponsesCompactionSession(
        "session-1", sqlite, client=client,
        should_trigger_compaction=lambda ctx: len(ctx["compaction_candidate_items"]) >= threshold,
    )
    return inner, client


def test_guarded_session_unobserved_reports_and_appends_block(sqlite: SQLiteSession) -> None:
    guard = Guard(CONSTRAINTS)
    server = CompactServer()
    inner, client = _server_session(sqlite, server)
    session = GuardedSession(inner, guard)

    async def run() -> list[Any]:
        await session.add_items([_user(f"{CAP} {READ_ONLY}"), _assistant("noted")])
        await session.add_items([_user("next"), _assistant("done")])
        await session.run_compaction({"force": True})
        await client.close()
        return await session.get_items()

    items = asyncio.run(run())
    assert server.calls == 1
    assert items[-1]["role"] == "user"
    assert blocks_in(_block_texts(items[-1:]))
    assert_one_current_block(_block_texts(items), guard)
    report = guard.last_report
    assert report is not None
    assert report.mode is Mode.UNOBSERVED
    assert not report.repaired
    assert {f.kind for f in report.findings} == {Kind.UNVERIFIABLE}
    assert len(report.findings) == len(CONSTRAINTS)


def test_guarded_session_unobserved_appends_nothing_while_block_verifies(
    sqlite: SQLiteSession,
) -> None:
    guard = Guard(CONSTRAINTS)
    inner, client = _server_session(sqlite, CompactServer())
    session = GuardedSession(inner, guard)

    async def run() -> list[Any]:
        for turn in range(3):
            await session.add_items([_user(f"q{turn}"), _assistant(f"a{turn}")])
            await session.run_compaction({"force": True})
        await client.close()
        return await session.get_items()

    items = asyncio.run(run())
    assert_one_current_block(_block_texts(items), guard)


def test_guarded_session_unobserved_reappends_when_the_server_drops_it(
    sqlite: SQLiteSession,
) -> None:
    guard = Guard(CONSTRAINTS)
    server = CompactServer(keep_users=False)
    inner, client = _server_session(sqlite, server)
    session = GuardedSession(inner, guard)

    async def run() -> list[Any]:
        await session.add_items([_user("q0"), _assistant("a0")])
        await session.run_compaction({"force": True})
        await session.add_items([_user("q1"), _assistant("a1")])
        await session.run_compaction({"force": True})
        await client.close()
        return await session.get_items()

    items = asyncio.run(run())
    assert server.calls == 2
    assert [item.get("type") for item in items] == ["compaction", "message"]
    assert_one_current_block(_block_texts(items), guard)


def test_guarded_session_unobserved_reappends_after_the_registry_changes(
    sqlite: SQLiteSession,
) -> None:
    # Server-held history cannot be edited: the superseded block is foreign guard text,
    # which this host chooses to act on through reports instead of assert_present raising.
    guard = Guard([CAP], foreign_blocks="report")
    inner, client = _server_session(sqlite, CompactServer())
    session = GuardedSession(inner, guard)

    async def run() -> list[Any]:
        await session.add_items([_user("q0"), _assistant("a0")])
        await session.run_compaction({"force": True})
        guard.add(READ_ONLY)
        await session.add_items([_user("q1"), _assistant("a1")])
        await session.run_compaction({"force": True})
        await client.close()
        return await session.get_items()

    items = asyncio.run(run())
    found = blocks_in(_block_texts(items))
    assert len(found) == 2  # the superseded block stays in server-compacted history
    assert found[-1].header_checksum == guard.block_checksum
    guard.assert_present(items)
    with pytest.raises(BlockIntegrityError, match="besides the current block"):
        Guard([CAP, READ_ONLY]).assert_present(items)


def test_guarded_session_unobserved_no_compaction_no_report(sqlite: SQLiteSession) -> None:
    guard = Guard(CONSTRAINTS)
    inner, client = _server_session(sqlite, CompactServer(), threshold=100)
    session = GuardedSession(inner, guard)

    async def run() -> list[Any]:
        await session.add_items([_user("q0"), _assistant("a0")])
        await session.run_compaction()
        await client.close()
        return await session.get_items()

    assert len(asyncio.run(run())) == 2
    assert guard.last_report is None


def test_guarded_session_runner_around_server_compaction(sqlite: SQLiteSession) -> None:
    guard = Guard(CONSTRAINTS)
    server = CompactServer()
    inner, client = _server_session(sqlite, server)
    session = GuardedSession(inner, guard)
    model = RecordingModel()
    agent = Agent(name="analyst", instructions="Answer briefly.", model=model)

    async def run() -> None:
        for turn in range(5):
            await Runner.run(agent, f"question {turn}", session=session, run_config=NO_TRACING)
        await client.close()

    asyncio.run(run())
    assert server.calls >= 2
    _assert_block_from_first_compaction_on(model, guard)
    assert guard.last_report is not None
    assert guard.last_report.mode is Mode.UNOBSERVED


def test_guarded_session_without_compactor_or_server_compaction_does_nothing(
    sqlite: SQLiteSession,
) -> None:
    guard = Guard(CONSTRAINTS)
    session = GuardedSession(sqlite, guard)

    async def run() -> list[Any]:
        await _fill(session, 3)
        await session.run_compaction({"force": True})
        return await session.get_items()

    assert len(asyncio.run(run())) == 6
    assert guard.last_report is None
