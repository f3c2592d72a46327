"""The per-run tables of the index and of the first reading answer as the runs read afresh.

`index.words_keys` and `text.read_words` look each whitespace-free run up in a plain dict
and work a run not seen yet out in its place. These tests require the keys of the tokens
(`lookup_keys(tokenize(text))`) and the reading the clause pattern defines
(`test_lexical_text._defined`), with tables that start empty, that hold other runs, and
that are cleared while a text is read: on every sentence of the verdict fixtures and on
random run sequences.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compaction_guard.anchors import extract_values
from compaction_guard.detectors.lexical import index, text
from compaction_guard.detectors.lexical.index import lookup_keys, words_keys
from compaction_guard.detectors.lexical.text import _rated, lexical_form, read_words
from compaction_guard.normalize import run_tokens, sentence_spans, tokenize
from tests.detectors.test_lexical_text import _defined
from tests.detectors.test_verdict_fixtures import FIXTURES, load

if TYPE_CHECKING:
    from collections.abc import Iterator


def _fixture_sentences() -> Iterator[str]:
    for path in FIXTURES:
        case = load(path)
        texts = [str(case["summary"]), str(case["constraint"])]
        for key in ("retained", "tool"):
            texts += [str(t) for t in case.get(key, [])]
        for raw in texts:
            folded = lexical_form(raw)
            for start, end in sentence_spans(folded):
                yield " ".join(folded[start:end].split())


_SENTENCES = sorted(set(_fixture_sentences()))
_RUNS = sorted({run for sentence in _SENTENCES for run in sentence.split()})
_TABLES = (index._WORD_KEYS, text._RUNS_READ)


@contextlib.contextmanager
def _tables(limit: int) -> Iterator[None]:
    """Empty run tables that are cleared when they hold `limit` runs; restored after."""
    keys, runs = dict(index._WORD_KEYS), dict(text._RUNS_READ)
    limits = index._WORD_KEYS_LIMIT, text._RUNS_LIMIT
    for table in _TABLES:
        table.clear()
    index._WORD_KEYS_LIMIT = text._RUNS_LIMIT = limit
    try:
        yield
    finally:
        index._WORD_KEYS_LIMIT, text._RUNS_LIMIT = limits
        for table in _TABLES:
            table.clear()
        index._WORD_KEYS.update(keys)
        text._RUNS_READ.update(runs)


def _defined_reading(sentence: str) -> tuple[object, ...]:
    tokens, clauses, label = _defined(sentence)
    values, rates = _rated(extract_values(tokens), tokens, clauses, label=label)
    return tuple(tokens), tuple(clauses), values, tuple(rates)


def _reading(sentence: str) -> tuple[object, ...]:
    wording = read_words(sentence)
    return wording.tokens, wording.clauses, wording.values, wording.rates


def test_the_fixtures_hold_many_sentences_and_runs() -> None:
    assert len(_SENTENCES) > 1000
    assert len(_RUNS) > 1000


@pytest.mark.parametrize("limit", [65536, 7, 1])
def test_words_keys_are_the_keys_of_the_tokens(limit: int) -> None:
    expected = [lookup_keys(tokenize(sentence)) for sentence in _SENTENCES]
    with _tables(limit):
        # First with the runs new, then with them known (or, under a small limit, cleared).
        for _ in range(2):
            for sentence, keys in zip(_SENTENCES, expected, strict=True):
                assert words_keys(sentence.split()) == keys, sentence


@pytest.mark.parametrize("limit", [65536, 7, 1])
def test_read_words_reads_as_the_clause_pattern_defines(limit: int) -> None:
    expected = [_defined_reading(sentence) for sentence in _SENTENCES]
    with _tables(limit):
        for sentence, reading in zip(_SENTENCES, expected, strict=True):
            assert _reading(sentence) == reading, sentence
            # A run kept in the table reads as it reads alone; with room, every run read is.
            for run in sentence.split():
                kept = text._RUNS_READ.get(run)
                assert kept is not None or limit < len(_RUNS), run
                assert kept is None or kept == (run_tokens(run), text._run_breaks(run)), run
        for sentence, reading in zip(reversed(_SENTENCES), reversed(expected), strict=True):
            assert _reading(sentence) == reading, sentence


@given(
    runs=st.lists(st.sampled_from(_RUNS), min_size=1, max_size=12),
    known=st.lists(st.sampled_from(_RUNS), max_size=12),
    limit=st.sampled_from([1, 2, 5, 65536]),
)
def test_random_run_sequences_read_alike_whatever_the_tables_hold(
    runs: list[str], known: list[str], limit: int
) -> None:
    sentence = " ".join(runs)
    keys, reading = lookup_keys(tokenize(sentence)), _defined_reading(sentence)
    with _tables(limit):
        words_keys(known)  # some runs known first: the same ones, repeated ones, others
        read_words(" ".join(known))
        for _ in range(2):
            assert words_keys(runs) == keys
            assert _reading(sentence) == reading


_PLAIN = ("the", "job", "ran", "60,331", "rows", "v1.2.3", "a:b", "and/or", "andrew", "x@y.com")
_LONE_BREAKS = ("next,", "spend:", "1,234,", ",", ":", "ops-12:", "$250,", "a,b,")


@given(
    before=st.lists(st.sampled_from(_PLAIN), max_size=6),
    lone=st.sampled_from(_LONE_BREAKS),
    after=st.lists(st.sampled_from(_PLAIN), max_size=6),
)
def test_one_run_ending_in_a_comma_or_colon_reads_as_the_clause_pattern_defines(
    before: list[str], lone: str, after: list[str]
) -> None:
    # `_clauses` takes a short path for such a text, the lone break at any place.
    sentence = " ".join([*before, lone, *after])
    assert _reading(sentence) == _defined_reading(sentence)
