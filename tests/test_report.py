import pytest

from compaction_guard.report import CompactionReport, Finding, Removal
from compaction_guard.taxonomy import Kind, Mode, Policy, Severity, Site


def _report(**kwargs: object) -> CompactionReport:
    findings = (
        Finding("aaaaaaaaaaaa", Kind.PRESERVED, Severity.BLOCK, "lexical.verbatim",
                {"sentence": "x"}, 1.0, (Site.SUMMARY,), False),
        Finding("bbbbbbbbbbbb", Kind.MUTATED, Severity.WARN, "lexical.anchor_diff",
                {"was": "$500", "now": "$5000"}),
        Finding("cccccccccccc", Kind.UNVERIFIABLE, Severity.BLOCK, "chain.exhausted"),
    )
    return CompactionReport(mode=Mode.OWNED, findings=findings, policy=Policy.RAISE, **kwargs)  # type: ignore[arg-type]


def test_report_json_round_trip_is_exact() -> None:
    report = _report(removed=(Removal("dddddddddddd", "superseded"),), fits=True,
                     tokens_before=10, tokens_after=5, receipt="sha256:x", note="n")
    assert CompactionReport.from_json(report.to_json()) == report


def test_report_worst_follows_severity_order() -> None:
    assert _report().worst is Kind.MUTATED


def test_report_gating_only_block_severity() -> None:
    assert [f.invariant_id for f in _report().gating] == []


def test_report_gating_includes_unverifiable_when_fail_closed() -> None:
    assert [f.invariant_id for f in _report(fail_closed=True).gating] == ["cccccccccccc"]


def test_report_worst_is_none_without_findings() -> None:
    assert CompactionReport(mode=Mode.OWNED).worst is None


def test_report_from_json_names_a_missing_field() -> None:
    with pytest.raises(ValueError, match="not a CompactionReport dict"):
        CompactionReport.from_json("{}")


def test_report_from_json_refuses_text_that_is_not_json() -> None:
    with pytest.raises(ValueError, match="not JSON"):
        CompactionReport.from_json("nope")
