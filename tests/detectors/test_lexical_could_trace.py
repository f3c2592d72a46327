"""`rules.could_trace` is exact one way: it rejects only sentences `evaluate` finds no trace in.

The detector asks it before a sentence is analysed (`detector._read`), so a sentence no
part traces is never analysed. These tests read sentences with both and require that
every rejected one is no trace: every sentence of every verdict fixture against its own
constraint, and random sentences made of the words the rules and the alignment look for
(bound phrases, multi-word synonyms, hyphenated and edited names) against fixture parts.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compaction_guard.detectors.lexical.align import Part, parts_of
from compaction_guard.detectors.lexical.context import Sentences
from compaction_guard.detectors.lexical.lexicon import PHRASES
from compaction_guard.detectors.lexical.rules import Window, could_trace, evaluate, words_of
from compaction_guard.detectors.lexical.text import analyse, lexical_form
from compaction_guard.normalize import fold_whitespace, sentence_spans
from compaction_guard.taxonomy import Site
from tests.detectors.test_verdict_fixtures import FIXTURES, load

if TYPE_CHECKING:
    from pathlib import Path


def _sentences(case: dict[str, object]) -> list[str]:
    texts = [str(case["summary"])]
    for key in ("retained", "tool"):
        texts += [str(t) for t in case.get(key, [])]  # type: ignore[attr-defined]
    found = []
    for text in texts:
        folded = lexical_form(text)
        found += [fold_whitespace(folded[a:b]) for a, b in sentence_spans(folded)]
    return found


def _rejected_is_no_trace(part: Part, sentence: str) -> bool:
    analysis = analyse(sentence)
    if could_trace(part, words_of(analysis.tokens)):
        return True
    window = Window(analysis, Site.SUMMARY, tool=False, facts=Sentences(analysis), sids=(0,))
    return evaluate(part, window) is None


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_fixture_sentence_could_trace_rejects_is_a_trace(path: Path) -> None:
    case = load(path)
    for part in parts_of(case["constraint"]):
        for sentence in _sentences(case):
            assert _rejected_is_no_trace(part, sentence), (part.text, sentence)


@cache
def _parts() -> tuple[Part, ...]:
    texts = sorted({load(path)["constraint"] for path in FIXTURES})
    return tuple(part for text in texts[::5] for part in parts_of(text))


@cache
def _vocabulary() -> tuple[str, ...]:
    """The words of the sampled parts, of every multi-word synonym, bounds and edited names."""
    words = {token for part in _parts() for token in part.analysis.tokens}
    words |= {word for phrase in PHRASES for word in phrase}
    words |= {"at", "most", "least", "no", "more", "than", "up", "to", "under", "over"}
    words |= {"orders_prod_archive", "eu-west-2", "payments-sandbox", "read-only", "data-retention"}
    return tuple(sorted(words))


@settings(max_examples=1000)
@given(
    words=st.lists(st.sampled_from(_vocabulary()), min_size=1, max_size=14),
    which=st.integers(min_value=0),
)
def test_no_random_sentence_could_trace_rejects_is_a_trace(words: list[str], which: int) -> None:
    parts = _parts()
    part = parts[which % len(parts)]
    assert _rejected_is_no_trace(part, fold_whitespace(lexical_form(" ".join(words))))
