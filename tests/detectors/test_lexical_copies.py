"""A window that is a constraint's sentence reads alike in every view (`context.Copy`).

`rules.evaluate` keeps, per part, what it found in a window whose analysis equals a
constraint part's (the part's own sentence, or a sibling rule's): the alignment, the copy
checks, and the reading when no afterthought is around the window. These tests read the
same views with those copies kept from earlier views and with none kept, and require the
same verdicts, evidence included, whatever the site and whatever follows the sentence.
"""

from __future__ import annotations

import pytest

from compaction_guard.detectors.lexical import rules
from compaction_guard.detectors.lexical.detector import LexicalDetector
from compaction_guard.detectors.lexical.memo import IdentityMemo
from compaction_guard.detectors.lexical.switches import switched_off
from compaction_guard.invariant import Invariant, invariant_id
from compaction_guard.taxonomy import Site
from compaction_guard.view import Passage, SummaryView

_RULES = (
    "The budget cap for svc_03 is $900.",
    "The budget cap for svc_13 is $400.",
    "Retry failed calls to svc_05 at most 2 times with exponential backoff.",
    "Retry failed calls to svc_15 at most 5 times with exponential backoff.",
    "Delete raw logs of svc_08 after 50 days.",
    "Delete raw logs of svc_18 after 50 days.",
)
_AFTER = (
    "",
    " Later, the billing service was refactored.",
    " The user said this no longer applies.",
    " It may be raised if the review allows.",
)


def _views() -> list[SummaryView]:
    views = []
    for rule in _RULES:
        for after in _AFTER:
            text = f"Then the ETL job was rolled back once. {rule}{after}"
            views.append(SummaryView.from_summary(text))
            kept = Passage(text=text, site=Site.RETAINED, message=1)
            views.append(SummaryView(passages=(kept,)))
    return views


def _invariants() -> list[Invariant]:
    return [Invariant(id=invariant_id(text), text=text) for text in _RULES]


def _read(views: list[SummaryView]) -> list[object]:
    detector = LexicalDetector()
    return [detector.detect(invariant, view) for view in views for invariant in _invariants()]


@pytest.mark.parametrize("off", [(), ("verbatim",), ("anchor_diff",), ("lifted",)])
def test_lexical_constraint_sentences_read_alike_kept_or_not(
    monkeypatch: pytest.MonkeyPatch, off: tuple[str, ...]
) -> None:
    views = _views()
    with switched_off(*off):
        _read(views)  # keeps the copies
        kept = _read(views) + _read(list(reversed(views)))
        fresh = []
        for group in (views, list(reversed(views))):
            for view in group:
                monkeypatch.setattr(rules, "_COPIES", IdentityMemo(4096))
                fresh += _read([view])
    assert kept == fresh


def test_lexical_constraint_sentence_reading_is_kept() -> None:
    _read(_views())
    kept = [
        (part, copy)
        for part, found in rules._COPIES._entries.values()
        for copy in found.values()
        if copy.reading is not None
    ]
    assert any(p.analysis is c.analysis and c.reading.rule == "verbatim" for p, c in kept)  # type: ignore[union-attr]
    siblings = [c.reading.rule for p, c in kept if p.analysis is not c.analysis]  # type: ignore[union-attr]
    assert "anchor_diff" in siblings
