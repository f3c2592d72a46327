"""Constraint parts and their alignment to a window of summary sentences.

A part is one sentence of a registered constraint. Aligning it to a window says which
of its content words the window carries, where, in what order, and which clauses of
the window speak about it (the region whose modality counts).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Protocol

from compaction_guard.anchors import (
    are_siblings,
    comparable,
    identifier_parts,
    is_identifier,
    is_soft_identifier,
)
from compaction_guard.detectors.lexical.acts import (
    ACTS,
    NOTHING,
    ActSite,
    Equivalents,
    act_sites,
    equivalent_acts,
    verb_use,
)
from compaction_guard.detectors.lexical.frame import WISH
from compaction_guard.detectors.lexical.index import key_weight, lookup_keys
from compaction_guard.detectors.lexical.lexicon import (
    GENERIC,
    READ_VERBS,
    RELATIONS,
    STOPWORDS,
    WRITE_VERBS,
    concept,
)
from compaction_guard.detectors.lexical.memo import IdentityMemo
from compaction_guard.detectors.lexical.modality import FORCE, NEGATIVE, STRONG, Mark, Modality
from compaction_guard.detectors.lexical.switches import is_on
from compaction_guard.detectors.lexical.text import ID, Analysis, analyse, lexical_form, token_key
from compaction_guard.normalize import (
    fold_whitespace,
    mask_emphasis,
    sentence_spans,
    stem,
)

__all__ = [
    "Alignment",
    "Part",
    "align",
    "closing_bounds",
    "constraint_analysis",
    "each_nouns",
    "parts_of",
    "region_marks",
]

_GENERIC_WEIGHT = 0.25
_TRACE_COVERAGE = 0.5
_ID_WEIGHT = 3.0
_SOFT_WEIGHT = 2.0
_LONG_WORD = 7
# Words that carry the topic of a read-only rule: what it forbids and what it allows.
ACCESS_KEYS = frozenset(concept(word) for word in WRITE_VERBS | READ_VERBS)


@dataclass(frozen=True, slots=True)
class Part:
    """One sentence of a constraint, ready to compare."""

    text: str
    analysis: Analysis
    content: tuple[int, ...]
    weights: tuple[float, ...]
    total: float
    lookup: frozenset[str]
    probes: tuple[str, ...]
    significant: tuple[int, ...]
    classes: Counter[Modality]
    parity: int
    key_count: int = 0
    offered: int = 0
    family: frozenset[str] = frozenset()
    names: tuple[int, ...] = ()
    keyed: tuple[tuple[int, str], ...] = ()
    acts: tuple[ActSite, ...] = ()
    generic: frozenset[int] = frozenset()
    # Facts of the part alone that the rules read for every window (worked out once):
    stems: tuple[str, ...] = ()  # the stem of each token
    forced: bool = False  # it has force words (see `context.force_offered`)
    strong: bool = False  # it has a full-force word (`modality.STRONG`: must, never)
    core: int = -1  # its most specific content word: heaviest, last of equals (`names_core`)
    exclusive: bool = False  # it admits one choice: "only X", "no API other than X"
    each: frozenset[str] = frozenset()  # what a distributive "each"/"every" governs
    named: frozenset[int] = frozenset()  # content positions keyed as identifiers (`ID`)
    identifiers: tuple[int, ...] = ()  # content positions of strict identifiers, in order
    weight_at: dict[int, float] = field(default_factory=dict)  # content position -> weight
    # Whether some content word may sit in a window other than as its own key
    # (`_indirect`: a read-only rule, a hyphenated word); else `_found` reads keys alone.
    indirect: bool = False


@functools.lru_cache(maxsize=4096)
def parts_of(text: str) -> tuple[Part, ...]:
    """Return the parts of a constraint text; sentences without content join the previous."""
    folded = mask_emphasis(lexical_form(text))
    pieces = [fold_whitespace(folded[a:b]) for a, b in sentence_spans(folded)]
    parts: list[Part] = []
    for piece in pieces or [fold_whitespace(folded)]:
        part = _part(piece)
        if parts and not part.content and not part.analysis.values:
            parts[-1] = _part(parts[-1].text + " " + piece)
            continue
        parts.append(part)
    # Every part may meet the other parts' words in a shared sentence; they are not extra.
    family = frozenset(p.analysis.keys[i] for p in parts for i in p.content)
    # "orders_prod (the orders database)": a word of a name restates the name.
    family |= {
        key
        for p in parts
        for i in p.content
        if is_identifier(p.analysis.tokens[i])
        for piece in identifier_parts(p.analysis.tokens[i])
        if (key := token_key(piece)) is not None
    }
    return tuple(dataclasses.replace(part, family=family) for part in parts)  # type: ignore[arg-type]


def _part(text: str) -> Part:
    analysis = analyse(text)
    if len(_ANALYSED) >= _ANALYSED_LIMIT:
        _ANALYSED.clear()
    _ANALYSED[text] = analysis
    content = tuple(i for i, key in enumerate(analysis.keys) if key is not None)
    # A generic noun may go unsaid; a generic word used as the rule's verb may not.
    generic = frozenset(
        i for i in content if analysis.keys[i] in GENERIC and not verb_use(analysis.tokens, i)
    )
    weights = tuple(
        _GENERIC_WEIGHT if i in generic else _weight(analysis.tokens[i]) for i in content
    )
    significant = tuple(
        i for i, token in enumerate(analysis.tokens) if token not in STOPWORDS or token in RELATIONS
    )
    marks = [m for m in analysis.marks if m.modality is not Modality.LIFT_VERB]
    classes = Counter(mark.modality for mark in marks)
    parity = sum(1 for mark in marks if mark.modality in NEGATIVE) % 2
    other_than = any(a == "other" and b == "than" for a, b in pairwise(analysis.tokens))
    return Part(
        text=text,
        analysis=analysis,
        content=content,
        weights=weights,
        total=sum(weights) or 1.0,
        lookup=_lookup(analysis, content),
        probes=_probes(analysis),
        significant=significant,
        classes=classes,
        parity=parity,
        key_count=len({analysis.keys[i] for i in content}),
        keyed=tuple((i, analysis.keys[i]) for i in content),  # type: ignore[misc]
        names=tuple(
            i
            for i in content
            if is_identifier(analysis.tokens[i]) or is_soft_identifier(analysis.tokens[i])
        ),
        offered=sum(key_weight(k) for k in lookup_keys(analysis.tokens[i] for i in content)),
        acts=act_sites(analysis),
        generic=generic,
        stems=tuple(stem(token) for token in analysis.tokens),
        forced=any(classes[m] for m in FORCE),
        strong=any(classes[m] for m in STRONG),
        core=max(zip(weights, content, strict=True), default=(0.0, -1))[1],
        exclusive=bool(classes[Modality.ONLY]) or (parity == 1 and other_than),
        each=each_nouns(analysis),
        identifiers=tuple(i for i in content if is_identifier(analysis.tokens[i])),
        named=frozenset(i for i in content if analysis.keys[i].startswith(ID)),  # type: ignore[union-attr]
        weight_at=dict(zip(content, weights, strict=True)),
        indirect=any(analysis.keys[i] == "~readonly" or "-" in analysis.tokens[i] for i in content),
    )


# The analysis of each constraint part's text, the one every part of that text holds.
_ANALYSED: dict[str, Analysis] = {}
_ANALYSED_LIMIT = 8192


def constraint_analysis(text: str) -> Analysis | None:
    """Return the analysis of a constraint part whose text is `text`, if one was read.

    A window that says a constraint's sentence again (its own, or a sibling rule's) reads
    as that part's analysis does; `rules.evaluate` keeps what it found there per part.
    """
    return _ANALYSED.get(text)


def each_nouns(analysis: Analysis) -> frozenset[str]:
    """Return the stems of the nouns a distributive word governs ("each BigQuery query")."""
    tokens = analysis.tokens
    if "each" not in tokens and "every" not in tokens:
        return frozenset()
    found: set[str] = set()
    for index, token in enumerate(tokens):
        if token in {"each", "every"}:
            found.update(stem(t) for t in tokens[index + 1 : index + 3] if t.isalpha())
    return frozenset(found)


def _lookup(analysis: Analysis, content: tuple[int, ...]) -> frozenset[str]:
    values = [t for v in analysis.values for t in analysis.tokens[v.start : v.end]]
    keys = lookup_keys([*(analysis.tokens[i] for i in content), *values])
    keys |= {key for key in analysis.keys if key is not None and key.startswith("~")}
    if "~readonly" in analysis.keys:
        keys |= ACCESS_KEYS
    return keys


def _weight(token: str) -> float:
    if is_identifier(token):
        return _ID_WEIGHT
    if is_soft_identifier(token):
        return _SOFT_WEIGHT
    return 1.5 if len(token) >= _LONG_WORD else 1.0


def _probes(analysis: Analysis) -> tuple[str, ...]:
    """Return substrings that find this part's sentences in a large text, best first."""
    ranked: list[tuple[float, str]] = []
    for index, key in enumerate(analysis.keys):
        if key is None or key.startswith("~"):
            continue
        token = analysis.tokens[index]
        if key.startswith(ID) or is_soft_identifier(token):
            ranked.append((100.0 + len(token), token))
        elif len(token) >= 4:  # noqa: PLR2004 - short words find too much
            probe = token[:-1] if token[-1] in "sdey" and len(token) > 5 else token  # noqa: PLR2004
            ranked.append((float(len(token)), probe))
    ranked.sort(reverse=True)
    seen: list[str] = []
    for _, probe in ranked:
        if probe not in seen:
            seen.append(probe)
    return tuple(seen)


# Not frozen: a frozen dataclass sets each field by a call to `object.__setattr__`, and
# one is built per pair of a part and a window. Nothing assigns to one once built.
@dataclass(slots=True)
class Alignment:
    """Where a part's content words sit in a window."""

    matches: dict[int, int]
    covered: frozenset[int]
    coverage: float
    complete: bool
    matched_keys: int
    inversions: int
    topic_clauses: frozenset[int]
    region: frozenset[int]
    turned: frozenset[int] = frozenset()
    carried: bool = False


_NOTHING_MATCHED: dict[int, int] = {}
_NO_ALIGNMENT = Alignment(
    matches=_NOTHING_MATCHED,
    covered=frozenset(),
    coverage=0.0,
    complete=False,
    matched_keys=0,
    inversions=0,
    topic_clauses=frozenset(),
    region=frozenset(),
)


class _Sentences(Protocol):
    """What the alignment reads of a window's sentences whatever the part (`context.Sentences`)."""

    @property
    def names(self) -> tuple[tuple[int, str], ...]: ...
    @property
    def members(self) -> dict[int, list[int]]: ...
    @property
    def closers(self) -> tuple[tuple[int, int], ...]: ...


def align(
    part: Part, window: Analysis, facts: _Sentences, span: tuple[int, int] | None = None
) -> Alignment:
    """Match each content token of `part` to a window token with the same key.

    Matches gather around the clause that carries most of the part (so a word repeated
    elsewhere in the sentence does not pull the topic away) and follow the part's order
    where they can. With `span`, only tokens inside [start, stop) are matched. `facts`
    are the window's own, shared by every part read against it.
    """
    found = _found(part, window, span)
    if not _may_trace(part, found, facts):
        return _NO_ALIGNMENT
    keys = part.analysis.keys
    # The clause `_choose` gathers matches around; only a word found in more than one
    # place asks for it, so most alignments never work it out (`found` stays unchanged).
    core: int | None = None
    matches: dict[int, int] = {}
    covered: set[int] = set()
    compounds: set[int] = set()
    matched_weight = 0.0
    last = -1
    inversions = 0
    weight_at = part.weight_at
    for index, (positions, width) in found.items():  # in the part's order (`_found`)
        # Two words of the part never share one word of the window, except the pieces
        # of a compound: "GPL-licensed" says "licensed" and "GPL" (width 0).
        if covered.isdisjoint(positions):
            free = positions  # nothing taken yet: the filter below would keep every one
        else:
            free = [p for p in positions if p not in covered or (width == 0 and p in compounds)]
        if not free:
            continue
        if len(free) == 1:
            position = free[0]  # what `_choose` gives for one
            in_order = position > last
        else:
            if core is None:
                core = _core_clause(window, found, keys)
            position, in_order = _choose(free, window, facts, core, last)
        inversions += 0 if in_order else 1
        last = max(last, position)
        matches[index] = position
        if width == 0:
            covered.add(position)
            compounds.add(position)
        elif width == 1:
            covered.add(position)
        else:
            covered.update(range(position, position + width))
        matched_weight += weight_at[index]
    equivalents = NOTHING
    if part.acts and matches:
        equivalents = _equivalent_acts(part, window, matches, covered, span)
        matches.update(equivalents.found)
        matched_weight += sum(part.weight_at.get(index, 0.0) for index in equivalents.found)
    topic = _topic(part, window, matches, span)
    found_keys = {keys[i] for i in matches}
    # A part that says one thing twice ("calls ... requests") is complete when the
    # window says it once: every key that may not go unsaid is found (`_required`).
    complete = _required(part) <= found_keys
    return Alignment(
        matches=matches,
        covered=frozenset(covered),
        coverage=matched_weight / part.total,
        complete=complete,
        matched_keys=len(found_keys),
        inversions=inversions,
        topic_clauses=topic,
        region=_region(window, facts, topic),
        turned=equivalents.turned,
        carried=equivalents.carried,
    )


def _equivalent_acts(
    part: Part,
    window: Analysis,
    matches: dict[int, int],
    covered: set[int],
    span: tuple[int, int] | None,
) -> Equivalents:
    """Find the rule's verbs that the window names with another verb of their act (`acts`)."""
    switched_on = frozenset(act.name for act in ACTS if is_on(act.name))
    return equivalent_acts(
        part.acts, part.analysis, window, matches, covered, switched_on=switched_on, span=span
    )


def _may_go_unsaid(part: Part, index: int) -> bool:
    """Tell whether a rule word may be missing: a generic noun, never a generic verb."""
    if index in part.generic:
        return True
    return not is_on("generic_verb") and part.analysis.keys[index] in GENERIC


def _required(part: Part) -> frozenset[str | None]:
    """Return the keys of the part's words that may not go unsaid (`_may_go_unsaid`).

    A matched word's key is found by definition, so an alignment is complete exactly
    when every one of these keys is found. Worked out once per part and switch state.
    """
    return _REQUIRED.get(part, _required_keys, tag=is_on("generic_verb"))


def _required_keys(part: Part) -> frozenset[str | None]:
    keys = part.analysis.keys
    return frozenset(keys[i] for i in part.content if not _may_go_unsaid(part, i))


_REQUIRED: IdentityMemo[Part, frozenset[str | None]] = IdentityMemo(8192)


def _found(
    part: Part, window: Analysis, span: tuple[int, int] | None
) -> dict[int, tuple[list[int], int]]:
    """Return where each content word of the part could sit in the window.

    Most parts and windows need only the keys themselves: with no span, no hyphenated
    word in the window (`compounds`) and no content word of the part that `_indirect`
    could find another way (`Part.indirect`), a word sits exactly where its key does.
    """
    where = window.positions
    compounds = window.compounds
    if span is None and not compounds and not part.indirect:
        return {index: (where[key], 1) for index, key in part.keyed if key in where}
    tokens = part.analysis.tokens
    found: dict[int, tuple[list[int], int]] = {}
    for index, key in part.keyed:
        direct = where.get(key)
        if direct and span is None:
            found[index] = (direct, 1)  # the common case: the key itself, anywhere
            continue
        if not direct and key != "~readonly" and key not in compounds and "-" not in tokens[index]:
            continue  # nothing else carries it (`_indirect` would find nothing)
        positions, width = (direct, 1) if direct else _indirect(tokens[index], key, window)
        if span is not None:
            positions = [p for p in positions if span[0] <= p < span[1]]
        if positions:
            found[index] = (positions, width)
    return found


def _topic(
    part: Part, window: Analysis, matches: dict[int, int], span: tuple[int, int] | None
) -> frozenset[int]:
    """Return the clauses that speak about the part: matched words, values, a lead scope."""
    clauses = window.clauses
    topic = frozenset(clauses[p] for p in matches.values())
    unplaced = []
    if part.analysis.values and window.values:
        in_topic = [v for v in window.values if clauses[v.start] in topic]
        unplaced = [
            wanted
            for wanted in part.analysis.values
            if not any(comparable(wanted, found) for found in in_topic)
        ]
    if topic and unplaced:
        # The rule's words and a value sit in different clauses ("allowed at any time,
        # including outside 09:00 to 17:00", "... or once two hours pass"): the clause
        # holding that value is topic too.
        topic |= {
            clauses[found.start]
            for found in window.values
            if any(comparable(wanted, found) for wanted in unplaced)
            and (span is None or span[0] <= found.start < span[1])
        }
    if window.tokens and window.tokens[0] in _SCOPE_WORDS:
        topic |= _leading_scope(window, topic)
    return topic


_SCOPE_WORDS = frozenset(
    {"for", "in", "on", "during", "within", "across", "at", "outside", "inside", "under"}
    | {"after", "before", "until", "throughout", "from", "except", "excluding"},
)


def _leading_scope(window: Analysis, topic: frozenset[int]) -> frozenset[int]:
    """Return the opening clause when it scopes the rule after it ("In staging, ...").

    Its words then count as the rule's own: a qualifier there narrows the rule.
    """
    if not topic or not window.tokens or window.tokens[0] not in _SCOPE_WORDS:
        return frozenset()
    lead = window.clauses[0]
    if lead in topic or not any(clause > lead for clause in topic):
        return frozenset()
    return frozenset({lead})


def _may_trace(part: Part, found: dict[int, tuple[list[int], int]], window: _Sentences) -> bool:
    """Tell whether the found words could make a trace at all; cheap, checked first.

    A part with a name the window lacks is read in full when the window may name an
    edited version of it (a sibling), which makes a trace of its own (`rules._is_trace`).
    """
    if not found:
        return False
    keys = part.analysis.keys
    if not part.named.isdisjoint(found):
        return True
    if len({keys[i] for i in found}) >= min(2, part.key_count):
        return True
    # `found` follows the part's order (`_found`), so the sum adds in the same order.
    weight_at = part.weight_at
    weight = sum(weight_at[i] for i in found)
    if weight / part.total >= _TRACE_COVERAGE:
        return True
    if all(i in found for i in part.names):
        return False
    return bool(part.acts) or _sibling_possible(part, window)


def _sibling_possible(part: Part, window: _Sentences) -> bool:
    """Tell whether any name of the window is a sibling of any of the part's names.

    Only a sibling can make a trace of a part whose found words fall short of one: with
    no verb of an act to add matches (`acts`), the alignment only matches found words,
    so it has fewer than two keys, no name and under half the weight, and `_is_trace`
    then passes only on a window name that is a sibling of an unmatched name
    (`context.has_sibling`). Every name of the part against every name of the window is
    a superset of that, so a window this rejects would have been no trace.
    """
    tokens = part.analysis.tokens
    return any(are_siblings(tokens[i], other) for i in part.names for _, other in window.names)


def _core_clause(
    window: Analysis, found: dict[int, tuple[list[int], int]], keys: tuple[str | None, ...]
) -> int:
    """Return the clause holding the most distinct found keys, the first of equals; -1 if none."""
    clauses = window.clauses
    per_clause: dict[int, set[str | None]] = {}
    for index, (positions, _) in found.items():
        key = keys[index]
        for position in positions:
            clause = clauses[position]
            held = per_clause.get(clause)
            if held is None:
                per_clause[clause] = {key}
            else:
                held.add(key)
    best, most = -1, 0
    for clause, held in per_clause.items():
        if len(held) > most or (len(held) == most and clause < best):
            best, most = clause, len(held)
    return best


def _choose(
    positions: list[int], window: Analysis, facts: _Sentences, core: int, last: int
) -> tuple[int, bool]:
    """Pick a position in the core clause if any, else the one nearest to it; in order first."""
    if len(positions) == 1:
        return positions[0], positions[0] > last  # what every branch below gives for one
    in_core = [p for p in positions if window.clauses[p] == core]
    pool = in_core or positions
    nxt = bisect.bisect_right(pool, last)
    if in_core and nxt < len(pool):
        return pool[nxt], True
    if in_core:
        return pool[0], False
    core_positions = facts.members.get(core)
    if not core_positions:
        after = [p for p in pool if p > last]
        return (after[0], True) if after else (pool[0], False)
    low, high = core_positions[0], core_positions[-1]
    best = min(pool, key=lambda p: low - p if p < low else max(0, p - high))
    return best, best > last


def _indirect(token: str, key: str | None, window: Analysis) -> tuple[list[int], int]:
    """Return where `key` sits in the window when not as itself, and how many tokens each spans.

    A width of 0 is a piece of a hyphenated word, which other pieces may share. The
    caller (`_found`) has looked the key itself up already.
    """
    if key == "~readonly":
        # A read-only rule is carried by what it says about writing or reading.
        found = [i for i, k in enumerate(window.keys) if k in ACCESS_KEYS]
        return found, 1
    if key is not None and window.compounds:
        inside = window.compounds.get(key)
        if inside:
            return inside, 0  # "retention" inside "data-retention": a piece of the word
    if "-" not in token:
        return [], 1
    return _variant(token, window)


def _variant(token: str, window: Analysis) -> tuple[list[int], int]:
    """Find a soft identifier written with spaces or without its hyphens."""
    if not is_soft_identifier(token):
        return [], 1
    pieces = token.split("-")
    joined = "".join(pieces)
    tokens = window.tokens
    for index, candidate in enumerate(tokens):
        if candidate == joined:
            return [index], 1
        if candidate == pieces[0] and list(tokens[index : index + len(pieces)]) == pieces:
            return [index], len(pieces)
    return [], 1


def _region(window: Analysis, facts: _Sentences, topic: frozenset[int]) -> frozenset[int]:
    """Topic clauses plus the clauses that frame them (wrappers, conditions, hedges)."""
    if not topic:
        return topic
    closing = {clause for clause, before in facts.closers if before in topic}
    region = topic | window.framing | closing
    for frame in window.frames:
        # A hedging label frames every clause it governs, whatever words it holds.
        scope = range(frame.scope_start, frame.scope_end)
        if frame.kind == WISH and any(window.clauses[i] in topic for i in scope):
            region |= {window.clauses[i] for i in range(frame.start, frame.end)}
    return region


def closing_bounds(window: Analysis) -> tuple[tuple[int, int], ...]:
    """Return the clauses that are only a bound closing the clause before ("90 days | or more").

    The clause break before "or" cuts "or more", "or less", "or longer" off the value they
    bound; they belong to the clause before them, when that one is a topic clause. Each
    comes with the clause of the word before it.
    """
    found = []
    for mark in window.marks:
        if mark.modality not in (Modality.MAX, Modality.MIN) or window.tokens[mark.start] != "or":
            continue
        clause = window.clauses[mark.start]
        members = [i for i, c in enumerate(window.clauses) if c == clause]
        before = max(0, mark.start - 1)
        if members == list(range(mark.start, mark.end)):
            found.append((clause, window.clauses[before]))
    return tuple(found)


def region_marks(window: Analysis, alignment: Alignment) -> list[Mark]:
    """Return the window's marks inside the region, minus lift verbs that are content."""
    matched = set(alignment.matches.values())
    return [
        mark
        for mark in window.marks
        if window.clauses[mark.start] in alignment.region
        and not (mark.modality is Modality.LIFT_VERB and mark.start in matched)
    ]
