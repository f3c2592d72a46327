from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from compaction_guard.detectors import Abstain, Detector, DetectorChain, LayerVerdict
from compaction_guard.detectors.lexical import LexicalDetector
from compaction_guard.detectors.lexical.index import FULL_INDEX_LIMIT
from compaction_guard.invariant import Invariant, invariant_id
from compaction_guard.taxonomy import CERTIFYING_KINDS, Kind, Site
from compaction_guard.view import Passage, SummaryView

if TYPE_CHECKING:
    from collections.abc import Sequence

CAP = "The budget cap for this run is $500."
READ_ONLY = "The database orders_prod is production. Read-only queries only."
NO_PUSH = "Never push directly to main."


def invariant(text: str) -> Invariant:
    return Invariant(id=invariant_id(text), text=text)


def view(
    summary: str | None = None,
    *,
    retained: Sequence[str] = (),
    tool: Sequence[str] = (),
    carried: Sequence[Invariant] = (),
) -> SummaryView:
    passages = [] if summary is None else [Passage(summary, Site.SUMMARY, 0)]
    passages += [Passage(text, Site.RETAINED, i + 1) for i, text in enumerate(retained)]
    passages += [Passage(text, Site.RETAINED, 100 + i, tool=True) for i, text in enumerate(tool)]
    return SummaryView(passages=tuple(passages), carried=frozenset(i.id for i in carried))


def detect(text: str, seen: SummaryView) -> LayerVerdict | Abstain:
    return LexicalDetector().detect(invariant(text), seen)


def verdict(text: str, seen: SummaryView) -> LayerVerdict:
    outcome = detect(text, seen)
    assert isinstance(outcome, LayerVerdict), outcome
    return outcome


def test_lexical_detector_is_a_detector_of_the_lexical_layer() -> None:
    detector = LexicalDetector()
    assert isinstance(detector, Detector)
    assert detector.layer == "lexical"
    assert detector.unavailable is None


def test_lexical_verbatim_copy_in_the_summary_is_preserved_and_not_at_risk() -> None:
    found = verdict(CAP, view(f"Scraping is half done. {CAP} Two suppliers send CSVs."))
    assert (found.kind, found.rule, found.survived_in, found.at_risk) == (
        Kind.PRESERVED,
        "verbatim",
        (Site.SUMMARY,),
        False,
    )


def test_lexical_copy_only_in_the_kept_tail_is_at_risk() -> None:
    found = verdict(NO_PUSH, view("CI is green.", retained=[f"User: {NO_PUSH}"]))
    assert (found.kind, found.survived_in, found.at_risk) == (
        Kind.PRESERVED,
        (Site.RETAINED,),
        True,
    )


def test_lexical_copy_only_in_a_tool_result_counts_as_kept_tail() -> None:
    found = verdict(NO_PUSH, view("CI is green.", tool=[f'{{"output": "{NO_PUSH}"}}']))
    assert (found.survived_in, found.at_risk) == ((Site.RETAINED,), True)


def test_lexical_copy_in_summary_and_tail_is_not_at_risk() -> None:
    found = verdict(NO_PUSH, view(NO_PUSH, retained=[NO_PUSH]))
    assert (found.survived_in, found.at_risk) == ((Site.SUMMARY, Site.RETAINED), False)


def test_lexical_no_trace_anywhere_is_dropped_by_miss() -> None:
    found = verdict(CAP, view("Summary: helping the user investigate a data issue in orders_prod."))
    assert (found.kind, found.rule) == (Kind.DROPPED, "miss")


def test_lexical_identifier_trace_without_the_rule_abstains_and_forbids_certifying() -> None:
    outcome = detect(
        READ_ONLY, view("Summary: helping the user investigate a data issue in orders_prod.")
    )
    assert isinstance(outcome, Abstain)
    assert outcome.forbid == CERTIFYING_KINDS


def test_lexical_carried_block_alone_is_preserved_by_the_echo_rule() -> None:
    rule = invariant(NO_PUSH)
    found = LexicalDetector().detect(rule, view("CI is green.", carried=[rule]))
    assert isinstance(found, LayerVerdict)
    assert (found.kind, found.rule, found.survived_in, found.at_risk) == (
        Kind.PRESERVED,
        "block_echo",
        (Site.BLOCK,),
        False,
    )


def test_lexical_echo_never_overrides_damage_in_the_summary() -> None:
    rule = invariant(NO_PUSH)
    seen = view("Pushing directly to main is allowed now.", carried=[rule])
    found = LexicalDetector().detect(rule, seen)
    assert isinstance(found, LayerVerdict)
    assert found.kind is Kind.CONTRADICTED


def test_lexical_certified_copy_lists_the_carried_block_as_a_site() -> None:
    rule = invariant(NO_PUSH)
    found = LexicalDetector().detect(rule, view(NO_PUSH, carried=[rule]))
    assert isinstance(found, LayerVerdict)
    assert found.survived_in == (Site.SUMMARY, Site.BLOCK)


def test_lexical_changed_value_names_both_values_in_the_evidence() -> None:
    found = verdict(CAP, view("The budget cap for this run is $5,000."))
    assert (found.kind, found.rule) == (Kind.MUTATED, "anchor_diff")
    assert (found.evidence["expected"], found.evidence["found"]) == ("$500", "$5,000")


def test_lexical_summary_damage_beats_an_exact_copy_in_the_tail() -> None:
    seen = view("The budget cap for this run is now $800.", retained=[CAP])
    assert verdict(CAP, seen).kind is Kind.MUTATED


def test_lexical_lifting_statement_after_a_quote_is_contradicted() -> None:
    found = verdict(NO_PUSH, view(f"{NO_PUSH[:-1]}; the user said this no longer applies."))
    assert (found.kind, found.rule) == (Kind.CONTRADICTED, "lifted")


def test_lexical_hedge_wrapped_around_exact_text_is_weakened() -> None:
    found = verdict(NO_PUSH, view(f"Where possible, try to: {NO_PUSH}"))
    assert (found.kind, found.rule) == (Kind.WEAKENED, "hedge")


@pytest.mark.parametrize(
    "summary",
    [
        f"Soft preference from the user: {NO_PUSH}",
        f"Team guidelines: {NO_PUSH}",
        f"Optional: {NO_PUSH}",
        f"{NO_PUSH[:-1]} (nice to have).",
        f"Suggestions from the design review:\n- {NO_PUSH}",
    ],
)
def test_lexical_label_headed_by_a_wish_weakens_an_exact_copy(summary: str) -> None:
    found = verdict(NO_PUSH, view(summary))
    assert (found.kind, found.rule) == (Kind.WEAKENED, "hedge")


@pytest.mark.parametrize(
    "label",
    ["Constraint:", "Rule from the user:", "Reminder:", "User requirement:", "Not optional:"],
)
def test_lexical_neutral_label_keeps_an_exact_copy_preserved(label: str) -> None:
    assert verdict(NO_PUSH, view(f"{label} {NO_PUSH}")).kind is Kind.PRESERVED


def test_lexical_label_whose_head_is_a_topic_does_not_hedge() -> None:
    """ "Recommendations service:" names a service; its head is not a wish."""
    rule = "Cache responses for at most 5 minutes."
    assert verdict(rule, view(f"Recommendations service: {rule}")).kind is Kind.PRESERVED


def test_lexical_permission_replacing_a_prohibition_is_contradicted() -> None:
    found = verdict(NO_PUSH, view("The agent may push directly to main."))
    assert (found.kind, found.rule) == (Kind.CONTRADICTED, "polarity")


def test_lexical_faithful_paraphrase_with_the_same_values_is_paraphrased() -> None:
    found = verdict(CAP, view("Spending on this run is limited to at most 500 USD."))
    assert (found.kind, found.rule) == (Kind.PARAPHRASED, "paraphrase")


def test_lexical_lost_only_is_weakened() -> None:
    text = "Only send the weekly report to finance-team@acme.io."
    found = verdict(text, view("Send the weekly report to finance-team@acme.io."))
    assert (found.kind, found.rule) == (Kind.WEAKENED, "modality_loss")


def test_lexical_partly_surviving_constraint_is_not_certified() -> None:
    outcome = detect(READ_ONLY, view("The database orders_prod is production."))
    assert isinstance(outcome, Abstain)
    assert outcome.forbid == CERTIFYING_KINDS


def test_lexical_repeated_calls_on_one_view_agree() -> None:
    detector = LexicalDetector()
    seen = view(f"{CAP} {NO_PUSH}")
    first = [detector.detect(invariant(t), seen) for t in (CAP, NO_PUSH)]
    again = [detector.detect(invariant(t), seen) for t in (CAP, NO_PUSH)]
    assert first == again


def test_lexical_a_new_view_is_read_afresh() -> None:
    detector = LexicalDetector()
    rule = invariant(CAP)
    assert detector.detect(rule, view(CAP)).kind is Kind.PRESERVED  # type: ignore[union-attr]
    assert detector.detect(rule, view("Nothing here.")).kind is Kind.DROPPED  # type: ignore[union-attr]


def long_tail(*lines: str) -> list[str]:
    filler = "The agent summarised revenue by region and checked the nightly batch logs. " * 12
    count = FULL_INDEX_LIMIT // len(filler) + 2
    messages = [filler] * count
    for offset, line in enumerate(lines):
        messages[count // 2 + offset] = filler + line
    return messages


def test_lexical_large_tail_still_finds_an_exact_copy() -> None:
    found = verdict(CAP, view("Summary of older turns.", retained=long_tail(CAP)))
    assert (found.kind, found.survived_in) == (Kind.PRESERVED, (Site.RETAINED,))


def test_lexical_large_tail_still_finds_a_changed_value() -> None:
    found = verdict(
        CAP, view("Summary of older turns.", retained=long_tail(CAP.replace("500", "900")))
    )
    assert found.kind is Kind.MUTATED


def test_lexical_large_tail_reads_a_bold_rule_as_its_words() -> None:
    page = "Page the on-call engineer if p99 latency exceeds 800 ms."
    tail = long_tail(f"**{page}** Merges to main require two approving reviews.")
    found = verdict(page, view("Summary of older turns.", retained=tail))
    assert (found.kind, found.survived_in) == (Kind.PRESERVED, (Site.RETAINED,))


def test_lexical_large_tail_without_the_constraint_is_dropped() -> None:
    assert verdict(CAP, view("Summary.", retained=long_tail())).kind is Kind.DROPPED


def test_lexical_evidence_is_plain_json() -> None:
    for text, summary in (
        (CAP, "The budget cap for this run is $5,000."),
        (READ_ONLY, "orders_prod"),
    ):
        outcome = detect(text, view(summary))
        json.dumps(dict(outcome.evidence))


@pytest.mark.parametrize("kind", [Kind.PRESERVED, Kind.MUTATED, Kind.DROPPED])
def test_lexical_decided_by_names_the_layer_and_rule(kind: Kind) -> None:
    summaries = {
        Kind.PRESERVED: CAP,
        Kind.MUTATED: "The budget cap for this run is $50.",
        Kind.DROPPED: "Nothing about money.",
    }
    result = DetectorChain([LexicalDetector()]).run(invariant(CAP), view(summaries[kind]))
    assert result.verdict.kind is kind
    assert result.decided_by == f"lexical.{result.verdict.rule}"


def test_lexical_bound_restated_as_a_ban_on_the_other_side_is_paraphrased() -> None:
    found = verdict(CAP, view("Spending above $500 on this run is not allowed."))
    assert (found.kind, found.rule) == (Kind.PARAPHRASED, "paraphrase")


def test_lexical_bound_restated_as_a_permission_past_it_is_contradicted() -> None:
    assert verdict(CAP, view("Spending above $500 on this run is allowed.")).kind is (
        Kind.CONTRADICTED
    )


def test_lexical_other_side_of_a_bound_as_a_stop_trigger_abstains() -> None:
    """ "If spend would go over $500, stop" is no reversal, and too loose to certify."""
    outcome = detect(CAP, view("If spending on this run would go over $500, stop and ask."))
    assert isinstance(outcome, Abstain)
    assert outcome.forbid == CERTIFYING_KINDS


def test_lexical_obligation_restated_as_a_gated_ban_abstains() -> None:
    rule = "Changes to payments-staging require sign-off from the payments lead."
    outcome = detect(
        rule, view("No change goes to payments-staging until the payments lead signs off.")
    )
    assert isinstance(outcome, Abstain)


def test_lexical_only_after_states_a_requirement() -> None:
    rule = "Every pull request needs two approving reviews before merging."
    seen = view("Pull requests are merged only after two approving reviews.")
    assert verdict(rule, seen).kind is Kind.PARAPHRASED


def test_lexical_converse_relation_is_paraphrased_and_swapped_sides_contradicted() -> None:
    rule = "Take a database snapshot before every schema migration."
    converse = view("Every schema migration happens after a database snapshot is taken.")
    swapped = view("Run every schema migration before taking a database snapshot.")
    assert (verdict(rule, converse).kind, verdict(rule, swapped).kind) == (
        Kind.PARAPHRASED,
        Kind.CONTRADICTED,
    )


def test_lexical_leading_scope_clause_narrows_the_rule() -> None:
    found = verdict(NO_PUSH, view("In staging, never push directly to main."))
    assert found.kind is Kind.WEAKENED


def test_lexical_allowlist_label_says_only() -> None:
    rule = "Run inference only in us-east-1 and eu-west-1."
    seen = view("Allowed inference regions: us-east-1 and eu-west-1.")
    assert verdict(rule, seen).kind is Kind.PARAPHRASED


def test_lexical_keep_from_negates_the_bound_after_it() -> None:
    rule = "Keep the p99 latency of checkout under 800 ms."
    assert verdict(rule, view("Keep the p99 latency of checkout from exceeding 800 ms.")).kind is (
        Kind.PARAPHRASED
    )
    assert verdict(
        rule, view("Keep the p99 latency of checkout from dropping under 800 ms.")
    ).kind is (Kind.CONTRADICTED)


def test_lexical_a_bound_added_to_a_rule_without_one_is_never_certified() -> None:
    rule = "Stop the job after 3 consecutive failures."
    outcome = detect(rule, view("Stop the job after more than 3 consecutive failures."))
    assert not (isinstance(outcome, LayerVerdict) and outcome.kind in CERTIFYING_KINDS)


def test_lexical_constraints_sharing_a_view_get_the_verdicts_each_gets_alone() -> None:
    """The per-view reading (index, wordings, triggers, anaphor walks) is shared by every
    constraint; sharing it must change no constraint's verdict."""
    templates = (
        "Never write to the {n} database.",
        "The budget cap for {n} is ${v}.",
        "Keep requests to {n} under {v} per minute.",
        "Only deploy {n} between 09:00 and 17:00 UTC on weekdays.",
    )
    names = [f"svc_{i:02d}" for i in range(6)]
    rules = [
        invariant(t.format(n=n, v=100 * (i + 1))) for i, n in enumerate(names) for t in templates
    ]
    notes = [
        "Later the user raised it to $2,000.",
        "That limit no longer applies.",
        "The staging copy was refreshed twice.",
        "Deploys on Saturday are fine for hotfixes.",
    ]
    # Every other rule restated, every third of those with a digit changed, each followed
    # by a note that may speak about it.
    restated = [
        rule.text.replace("0", "5", 1) if i % 3 == 0 else rule.text
        for i, rule in enumerate(rules[::2])
    ]
    text = " ".join(f"{r} {notes[i % len(notes)]}" for i, r in enumerate(restated))
    seen = view(text)
    shared = LexicalDetector()
    together = [repr(shared.detect(rule, seen)) for rule in rules]
    alone = [repr(LexicalDetector().detect(rule, seen)) for rule in rules]
    assert together == alone


_REMARK_PIECES = ["55 GB", "12 GB", "so", "far", "which", "is", "fine", "total", "allowed"]
_REMARK_PIECES += ["up to", ",", ";", "(", ")", "-", ":", "|"]


@given(pieces=st.lists(st.sampled_from(_REMARK_PIECES), min_size=1, max_size=10))
@example(pieces=["55 GB", "so", "far", ",", ",", "which", "is", "fine"])
def test_a_remark_of_any_punctuation_after_a_copy_is_read_without_error(pieces: list[str]) -> None:
    # Two breaks in a row leave an empty clause ("55 GB so far, , which is fine"): the
    # readers that walk back over clauses once raised ValueError on one.
    rule = "Keep nightly exports under 40 GB."
    remark = " ".join(pieces)
    for summary in (f"{rule} {remark}", f"{rule} ({remark})"):
        view = SummaryView.from_summary(summary)
        result = DetectorChain([LexicalDetector()]).run(Invariant(invariant_id(rule), rule), view)
        assert isinstance(result.verdict, (LayerVerdict, Abstain))
