"""The judge layer: lenient parsing, span re-verification, and the kinds a judge may issue."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from compaction_guard.detectors.base import Abstain, Detector, DetectorChain, LayerVerdict
from compaction_guard.detectors.judge import JudgeDetector, build_prompt
from compaction_guard.invariant import Invariant
from compaction_guard.taxonomy import Kind, Site
from compaction_guard.view import Passage, SummaryView

MakeInvariant = Callable[[str], Invariant]

RULE = "The budget cap for this run is $500."
SUMMARY = "Summary: the user asked for a sales report.\nSpending is limited to $500 for this run."
VIEW = SummaryView(
    passages=(
        Passage(text=SUMMARY, site=Site.SUMMARY, message=1),
        Passage(text="Tool output: 312 rows exported.", site=Site.RETAINED, message=2, tool=True),
    ),
)


def _answer(kind: str, span: str | None = None) -> Callable[[str], str]:
    payload = {"kind": kind} if span is None else {"kind": kind, "span": span}
    return lambda _prompt: json.dumps(payload)


REFUSALS = [
    pytest.param(
        '{"kind": "paraphrased", "span": "The cap of $500 remains in force."}',
        "does not occur",
        id="span-absent-from-view",
    ),
    pytest.param(
        '{"kind": "weakened", "span": "for this run. Tool output: 312 rows"}',
        "does not occur",
        id="span-across-two-passages",
    ),
    pytest.param(
        '{"kind": "paraphrased", "span": "the user asked for a sales report"}',
        "lacks $500",
        id="paraphrase-span-missing-value",
    ),
    pytest.param(
        '{"kind": "preserved", "span": "Spending is limited to $500 for this run."}',
        "may not issue 'preserved'",
        id="preserved-with-span",
    ),
    pytest.param('{"kind": "preserved"}', "may not issue 'preserved'", id="preserved-no-span"),
    pytest.param('{"kind": "mutated"}', "without citing a span", id="mutated-no-span"),
    pytest.param('{"kind": "mutated", "span": "  "}', "without citing a span", id="mutated-blank"),
    pytest.param('{"kind": "unverifiable"}', "may not issue 'unverifiable'", id="unverifiable"),
    pytest.param('{"kind": "fine", "span": "312 rows"}', "unknown kind", id="unknown-kind"),
    pytest.param('{"kind": 3, "span": "312 rows"}', "not a string", id="kind-not-a-string"),
    pytest.param("It was paraphrased.", "no JSON object", id="no-json"),
]


def _detect(
    judge: Callable[[str], str], make_invariant: MakeInvariant, view: SummaryView = VIEW
) -> LayerVerdict | Abstain:
    return JudgeDetector(judge).detect(make_invariant(RULE), view)


def test_judge_detector_subclasses_the_protocol() -> None:
    assert Detector in JudgeDetector.__mro__
    assert JudgeDetector.layer == "judge"
    assert JudgeDetector(lambda _p: "").unavailable is None


def test_judge_prompt_carries_the_rule_the_context_and_the_answer_form(
    make_invariant: MakeInvariant,
) -> None:
    prompt = build_prompt(make_invariant(RULE), VIEW)
    assert RULE in prompt
    assert SUMMARY in prompt
    assert "[retained]" in prompt
    assert '"span"' in prompt
    assert '"preserved"' not in prompt


def test_judge_receives_the_built_prompt(make_invariant: MakeInvariant) -> None:
    seen: list[str] = []

    def judge(prompt: str) -> str:
        seen.append(prompt)
        return "{}"

    JudgeDetector(judge).detect(make_invariant(RULE), VIEW)
    assert seen == [build_prompt(make_invariant(RULE), VIEW)]


def test_judge_paraphrase_with_a_verified_span_stands(make_invariant: MakeInvariant) -> None:
    outcome = _detect(
        _answer("paraphrased", "Spending is limited to $500 for this run."), make_invariant
    )
    assert isinstance(outcome, LayerVerdict)
    assert outcome.kind is Kind.PARAPHRASED
    assert outcome.rule == "cited_span"
    assert outcome.survived_in == (Site.SUMMARY,)
    assert outcome.at_risk is False
    assert outcome.evidence["span"] == "Spending is limited to $500 for this run."


def test_judge_span_is_compared_with_whitespace_folded(make_invariant: MakeInvariant) -> None:
    span = "sales report. Spending   is limited\n to $500"
    outcome = _detect(_answer("paraphrased", span), make_invariant)
    assert isinstance(outcome, LayerVerdict)


def test_judge_contradiction_with_a_span_in_the_retained_tail_stands(
    make_invariant: MakeInvariant,
) -> None:
    outcome = _detect(_answer("contradicted", "312 rows exported"), make_invariant)
    assert isinstance(outcome, LayerVerdict)
    assert outcome.kind is Kind.CONTRADICTED
    assert outcome.evidence["site"] == "retained"
    assert outcome.survived_in == ()


def test_judge_weakened_surviving_only_in_the_tail_is_at_risk(
    make_invariant: MakeInvariant,
) -> None:
    outcome = _detect(_answer("weakened", "312 rows exported"), make_invariant)
    assert isinstance(outcome, LayerVerdict)
    assert outcome.survived_in == (Site.RETAINED,)
    assert outcome.at_risk is True


def test_judge_dropped_needs_no_span(make_invariant: MakeInvariant) -> None:
    outcome = _detect(_answer("dropped"), make_invariant)
    assert isinstance(outcome, LayerVerdict)
    assert outcome.kind is Kind.DROPPED


def test_judge_dropped_is_refused_when_the_rule_is_in_the_view(
    make_invariant: MakeInvariant,
) -> None:
    view = SummaryView.from_summary(f"Notes.\n{RULE.upper()}")
    outcome = _detect(_answer("dropped"), make_invariant, view)
    assert isinstance(outcome, Abstain)


def test_judge_reply_with_prose_and_a_code_fence_is_parsed(make_invariant: MakeInvariant) -> None:
    reply = 'Let me think {not json}.\n```json\n{"kind": "Contradicted", "span": "312 rows exported"}\n```'
    outcome = _detect(lambda _p: reply, make_invariant)
    assert isinstance(outcome, LayerVerdict)
    assert outcome.kind is Kind.CONTRADICTED


def test_judge_that_raises_abstains_naming_the_exception(make_invariant: MakeInvariant) -> None:
    def judge(_prompt: str) -> str:
        raise TimeoutError("model did not answer in 30 s")

    outcome = _detect(judge, make_invariant)
    assert isinstance(outcome, Abstain)
    assert "TimeoutError" in outcome.reason
    assert "30 s" in outcome.reason


def test_judge_that_raises_does_not_stop_the_chain(make_invariant: MakeInvariant) -> None:
    def judge(_prompt: str) -> str:
        raise RuntimeError("boom")

    result = DetectorChain([JudgeDetector(judge)]).run(make_invariant(RULE), VIEW)
    assert result.decided_by == "chain.exhausted"
    assert "RuntimeError" in result.trail[0]["abstained"]


def test_judge_returning_a_non_string_abstains(make_invariant: MakeInvariant) -> None:
    outcome = _detect(lambda _p: {"kind": "dropped"}, make_invariant)  # type: ignore[arg-type,return-value]
    assert isinstance(outcome, Abstain)


def test_judge_verdict_decides_in_the_chain(make_invariant: MakeInvariant) -> None:
    judge = _answer("paraphrased", "Spending is limited to $500 for this run.")
    result = DetectorChain([JudgeDetector(judge)]).run(make_invariant(RULE), VIEW)
    assert result.decided_by == "judge.cited_span"


def test_judge_must_be_callable() -> None:
    with pytest.raises(TypeError, match="callable"):
        JudgeDetector("gpt")  # type: ignore[arg-type]


@pytest.mark.parametrize(("reply", "expected"), REFUSALS)
def test_judge_refuses_an_answer_it_cannot_verify(
    make_invariant: MakeInvariant, reply: str, expected: str
) -> None:
    outcome = _detect(lambda _p: reply, make_invariant)
    assert isinstance(outcome, Abstain)
    assert expected in outcome.reason
