"""One analysed stretch of detection-form text: tokens, keys, values, marks, clauses.

Constraint sentences and summary sentences go through the same `analyse`, so both
sides of every comparison are read the same way.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from compaction_guard.anchors import (
    RATE_PERIODS,
    VALUE_WORDS,
    Value,
    extract_values,
    is_identifier,
    is_soft_identifier,
    rate_of,
    with_rate,
)
from compaction_guard.detectors.lexical.frame import TOPIC, Frame, find_frames, reframe
from compaction_guard.detectors.lexical.lexicon import (
    CONDITIONALS,
    LIGHT,
    MOTION,
    PHRASES,
    STOPWORDS,
    concept,
    derived,
)
from compaction_guard.detectors.lexical.marks import find_modality
from compaction_guard.detectors.lexical.modality import Mark, Modality
from compaction_guard.detectors.lexical.switches import is_on
from compaction_guard.normalize import detection_form, run_tokens, stem

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "BOUND",
    "ID",
    "Analysis",
    "Wording",
    "analyse",
    "canonical",
    "force_marks",
    "join",
    "lexical_form",
    "read_words",
    "token_key",
]

# Clause breaks: `;` and brackets anywhere, `: ` and `, `, a spaced dash, and the space
# before a conjunction. Each is read from the whitespace-free runs of a folded text
# (`_run_breaks`): a bracket inside a run, a comma or colon ending one, a run that is a
# dash, a run that opens with a conjunction.
_INNER_BREAK = re.compile(r"[;()\[\]]")
_CONJUNCTION = re.compile(r"(?:but|however|although|though|whereas|while|yet|and|or|so)\b")
_DASHES = frozenset({"-", "--"})
ID = "id:"
# "Mb", "Gb": a capital prefix before a small b is bits, which case folding would lose.
_BITS = re.compile(r"(?<=\d)(\s?[KMGTP])b\b")
# The pattern needs one of these pairs; testing for them first (a plain substring search)
# spares the regex a scan of every position of long kept text that has none.
_BIT_PAIRS = ("Kb", "Mb", "Gb", "Tb", "Pb")


def lexical_form(text: str) -> str:
    """Return the detection form of `text` with data sizes in bits spelled apart (`mbit`)."""
    if any(pair in text for pair in _BIT_PAIRS):
        text = _BITS.sub(r"\1bit", text)
    return detection_form(text)


# Bound marks are content too ("cap" and "at most" carry the same topic).
BOUND = "~bound"
_PSEUDO = {Modality.MAX: BOUND, Modality.MIN: BOUND, Modality.READONLY: "~readonly"}
_CONTENT_MARKS = frozenset({Modality.LIFT_VERB})


@dataclass(frozen=True, slots=True)
class Analysis:
    """Tokens of one text with what each token is.

    `keys[i]` is the content key of token i (a synonym group, `id:<token>` for an
    identifier, `~bound` for a bound phrase) or None for function, light, value and
    modality words. `clauses[i]` numbers the clause token i sits in; `positions` maps
    each key to the positions that carry it.
    """

    text: str
    tokens: tuple[str, ...]
    keys: tuple[str | None, ...]
    values: tuple[Value, ...]
    marks: tuple[Mark, ...]
    mark_at: tuple[int, ...]
    clauses: tuple[int, ...]
    positions: dict[str, list[int]]
    frames: tuple[Frame, ...] = ()
    framing: frozenset[int] = frozenset()
    compounds: dict[str, list[int]] = dataclasses.field(default_factory=dict)
    # `canonical(self)`, filled on first use: it lives exactly as long as the analysis.
    words: list[tuple[str, int, int]] = dataclasses.field(
        default_factory=list, init=False, compare=False, repr=False
    )


@functools.lru_cache(maxsize=131072)
def token_key(token: str) -> str | None:
    """Return the content key of a token outside any value or modality phrase."""
    if token.isascii() and token.replace(",", "").isdigit():
        return None  # a bare figure ("60,331"): no identifier, no letter, so no content
    if token in STOPWORDS:
        return None
    if is_identifier(token):
        # "NDA-2291's contents": the possessive names the same thing.
        base = token.removesuffix("'s")
        return ID + (base if base != token and is_identifier(base) else token)
    if is_soft_identifier(token):
        head, _, last = token.rpartition("-")
        return concept(f"{head}-{stem(last)}")
    word = stem(token)
    if word in LIGHT or not any(map(str.isalpha, token)):
        return None
    key = concept(word)
    if key == word:
        # A derived word keys as its base ("religious" as "religion"), unless the base is
        # a light word: "continuous" is content, "continue" is not.
        root = derived(word)
        if root != word and root not in LIGHT and concept(root) not in LIGHT:
            key = concept(root)
    return None if key in LIGHT else key  # "target" says "use", a light word


@dataclass(frozen=True, slots=True, init=False)
class Wording:
    """The first reading of a text: its tokens, the clause of each, and its value anchors.

    It is what a statement on a constraint's topic needs (`world.Statement`), and the
    start of every `Analysis`; `rates` are the positions of adverbs read into a value.
    """

    text: str
    tokens: tuple[str, ...]
    clauses: tuple[int, ...]
    values: tuple[Value, ...]
    rates: tuple[int, ...]

    def __init__(
        self,
        text: str,
        tokens: tuple[str, ...],
        clauses: tuple[int, ...],
        values: tuple[Value, ...],
        rates: tuple[int, ...],
    ) -> None:
        # Set through the slots' own setters, as `anchors.Value` is: the generated frozen
        # __init__ goes through object.__setattr__ per field, for every sentence read.
        _SET_TEXT(self, text)
        _SET_TOKENS(self, tokens)
        _SET_CLAUSES(self, clauses)
        _SET_VALUES(self, values)
        _SET_RATES(self, rates)


# The slot setters of `Wording.__init__`, in field order (unpacking fails on a new field).
_SET_TEXT, _SET_TOKENS, _SET_CLAUSES, _SET_VALUES, _SET_RATES = (
    vars(Wording)[field.name].__set__ for field in dataclasses.fields(Wording)
)


# Neither reading is cached here by text. A summary sentence is read once per view and
# kept on its `index.Sentence`, which dies with the view; a constraint part is read once
# and kept by `align.parts_of`. A table keyed by sentence text would only pay off when a
# later view repeats a sentence (a kept tail compacted again), would make every benchmark
# of fresh text look faster than a first read is, and would hold memory no view owns.


def read_words(text: str, runs: list[str] | None = None) -> Wording:
    """Read one whitespace-folded, detection-form text as far as its tokens and values.

    The text is read run by run (its whitespace-free runs, `normalize.run_tokens`); only
    the few runs that carry a clause break (`_run_breaks`) are looked at one by one.
    `runs` is `text.split()` when the caller has cut it already.
    """
    if runs is None:
        runs = text.split()
    found = list(map(_RUNS_READ.get, runs))
    if None in found:
        _learn_runs(runs, found)
    read = cast("list[_RunReading]", found)  # no None is left
    pieces = list(map(_TOKENS_OF, read))
    breaks = list(map(_BREAKS_OF, read))
    special = list(itertools.compress(itertools.count(), breaks))
    if not special:
        tokens = list(itertools.chain.from_iterable(pieces))
        clauses = [0] * len(tokens)
        label = False
    else:
        lone = _lone_trail(pieces, breaks, special[0]) if len(special) == 1 else None
        tokens, clauses, label = lone if lone is not None else _clauses(pieces, breaks, special)
    label = label and is_on("label_rate")
    values, rates = _rated(extract_values(tokens), tokens, clauses, label=label)
    return Wording(text, tuple(tokens), tuple(clauses), values, tuple(rates))


@dataclass(frozen=True, slots=True)
class _Breaks:
    """The clause breaks one whitespace-free run carries, as `_clauses` reads them.

    `lead` is how the space before the run breaks (a dash run, a conjunction), if it is
    still there; `inner` the token offsets in the run of its bracket and `;` breaks,
    whose fragments are cut apart (`tokens`); `trail` the `,` or `:` that ends the run
    and breaks with the space after it.
    """

    lead: str
    inner: tuple[int, ...]
    tokens: tuple[str, ...]
    trail: str


# The tokens (`run_tokens`) and the clause breaks (`_run_breaks`) of each whitespace-free
# run read so far: runs recur across texts and views ("rows.", "the"), and one plain dict
# read in one pass costs a fraction of two cache calls per run. A text takes its runs'
# readings from one lookup each, so a table cleared meanwhile (when full: a run's reading
# never changes), by this thread or another, takes nothing from it.
_RunReading = tuple[tuple[str, ...], "_Breaks | None"]
_RUNS_READ: dict[str, _RunReading] = {}
_RUNS_LIMIT = 65536
_TOKENS_OF = operator.itemgetter(0)
_BREAKS_OF = operator.itemgetter(1)


def _learn_runs(runs: list[str], found: list[_RunReading | None]) -> None:
    """Fill in `found`, the readings of `runs` from the table, where a run is not read yet.

    Such a run is read in its place and added to the table, which is cleared first if
    the runs could fill it.
    """
    if len(_RUNS_READ) + len(runs) > _RUNS_LIMIT:
        _RUNS_READ.clear()
    while None in found:
        at = found.index(None)
        run = runs[at]
        found[at] = _RUNS_READ[run] = (run_tokens(run), _run_breaks(run))


def _run_breaks(run: str) -> _Breaks | None:
    """Return the clause breaks of one whitespace-free run, or None for a run with none.

    Keyed by the run alone: whether a break applies (a run at the text's end has no
    space after it) is decided where the runs are read together.
    """
    lead = "-" if run in _DASHES else "and" if _CONJUNCTION.match(run) else ""
    trail = run[-1] if run[-1] in ",:" else ""
    if _INNER_BREAK.search(run) is None:
        return _Breaks(lead, (), run_tokens(run), trail) if lead or trail else None
    inner: list[int] = []
    tokens: list[str] = []
    fragments = _INNER_BREAK.split(run)
    tokens.extend(run_tokens(fragments[0]))
    for fragment in fragments[1:]:
        inner.append(len(tokens))
        tokens.extend(run_tokens(fragment))
    return _Breaks(lead, tuple(inner), tuple(tokens), trail)


def _clauses(
    pieces: list[tuple[str, ...]], run_breaks: list[_Breaks | None], special: list[int]
) -> tuple[list[str], list[int], bool]:
    """Return the tokens of a text, the clause of each, and whether it opens with a label.

    A break ends the clause before it; two breaks in a row leave an empty clause, which
    still counts. The regular scan these runs stand for reads left to right and a break
    uses up the spaces it holds: after `, ` or a spaced dash, the next run cannot break
    at its start. A label is a first break that is a colon ("Daily spend: $500").
    """
    breaks = [(i, found) for i in special if (found := run_breaks[i]) is not None]
    for i, found in breaks:
        if found.inner:
            pieces[i] = found.tokens  # a bracket inside a run cuts its tokens apart
    starts = list(itertools.accumulate(map(len, pieces), initial=0))
    last = len(pieces) - 1
    cuts: list[int] = []  # the token offset of each break, in order
    first = ""
    spent = -1  # the run whose leading space a break has used up
    for i, found in breaks:
        if found.lead and 0 < i != spent:
            if found.lead == "-":
                if i < last:
                    cuts.append(starts[i])
                    first = first or "-"
                    spent = i + 1
                continue
            cuts.append(starts[i])
            first = first or " "
        if found.inner:
            cuts.extend(starts[i] + offset for offset in found.inner)
            first = first or "("
        if found.trail and i < last:
            cuts.append(starts[i + 1])
            first = first or found.trail
            spent = i + 1
    tokens = list(itertools.chain.from_iterable(pieces))
    clauses: list[int] = []
    at = 0
    for number, cut in enumerate(cuts):
        clauses.extend([number] * (cut - at))
        at = cut
    clauses.extend([len(cuts)] * (len(tokens) - at))
    return tokens, clauses, first == ":"


def _lone_trail(
    pieces: list[tuple[str, ...]], run_breaks: list[_Breaks | None], i: int
) -> tuple[list[str], list[int], bool] | None:
    """Return `_clauses` of a text whose one break is a `,` or `:` ending run i, else None.

    The loop of `_clauses` cuts such a text once, after run i, unless i is the last run,
    and a colon there is a label; most texts with a break have just this one ("Next, the
    ..."), and are spared the loop's bookkeeping.
    """
    lone = run_breaks[i]
    if lone is None or lone.lead or lone.inner:
        return None
    tokens = list(itertools.chain.from_iterable(pieces))
    if i == len(pieces) - 1:
        return tokens, [0] * len(tokens), False
    cut = sum(map(len, pieces[: i + 1]))
    return tokens, [0] * cut + [1] * (len(tokens) - cut), lone.trail == ":"


def force_marks(tokens: list[str]) -> tuple[Mark, ...]:
    """Return the force words of `tokens` as `analyse` first reads them, before framing.

    Framing recasts each of these one for one (`frame.reframe`), so a text has marks
    exactly when this finds one: a caller holding only the tokens can tell that unanalysed.
    """
    return find_modality(tokens, named_back=is_on("bound_named_back"))


def analyse(text: str, wording: Wording | None = None) -> Analysis:
    """Analyse one whitespace-folded, detection-form text.

    `wording`, when the caller has it, is `read_words(text)` already read: the analysis
    starts from it instead of reading the words again.
    """
    if wording is None:
        wording = read_words(text)
    tokens, clauses = list(wording.tokens), list(wording.clauses)
    values, rates = wording.values, wording.rates
    raw_marks = force_marks(tokens)
    frames = find_frames(text, tokens, raw_marks, clauses)
    marks = reframe(raw_marks, frames)
    keys: list[str | None] = [token_key(token) for token in tokens]
    mark_at = _key_marks(marks, keys, tokens)
    for value in values:
        for index in range(value.start, value.end):
            token = tokens[index]
            if token in VALUE_WORDS or not token.isalpha():
                keys[index] = None
    for index in rates:
        keys[index] = None
    _read_phrases(tokens, keys, mark_at)
    return _build(
        text,
        tokens=tokens,
        keys=keys,
        values=values,
        marks=marks,
        mark_at=mark_at,
        clauses=clauses,
        frames=frames,
    )


def _key_marks(marks: tuple[Mark, ...], keys: list[str | None], tokens: list[str]) -> list[int]:
    """Blank the keys of modality words (bounds keep one pseudo key); return mark_at."""
    mark_at = [-1] * len(keys)
    for number, mark in enumerate(marks):
        for index in range(mark.start, mark.end):
            mark_at[index] = number
            if mark.modality not in _CONTENT_MARKS:
                keys[index] = None
        pseudo = _PSEUDO.get(mark.modality)
        if pseudo is not None:
            keys[mark.start] = pseudo
            if (
                mark.start > 0
                and tokens[mark.start - 1] in MOTION
                and _bare_motion(marks, tokens, mark.start - 1)
            ):
                keys[mark.start - 1] = None  # "drop below", "go over": the bound's verb
    return mark_at


def _bare_motion(marks: tuple[Mark, ...], tokens: list[str], verb: int) -> bool:
    """Tell whether a motion verb before a bound is plain ("from dropping" must be read)."""
    if verb == 0 or tokens[verb - 1] != "from":
        return True
    return any(m.start == verb - 1 for m in marks)


_PHRASE_STARTS = {words[0] for words in PHRASES}
_LONGEST_PHRASE = max(len(words) for words in PHRASES)


def _read_phrases(tokens: list[str], keys: list[str | None], mark_at: list[int]) -> None:
    """Key a multi-word synonym ("at the same time") on its first word, longest first."""
    index = 0
    while index < len(tokens):
        if tokens[index] not in _PHRASE_STARTS:
            index += 1
            continue
        for width in range(min(_LONGEST_PHRASE, len(tokens) - index), 1, -1):
            key = PHRASES.get(tuple(tokens[index : index + width]))
            # A filler ("in every case") says nothing even around a force word.
            if key is not None and (
                not key or all(mark_at[i] < 0 for i in range(index, index + width))
            ):
                keys[index : index + width] = [key or None] + [None] * (width - 1)
                index += width - 1
                break
        index += 1


def _rated(
    values: tuple[Value, ...], tokens: list[str], clauses: list[int], *, label: bool = False
) -> tuple[tuple[Value, ...], list[int]]:
    """Read a rate adverb into the amounts of its clause ("daily spend ... $250" is per day).

    A leading label ("Daily spend: $500 at most", `label`) names what the clause after it
    measures, so its one rate adverb is read into that clause's amounts when they have
    none of their own. Return the values and the positions of the adverbs read as a rate.
    """
    if not values or RATE_PERIODS.keys().isdisjoint(tokens):
        return values, []  # no amount, or no adverb: nothing is read as a rate
    adverbs: dict[int, list[int]] = {}
    for index, token in enumerate(tokens):
        if token in RATE_PERIODS:
            adverbs.setdefault(clauses[index], []).append(index)
    read: list[Value] = []
    used: list[int] = []
    for value in values:
        found = adverbs.get(clauses[value.start], [])
        if label and not found and clauses[value.start] == 1:
            found = adverbs.get(0, [])  # "Daily spend: $500": the label's rate
        rated = with_rate(value, rate_of(tokens[found[0]]) or "") if len(found) == 1 else value
        if rated is not value:
            used.append(found[0])
        read.append(rated)
    return tuple(read), used


def _build(
    text: str,
    *,
    tokens: list[str],
    keys: list[str | None],
    values: tuple[Value, ...],
    marks: tuple[Mark, ...],
    mark_at: list[int],
    clauses: list[int],
    frames: tuple[Frame, ...] = (),
) -> Analysis:
    positions: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        if key is not None:
            found = positions.get(key)
            if found is None:
                positions[key] = [index]
            else:
                found.append(index)
    compounds: dict[str, list[int]] = {}
    for index, token in enumerate(tokens):
        if "-" in token:  # only a hyphenated word has parts (`_compound_keys`)
            for piece in _compound_keys(token):
                compounds.setdefault(piece, []).append(index)
    return Analysis(
        text,
        tuple(tokens),
        tuple(keys),
        values,
        marks,
        tuple(mark_at),
        tuple(clauses),
        positions,
        frames,
        _framing(tokens, keys=keys, marks=marks, mark_at=mark_at, clauses=clauses, frames=frames),
        compounds,
    )


@functools.lru_cache(maxsize=65536)
def _compound_keys(token: str) -> frozenset[str]:
    """Return the keys of the parts of a hyphenated word ("data-retention")."""
    if "-" not in token or not is_soft_identifier(token):
        return frozenset()
    return frozenset(concept(stem(piece)) for piece in token.split("-"))


_FRAMING = frozenset({Modality.CONDITION, Modality.HEDGE, Modality.SOFT_FORBID, Modality.LIFT})


def _framing(
    tokens: list[str],
    *,
    keys: list[str | None],
    marks: tuple[Mark, ...],
    mark_at: list[int],
    clauses: list[int],
    frames: tuple[Frame, ...],
) -> frozenset[int]:
    """Return the clauses that frame whatever rule sits next to them.

    A clause without content, one that opens with a condition, hedge or lifting word, or
    a leading subordinate clause ("Where the schedule allows it, ..."). A label that
    names a topic ("Recommendations service:") frames nothing.
    """
    has_content = {clause for key, clause in zip(keys, clauses, strict=True) if key is not None}
    # Filled from the end, so each clause keeps the index of its first token.
    first_token = dict(zip(reversed(clauses), range(len(clauses) - 1, -1, -1), strict=True))
    named = {clauses[i] for f in frames if f.kind == TOPIC for i in range(f.start, f.end)}
    leads = bool(tokens) and tokens[0] in CONDITIONALS and clauses[-1] != clauses[0]
    framing = set()
    for clause, first in first_token.items():
        if clause not in has_content:
            framing.add(clause)
            continue
        mark = mark_at[first]
        opens = mark >= 0 and marks[mark].modality in _FRAMING
        if (opens or (first == 0 and leads)) and clause not in named:
            framing.add(clause)
    return frozenset(framing)


_CONTRACTIONS = {
    "don't": ("do", "not"),
    "doesn't": ("does", "not"),
    "didn't": ("did", "not"),
    "can't": ("can", "not"),
    "cannot": ("can", "not"),
    "won't": ("will", "not"),
    "isn't": ("is", "not"),
    "aren't": ("are", "not"),
    "wasn't": ("was", "not"),
    "weren't": ("were", "not"),
    "shouldn't": ("should", "not"),
    "mustn't": ("must", "not"),
    "shan't": ("shall", "not"),
    "wouldn't": ("would", "not"),
    "couldn't": ("could", "not"),
    "hasn't": ("has", "not"),
    "haven't": ("have", "not"),
    "needn't": ("need", "not"),
    "it's": ("it", "is"),
    "let's": ("let", "us"),
}


def canonical(analysis: Analysis) -> Sequence[tuple[str, int, int]]:
    """Return the words of `analysis` for a near-verbatim comparison with their token span.

    Contractions are expanded (`don't` is `do not`) and every value is one word naming
    its meaning (`$1200`, `$1,200` and `1200 USD` read the same). Worked out once per
    analysis and kept on it (`Analysis.words`): a sentence's analysis is shared by every
    constraint that reads it in its view, and a part's by every view.
    """
    if not analysis.words and analysis.tokens:
        analysis.words.extend(_canonical(analysis))
    return analysis.words


def _canonical(analysis: Analysis) -> list[tuple[str, int, int]]:
    starts = {value.start: value for value in analysis.values}
    words: list[tuple[str, int, int]] = []
    index = 0
    while index < len(analysis.tokens):
        value = starts.get(index)
        if value is not None:
            unit = value.unit if value.kind in {"money", "version", "unit", "number"} else ""
            meaning = f"<{value.kind}:{value.dimension}:{unit}:{value.amount}:{value.per}>"
            words.append((meaning, index, max(value.end, index + 1)))
            index = max(value.end, index + 1)
            continue
        token = analysis.tokens[index]
        words.extend((word, index, index + 1) for word in _CONTRACTIONS.get(token, (token,)))
        index += 1
    return words


def join(parts: tuple[Analysis, ...]) -> Analysis:
    """Concatenate analyses of consecutive sentences into one window; clauses stay apart."""
    if len(parts) == 1:
        return parts[0]
    tokens: list[str] = []
    keys: list[str | None] = []
    values: list[Value] = []
    marks: list[Mark] = []
    mark_at: list[int] = []
    clauses: list[int] = []
    frames: list[Frame] = []
    clause_base = 0
    for part in parts:
        shift = len(tokens)
        tokens.extend(part.tokens)
        keys.extend(part.keys)
        values.extend(_shift_value(value, shift) for value in part.values)
        mark_base = len(marks)
        marks.extend(Mark(m.modality, m.start + shift, m.end + shift) for m in part.marks)
        mark_at.extend(index + mark_base if index >= 0 else -1 for index in part.mark_at)
        clauses.extend(clause + clause_base for clause in part.clauses)
        frames.extend(
            Frame(
                f.kind, f.start + shift, f.end + shift, f.scope_start + shift, f.scope_end + shift
            )
            for f in part.frames
        )
        clause_base += (max(part.clauses) + 1) if part.clauses else 1
    text = " ".join(part.text for part in parts)
    return _build(
        text,
        tokens=tokens,
        keys=keys,
        values=tuple(values),
        marks=tuple(marks),
        mark_at=mark_at,
        clauses=clauses,
        frames=tuple(frames),
    )


def _shift_value(value: Value, shift: int) -> Value:
    return dataclasses.replace(value, start=value.start + shift, end=value.end + shift)
