"""Properties of the detection normal form, the anchors and the lexical tier's soundness."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from compaction_guard.anchors import extract_values, values_equal
from compaction_guard.detectors.lexical import LexicalDetector
from compaction_guard.invariant import Invariant, invariant_id
from compaction_guard.normalize import contains_token, detection_form, tokenize
from compaction_guard.taxonomy import CERTIFYING_KINDS, Kind
from compaction_guard.view import SummaryView

pytestmark = pytest.mark.property

amounts = st.integers(min_value=1, max_value=10**9)
names = st.from_regex(r"[a-z]{2,8}(_[a-z0-9]{1,6}){0,2}", fullmatch=True)
RULES = [
    "The budget cap for this run is ${n}.",
    "Retry failed webhook deliveries at most {n} times.",
    "Keep API usage under {n} calls per minute.",
    "Delete raw audit logs after {n} days.",
    "Uploads larger than {n} MB must be rejected.",
]
FILLER = st.lists(
    st.sampled_from(
        [
            "The scraper moved to the new worker pool.",
            "Two suppliers will send CSV files by email.",
            "Tests pass on the release branch.",
            "The user asked for a weekly digest.",
        ],
    ),
    max_size=4,
)


def value(text: str) -> object:
    found = extract_values(tokenize(detection_form(text)))
    assert len(found) == 1
    return found[0]


@given(st.text())
def test_detection_form_is_idempotent(text: str) -> None:
    once = detection_form(text)
    assert detection_form(once) == once


@given(amounts)
def test_money_with_symbol_and_separators_equals_money_with_code(amount: int) -> None:
    assert values_equal(value(f"${amount:,}"), value(f"{amount} USD"))  # type: ignore[arg-type]


@given(amounts, amounts)
def test_different_amounts_are_never_equal(left: int, right: int) -> None:
    assume(left != right)
    assert not values_equal(value(f"${left:,}"), value(f"${right:,}"))  # type: ignore[arg-type]


@given(names, st.from_regex(r"[a-z0-9]{1,6}", fullmatch=True), st.sampled_from("_-."))
def test_an_identifier_extended_by_a_suffix_never_contains_the_original(
    name: str, suffix: str, joiner: str
) -> None:
    assert not contains_token(f"use {name}{joiner}{suffix} now", name)
    assert contains_token(f"use {name}, now", name)


def classify(rule: str, summary: str) -> Kind:
    outcome = LexicalDetector().detect(
        Invariant(id=invariant_id(rule), text=rule), SummaryView.from_summary(summary)
    )
    return getattr(outcome, "kind", Kind.UNVERIFIABLE)


@given(st.sampled_from(RULES), amounts, FILLER, FILLER)
def test_a_verbatim_copy_among_other_sentences_is_preserved(
    template: str, amount: int, before: list[str], after: list[str]
) -> None:
    rule = template.format(n=amount)
    assert classify(rule, " ".join([*before, rule, *after])) is Kind.PRESERVED


@given(st.sampled_from(RULES), amounts, amounts, FILLER)
def test_a_changed_value_in_a_copy_is_never_certified(
    template: str, amount: int, other: int, filler: list[str]
) -> None:
    assume(amount != other)
    rule, changed = template.format(n=amount), template.format(n=other)
    kind = classify(rule, " ".join([*filler, changed]))
    assert kind not in CERTIFYING_KINDS
    assert kind is Kind.MUTATED


@given(st.sampled_from(RULES), amounts, amounts)
def test_the_original_value_elsewhere_never_vouches_for_a_changed_one(
    template: str, amount: int, other: int
) -> None:
    assume(amount != other)
    rule, changed = template.format(n=amount), template.format(n=other)
    unrelated = f"The invoice total last month was {amount}."
    assert classify(rule, f"{changed} {unrelated}") not in CERTIFYING_KINDS
