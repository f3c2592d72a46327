"""The `compaction_guard` logger and `report.summary()`: what people and log pipelines read."""

import logging
import subprocess
import sys
from pathlib import Path

import pytest

import compaction_guard as cg
from compaction_guard.report import excerpt

ROOT = Path(__file__).resolve().parents[1]
READ_ONLY = "The database orders_prod is production. Read-only queries only."
BUDGET = "The budget cap for this run is $500."
SPEAKING = "Always answer in formal British English when writing to the client."


def _summarise(history: list[dict[str, str]]) -> list[dict[str, str]]:
    return [history[0], {"role": "user", "content": "Summary: investigating a data issue."}]


def _messages() -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You are an agent."},
        {"role": "user", "content": f"{READ_ONLY} {BUDGET}"},
    ]


def _guard(**kwargs: object) -> cg.Guard:
    from compaction_guard.detectors.lexical import LexicalDetector

    guard = cg.Guard(detectors=[LexicalDetector()], **kwargs)  # type: ignore[arg-type]
    guard.add(READ_ONLY)
    guard.add(BUDGET)
    guard.add(SPEAKING, severity=cg.Severity.WARN)
    return guard


def _records(caplog: pytest.LogCaptureFixture, level: int) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "compaction_guard" and r.levelno == level]


def test_one_info_line_per_compaction_with_the_report_fields(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="compaction_guard")
    guard = _guard()
    guard.compact(_messages(), compactor=_summarise)
    report = guard.last_report
    assert report is not None
    [info] = _records(caplog, logging.INFO)
    message = info.getMessage()
    assert "mode=owned" in message
    assert "policy=repair" in message
    assert f"worst={report.worst}" in message
    assert "repaired=True" in message
    assert "kinds=dropped=3" in message
    assert report.block_checksum is not None
    assert f"block={report.block_checksum[:12]} " in message
    assert "receipt=None" in message
    guard.compact(_messages(), compactor=_summarise)
    assert len(_records(caplog, logging.INFO)) == 2


def test_info_line_carries_the_receipt_digest(
    caplog: pytest.LogCaptureFixture, tmp_path: Path,
) -> None:
    caplog.set_level(logging.INFO, logger="compaction_guard")
    guard = _guard(receipts=tmp_path / "receipts.jsonl")
    guard.compact(_messages(), compactor=_summarise)
    assert guard.last_report is not None
    digest = guard.last_report.receipt
    assert digest
    [info] = _records(caplog, logging.INFO)
    assert f"receipt={digest}" in info.getMessage()


def test_a_warning_per_gating_finding_only(caplog: pytest.LogCaptureFixture) -> None:
    """Two BLOCK constraints dropped gate; the WARN-severity one is dropped but does not."""
    caplog.set_level(logging.DEBUG, logger="compaction_guard")
    guard = _guard()
    guard.compact(_messages(), compactor=_summarise)
    report = guard.last_report
    assert report is not None
    assert len(report.gating) == 2
    warnings = _records(caplog, logging.WARNING)
    assert sorted(w.getMessage().split()[1] for w in warnings) == sorted(
        f.invariant_id for f in report.gating
    )
    assert all("dropped" in w.getMessage() for w in warnings)


def test_no_warning_when_nothing_gates(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="compaction_guard")
    guard = _guard()
    guard.compact(_messages(), compactor=lambda messages: messages)
    assert _records(caplog, logging.WARNING) == []
    assert len(_records(caplog, logging.INFO)) == 1


def test_raise_policy_logs_before_it_refuses(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="compaction_guard")
    guard = _guard(policy=cg.Policy.RAISE)
    with pytest.raises(cg.InvariantViolation):
        guard.compact(_messages(), compactor=_summarise)
    [info] = _records(caplog, logging.INFO)
    assert "policy=raise" in info.getMessage()
    assert "repaired=False" in info.getMessage()
    assert len(_records(caplog, logging.WARNING)) == 2


def test_debug_has_one_line_per_constraint(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="compaction_guard")
    guard = _guard()
    guard.compact(_messages(), compactor=_summarise)
    debug = [r.getMessage() for r in _records(caplog, logging.DEBUG)]
    assert len(debug) == 3
    assert any(excerpt(BUDGET) in line and "lexical" in line for line in debug)


def test_no_constraint_text_above_debug(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="compaction_guard")
    guard = _guard()
    guard.compact(_messages(), compactor=_summarise)
    guard.check("The budget cap for this run is $5000.")
    loud = [r.getMessage() for r in caplog.records if r.levelno > logging.DEBUG]
    assert len(loud) >= 4
    for text in (READ_ONLY, BUDGET, SPEAKING):
        for words in (excerpt(text).removesuffix("..."), *text.split(". ")):
            assert not any(words in line for line in loud), words
    assert "orders_prod" not in " ".join(loud)
    assert "$500" not in " ".join(loud)


def test_the_library_prints_nothing_unless_logging_is_configured() -> None:
    """A NullHandler: gating warnings stay out of stderr until the application opts in."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py")],
        capture_output=True, text=True, check=False, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "dropped" in done.stdout
    assert done.stderr == ""


def test_summary_is_a_table_of_id_words_kind_rule_and_site() -> None:
    guard = _guard()
    guard.compact(_messages(), compactor=lambda messages: messages)
    guard.compact(_messages(), compactor=_summarise)
    report = guard.last_report
    assert report is not None
    lines = report.summary().splitlines()
    assert lines[0] == "owned compaction, policy repair: worst dropped, repaired yes, 2 gating"
    assert lines[1].split() == ["id", "constraint", "kind", "decided_by", "survived_in"]
    assert len(lines) == 2 + len(report.findings)
    for finding, line in zip(report.findings, lines[2:], strict=True):
        assert line.startswith(finding.invariant_id)
        assert finding.excerpt is not None
        assert finding.excerpt in line
        assert f"  {finding.kind.value}  " in line
        assert finding.decided_by in line
    assert str(report) == report.summary()


def test_summary_marks_survival_that_is_only_in_the_kept_tail() -> None:
    finding = cg.Finding(
        invariant_id="0123456789ab", kind=cg.Kind.PRESERVED, severity=cg.Severity.BLOCK,
        decided_by="lexical.verbatim", survived_in=(cg.Site.RETAINED,), at_risk=True,
        excerpt="Keep it",
    )
    report = cg.CompactionReport(mode=cg.Mode.REASSERTED, findings=(finding,))
    row = report.summary().splitlines()[2].split()
    assert row == ["0123456789ab", "Keep", "it", "preserved", "lexical.verbatim", "retained*"]


def test_summary_of_an_empty_report_is_one_line() -> None:
    report = cg.CompactionReport(mode=cg.Mode.OWNED, note="no invariants registered")
    assert report.summary() == (
        "owned compaction, policy repair: worst none, repaired no, 0 gating "
        "(no invariants registered)"
    )


def test_excerpt_survives_the_json_round_trip() -> None:
    guard = _guard()
    guard.compact(_messages(), compactor=_summarise)
    report = guard.last_report
    assert report is not None
    again = cg.CompactionReport.from_json(report.to_json())
    assert again == report
    assert again.summary() == report.summary()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Budget cap $500.", "Budget cap $500."),
        ("The budget cap for this run is $500.", "The budget cap for this run..."),
        ("  spaced\n  out  ", "spaced out"),
        ("Supercalifragilisticexpialidocious-and-then-some-more-words here",
         "Supercalifragilisticexpialidocious-an..."),
        ("The database orders_prod is production. Read-only queries only.",
         "The database orders_prod is..."),
        ("exactly forty characters long, no more.", "exactly forty characters long, no more."),
        ("", ""),
    ],
)
def test_excerpt_is_the_first_words(text: str, expected: str) -> None:
    assert excerpt(text) == expected
    assert len(excerpt(text)) <= 40
