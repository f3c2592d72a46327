"""Damaged summaries the lexical tier still certifies: the holes on record.

Each case in tests/fixtures/known_false_certifications.json is damage the tier reports
preserved or paraphrased today. The test is a strict xfail, so it fails loudly (and the
case moves to tests/fixtures/verdicts/) the day a fix stops the certification.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compaction_guard.taxonomy import CERTIFYING_KINDS
from tests.detectors.test_verdict_fixtures import decide

KNOWN = Path(__file__).parents[1] / "fixtures" / "known_false_certifications.json"
CASES: list[dict[str, Any]] = json.loads(KNOWN.read_text(encoding="utf-8"))


@pytest.mark.xfail(strict=True, reason="a known false certification of the lexical tier")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["summary"][:40])
def test_known_false_certification_is_not_certified(case: dict[str, Any]) -> None:
    assert decide(case).verdict.kind not in CERTIFYING_KINDS, case["why"]


def test_known_false_certifications_are_well_formed() -> None:
    # Empty when no hole is on record; a case added is a known hole, never a fixed one.
    assert isinstance(CASES, list)
    for case in CASES:
        assert set(case) == {"mechanism", "constraint", "summary", "why"}
