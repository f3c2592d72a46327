"""The view index picks a part's topic sentences as scoring them one by one would.

`ViewIndex.chosen` tells which sentences `ViewIndex.candidates` scores at least `need`
by unions and intersections of the postings; these tests score them and compare, on the
parts of every verdict fixture against its own view, and on random sentences made of
identifiers, rule words and numbers.
"""

from __future__ import annotations

import gc
import weakref
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compaction_guard.detectors.lexical import detector
from compaction_guard.detectors.lexical.align import parts_of
from compaction_guard.detectors.lexical.index import _HEADING_REACH, ViewIndex, lookup_keys
from compaction_guard.normalize import tokenize
from compaction_guard.taxonomy import Site
from compaction_guard.view import Passage, SummaryView
from tests.detectors.test_verdict_fixtures import FIXTURES, decide, load

if TYPE_CHECKING:
    from collections.abc import Iterator


def _scored(index: ViewIndex, keys: frozenset[str], need: int) -> list[int]:
    shared = index.candidates(keys, ())
    return sorted(sid for sid, score in shared.items() if score >= need)


def test_every_fixture_part_chooses_the_sentences_its_scores_reach() -> None:
    compared = 0
    for path in FIXTURES:
        case = load(path)
        texts = [case["summary"], *case.get("retained", []), *case.get("tool", [])]
        passages = [Passage(text, Site.RETAINED, n) for n, text in enumerate(texts)]
        index = ViewIndex(SummaryView(passages=tuple(passages)))
        for part in parts_of(case["constraint"]):
            for need in (1, 2, 3):
                chosen = index.chosen(part.lookup, part.probes, need)
                assert chosen == _scored(index, part.lookup, need), (path.name, need)
                compared += bool(chosen)
    assert compared > 1000  # most fixtures choose some sentence


_WORDS = ["orders_prod", "svc_03", "svc_13", "budget", "cap", "the", "deploys", "500", "$500"]
_WORDS += ["logs", "backups", "db-main", "read-only", "at", "most", "every", "day", "3.12"]


@given(
    sentences=st.lists(
        st.lists(st.sampled_from(_WORDS), min_size=1, max_size=8), min_size=1, max_size=12
    ),
    rule=st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6),
    need=st.integers(min_value=1, max_value=3),
)
def test_random_sentences_are_chosen_as_scored(
    sentences: list[list[str]], rule: list[str], need: int
) -> None:
    summary = " ".join(" ".join(words) + "." for words in sentences)
    index = ViewIndex(SummaryView.from_summary(summary))
    keys = lookup_keys(tokenize(" ".join(rule)))
    assert index.chosen(keys, (), need) == _scored(index, keys, need)


def _walked_heading(index: ViewIndex, sid: int) -> int | None:
    """The heading over `sid` by the plain walk back: a markdown heading at any distance,
    a label line within `_HEADING_REACH` sentences."""
    current, steps = sid, 0
    while True:
        current = index._previous.get(current, -1)
        if current < 0:
            return None
        steps += 1
        sentence = index.sentences[current]
        if sentence.lead.startswith("#"):
            return current
        if steps <= _HEADING_REACH and sentence.text.endswith(":") and sentence.lead != "|":
            return current


def test_every_fixture_sentence_has_the_heading_a_walk_back_finds() -> None:
    headed = 0
    for path in FIXTURES:
        index = ViewIndex(SummaryView.from_summary(load(path)["summary"]))
        for sid in reversed(range(len(index.sentences))):  # the kept walks, out of order
            heading = index.heading_over(sid)
            assert heading == _walked_heading(index, sid), (path.name, sid)
            headed += heading is not None
    assert headed > 100  # many fixtures put the rule under a heading or a label


_LINES = ["## Rules", "# Notes (ignore)", "Constraints:", "| a | b |", "- Keep logs.", "Done."]
_LINES += ["The cap is $500.", "Deploys wait for review.", "Soft preferences:", "- Or not."]


@given(
    lines=st.lists(st.sampled_from(_LINES), min_size=1, max_size=30),
    gaps=st.lists(st.integers(min_value=0, max_value=3 * _HEADING_REACH), max_size=4),
    order=st.permutations(range(8)),
)
def test_random_markdown_has_the_heading_a_walk_back_finds(
    lines: list[str], gaps: list[int], order: list[int]
) -> None:
    # Runs of plain sentences longer than the label reach put headings far back.
    for at, gap in enumerate(gaps):
        lines[at * len(lines) // 4 : at * len(lines) // 4] = ["Work went on."] * gap
    index = ViewIndex(SummaryView.from_summary("\n".join(lines)))
    count = len(index.sentences)
    # Asked in a scrambled order: the answers kept by one walk serve the next.
    for sid in sorted(range(count), key=lambda s: order[s % 8] * count + s):
        assert index.heading_over(sid) == _walked_heading(index, sid)


def test_a_heading_far_back_governs_every_sentence_under_it() -> None:
    plain = ["Work went on."] * (3 * _HEADING_REACH)
    index = ViewIndex(SummaryView.from_summary("\n".join(["## Superseded", *plain, "# Next", *plain])))
    second = 1 + len(plain)
    assert [index.heading_over(sid) for sid in reversed(range(1, second))] == [0] * len(plain)
    assert {index.heading_over(sid) for sid in range(second + 1, len(index.sentences))} == {second}


@pytest.fixture
def no_cyclic_collector() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@pytest.mark.usefixtures("no_cyclic_collector")
def test_every_fixture_view_is_freed_the_moment_it_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a view's memo keeps (windows, readings, the closed world) holds its index weakly.

    A cycle through the memo would leave each dropped view to the cyclic collector, whose
    full passes over many such views stalled a guard for over 100 ms every few checks.
    """
    made: list[weakref.ref[ViewIndex]] = []

    class Watched(ViewIndex):
        def __init__(self, view: SummaryView) -> None:
            super().__init__(view)
            made.append(weakref.ref(self))

    monkeypatch.setattr(detector, "ViewIndex", Watched)
    for path in FIXTURES:
        verdict = decide(load(path)).verdict
        assert made[-1]() is None, f"{path.name}: its view outlived the detection"
        assert repr(verdict)  # what the verdict says was worked out while the view lived
    assert len(made) == len(FIXTURES)
