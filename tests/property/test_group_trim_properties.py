from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compaction_guard.group_trim import (
    CompactResult,
    compact,
    compact_with_summary,
    estimate_tokens,
    validate,
)
from tests.property.strategies_trim import FUTURE_CALL, conversations

pytestmark = pytest.mark.property


@dataclass(frozen=True)
class Case:
    messages: list[dict[str, Any]]
    max_tokens: int
    keep_head: int
    keep_tail: int
    protected: frozenset[int]  # ids of messages protect() answers True for

    def protect(self, message: Any) -> bool:
        return id(message) in self.protected

    def run(self, messages: list[Any] | None = None) -> CompactResult:
        return compact(
            self.messages if messages is None else messages,
            max_tokens=self.max_tokens,
            keep_head=self.keep_head,
            keep_tail=self.keep_tail,
            protect=self.protect,
        )


@st.composite
def cases(draw: st.DrawFn) -> Case:
    messages = draw(conversations)
    total = sum(map(estimate_tokens, messages))
    fraction = draw(st.floats(min_value=0.0, max_value=1.2))
    chosen = draw(st.sets(st.integers(0, len(messages) - 1), max_size=2)) if messages else set()
    return Case(
        messages=messages,
        max_tokens=max(1, int(total * fraction)),
        keep_head=draw(st.integers(min_value=0, max_value=3)),
        keep_tail=draw(st.integers(min_value=0, max_value=6)),
        protected=frozenset(id(messages[index]) for index in chosen),
    )


def is_subsequence(part: list[Any], whole: list[Any]) -> bool:
    position = iter(whole)
    return all(any(item is other for other in position) for item in part)


@given(conversations)
def test_strategies_draw_valid_conversations(messages: list[dict[str, Any]]) -> None:
    assert validate(messages) == []


@given(cases())
def test_compact_output_always_validates(case: Case) -> None:
    assert validate(case.run().messages) == []


@given(cases())
def test_compact_keeps_order_and_identity(case: Case) -> None:
    result = case.run()
    assert is_subsequence(result.messages, case.messages)
    assert is_subsequence(result.dropped, case.messages)


@given(cases())
def test_compact_dropped_plus_kept_is_the_input_as_a_multiset(case: Case) -> None:
    result = case.run()
    assert Counter(map(id, result.messages + result.dropped)) == Counter(map(id, case.messages))


@given(cases())
def test_compact_returns_fitting_input_unchanged(case: Case) -> None:
    result = case.run()
    if result.tokens_before <= case.max_tokens:
        assert [id(m) for m in result.messages] == [id(m) for m in case.messages]
        assert result.dropped == []
        assert result.fits


@given(cases())
def test_compact_token_counts_are_sums_over_the_lists(case: Case) -> None:
    result = case.run()
    assert result.tokens_before == sum(map(estimate_tokens, case.messages))
    assert result.tokens_after == sum(map(estimate_tokens, result.messages))
    assert result.fits == (result.tokens_after <= case.max_tokens)


@given(cases())
def test_compact_is_idempotent(case: Case) -> None:
    once = case.run()
    twice = case.run(once.messages)
    assert [id(m) for m in twice.messages] == [id(m) for m in once.messages]
    assert twice.dropped == []


@given(cases())
def test_compact_never_drops_head_tail_or_protected_messages(case: Case) -> None:
    result = case.run()
    dropped = {id(m) for m in result.dropped}
    head = case.messages[: case.keep_head]
    tail = case.messages[len(case.messages) - case.keep_tail :] if case.keep_tail else []
    assert not dropped & {id(m) for m in head + tail}
    assert not dropped & case.protected


@given(cases())
def test_compact_keeps_the_latest_responses_compaction_item(case: Case) -> None:
    compactions = [m for m in case.messages if m.get("type") == "compaction"]
    if compactions:
        assert any(m is compactions[-1] for m in case.run().messages)


def _future_ids(messages: list[Any], kind: str) -> set[Any]:
    return {m.get("call_id", m.get("id")) for m in messages if m.get("type") == kind}


@given(cases())
def test_compact_keeps_calls_of_an_unknown_type_with_their_outputs(case: Case) -> None:
    kept = case.run().messages
    call_type, output_type = FUTURE_CALL
    assert _future_ids(kept, output_type) == _future_ids(kept, call_type)


@given(cases(), st.text(max_size=80))
def test_compact_with_summary_validates_and_counts_the_summary(case: Case, summary: str) -> None:
    result = compact_with_summary(
        case.messages,
        max_tokens=case.max_tokens,
        keep_head=case.keep_head,
        keep_tail=case.keep_tail,
        protect=case.protect,
        summarize=lambda dropped: summary,
    )
    assert validate(result.messages) == []
    assert result.tokens_after == sum(map(estimate_tokens, result.messages))
    assert result.fits == (result.tokens_after <= case.max_tokens)
    originals = {id(m) for m in case.messages}
    added = [m for m in result.messages if id(m) not in originals]
    expected = [{"role": "user", "content": summary}] if result.dropped else []
    assert added == expected
    kept = [m for m in result.messages if id(m) in originals]
    assert Counter(map(id, kept + result.dropped)) == Counter(map(id, case.messages))
