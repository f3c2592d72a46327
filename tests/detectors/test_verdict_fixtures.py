"""Every case under tests/fixtures/verdicts/<kind>/ through the lexical tier.

One JSON file per case: constraint, summary, optional retained / tool passages, optional
carried flag, the expected kind, optional also_allowed kinds, why, and the `decided_by`
of the rule that must decide it (a catalogue id, or `chain.exhausted` when the tier abstains).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from compaction_guard.detectors import DetectorChain
from compaction_guard.detectors.lexical import LexicalDetector
from compaction_guard.invariant import Invariant, invariant_id
from compaction_guard.taxonomy import CERTIFYING_KINDS, GATING_KINDS, Kind, Site
from compaction_guard.view import Passage, SummaryView

if TYPE_CHECKING:
    from compaction_guard.detectors.base import ChainResult

ROOT = Path(__file__).parents[1] / "fixtures" / "verdicts"
FIXTURES = sorted(ROOT.glob("*/*.json"))
FIELDS = {
    "constraint",
    "summary",
    "retained",
    "tool",
    "carried",
    "expected",
    "also_allowed",
    "why",
    "decided_by",
}


def load(path: Path) -> dict[str, Any]:
    case: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return case


def classify(case: dict[str, Any]) -> Kind:
    """Return the kind the lexical tier gives one fixture."""
    return decide(case).verdict.kind


def decide(case: dict[str, Any]) -> ChainResult:
    """Run one fixture through a chain of the lexical tier alone."""
    rule = Invariant(id=invariant_id(case["constraint"]), text=case["constraint"])
    passages = [Passage(case["summary"], Site.SUMMARY, 0)]
    passages += [Passage(t, Site.RETAINED, 1 + i) for i, t in enumerate(case.get("retained", []))]
    passages += [
        Passage(t, Site.RETAINED, 100 + i, tool=True) for i, t in enumerate(case.get("tool", []))
    ]
    carried = frozenset({rule.id}) if case.get("carried") else frozenset()
    seen = SummaryView(passages=tuple(passages), carried=carried)
    return DetectorChain([LexicalDetector()]).run(rule, seen)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_verdict_fixture_is_classified_as_expected(path: Path) -> None:
    case = load(path)
    allowed = {Kind(case["expected"]), *(Kind(k) for k in case.get("also_allowed", []))}
    result = decide(case)
    assert result.verdict.kind in allowed, case["why"]
    assert result.decided_by == case["decided_by"], case["why"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_verdict_fixture_is_well_formed(path: Path) -> None:
    case = load(path)
    assert set(case) <= FIELDS
    assert case["expected"] == path.parent.name
    assert isinstance(case["why"], str)
    assert case["why"]
    if Kind(case["expected"]) in GATING_KINDS:
        assert not {Kind(k) for k in case.get("also_allowed", [])} & CERTIFYING_KINDS


def test_verdict_fixtures_release_gate_no_damaged_case_is_certified() -> None:
    """The release gate: no fixture whose truth is damage is ever preserved or paraphrased."""
    certified = [
        path.stem
        for path in FIXTURES
        if Kind(load(path)["expected"]) in GATING_KINDS and classify(load(path)) in CERTIFYING_KINDS
    ]
    assert certified == []


def test_verdict_fixtures_cover_every_kind_the_lexical_tier_issues() -> None:
    kinds = {path.parent.name for path in FIXTURES}
    assert kinds >= {k.value for k in Kind} - {Kind.UNVERIFIABLE.value}
