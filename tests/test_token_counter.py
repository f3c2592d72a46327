"""One token counter: Guard(count_tokens=) sizes the block and compact(max_tokens=) alike."""

import warnings

import pytest

import compaction_guard as cg
from compaction_guard.detectors.lexical import LexicalDetector

RULE = "The budget cap for this run is $500."


def _history() -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You are an agent."},
        {"role": "user", "content": "Please look at the CSV export from Tuesday."},
        {"role": "assistant", "content": "Reading it now; 40 rows have a blank region."},
        {"role": "user", "content": "IMAGE " * 12},  # short in characters, costly to a vision model
        {"role": "assistant", "content": "The image shows the same blank region."},
        {"role": "user", "content": "Fix the region column, please."},
    ]


def _vision_count(message: object) -> int:
    """A counter that knows image parts are expensive, which chars/4 cannot see."""
    text = message if isinstance(message, str) else str(message)
    return 800 if "IMAGE" in text else max(1, len(text) // 4)


def _guard(**kwargs: object) -> cg.Guard:
    return cg.Guard([RULE], detectors=[LexicalDetector()], **kwargs)  # type: ignore[arg-type]


def test_a_custom_counter_changes_what_compact_max_tokens_keeps() -> None:
    by_chars = _guard().compact(_history(), compactor=lambda m: m, max_tokens=300)
    by_vision = _guard(count_tokens=_vision_count).compact(
        _history(), compactor=lambda m: m, max_tokens=300,
    )
    assert any("IMAGE" in m["content"] for m in by_chars)
    assert not any("IMAGE" in m["content"] for m in by_vision)
    assert any(m["content"] == "Fix the region column, please." for m in by_vision)
    assert len(by_vision) < len(by_chars)


def test_the_report_counts_with_the_guards_counter() -> None:
    guard = _guard(count_tokens=_vision_count)
    out = guard.compact(_history(), compactor=lambda m: m, max_tokens=300)
    report = guard.last_report
    assert report is not None
    assert report.fits is True
    assert report.tokens_before is not None
    assert report.tokens_before >= 800
    assert report.tokens_after == sum(_vision_count(m) for m in out)


def test_the_block_budget_uses_the_same_counter() -> None:
    calls: list[object] = []

    def count(message: object) -> int:
        calls.append(message)
        return 400

    guard = cg.Guard(detectors=[LexicalDetector()], count_tokens=count, max_block_tokens=1024)
    guard.add(RULE)
    assert all(isinstance(c, str) for c in calls)
    assert guard.budget.used >= 400
    guard.add("Never write to orders_prod.")
    with pytest.raises(cg.BudgetExceeded):
        guard.add("Ask before deleting anything.")


def test_a_counter_that_returns_no_int_says_what_to_return() -> None:
    with pytest.raises(TypeError, match="non-negative int"):
        cg.Guard([RULE], detectors=[LexicalDetector()], count_tokens=lambda m: 1.5)  # type: ignore[arg-type,return-value]


def test_count_tokens_must_be_callable() -> None:
    with pytest.raises(TypeError, match="count_tokens must be a callable"):
        _guard(count_tokens=3)


def test_token_estimator_is_a_deprecated_block_only_alias() -> None:
    with pytest.warns(DeprecationWarning, match="count_tokens="):
        guard = _guard(token_estimator=lambda text: 100)
    assert guard.budget.used >= 100
    assert guard.count_tokens is None  # old meaning kept: compact(max_tokens=) still estimates
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _guard().count_tokens is None


def test_both_spellings_at_once_are_refused() -> None:
    with pytest.raises(TypeError, match="count_tokens= only"):
        _guard(count_tokens=len, token_estimator=len)
