"""The first reading of a text (`text.read_words`), run by run, against its definition.

The clause breaks are defined by one pattern over the text (below); `read_words` reads
them from the text's whitespace-free runs instead. These tests hold the two together.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compaction_guard.anchors import extract_values
from compaction_guard.detectors.lexical.text import Wording, _rated, read_words
from compaction_guard.normalize import tokenize

# A clause ends at `;`, a bracket, `: `, `, `, a spaced dash, and before a conjunction.
_CLAUSE_BREAK = re.compile(
    r"([;()\[\]]|:\s|,\s|\s-{1,2}\s|\s(?=(?:but|however|although|though|whereas|while|yet"
    r"|and|or|so)\b))",
)

_RUNS = (
    "a", "b", "and", "or", "so", "so-called", "but,", "while", "yet:", "-", "--", "---",
    ",", ":", ";", "(", ")", "[x]", "f(a),", "daily", "spend:", "$500", "per", "day",
    "http://x.com/a(b)c", "http://x.com/a;b,", "x@y.com", "1,200", "1,234,", "a:b",
    "(see", "x)", "note:", "and/or", "andrew", "or.", "ok;", "$", "%", "10%", "a,b",
    "e.g.", ":x", "(a;b)", "((", "))", "--force", "ops-12:", "weekly", "budget:", "$250.",
    "2", "mb", "v1.2.3", "however", "whereas,", "daily", "spend", "$500", "500",
)  # fmt: skip


def _defined(text: str) -> tuple[list[str], list[int], bool]:
    """Return the tokens, their clauses and the label flag as the pattern defines them."""
    tokens: list[str] = []
    clauses: list[int] = []
    split = _CLAUSE_BREAK.split(text)
    for number, piece in enumerate(split[::2]):
        found = tokenize(piece)
        tokens.extend(found)
        clauses.extend([number] * len(found))
    return tokens, clauses, len(split) > 1 and split[1].startswith(":")


@given(runs=st.lists(st.sampled_from(_RUNS), max_size=10))
def test_the_runs_are_cut_into_clauses_as_the_break_pattern_cuts_the_text(
    runs: list[str],
) -> None:
    text = " ".join(runs)
    tokens, clauses, label = _defined(text)
    wording = read_words(text)
    assert (list(wording.tokens), list(wording.clauses)) == (tokens, clauses)
    values, rates = _rated(extract_values(tokens), tokens, clauses, label=label)
    assert (wording.values, list(wording.rates)) == (values, rates)


def test_a_leading_label_lends_its_rate_to_the_clause_after_it() -> None:
    (value,) = read_words("daily spend: $500 at most").values
    assert value.per == "time:86400"
    (value,) = read_words("daily spend; $500 at most").values
    assert value.per == ""


def test_a_wording_is_immutable() -> None:
    wording = read_words("the job runs every 5 minutes")
    fields = [f.name for f in dataclasses.fields(Wording)]
    assert wording == Wording(*(getattr(wording, name) for name in fields))
    assert wording.values[0].amount == 300
    with pytest.raises(dataclasses.FrozenInstanceError):
        wording.text = ""  # type: ignore[misc]
