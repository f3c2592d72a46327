"""The view index picks a part's topic sentences as scoring them one by one would.

`ViewIndex.chosen` tells which sentences `ViewIndex.candidates` scores at least `need`
by unions and intersections of the postings; these tests score them and compare, on the
parts of every verdict fixture against its own view, and on random sentences made of
identifiers, rule words and numbers.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compaction_guard.detectors.lexical.align import parts_of
from compaction_guard.detectors.lexical.index import ViewIndex, lookup_keys
from compaction_guard.normalize import tokenize
from compaction_guard.taxonomy import Site
from compaction_guard.view import Passage, SummaryView
from tests.detectors.test_verdict_fixtures import FIXTURES, load


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
