"""Anthropic server-side compaction and the Claude Code SessionStart hook output."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compaction_guard.block import parse_blocks
from compaction_guard.errors import BlockIntegrityError, CodecError
from compaction_guard.guard import Guard
from compaction_guard.integrations.anthropic import (
    session_start_hook_output,
    verify_and_reassert,
)
from compaction_guard.taxonomy import Kind, Mode
from tests.integrations import CAP, CONSTRAINTS, READ_ONLY, assert_one_current_block

MUTATED = f"The user is analysing orders. The budget cap for this run is $5000. {READ_ONLY}"


def _cap_id(guard: Guard) -> str:
    return next(inv.id for inv in guard.invariants() if inv.text == CAP)


def _sdk_paused_response(content: str | None) -> Any:
    beta = pytest.importorskip("anthropic.types.beta")
    block = beta.BetaCompactionBlock(type="compaction", content=content)
    return beta.BetaMessage(
        id="msg_paused", type="message", role="assistant", model="claude-sonnet-4-5",
        content=[block], stop_reason="compaction",
        usage=beta.BetaUsage(input_tokens=160_000, output_tokens=900),
    )


def test_verify_and_reassert_reads_the_sdk_paused_response() -> None:
    guard = Guard(CONSTRAINTS)
    report, continuation = verify_and_reassert(guard, _sdk_paused_response(MUTATED))
    assert report.mode is Mode.REASSERTED
    finding = report.finding(_cap_id(guard))
    assert finding is not None
    assert finding.kind is Kind.MUTATED
    assert guard.last_report is report
    assert_one_current_block([continuation], guard)


def test_verify_and_reassert_takes_the_sdk_compaction_block() -> None:
    beta = pytest.importorskip("anthropic.types.beta")
    guard = Guard(CONSTRAINTS)
    block = beta.BetaCompactionBlock(type="compaction", content=MUTATED)
    report, _ = verify_and_reassert(guard, block)
    expected = Guard(CONSTRAINTS).check(MUTATED)
    assert [f.kind for f in report.findings] == [f.kind for f in expected.findings]


@pytest.mark.parametrize(
    "compaction",
    [
        MUTATED,
        {"type": "compaction", "content": MUTATED, "signature": "sig"},
        {"role": "assistant", "content": [{"type": "compaction", "content": MUTATED}]},
        {"role": "assistant", "content": [
            {"type": "compaction", "content": "an older summary"},
            {"type": "text", "text": "between"},
            {"type": "compaction", "content": MUTATED},
        ]},
    ],
    ids=["text", "block-param", "message-param", "newest-of-two"],
)
def test_verify_and_reassert_accepts_text_and_dict_shapes(compaction: Any) -> None:
    guard = Guard(CONSTRAINTS)
    report, continuation = verify_and_reassert(guard, compaction)
    expected = Guard(CONSTRAINTS).check(MUTATED)
    assert report.mode is Mode.REASSERTED
    assert [f.kind for f in report.findings] == [f.kind for f in expected.findings]
    assert continuation == guard.reassertion_block()


def test_verify_and_reassert_content_none_is_reported_unobserved() -> None:
    """A failed server compaction (content None) is reported, not crashed on."""
    guard = Guard(CONSTRAINTS)
    report, continuation = verify_and_reassert(guard, _sdk_paused_response(None))
    assert report.mode is Mode.UNOBSERVED
    assert [f.kind for f in report.findings] == [Kind.UNVERIFIABLE] * len(CONSTRAINTS)
    assert report.note is not None
    assert "None" in report.note
    assert_one_current_block([continuation], guard)


def test_verify_and_reassert_block_param_without_content_is_reported_unobserved() -> None:
    guard = Guard(CONSTRAINTS)
    report, _ = verify_and_reassert(guard, {"type": "compaction", "encrypted_content": "x"})
    assert report.mode is Mode.UNOBSERVED


def test_verify_and_reassert_empty_summary_reports_every_constraint_dropped() -> None:
    """Documented outcome: an empty summary is checked and noted; nothing survived it."""
    guard = Guard(CONSTRAINTS)
    report, continuation = verify_and_reassert(guard, "")
    assert report.mode is Mode.REASSERTED
    assert report.note == "the summary text is empty"
    assert [f.kind for f in report.findings] == [Kind.DROPPED] * len(CONSTRAINTS)
    assert_one_current_block([continuation], guard)


@pytest.mark.parametrize(
    ("compaction", "match"),
    [
        ({"role": "assistant", "content": [{"type": "text", "text": "hi"}]}, "no compaction"),
        ({"type": "compaction", "content": 5}, "content is a int"),
        (42, "got int"),
        ({"type": "text", "text": "hi"}, "got dict"),
    ],
    ids=["message-without-compaction", "content-not-text", "int", "other-block"],
)
def test_verify_and_reassert_refuses_other_shapes(compaction: Any, match: str) -> None:
    guard = Guard(CONSTRAINTS)
    with pytest.raises(CodecError, match=match):
        verify_and_reassert(guard, compaction)
    assert guard.last_report is None


def test_verify_and_reassert_holds_the_host_to_the_block() -> None:
    guard = Guard(CONSTRAINTS)
    _, continuation = verify_and_reassert(guard, MUTATED)
    guard.assert_present([{"role": "user", "content": continuation}])
    with pytest.raises(BlockIntegrityError):
        guard.assert_present([{"role": "user", "content": "continue"}])


def test_verify_and_reassert_empty_registry_returns_no_text() -> None:
    report, continuation = verify_and_reassert(Guard(), MUTATED)
    assert continuation == ""
    assert report.findings == ()


def test_session_start_hook_output_shape() -> None:
    guard = Guard(CONSTRAINTS)
    payload = json.loads(session_start_hook_output(guard))
    assert list(payload) == ["hookSpecificOutput"]
    output = payload["hookSpecificOutput"]
    assert set(output) == {"hookEventName", "additionalContext"}
    assert output["hookEventName"] == "SessionStart"
    assert output["additionalContext"] == guard.reassertion_block()
    assert_one_current_block([output["additionalContext"]], guard)
    (block,) = parse_blocks(output["additionalContext"])
    assert [text for _, text in block.entries] == list(CONSTRAINTS)


def test_session_start_hook_output_reports_unobserved_and_not_repaired() -> None:
    guard = Guard(CONSTRAINTS)
    session_start_hook_output(guard)
    report = guard.last_report
    assert report is not None
    assert report.mode is Mode.UNOBSERVED
    assert report.repaired is False
    assert [f.kind for f in report.findings] == [Kind.UNVERIFIABLE] * len(CONSTRAINTS)
