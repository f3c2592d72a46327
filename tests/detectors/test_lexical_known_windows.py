"""A constraint's own sentence is read the same whatever view it turns up in.

What a part reads in a window that is a constraint's sentence (its own, or a sibling
rule's) is kept per part and reused in every later view where nothing around the window
refers to the rule (`rules._known_window`, `context.Copy`). These tests require every
verdict reached with kept readings to equal the verdict reached reading afresh. The
verdict fixtures share constraints (about 1,600 fixtures over about 600 constraints), so
a reading kept in one fixture's context is reused in the others'; the constraints are
also read first in a neutral view, each beside a few others.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any
from unittest import mock

from compaction_guard.detectors.base import DetectorChain
from compaction_guard.detectors.lexical import LexicalDetector, rules
from compaction_guard.invariant import Invariant, invariant_id
from compaction_guard.taxonomy import Site
from compaction_guard.view import Passage, SummaryView
from tests.detectors.test_verdict_fixtures import FIXTURES, decide, load

if TYPE_CHECKING:
    from compaction_guard.detectors.base import ChainResult
    from compaction_guard.detectors.lexical.align import Part
    from compaction_guard.detectors.lexical.context import Copy
    from compaction_guard.detectors.lexical.rules import Window

_NEIGHBOURS = 4


def _cases() -> list[dict[str, Any]]:
    return [load(path) for path in FIXTURES]


@functools.cache
def _fresh() -> tuple[ChainResult, ...]:
    """Every fixture's result with nothing kept: each constraint sentence read anew."""
    with mock.patch.object(rules, "_known_window", return_value=None):
        return tuple(decide(case) for case in _cases())


def _neutral_views(constraints: list[str]) -> None:
    """Read each constraint in a view of its own sentence and a few other constraints'."""
    for number, text in enumerate(constraints):
        others = constraints[number + 1 : number + 1 + _NEIGHBOURS]
        view = SummaryView(passages=(Passage("\n\n".join([text, *others]), Site.SUMMARY, 0),))
        rule = Invariant(id=invariant_id(text), text=text)
        DetectorChain([LexicalDetector()]).run(rule, view)


def _differences(order: list[int]) -> list[str]:
    cases, fresh = _cases(), _fresh()
    return [
        f"{FIXTURES[i].parent.name}/{FIXTURES[i].stem}"
        for i in order
        if decide(cases[i]) != fresh[i]
    ]


def test_kept_readings_equal_fresh_ones_in_fixture_order() -> None:
    _fresh()
    _neutral_views(sorted({case["constraint"] for case in _cases()}))
    assert _differences(list(range(len(FIXTURES)))) == []


def test_kept_readings_equal_fresh_ones_in_reverse_order() -> None:
    assert _differences(list(reversed(range(len(FIXTURES))))) == []


def test_the_comparison_reuses_kept_readings() -> None:
    """The comparison above is not empty: kept readings stand in for hundreds of readings."""
    real = rules._known_window
    reused = 0

    def counting(part: Part, window: Window) -> Copy | None:
        nonlocal reused
        found = real(part, window)
        reused += found is not None and found.reading is not None
        return found

    with mock.patch.object(rules, "_known_window", counting):
        for case in _cases():
            decide(case)
    assert reused >= 100  # 274 of the windows read at 3822ad5
