"""The per-view sentence index: built once per view, shared by every constraint.

A site of up to `FULL_INDEX_LIMIT` characters is cut into sentences and indexed by
content key up front. A larger site is only case-folded; a constraint finds its
sentences there by substring probes for its rarest tokens, and only the lines around
a hit are cut into sentences.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from compaction_guard.anchors import (
    full_day_name,
    identifier_parts,
    is_identifier,
    is_soft_identifier,
)
from compaction_guard.detectors.lexical.lexicon import GENERIC_RULE_NOUNS
from compaction_guard.detectors.lexical.memo import IdentityMemo
from compaction_guard.detectors.lexical.text import (
    BOUND,
    ID,
    Analysis,
    Wording,
    analyse,
    lexical_form,
    read_words,
    token_key,
)
from compaction_guard.normalize import (
    fold_whitespace,
    logical_line_end,
    logical_line_start,
    mask_emphasis,
    run_tokens,
    sentence_spans,
    stem,
)
from compaction_guard.taxonomy import Site

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from compaction_guard.view import Passage, SummaryView

__all__ = [
    "FULL_INDEX_LIMIT",
    "NUMBER",
    "PART",
    "RULE",
    "Sentence",
    "ViewIndex",
    "key_weight",
    "lookup_keys",
]

FULL_INDEX_LIMIT = 262_144
PART = "part:"
_PROBE_HIT_LIMIT = 400
_PROBES = 2
_HEADING_REACH = 8
_MIN_PART = 3


@dataclass(slots=True)
class Sentence:
    """One sentence of the compacted context and where it lives."""

    text: str
    site: Site
    tool: bool
    keys: frozenset[str]
    analysis: Analysis | None = None
    wording: Wording | None = None
    line: int = -1
    lead: str = ""
    # The whitespace-free runs of `text`, when the index cut them already (their hashes
    # are worked out then): the first reading takes its tokens from them.
    runs: list[str] | None = None

    def analysed(self) -> Analysis:
        """Return (and keep) the full analysis of this sentence."""
        if self.analysis is None:
            self.analysis = analyse(self.text, self.worded())
        return self.analysis

    def worded(self) -> Wording:
        """Return (and keep) the first reading of this sentence: tokens, clauses, values.

        Enough for the closed world, which reads most sentences of a view and aligns few.
        """
        if self.wording is None:
            self.wording = read_words(self.text, self.runs)
        return self.wording


# Bound words share one key, so "cap", "limit" and "at most" find each other.
_BOUND_KEYS = dict.fromkeys(("cap", "caps", "capped", "limit", "limits", "maximum"), BOUND)
_BOUND_KEYS |= dict.fromkeys(("max", "ceiling", "most", "exceed", "exceeds"), BOUND)
_BOUND_KEYS |= dict.fromkeys(("minimum", "min", "least", "floor", "under", "below"), BOUND)
_BOUND_KEYS |= dict.fromkeys(("over", "above", "within", "fewer", "less", "beyond"), BOUND)
_BOUND_KEYS |= {"read-only": "~readonly", "readonly": "~readonly"}
NUMBER = "num:"
_ANY_NUMBER = NUMBER + "#"
# A generic rule noun ("the rule", "that policy", "all constraints") keys no content (its
# stem is a light word), yet a sentence holding one may speak of any rule: the closed world
# reads it on every rule's topic. Like "some number" it scores nothing alone.
RULE = "~rule"
_GENERIC_RULE_STEMS = frozenset(map(stem, GENERIC_RULE_NOUNS))
_SCORELESS = frozenset({_ANY_NUMBER, RULE})
# An IPv4 address or network range: a changed octet or prefix is still the same kind of value.
_ADDRESS = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?")


def key_weight(key: str) -> int:
    """Return the score of one shared index key.

    An identifier says more than a word; a bare "some number" class or a generic rule
    noun says nothing alone.
    """
    if key.startswith(ID):
        return 2
    return 0 if key in _SCORELESS else 1


def _weighted(keys: frozenset[str]) -> tuple[tuple[str, int], ...]:
    """Return the scoring keys of `keys` with their weights (`key_weight`)."""
    return tuple((key, weight) for key in keys if (weight := key_weight(key)))


# A part's lookup keys are one frozenset, read against every view: weighed once.
_WEIGHTED: IdentityMemo[frozenset[str], tuple[tuple[str, int], ...]] = IdentityMemo(8192)


def _value_class(token: str) -> str:
    """Return a coarse class of a numeric token, so a changed value still finds its sentence."""
    if token.endswith("%"):
        return NUMBER + "%"
    if token[0] in "$\u20ac\u00a3\u00a5":
        return NUMBER + "$"
    if ":" in token:
        return NUMBER + ":"
    if _ADDRESS.fullmatch(token):
        return NUMBER + "ip"
    return _ANY_NUMBER


def lookup_keys(tokens: Iterable[str]) -> frozenset[str]:
    """Return the index keys of `tokens`: content keys, identifier parts, bounds, numbers."""
    return frozenset(itertools.chain.from_iterable(map(_token_keys, tokens)))


def text_keys(text: str) -> frozenset[str]:
    """Return `lookup_keys(tokenize(text))`, read one whitespace-free run at a time."""
    return words_keys(text.split())


def words_keys(words: list[str]) -> frozenset[str]:
    """Return the index keys of the text made of the whitespace-free runs `words`.

    The tokens of a text are those of its runs in order (see `normalize.tokenize`), so
    the keys are the union of each run's keys; a run ("rows.", "the") recurs across
    sentences and views, and its keys are worked out once. The lookups run in one pass
    over a plain dict; a run not seen yet (a new figure or path: one in three sentences
    of a progress note has one) reads None there and is worked out in its place, so the
    pass is never run again (a retry after a failed lookup cost that sentence as much
    again as the pass).
    """
    found = list(map(_WORD_KEYS.get, words))
    while None in found:
        at = found.index(None)
        found[at] = _word_keys(words[at])
    return frozenset(itertools.chain.from_iterable(cast("list[tuple[str, ...]]", found)))


# Index keys by whitespace-free run; cleared when full (a run's keys never change).
_WORD_KEYS: dict[str, tuple[str, ...]] = {}
_WORD_KEYS_LIMIT = 65536


def _word_keys(word: str) -> tuple[str, ...]:
    keys = _WORD_KEYS.get(word)
    if keys is None:
        # A run holds no whitespace: its tokens are `run_tokens(word)`, `tokenize`'s own.
        keys = tuple(itertools.chain.from_iterable(map(_token_keys, run_tokens(word))))
        if len(_WORD_KEYS) >= _WORD_KEYS_LIMIT:
            _WORD_KEYS.clear()
        _WORD_KEYS[word] = keys
    return keys


@functools.lru_cache(maxsize=131072)
def _token_keys(token: str) -> tuple[str, ...]:
    plain = _plain_number(token)
    if plain is not None:
        return (NUMBER + plain[:12], _ANY_NUMBER)
    keys: list[str] = []
    bound = _BOUND_KEYS.get(token)
    if bound is not None:
        keys.append(bound)
    if token.isalpha() and stem(token) in _GENERIC_RULE_STEMS:
        keys.append(RULE)
    digits = "".join(filter(str.isdigit, token))
    if digits:
        keys.append(NUMBER + digits[:12])
        keys.append(_value_class(token))
    day = full_day_name(token)
    if day is not None and (day_key := token_key(day)) is not None:
        keys.append(day_key)  # "[mon, fri]" is on the topic of "Only deploy on Mondays"
    key = token_key(token)
    if key is not None:
        keys.append(key)
        if is_identifier(token) or is_soft_identifier(token):
            keys.extend(PART + part for part in identifier_parts(token) if len(part) >= _MIN_PART)
    return tuple(keys)


def _plain_number(token: str) -> str | None:
    """Return the digits of a figure written with ASCII digits and thousands commas alone.

    Such a token ("60,331", most of a progress note's new tokens) is in no bound table,
    is of the "some number" class and has no content key (`token_key`): its keys follow
    from its digits, without the readings a token of any other shape needs.
    """
    digits = token.replace(",", "")
    return digits if digits.isdigit() and digits.isascii() else None


@dataclass(slots=True)
class _ProbeArea:
    """A large site: its folded text, and the lines cut into sentence spans so far."""

    number: int
    site: Site
    text: str
    cased: str | None
    passage_starts: list[int]
    tools: list[bool]
    hits: dict[str, list[int]] = field(default_factory=dict)
    spans: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    # Logical lines with markdown emphasis masked, by start: masking keeps offsets, so
    # it is done per line cut, never over the whole (large) text.
    lines: dict[int, str] = field(default_factory=dict)
    ends: dict[int, list[int]] = field(default_factory=dict)


class ViewIndex:
    """The sentences of one SummaryView, found by content key or by probe.

    `memo` is free for callers to keep results that hold for this view only.
    """

    def __init__(self, view: SummaryView) -> None:
        self.sentences: list[Sentence] = []
        self.memo: dict[object, object] = {}
        self._postings: dict[str, list[int]] = {}
        self._lines: dict[tuple[Site, int, int], int] = {}
        self._next: dict[int, int] = {}
        self._previous: dict[int, int] = {}
        self._markdown: dict[int, int | None] = {}  # `_markdown_before`, by sentence id
        self._probe_areas: list[_ProbeArea] = []
        # probed sentence id <-> (area number, line start, position in line)
        self._place: dict[int, tuple[int, int, int]] = {}
        self._at: dict[tuple[int, int, int], int] = {}
        for site in (Site.SUMMARY, Site.RETAINED):
            passages = [p for p in view.passages if p.site is site]
            if sum(len(p.text) for p in passages) > FULL_INDEX_LIMIT:
                self._probe_areas.append(_probe_area(len(self._probe_areas), site, passages))
            else:
                self._index_all(site, passages)

    def weak(self) -> Callable[[], ViewIndex]:
        """Return a callable that gives this index back while it lives.

        What `memo` keeps must not hold the index itself: a cycle through the memo leaves
        the whole view (sentences, readings, windows) to the cyclic collector, whose full
        passes over the views dropped meanwhile stall the caller for 100 ms and more. Held
        weakly, a view is freed by reference counting the moment its last user drops it.
        """
        held = weakref.ref(self)

        def index() -> ViewIndex:
            found = held()
            if found is None:
                msg = "the view this was read from is gone: read it while its ViewIndex lives"
                raise RuntimeError(msg)
            return found

        return index

    def _index_all(self, site: Site, passages: Sequence[Passage]) -> None:
        sentences, postings, lines = self.sentences, self._postings, self._lines
        previous = -1
        for passage in passages:
            folded = mask_emphasis(lexical_form(passage.text))
            cased = passage.text if len(passage.text) == len(folded) else None
            # Sentences come in order: the line start moves forward with them, so a long
            # line is not searched back (and sliced) once per sentence on it.
            line_start, newline, line = 0, folded.find("\n"), -1
            for start, end in sentence_spans(folded, cased):
                if line < 0 or 0 <= newline < start:
                    while 0 <= newline < start:
                        line_start, newline = newline + 1, folded.find("\n", newline + 1)
                    line = lines.setdefault((site, passage.message, line_start), len(lines))
                words = folded[start:end].split()
                text = " ".join(words)  # `fold_whitespace`, with the runs kept for the keys
                keys = words_keys(words)
                sid = len(sentences)
                lead = _lead_at(folded, line_start, start)
                sentences.append(
                    Sentence(text, site, passage.tool, keys, line=line, lead=lead, runs=words)
                )
                if previous >= 0:
                    self._next[previous] = sid
                    self._previous[sid] = previous
                previous = sid
                for key in keys:
                    hits = postings.get(key)
                    if hits is None:
                        postings[key] = [sid]
                    else:
                        hits.append(sid)

    def _add(self, raw: str, site: Site, tool: bool) -> int:  # noqa: FBT001
        text = fold_whitespace(raw)
        self.sentences.append(Sentence(text, site, tool, text_keys(text)))
        return len(self.sentences) - 1

    def candidates(self, keys: frozenset[str], probes: Sequence[str]) -> dict[int, int]:
        """Return {sentence id: score} for sentences sharing any scoring key of `keys`.

        A shared identifier scores 2, any other shared key 1 (an identifier part, which
        finds edited names, also 1); a sentence sharing only keys that score 0 is left out.
        """
        shared: dict[int, int] = {}
        for key in keys:
            weight = key_weight(key)
            if not weight:
                continue  # "some number" finds every sentence with one and scores nothing
            for sid in self._postings.get(key, ()):
                shared[sid] = shared.get(sid, 0) + weight
        for area in self._probe_areas:
            for sid in self._probe(area, probes):
                score = sum(key_weight(key) for key in keys & self.sentences[sid].keys)
                if score:
                    shared[sid] = score
        return shared

    def chosen(self, keys: frozenset[str], probes: Sequence[str], need: int) -> list[int]:
        """Return, in order, the ids of the sentences `candidates` scores at least `need`.

        A sentence holds each key once, so with every sentence indexed a score of 1 is any
        scoring key shared and a score of 2 an identifier or two other keys: unions and
        intersections of the postings tell both, in C, without scoring each sentence.
        """
        if self._probe_areas or need > 2:  # noqa: PLR2004 (scores by key weights 1 and 2)
            shared = self.candidates(keys, probes)
            return sorted(sid for sid, score in shared.items() if score >= need)
        postings = self._postings
        seen: set[int] = set()  # the sentences sharing a key of weight 1 so far
        found: set[int] = set()  # those scoring `need` or more
        for key, weight in _WEIGHTED.get(keys, _weighted):
            hits = postings.get(key)
            if hits is None:
                continue
            if weight >= need:
                found.update(hits)
            else:
                found.update(seen.intersection(hits))
                seen.update(hits)
        return sorted(found)

    def sharing(self, keys: frozenset[str], probes: Sequence[str]) -> set[int]:
        """Return the ids of the sentences sharing any of `keys`, without scoring them.

        In a probed (large) site, only sentences sharing a scoring key count.
        """
        postings = self._postings
        found: set[int] = set()
        for key in keys:
            hits = postings.get(key)
            if hits is not None:
                found.update(hits)
        for area in self._probe_areas:
            for sid in self._probe(area, probes):
                if any(key_weight(key) for key in keys & self.sentences[sid].keys):
                    found.add(sid)
        return found

    def next_id(self, sid: int) -> int | None:
        """Return the id of the sentence after `sid` in the same site, or None at the end."""
        if sid in self._next:
            return self._next[sid]
        place = self._place.get(sid)
        if place is None:
            return None
        number, line_start, position = place
        area = self._probe_areas[number]
        if position + 1 < len(self._spans(area, line_start)):
            return self._sentence(area, line_start, position + 1)
        following = _next_line_start(area, line_start)
        if following is None or not self._spans(area, following):
            return None
        return self._sentence(area, following, 0)

    def heading_of(self, sid: int) -> int | None:
        """Return the nearest sentence before `sid` ending with a colon, if close enough.

        Such a heading governs the list under it ("Soft preferences:").
        """
        current = sid
        for _ in range(_HEADING_REACH):
            current = self._previous.get(current, -1)
            if current < 0:
                return None
            if self.sentences[current].text.endswith(":"):
                return current
        return None

    def heading_over(self, sid: int) -> int | None:
        """Return the heading that governs `sid`: a markdown heading or a label line above it.

        A markdown heading ("## Superseded") governs everything up to the next heading, so
        the walk back has no limit; a label ending in a colon governs the list right under it.
        """
        current = sid
        for _ in range(_HEADING_REACH):
            current = self._previous.get(current, -1)
            if current < 0:
                return None
            sentence = self.sentences[current]
            label = sentence.text.endswith(":") and sentence.lead != "|"
            if label or sentence.lead.startswith("#"):
                return current
        return self._markdown_before(current)

    def _markdown_before(self, sid: int) -> int | None:
        """Return the nearest markdown heading before `sid` in its site, or None.

        Every sentence past the label reach asks, and walking back to the top of a long
        site for each would be quadratic: the answer is kept for each sentence walked.
        """
        walked: list[int] = []
        current = sid
        found: int | None = None
        while True:
            if current in self._markdown:
                found = self._markdown[current]
                break
            walked.append(current)
            current = self._previous.get(current, -1)
            if current < 0:
                break
            if self.sentences[current].lead.startswith("#"):
                found = current
                break
        for walked_sid in walked:
            self._markdown[walked_sid] = found
        return found

    def same_line(self, sid: int, other: int) -> bool:
        """Tell whether two sentences sit on one line (a table row, a bullet with two sentences)."""
        first, second = self.sentences[sid], self.sentences[other]
        return first.line >= 0 and first.line == second.line

    def _probe(self, area: _ProbeArea, probes: Sequence[str]) -> set[int]:
        found: set[int] = set()
        used = 0
        for probe in probes:
            hits = area.hits.get(probe)
            if hits is None:
                hits = _find_all(area.text, probe, _PROBE_HIT_LIMIT + 1)
                area.hits[probe] = hits
            if len(hits) > _PROBE_HIT_LIMIT:
                continue
            for position in hits:
                line_start = logical_line_start(area.text, position, area.cased)
                ends = area.ends.get(line_start)
                if ends is None:
                    ends = area.ends[line_start] = [end for _, end in self._spans(area, line_start)]
                at = min(bisect.bisect_right(ends, position), len(ends) - 1)
                found.add(self._sentence(area, line_start, at))
            used += 1
            # A scan of a large text costs about a millisecond: stop at the first probe
            # that finds the topic, and spend a second one only on a miss.
            if found or used == _PROBES:
                break
        return found

    def _spans(self, area: _ProbeArea, line_start: int) -> list[tuple[int, int]]:
        spans = area.spans.get(line_start)
        if spans is None:
            line_end = logical_line_end(area.text, line_start, area.cased)
            line = area.lines[line_start] = mask_emphasis(area.text[line_start:line_end])
            cased = area.cased[line_start:line_end] if area.cased is not None else None
            spans = [(line_start + a, line_start + b) for a, b in sentence_spans(line, cased)]
            area.spans[line_start] = spans or [(line_start, line_end)]
            spans = area.spans[line_start]
        return spans

    def _sentence(self, area: _ProbeArea, line_start: int, position: int) -> int:
        place = (area.number, line_start, position)
        sid = self._at.get(place)
        if sid is None:
            start, end = self._spans(area, line_start)[position]
            passage = bisect.bisect_right(area.passage_starts, start) - 1
            line = area.lines[line_start]
            raw = line[start - line_start : end - line_start]
            sid = self._add(raw, area.site, area.tools[passage])
            self._at[place] = sid
            self._place[sid] = place
        return sid


_ALNUM = re.compile(r"[^\W_]")  # what str.isalnum() accepts
_LEAD_REACH = 64


def _lead_at(text: str, line_start: int, start: int) -> str:
    """`_lead` of the text between a line's start and a sentence on it."""
    if start - line_start > _LEAD_REACH and _ALNUM.search(text, start - _LEAD_REACH, start):
        return ""  # words stand before the sentence on its line: it starts mid-line
    return _lead(text[line_start:start])


def _lead(prefix: str) -> str:
    """Return the line marker before a sentence ("#", "-", "|") or "" when it starts mid-line."""
    stripped = prefix.strip()
    if stripped and any(map(str.isalnum, stripped)):
        return ""
    return stripped[:1] if stripped else ""


def _probe_area(number: int, site: Site, passages: Sequence[Passage]) -> _ProbeArea:
    pieces: list[str] = []
    starts: list[int] = []
    offset = 0
    for passage in passages:
        folded = lexical_form(passage.text)
        starts.append(offset)
        pieces.append(folded)
        offset += len(folded) + 2
    text = "\n\n".join(pieces)
    # The text before case folding tells wrapped lines apart, when folding kept lengths.
    cased = "\n\n".join(p.text for p in passages)
    tools = [p.tool for p in passages]
    return _ProbeArea(number, site, text, cased if len(cased) == len(text) else None, starts, tools)


def _find_all(text: str, needle: str, limit: int) -> list[int]:
    hits: list[int] = []
    position = text.find(needle)
    while position >= 0 and len(hits) < limit:
        hits.append(position)
        position = text.find(needle, position + 1)
    return hits


def _next_line_start(area: _ProbeArea, line_start: int) -> int | None:
    text = area.text
    cursor = logical_line_end(text, line_start, area.cased)
    while cursor < len(text) - 1:
        start = cursor + 1
        end = logical_line_end(text, start, area.cased)
        if text[start:end].strip():
            return start
        cursor = end
    return None
