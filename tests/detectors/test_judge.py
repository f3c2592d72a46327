"""The judge layer: lenient parsing, span re-verification, and the kinds a judge may issue."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping

import pytest

from compaction_guard.detectors.base import Abstain, Detector, DetectorChain, LayerVerdict
from compaction_guard.detectors.judge import JudgeDetector, build_batch_prompt, build_prompt
from compaction_guard.errors import DetectorContractError
from compaction_guard.invariant import Invariant
from compaction_guard.taxonomy import Kind, Site
from compaction_guard.testing import AdversarialJudge
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
    span = "Spending   is limited\n to $500 for this run."
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


# -- the chain around the judge: closed-world reading, vetoes, only undecided constraints --

CLEAN = Abstain(reason="could not prove the restatement")
DEPARTURE = Abstain(
    reason="a statement on the topic departs", forbid=frozenset({Kind.PRESERVED, Kind.PARAPHRASED}),
)
FLAGGED = Abstain(reason="saw a change", evidence={"closed_world": "departure"})
PARAPHRASE_SPAN = "Spending is limited to $500 for this run."


class StubLexical(Detector):
    """Stands in for the lexical tier: a scripted outcome per constraint text."""

    layer = "lexical"

    def __init__(self, outcomes: dict[str, LayerVerdict | Abstain]) -> None:
        self.outcomes = outcomes

    def detect(self, invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
        return self.outcomes[invariant.text]


def _chain_kind(
    lexical: Abstain | None, make_invariant: MakeInvariant
) -> tuple[str, tuple[Mapping[str, object], ...]]:
    judge = JudgeDetector(_answer("paraphrased", PARAPHRASE_SPAN))
    layers: list[Detector] = [judge] if lexical is None else [StubLexical({RULE: lexical}), judge]
    result = DetectorChain(layers).run(make_invariant(RULE), VIEW)
    return result.decided_by, result.trail


def test_judge_certifies_after_a_clean_closed_world_reading(make_invariant: MakeInvariant) -> None:
    decided_by, _ = _chain_kind(CLEAN, make_invariant)
    assert decided_by == "judge.cited_span"


@pytest.mark.parametrize("lexical", [DEPARTURE, FLAGGED, None], ids=["forbid", "flag", "no-reader"])
def test_judge_certification_is_vetoed_without_a_clean_reading(
    make_invariant: MakeInvariant, lexical: Abstain | None
) -> None:
    decided_by, trail = _chain_kind(lexical, make_invariant)
    assert decided_by == "chain.exhausted"
    assert "vetoed" in trail[-1]


def test_judge_damage_verdict_stands_where_certification_is_forbidden(
    make_invariant: MakeInvariant,
) -> None:
    judge = JudgeDetector(_answer("contradicted", "312 rows exported"))
    result = DetectorChain([StubLexical({RULE: DEPARTURE}), judge]).run(make_invariant(RULE), VIEW)
    assert result.verdict.kind is Kind.CONTRADICTED


def test_judge_is_never_asked_about_a_constraint_an_earlier_layer_decided(
    make_invariant: MakeInvariant,
) -> None:
    other = "Never email customers directly."
    mutated = LayerVerdict(kind=Kind.MUTATED, rule="anchor_diff")
    judge = AdversarialJudge()
    chain = DetectorChain([StubLexical({RULE: mutated, other: CLEAN}), JudgeDetector(judge)])
    results = chain.run_all([make_invariant(RULE), make_invariant(other)], VIEW)
    assert results[0].verdict.kind is Kind.MUTATED
    assert results[0].decided_by == "lexical.anchor_diff"
    assert len(judge.prompts) == 1
    assert RULE not in judge.prompts[0]
    assert other in judge.prompts[0]


def test_chain_refuses_a_detect_many_with_the_wrong_count(make_invariant: MakeInvariant) -> None:
    class Short(Detector):
        layer = "judge"

        def detect(self, invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
            return CLEAN

        def detect_many(self, invariants: object, view: SummaryView) -> list[LayerVerdict | Abstain]:
            return []

    with pytest.raises(DetectorContractError, match="one per constraint"):
        DetectorChain([Short()]).run(make_invariant(RULE), VIEW)


# -- roles: a paraphrase span binds every value and identifier of the rule in its slot --

ROLE_CASES = [
    pytest.param(
        "Canary: at most 5% of traffic until errors stay below 0.1%.",
        "Canary: at most 0.1% of traffic until errors stay below 5%.",
        "swaps 5% and 0.1%",
        id="values-swapped",
    ),
    pytest.param(
        "Copy nightly dumps from s3://raw-dumps to s3://cold-archive.",
        "Copy nightly dumps from s3://cold-archive to s3://raw-dumps.",
        "swaps",
        id="identifiers-swapped",
    ),
    pytest.param(
        "The budget cap for this run is $500.",
        "The budget cap for this run is $500, later raised to $2,000.",
        "states $2,000",
        id="second-value-of-the-dimension",
    ),
    pytest.param(
        "Only query orders_prod with read-only credentials.",
        "Only query orders_prod_archive with read-only credentials.",
        "lacks orders_prod",
        id="identifier-extended",
    ),
    pytest.param(
        "Deploy only to payments-staging.",
        "Deploy only to payments-staging and payments-sandbox.",
        "payments-sandbox",
        id="sibling-identifier-beside",
    ),
    pytest.param(
        "Uploads must not exceed 25 MB.",
        "Uploads must not exceed 25 GB.",
        "lacks 25",
        id="unit-changed",
    ),
    pytest.param(
        "The budget cap for this run is $500.",
        "The budget cap for this run was $500.",
        "says 'was'",
        id="past-tense",
    ),
    pytest.param(
        "Never push directly to main.",
        "Pushing directly to main is no longer forbidden.",
        "says 'longer'",
        id="lifted",
    ),
    pytest.param(
        "Run the integration tests before every merge.",
        "Ideally run the integration tests before every merge.",
        "says 'ideally'",
        id="hedged",
    ),
    pytest.param(
        "Replies to customers must be written in German.",
        "Replies to customers must not be written in German.",
        "negates",
        id="negation-added",
    ),
    pytest.param(
        "Do not ask candidates about their age.",
        "Ask candidates about their age.",
        "drops the rule's negation",
        id="negation-lost",
    ),
    pytest.param(
        "Write files only under the output directory.",
        "Write files under the output directory.",
        "drops the rule's 'only'",
        id="only-lost",
    ),
    pytest.param(
        "Do not ask candidates about age, marital status or religion.",
        "Do not ask candidates about age or religion.",
        "drops 'marital'",
        id="list-item-lost",
    ),
    pytest.param(
        "Replies to customers must be written in German.",
        "Replies to customers must be written in Dutch.",
        "lacks the name 'German'",
        id="name-replaced",
    ),
    pytest.param(
        "Run the full test suite and get it green before merging any branch.",
        "Run the unit tests before merging a branch.",
        "reads as the rule with 'full'",
        id="edited-copy",
    ),
    pytest.param(
        "Take a full backup of inventory_db before any bulk update.",
        "Take a snapshot of inventory_db before any bulk update.",
        "replaced",
        id="edited-copy-anchored",
    ),
    pytest.param(
        "Send customer emails only between 09:00 and 18:00 in the customer's time zone.",
        "Customer emails go out only between 09:00 and 18:00 UTC.",
        "states utc",
        id="value-the-rule-lacks",
    ),
    pytest.param(
        "Keep each answer under 200 words.",
        "Keep each answer under 200 tokens.",
        "lacks 200 words",
        id="counted-noun-changed",
    ),
    pytest.param(
        "The spending limit for this job is $750.",
        "Job notes: the spending limit for this job is 750.",
        "lacks $750",
        id="currency-dropped",
    ),
    pytest.param(
        "Keep the feature flag beta_checkout off in production.",
        "beta_checkout is switched on for the QA cluster.",
        "restates too little",
        id="identifier-alone-names-no-topic",
    ),
    pytest.param(
        "Keep the feature flag beta_checkout off in production.",
        "beta_checkout is flipped on in qa.",
        "restates too little",
        id="identifier-alone-lowercase",
    ),
    pytest.param(
        "Only write files under /var/app/out; the rest of the disk is read-only.",
        "Only write files under /var/app/out or /scratch; the rest of the disk is read-only.",
        "names /scratch",
        id="identifier-appended",
    ),
    pytest.param(
        "Never rebase public branches; squash commits only on your own feature branches.",
        "Never rebase public forks; squash commits only on your own feature branches.",
        "replaced",
        id="edited-copy-word-repeated-later",
    ),
    pytest.param(
        "Run the full test suite and get it green before merging any branch.",
        "Branches get merged after review.",
        "restates too little",
        id="unanchored-rule-thinly-restated",
    ),
    pytest.param(
        "The budget cap for this run is $500.",
        "Spent $500 on supplier quotes so far.",
        "restates too little",
        id="anchored-rule-value-alone",
    ),
    pytest.param(
        "Uploads must not exceed 25 MB.",
        "Uploads must not exceed 25 Mb.",
        "bits",
        id="bytes-written-as-bits",
    ),
]


@pytest.mark.parametrize(("rule", "span", "expected"), ROLE_CASES)
def test_judge_paraphrase_span_must_bind_the_rule_in_its_roles(
    make_invariant: MakeInvariant, rule: str, span: str, expected: str
) -> None:
    view = SummaryView.from_summary(f"Progress notes.\n{span}\nNext: the report.")
    outcome = JudgeDetector(_answer("paraphrased", span)).detect(make_invariant(rule), view)
    assert isinstance(outcome, Abstain)
    assert expected in outcome.reason


@pytest.mark.parametrize(
    ("rule", "span"),
    [
        ("Canary: at most 5% of traffic until errors stay below 0.1%.",
         "Canary traffic stays at or under 5% until the error rate is below 0.1%."),
        ("Deploy only to payments-staging.", "Deployments go to payments staging and nowhere else."),
        ("The budget cap for this run is $500.", "Spend at most 500 USD on this run."),
        ("Send at most 5 requests per second to api.partner-bank.com.",
         "api.partner-bank.com may receive no more than 5 requests per second."),
        ("Pin numpy to 1.26.4; do not upgrade it.", "Keep numpy at 1.26.4; an upgrade is not allowed."),
        ("Never log customer emails.", "I was told: customer emails must never reach the logs."),
    ],
    ids=["same-order", "soft-identifier-spaced", "same-amount-other-spelling", "may-no-more-than",
         "not-allowed", "reported-rule"],
)
def test_judge_paraphrase_span_that_binds_the_rule_stands(
    make_invariant: MakeInvariant, rule: str, span: str
) -> None:
    view = SummaryView.from_summary(span)
    outcome = JudgeDetector(_answer("paraphrased", span)).detect(make_invariant(rule), view)
    assert isinstance(outcome, LayerVerdict), outcome


def test_judge_reply_with_two_different_answers_abstains(make_invariant: MakeInvariant) -> None:
    reply = (
        '{"kind": "mutated", "span": "312 rows exported"} on reflection '
        '{"kind": "paraphrased", "span": "Spending is limited to $500 for this run."}'
    )
    outcome = _detect(lambda _p: reply, make_invariant)
    assert isinstance(outcome, Abstain)
    assert "2 different answers" in outcome.reason


# -- batching and the cache --

OTHER = "Never email customers directly."
OTHER_VIEW = SummaryView(
    passages=(
        *VIEW.passages,
        Passage(text="Customers are never to be emailed directly by the agent.", site=Site.SUMMARY, message=3),
    ),
)


def test_judge_batch_sends_every_undecided_constraint_in_one_call(
    make_invariant: MakeInvariant,
) -> None:
    judge = AdversarialJudge()
    detector = JudgeDetector(judge, batch=True)
    invariants = [make_invariant(RULE), make_invariant(OTHER)]
    outcomes = detector.detect_many(invariants, OTHER_VIEW)
    assert len(judge.prompts) == 1
    assert judge.prompts[0] == build_batch_prompt(invariants, OTHER_VIEW)
    assert [o.kind for o in outcomes if isinstance(o, LayerVerdict)] == [Kind.PARAPHRASED] * 2


def test_judge_batched_and_single_calls_agree(make_invariant: MakeInvariant) -> None:
    invariants = [make_invariant(RULE), make_invariant(OTHER), make_invariant("Keep logs for 30 days.")]
    single = JudgeDetector(AdversarialJudge()).detect_many(invariants, OTHER_VIEW)
    batched = JudgeDetector(AdversarialJudge(), batch=True).detect_many(invariants, OTHER_VIEW)
    assert single == batched
    assert isinstance(single[2], Abstain)


def test_judge_batch_reply_without_an_entry_abstains_for_that_rule(
    make_invariant: MakeInvariant,
) -> None:
    first = make_invariant(RULE)
    reply = json.dumps({"verdicts": [{"id": first.id, "kind": "paraphrased", "span": PARAPHRASE_SPAN}]})
    detector = JudgeDetector(lambda _p: f"Here you go:\n```json\n{reply}\n```", batch=True)
    outcomes = detector.detect_many([first, make_invariant(OTHER)], OTHER_VIEW)
    assert isinstance(outcomes[0], LayerVerdict)
    assert isinstance(outcomes[1], Abstain)
    assert "no entry for" in outcomes[1].reason


def test_judge_batch_reply_that_is_not_the_batch_form_abstains(make_invariant: MakeInvariant) -> None:
    detector = JudgeDetector(lambda _p: "All rules look fine to me.", batch=True)
    outcomes = detector.detect_many([make_invariant(RULE), make_invariant(OTHER)], OTHER_VIEW)
    assert all(isinstance(o, Abstain) and "verdicts" in o.reason for o in outcomes)


def test_judge_answers_are_cached_per_constraint_and_context(make_invariant: MakeInvariant) -> None:
    judge = AdversarialJudge()
    detector = JudgeDetector(judge)
    first = detector.detect(make_invariant(RULE), VIEW)
    again = detector.detect(make_invariant(RULE), SummaryView(passages=VIEW.passages))
    assert again == first
    assert len(judge.prompts) == 1
    detector.detect(make_invariant(RULE), OTHER_VIEW)
    assert len(judge.prompts) == 2


def test_judge_cache_serves_a_batch_from_single_answers(make_invariant: MakeInvariant) -> None:
    judge = AdversarialJudge()
    detector = JudgeDetector(judge, batch=True)
    detector.detect_many([make_invariant(RULE)], OTHER_VIEW)
    detector.detect_many([make_invariant(RULE), make_invariant(OTHER)], OTHER_VIEW)
    assert len(judge.prompts) == 2
    assert RULE not in judge.prompts[1]


def test_judge_failure_is_not_cached(make_invariant: MakeInvariant) -> None:
    replies: Iterator[str | Exception] = iter(
        [TimeoutError("slow"), json.dumps({"kind": "paraphrased", "span": PARAPHRASE_SPAN})]
    )

    def judge(_prompt: str) -> str:
        reply = next(replies)
        if isinstance(reply, Exception):
            raise reply
        return reply

    detector = JudgeDetector(judge)
    assert isinstance(detector.detect(make_invariant(RULE), VIEW), Abstain)
    assert isinstance(detector.detect(make_invariant(RULE), VIEW), LayerVerdict)
