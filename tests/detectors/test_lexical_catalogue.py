"""The lexical tier's catalogue: ids, the ablation test, decided_by coverage, the rules page."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from compaction_guard.detectors.lexical.catalogue import RULES, Rule, rule_ids
from compaction_guard.detectors.lexical.switches import switched_off
from tests.detectors.test_verdict_fixtures import FIXTURES, ROOT, decide, load

REPO = Path(__file__).resolve().parents[2]


def test_lexical_catalogue_ids_are_unique_and_name_the_layer() -> None:
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    assert all(rule.id.startswith("lexical.") for rule in RULES)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_lexical_rule_switched_off_changes_its_example_fixture(rule: Rule) -> None:
    """The ablation test: a rule that no fixture needs is deleted, not kept."""
    case = load(ROOT / f"{rule.example}.json")
    before = decide(case)
    with switched_off(rule.name):
        after = decide(case)
    assert (after.verdict.kind, after.decided_by) != (before.verdict.kind, before.decided_by)


@pytest.mark.parametrize("rule", [r for r in RULES if r.kinds], ids=lambda r: r.id)
def test_lexical_rule_issues_only_its_catalogued_kinds(rule: Rule) -> None:
    found = [decide(load(path)) for path in FIXTURES if load(path)["decided_by"] == rule.id]
    assert {result.verdict.kind for result in found} <= rule.kinds


def test_lexical_every_decided_by_in_the_fixtures_is_a_catalogue_id() -> None:
    named = {load(path)["decided_by"] for path in FIXTURES}
    lexical = {name for name in named if name.startswith("lexical.")}
    assert lexical <= rule_ids()
    assert named - lexical <= {"chain.exhausted"}


def test_lexical_every_catalogue_rule_decides_or_guards_a_fixture() -> None:
    named = {load(path)["decided_by"] for path in FIXTURES}
    deciding = {rule.id for rule in RULES if rule.kinds}
    assert deciding <= named


def test_lexical_rules_page_is_generated_from_the_catalogue() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "docs" / "lexical_rules.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
