"""Restatements: how a window can say a rule in other words, and words that turn it.

A negated opposite bound ("nothing above $500"), "only after", "no other region is
permitted", a leading condition; opposite relations and acts, and a relation whose two
sides swapped. `build_context` applies these; see docs/DESIGN.md, "Lexical layer".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from compaction_guard.anchors import is_soft_identifier
from compaction_guard.detectors.lexical.lexicon import (
    ANAPHORS,
    CONDITIONALS,
    GENERIC,
    ONLY_WORDS,
    SUBORDINATORS,
)
from compaction_guard.detectors.lexical.memo import IdentityMemo
from compaction_guard.detectors.lexical.modality import NEGATIVE, STRONG, Modality
from compaction_guard.normalize import stem

if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Sequence

    from compaction_guard.detectors.lexical.align import Alignment, Part
    from compaction_guard.detectors.lexical.modality import Mark
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = [
    "GATES",
    "TRIGGERS",
    "added_condition",
    "bound_tokens",
    "exclusive_echo",
    "necessity",
    "negated_exclusives",
    "negated_other_bound",
    "others_banned",
    "pieces",
    "swaps",
]



class _Facts(Protocol):
    """What these readers read about one part in one window.

    `context.Context` has these members and calls the readers with itself; the readers
    name only this protocol, so the dependency runs one way (context imports restate).
    A reader that needs another fact of the context adds it here.
    """

    part: Part
    al: Alignment
    @property
    def win(self) -> Analysis: ...
    @property
    def w_classes(self) -> Counter[Modality]: ...
    @property
    def w_parity(self) -> int: ...
    region_tokens: tuple[int, ...]
    @property
    def region_stems(self) -> frozenset[str]: ...
    @property
    def unbound_stems(self) -> frozenset[str]: ...
    @property
    def act_swaps(self) -> list[str]: ...
    @property
    def relation_swaps(self) -> list[str]: ...


_M = Modality
GATES = frozenset({"until", "till", "unless", "before", "prior"})
TRIGGERS = GATES | {"when", "whenever", "once", "if"}


def pieces(token: str) -> tuple[str, ...]:
    """Return a token and, for a hyphenated word, its parts ("re-enabled": "enabled")."""
    if "-" in token and is_soft_identifier(token):
        return (token, *token.split("-"))
    return (token,)


def others_banned(ctx: _Facts) -> bool:
    """Find a clause outside the region that bans every other choice.

    "Other vendors are not allowed", "nothing else may be used": it names nothing but
    the rule's own words and the kind of alternative.
    """
    win = ctx.win
    banning = (_M.FORBID, _M.NEGATION, _M.ONLY)
    clauses = {win.clauses[m.start] for m in win.marks if m.modality in banning}
    for clause in clauses - ctx.al.region:
        tokens = [i for i, c in enumerate(win.clauses) if c == clause]
        if any(win.clauses[v.start] == clause for v in win.values):
            continue  # "other regions are off-limits on weekends" bans less
        marks = [m for m in win.marks if win.clauses[m.start] == clause]
        if any(win.tokens[m.start] == "no" and m.modality is _M.ONLY for m in marks):
            # "no other region is permitted", "in no other region": the clause's own "only"
            if any(m.modality in (_M.EXTEND, _M.HEDGE) for m in marks):
                continue
        elif not any(win.tokens[i] in ONLY_WORDS for i in tokens) or (
            sum(1 for m in marks if m.modality in NEGATIVE) % 2 == 0
            or any(
                m.modality in (_M.ALLOW, _M.HEDGE)
                or (m.modality is _M.EXTEND and not _other_place(win.tokens, m.end))
                for m in marks
            )
        ):
            continue
        # The noun right after "other" names the kind of alternative ("other vendors").
        named = {i + 1 for i in tokens if win.tokens[i] in ONLY_WORDS or win.mark_at[i] >= 0}
        # "outside that window", "other than those hours": the anaphor's noun is the rule's
        # own range, named in the clause before.
        named |= {i + 1 for i in named if i < len(win.tokens) and win.tokens[i] in ANAPHORS}
        keys = {win.keys[i] for i in tokens if i not in named} - {None}
        if all(k in ctx.part.family or k in GENERIC for k in keys):
            return True
    return False


_ELSE = frozenset({"else", "elsewhere"})
_JOINS = frozenset({"and", "but", "or"})


def exclusive_echo(ctx: _Facts) -> bool:
    """Tell whether the window's one negation only says its "only" again: "and nowhere else".

    "Load tests run only on the perf cluster and nowhere else" for "Run load tests only on
    the perf cluster": the closing "nowhere else", "and nobody else", "and not anywhere
    else" bans every other choice, which "only" already did, so it turns nothing. It must
    close the window's clause after a joining word, with nothing after it but the rule's
    words; "only on perf and nowhere else on weekends" is read as usual.
    """
    part, win = ctx.part, ctx.win
    if not part.classes[_M.ONLY] or not ctx.w_classes[_M.ONLY]:
        return False
    negations = [m for m in win.marks if m.modality in NEGATIVE and m.start in ctx.region_tokens]
    if len(negations) != 1:
        return False
    mark = negations[0]
    tokens = win.tokens
    at = mark.start - 1
    if at < 0 or tokens[at] not in _JOINS:
        return False
    tail = tokens[mark.end : mark.end + 2]
    if not _ELSE.intersection(tail):
        return False
    end = mark.end + 1 + tail.index(next(t for t in tail if t in _ELSE))
    rest = {win.keys[i] for i in range(end, len(tokens)) if win.clauses[i] == win.clauses[at]}
    return not (rest - {None} - part.family)


# Exclusive words a negation in front of them denies ("not only" is one EXTEND phrase).
_EXCLUSIVE = frozenset(
    {"only", "exclusively", "solely", "alone", "limited", "restricted", "confined"},
)
# Words that open another clause inside a sentence: a negation before them is its own.
_SCOPE_BREAKS = SUBORDINATORS | {"that", "which", "who", "whom", "whose", "because", "since"}
_LEADING_FORCE = frozenset({_M.OBLIGE, _M.ALLOW, _M.HEDGE, _M.UNIVERSAL})


def negated_exclusives(analysis: Analysis, marks: Sequence[Mark]) -> list[tuple[Mark, Mark]]:
    """Find a negation whose scope holds an exclusive word: "never stored only in R".

    "Backups are never stored only in eu-west-1", "not kept exclusively there", "are
    not limited to R", "never run on the perf cluster alone" deny the exclusive, as "not
    only" does. Counted as a polarity flip, that negation is cancelled by any second one
    ("... and nowhere else", which says "only" again), and the window reads as the rule
    kept. Return each (negation, exclusive) pair: the nearest negation before the
    exclusive word in its clause, with only force words ("never need to be kept only
    in R") and no clause opener ("that", "if") between them.
    """
    found: list[tuple[Mark, Mark]] = []
    tokens, clauses = analysis.tokens, analysis.clauses
    for at, mark in enumerate(marks):
        if mark.modality is not _M.ONLY or tokens[mark.start] not in _EXCLUSIVE:
            continue
        for before in reversed(marks[:at]):
            if clauses[before.start] != clauses[mark.start]:
                break
            if before.modality in NEGATIVE:
                between = tokens[before.end : mark.start]
                if _SCOPE_BREAKS.isdisjoint(between):
                    found.append((before, mark))
                break
            if before.modality not in _LEADING_FORCE:
                break
    return found


def _other_place(tokens: Sequence[str], end: int) -> bool:
    """Tell whether "anywhere" is "anywhere else": under a negation it bans the others.

    "Nothing is stored anywhere else" says "only there"; a bare "anywhere" widens.
    """
    return end < len(tokens) and tokens[end] == "else" and tokens[end - 1] == "anywhere"


def necessity(ctx: _Facts) -> bool | None:
    """Find "only after", "only once", "only if" in the window: a necessary condition.

    Return None when there is none, else whether a condition mark holds it ("only if").
    """
    if ctx.part.parity != 0 or ctx.w_parity != 0 or "only" not in ctx.win.tokens:
        return None
    tokens, win = ctx.win.tokens, ctx.win
    for position in ctx.region_tokens:
        if tokens[position] != "only" or position + 1 >= len(tokens):
            continue
        if tokens[position + 1] in _NECESSARY:
            mark = win.mark_at[position]
            return mark >= 0 and win.marks[mark].modality is _M.CONDITION
    return None


_NECESSARY = frozenset({"after", "once", "when", "if", "with", "upon", "following", "provided"})


def negated_other_bound(ctx: _Facts) -> bool:
    """Tell whether the window negates the opposite bound of a plain bound rule.

    Only a rule that is a bound and nothing more: "above $200 must escalate" is not
    restated by "up to $200 needs no escalation".
    """
    part, w = ctx.part.classes, ctx.w_classes
    if ctx.part.parity != 0 or ctx.w_parity != 1 or any(part[m] for m in NEGATIVE | STRONG):
        return False
    if bool(part[_M.MAX]) == bool(part[_M.MIN]):
        return False
    bound, other = (_M.MAX, _M.MIN) if part[_M.MAX] else (_M.MIN, _M.MAX)
    if w[bound] or not w[other] or w[_M.OPTIONAL] or w[_M.ALLOW]:
        return False
    return not ctx.act_swaps and not ctx.relation_swaps


def added_condition(part: Part, win: Analysis, al: Alignment) -> bool:
    """Tell whether a leading conditional clause sets a condition the part does not have."""
    lead = win.clauses[0] if win.tokens else -1
    if lead not in al.region or lead in al.topic_clauses or win.mark_at[0] >= 0:
        return False
    if win.tokens[0] not in CONDITIONALS or part.classes[_M.CONDITION]:
        return False
    return not CONDITIONALS & set(part.analysis.tokens)


def swaps(
    ctx: _Facts, table: dict[str, frozenset[str]], *, skip_bounds: bool = False
) -> list[str]:
    """Return the words of the part whose opposite (from `table`) the region holds."""
    found: list[str] = []
    candidates = _CANDIDATES.get(
        ctx.part, lambda part: _candidates(part, table, skip_bounds), tag=(id(table), skip_bounds)
    )
    if not candidates:
        return found
    stems = ctx.unbound_stems if skip_bounds else ctx.region_stems
    for index, token, word in candidates:
        opposite = table[word]
        if word not in stems and opposite & stems:
            if skip_bounds and _around(ctx, index, opposite) == "swapped":
                continue  # "B after A" for "A before B": the same statement
            found.append(f"{token}->{'/'.join(sorted(opposite & stems))}")
        elif skip_bounds and word in stems and _around(ctx, index, {word}) == "swapped":
            found.append(f"{token}: its two sides swapped")  # "B before A" for "A before B"
    return found


def _candidates(
    part: Part, table: dict[str, frozenset[str]], skip_bounds: bool  # noqa: FBT001
) -> tuple[tuple[int, str, str], ...]:
    """Return the part's words `table` has an opposite for: position, token, stem."""
    stems = part.stems
    skipped = bound_tokens(part.analysis) if skip_bounds else frozenset()
    return tuple(
        (i, token, stems[i])
        for i, token in enumerate(part.analysis.tokens)
        if stems[i] in table and i not in skipped
    )


# The candidates of each part, per table: a part is read against every window it traces.
_CANDIDATES: IdentityMemo[Part, tuple[tuple[int, str, str], ...]] = IdentityMemo(8192)


def _around(ctx: _Facts, index: int, relation: frozenset[str] | set[str]) -> str | None:
    """Tell how the window places the rule's words around a relation word.

    Return "kept" when the words on each side of the rule's relation at `index` sit on
    the same sides of such a word in the window, "swapped" when only the other way round
    is found, and None when neither can be told.
    """
    matches = ctx.al.matches
    left = max((i for i in matches if i < index), default=None)
    right = min((i for i in matches if i > index), default=None)
    if left is None or right is None:
        return None
    w_left, w_right = matches[left], matches[right]
    tokens = ctx.win.tokens
    places = [p for p in ctx.region_tokens if stem(tokens[p]) in relation]
    if any(w_left < p < w_right for p in places):
        return "kept"
    if any(w_right < p < w_left for p in places):
        return "swapped"
    return None


def bound_tokens(analysis: Analysis) -> frozenset[int]:
    """Return the positions of the words of bound phrases ("at or below", "at most")."""
    return frozenset(
        i
        for mark in analysis.marks
        if mark.modality in (_M.MAX, _M.MIN)
        for i in range(mark.start, mark.end)
    )
