"""The closed world's prefilter is exact: it skips only statements no reader can depart on.

Each departure reader of `world.py` declares a trigger in `world.TRIGGERS` and cue words in
`world.CUES`, tests of the statement alone (`world.triggered` asks both), and may declare
its applicability in `world.APPLIES`, a test of the constraint part alone, and its binding
in `world.BINDS` and its needs in `world.NEEDS`, tests of the two together; before them,
`_may_depart` skips a sentence with no word any departure needs. These tests read
statements with both prefilters and without them
(`world.unfiltered()`) and require the same answer: on every verdict fixture, on every
sentence of every fixture against its own constraint, and on random statements made of
the words the readers look for.
"""

from __future__ import annotations

import itertools
import json
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compaction_guard.anchors import comparable
from compaction_guard.detectors.lexical import LexicalDetector, world
from compaction_guard.detectors.lexical.align import Part, parts_of
from compaction_guard.detectors.lexical.index import ViewIndex
from compaction_guard.detectors.lexical.marks import find_modality
from compaction_guard.detectors.lexical.text import analyse, lexical_form, read_words
from compaction_guard.invariant import Invariant, invariant_id
from compaction_guard.normalize import sentence_spans
from compaction_guard.view import SummaryView
from tests.detectors.test_verdict_fixtures import FIXTURES, decide, load

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from compaction_guard.detectors.lexical.world import Statement


def _statements(text: str) -> Iterator[Statement]:
    """Every sentence of `text` as a statement, in each of its four attachments."""
    folded = lexical_form(text)
    for start, end in sentence_spans(folded):
        analysis = analyse(folded[start:end])
        for attached, implicit in itertools.product((False, True), repeat=2):
            yield world.statement_of(analysis, attached=attached, implicit=implicit)


def _texts(case: dict[str, object]) -> list[str]:
    found = [str(case["summary"])]
    for key in ("retained", "tool"):
        found += [str(t) for t in case.get(key, [])]  # type: ignore[attr-defined]
    return found


def _disagreements(part: Part, statement: Statement) -> list[str]:
    """Readers whose trigger rejects `statement`, whose applicability rejects `part`, or
    whose binding or needs reject the two together, though they find a departure in it."""
    wrong = []
    triggered = world.triggered(statement)
    facts = world._facts(part)
    for reader in world._READERS:
        applies = world.APPLIES.get(reader)
        binds = world.BINDS.get(reader)
        needs = world.needs_of(statement, (reader,))
        if (
            reader in triggered
            and (applies is None or applies(part))
            and (binds is None or binds(facts, statement))
            and (needs is world.ANYTHING or not needs.isdisjoint(facts.wants))
        ):
            continue
        with world.unfiltered():  # the reader itself, its binding not asked
            departs = world.departure_in_clause(part, statement, (reader,)) is not None
        if departs:
            wrong.append(reader.__name__)
    return wrong


def _agrees(part: Part, statement: Statement) -> bool:
    filtered = world.departure_in_clause(part, statement, world.triggered(statement))
    with world.unfiltered():
        unfiltered = world.departure_in_clause(part, statement, world.triggered(statement))
    return filtered == unfiltered


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_reader_departs_on_a_fixture_sentence_its_trigger_rejects(path: Path) -> None:
    case = load(path)
    for part in parts_of(case["constraint"]):
        for text in _texts(case):
            for statement in _statements(text):
                assert _disagreements(part, statement) == [], statement.text
                assert _agrees(part, statement), statement.text


def test_every_verdict_fixture_is_decided_alike_with_and_without_the_prefilter() -> None:
    def outcome(path: Path) -> str:
        result = decide(load(path))
        return json.dumps([repr(result.verdict), result.decided_by, repr(result.trail)])

    filtered = [outcome(path) for path in FIXTURES]
    with world.unfiltered():
        unfiltered = [outcome(path) for path in FIXTURES]
    assert filtered == unfiltered


@cache
def _vocabulary() -> tuple[str, ...]:
    """Every word a reader or its trigger looks for, with pointers, rule nouns and filler."""
    words: set[str] = set()
    for name in dir(world):
        value = getattr(world, name)
        if isinstance(value, frozenset) and all(isinstance(w, str) for w in value):
            words |= value
        elif isinstance(value, tuple) and value and all(isinstance(p, tuple) for p in value):
            words |= {w for phrase in value for w in phrase if isinstance(w, str)}
    words |= {"the", "user", "orders_prod", "backups", "deploys", "budget", "rule", "it"}
    words |= {"$500", "$2,000", "40", "mb", "3", "days", "unpinned", "unfroze", "doesn't"}
    return tuple(sorted(words))


@cache
def _constraint_parts() -> tuple[Part, ...]:
    """The parts of a spread of fixture constraints: one per fixture folder and mechanism."""
    texts = sorted({load(path)["constraint"] for path in FIXTURES})
    return tuple(part for text in texts[::7] for part in parts_of(text))


@given(
    words=st.lists(st.sampled_from(_vocabulary()), min_size=1, max_size=14),
    which=st.integers(min_value=0),
    attached=st.booleans(),
    implicit=st.booleans(),
)
def test_random_statements_are_read_alike_with_and_without_the_prefilter(
    words: list[str], which: int, attached: bool, implicit: bool
) -> None:
    parts = _constraint_parts()
    part = parts[which % len(parts)]
    analysis = analyse(lexical_form(" ".join(words)))
    statement = world.statement_of(analysis, attached=attached, implicit=implicit)
    assert _disagreements(part, statement) == []
    assert _agrees(part, statement)


def test_a_reader_without_a_trigger_reads_every_statement(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new reader not yet in TRIGGERS is never prefiltered: exactness needs no bookkeeping."""

    def always(read: object) -> world.Departure:
        return world.Departure(None, "later_change", "a new reader", "")

    monkeypatch.setattr(world, "_READERS", (*world._READERS, always))
    statement = world.statement_of(analyse("nothing to see here"), attached=False)
    assert world.triggered(statement) == (always,)


def test_unfiltered_really_switches_the_prefilter_off() -> None:
    """Without this, every with/without comparison above could compare a reading with itself."""
    statement = world.statement_of(analyse("nothing to see here"), attached=False)
    assert world.triggered(statement) == ()
    with world.unfiltered():
        assert world.triggered(statement) == world._READERS
    assert world.triggered(statement) == ()


def test_the_phrase_reading_counts_the_marks_of_every_fixture_sentence() -> None:
    """The anaphor walk asks `find_modality` instead of a full analysis; frames recast marks
    one for one, so both must count the same marks."""
    for path in FIXTURES:
        for text in _texts(load(path)):
            folded = lexical_form(text)
            for start, end in sentence_spans(folded):
                sentence = folded[start:end]
                tokens = list(read_words(sentence).tokens)
                assert len(find_modality(tokens)) == len(analyse(sentence).marks), sentence


def test_a_reader_that_needs_a_rule_value_skips_a_rule_without_one() -> None:
    """Without this, the applicability checks above could pass by applying every reader."""
    (part,) = parts_of("Never write to the orders_prod database.")
    assert world._value not in world.applicable(part)
    (valued,) = parts_of("Keep request bodies under 2 MB.")
    assert world._value in world.applicable(valued)
    with world.unfiltered():
        assert world.applicable(part) == frozenset(world._READERS)


def test_unfiltered_in_one_thread_leaves_another_threads_prefilter_on() -> None:
    statement = world.statement_of(analyse("nothing to see here"), attached=False)
    with world.unfiltered(), ThreadPoolExecutor(max_workers=1) as pool:
        beside = pool.submit(world.triggered, statement).result()
    assert beside == ()


def test_a_binding_skips_a_statement_with_no_value_of_the_rules_measure() -> None:
    """Without this, the binding checks above could pass by binding every statement."""
    (part,) = parts_of("Keep request bodies under 2 MB.")
    facts = world._facts(part)
    other = world.statement_of(analyse(lexical_form("the run took 40 minutes")), attached=True)
    same = world.statement_of(analyse(lexical_form("The cap is now 4 MB.")), attached=True)
    assert not world.BINDS[world._value](facts, other)
    assert world.BINDS[world._value](facts, same)


def test_measure_keys_meet_whenever_two_fixture_values_measure_alike() -> None:
    """`_measure_keys` stands for `comparable` and `_same_unit`: it may not drift from them."""
    values = {
        (v.kind, v.dimension, v.unit, v.per, v.surface): v
        for path in FIXTURES
        for text in (load(path)["constraint"], *_texts(load(path)))
        for v in read_words(lexical_form(text)).values
    }
    for left, right in itertools.product(values.values(), repeat=2):
        if comparable(left, right) and world._same_unit(left, right):
            assert set(world._measure_keys(left)) & set(world._measure_keys(right))


_TOKEN_TEXT = st.text(alphabet="ab9_/#@-.$é²x ", max_size=8)


@given(tokens=st.lists(_TOKEN_TEXT, max_size=8))
def test_the_one_scan_choice_test_answers_as_each_token_would(tokens: list[str]) -> None:
    assert world._may_name_a_choice(tokens) == any(world._names_a_choice(t) for t in tokens)


@given(
    tokens=st.lists(st.sampled_from(("no", "longer", "not", "apply", "it", "x")), max_size=10)
)
def test_a_phrase_is_found_at_its_earliest_start(tokens: list[str]) -> None:
    phrases = (("no", "longer"), ("not", "apply"), ("it",), ("no", "longer", "apply"))
    naive = next(
        (
            i
            for i in range(len(tokens))
            if any(tuple(tokens[i : i + len(p)]) == p for p in phrases)
        ),
        None,
    )
    assert world._has_phrase(tokens, phrases) == naive
    assert world._has_phrase(tuple(tokens), phrases) == naive


def test_a_statement_made_for_the_triggers_derives_what_a_full_one_holds() -> None:
    """`_Topics.read` triggers on a statement not yet derived; `derive` completes it alike."""
    for text in ("The cap is now 4 MB.", "We don't need the $500 budget any more.", "Scrapped."):
        wording = read_words(lexical_form(text))
        full = world.statement_of(wording, attached=False)
        probe = world.statement_of(wording, attached=False, derived=False)
        assert world.triggered(probe) == world.triggered(full)
        probe.derive()
        for name in world.Statement.__slots__:
            assert getattr(probe, name) == getattr(full, name), name


def _forward_anaphors(
    index: ViewIndex, mentions: set[int], measures: frozenset[tuple[str, ...]]
) -> set[int]:
    """The anaphor walk written forwards from every mention, past the next sentence, up to
    and with the first sentence offering a firm antecedent or values that stop a rule of
    `measures` (`_walks_past`); reference for `_reaches`."""
    topics = world._topics_of(index)
    found: set[int] = set()
    for mention in mentions:
        passed: frozenset[tuple[str, ...]] = frozenset()
        current, first = index.next_id(mention), True
        while current is not None:
            anaphoric = not world._ANAPHORS.isdisjoint(index.sentences[current].worded().tokens)
            if not first and anaphoric and world._walks_past(passed, measures):
                found.add(current)
            offered = world._offer(topics, current)
            passed |= offered
            if offered is world._FIRM or not world._walks_past(passed, measures):
                break
            current, first = index.next_id(current), False
    return found


def _departing(index: ViewIndex, sids: set[int]) -> set[int]:
    topics = world._topics_of(index)
    return {s for s in sids if (t := topics.get(s) or topics.read(s)).readers or t.bare_permission}


def test_the_backward_anaphor_walk_finds_what_a_forward_walk_does() -> None:
    """`_anaphors_beyond` walks back from each anaphor that can depart; from every set of
    mentions it must find the departing anaphors the forward walk finds, on every fixture."""
    for path in FIXTURES:
        case = load(path)
        index = ViewIndex(SummaryView.from_summary(str(case["summary"])))
        every = set(range(len(index.sentences)))
        for mentions, measures in itertools.product(
            [every, *({sid} for sid in every)], _MEASURES
        ):
            expected = _departing(index, _forward_anaphors(index, mentions, measures))
            found = world._anaphors_beyond(index, mentions, measures)
            assert found == expected, (path.name, mentions, measures)


# A rule with no value, one of money, one of data size: what stops a walk differs.
_MEASURES: list[frozenset[tuple[str, ...]]] = [
    frozenset(),
    frozenset({("money", "money")}),
    frozenset({("quantity", "data")}),
]


def test_a_probed_site_is_still_walked_forwards() -> None:
    """A site too large to index whole is cut as it is read; its anaphors are still found."""
    filler = "The nightly job processed rows without trouble today. " * 6000
    text = f"{filler}\nKeep replies under 200 words. Lunch was ordered. Going over that is fine.\n"
    index = ViewIndex(SummaryView.from_summary(text))
    (part,) = parts_of("Keep replies under 200 words.")
    mentions = index.sharing(world._topic_keys(part), part.probes)
    assert mentions and all(index.sentences[m].line < 0 for m in mentions)
    beyond = world._anaphors_beyond(index, mentions, world._facts(part).measures)
    assert [index.sentences[sid].text for sid in beyond] == ["going over that is fine."]


@pytest.mark.parametrize(
    "text",
    [
        "it", "(it)", "it's fine", "that's it.", "[this];", "a;that", "x(those", "such-like",
        "http://example.com/a(it", "see http://example.com/x;this", "mail a@b.com(it",
        "commit", "itself", "with", "its", "thus", "--it", "#this", "it%", "_it", "it_",
    ],
)
def test_the_anaphor_run_test_misses_no_anaphor(text: str) -> None:
    """`_anaphoric_run` lets the walk skip reading a sentence: it must find every anaphor
    token its words hold (it may find more)."""
    tokens = read_words(lexical_form(text)).tokens
    if not world._ANAPHORS.isdisjoint(tokens):
        assert any(map(world._anaphoric_run, lexical_form(text).split())), tokens


def test_the_anaphor_run_test_misses_no_anaphor_of_any_fixture() -> None:
    for path in FIXTURES:
        for text in _texts(load(path)):
            folded = lexical_form(text)
            for start, end in sentence_spans(folded):
                sentence = " ".join(folded[start:end].split())
                if not world._ANAPHORS.isdisjoint(read_words(sentence).tokens):
                    assert any(map(world._anaphoric_run, sentence.split())), sentence


def _shared_views() -> list[tuple[list[Invariant], SummaryView]]:
    """Fixtures in groups of 24, each group's summaries one view read against its constraints.

    A view read against many constraints keeps its sentences' closed-world readings
    (`world._Topics`: the topics, their kept statements, `idle` and `dead`) for every
    constraint after the first, so a reading one constraint left behind must never skew
    another's.
    """
    cases = [load(path) for path in FIXTURES]
    found = []
    for start in range(0, len(cases), 24):
        group = cases[start : start + 24]
        rules = list({c["constraint"]: None for c in group})
        summary = "\n\n".join(str(c["summary"]) for c in group)
        invariants = [Invariant(id=invariant_id(text), text=text) for text in rules]
        found.append((invariants, SummaryView.from_summary(summary)))
    return found


def test_many_constraints_read_against_one_view_alike_with_and_without_the_prefilter() -> None:
    def outcomes(*, shared: bool) -> list[str]:
        found = []
        for invariants, view in _shared_views():
            detector = LexicalDetector()
            for invariant in invariants:
                reader = detector if shared else LexicalDetector()
                found.append(repr(reader.detect(invariant, view)))
        return found

    filtered = outcomes(shared=True)
    assert filtered == outcomes(shared=False)
    with world.unfiltered():
        assert filtered == outcomes(shared=True)


def _kept_readers(
    topic: world._Topic, applying: frozenset[world.Reader], *, implicit: bool
) -> tuple[world.Reader, ...]:
    """The readers `_topic_departure` asks of a topic read once for the view."""
    if implicit and topic.implicit_value and world._value in applying:
        return topic.implicitly(applying)
    return topic.applying(applying)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_sentence_read_once_for_the_view_keeps_every_reader_of_each_attachment(
    path: Path,
) -> None:
    """`_Topics.read` triggers readers on one probe, read apart from any copy; read as
    attached or as the copy's own remark the sentence must lose no reader that departs
    (a trigger that reads the attachment, as `_value`'s does, is kept by `implicit_value`)."""
    case = load(path)
    parts = parts_of(case["constraint"])
    for text in _texts(case):
        index = ViewIndex(SummaryView.from_summary(text))
        topics = world._topics_of(index)
        for sid in range(len(index.sentences)):
            topic = topics.read(sid)
            for part, attached, implicit in itertools.product(parts, (False, True), (False, True)):
                kept = _kept_readers(topic, world.applicable(part), implicit=implicit)
                statement = topic.statement(attached=attached, implicit=implicit)
                with world.unfiltered():
                    lost = [
                        reader.__name__
                        for reader in world._READERS
                        if reader not in kept
                        and world.departure_in_clause(part, statement, (reader,)) is not None
                    ]
                assert lost == [], (statement.text, attached, implicit)
