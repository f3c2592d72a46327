"""The lexical rules: each reads one constraint part against one window of sentences.

`evaluate` runs the damage rules first (lifted, polarity, anchor_diff, hedge,
modality_loss), then the certifying rules (verbatim, near_verbatim, paraphrase), then
the absence rules. Every rule returns a Reading with the evidence that decided it.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from compaction_guard.anchors import (
    are_siblings,
    comparable,
    is_identifier,
    is_soft_identifier,
    values_equal,
)
from compaction_guard.detectors._lexical_align import Alignment, Part, align, region_marks
from compaction_guard.detectors._lexical_lexicon import (
    ANAPHORS,
    ANTONYMS,
    GENERIC,
    READ_VERBS,
    RELATIONS,
    REPORTING,
    RULE_NOUNS,
    STOPWORDS,
    WRITE_VERBS,
)
from compaction_guard.detectors._lexical_modality import NEGATIVE, STRONG, Modality
from compaction_guard.normalize import stem
from compaction_guard.taxonomy import Kind, Site

if TYPE_CHECKING:
    from compaction_guard.anchors import Value
    from compaction_guard.detectors._lexical_text import Analysis

__all__ = ["STRONG_COVERAGE", "TOPIC_COVERAGE", "Reading", "Window", "evaluate"]

TOPIC_COVERAGE = 0.5
STRONG_COVERAGE = 0.75
_SLOT_REACH = 6
_MAX_GAP = 3
_M = Modality
_EXPLICIT = frozenset(
    {_M.FORBID, _M.OBLIGE, _M.ALLOW, _M.OPTIONAL, _M.SOFT_FORBID, _M.NEGATION, _M.HEDGE},
)
_SOFTENERS = (_M.HEDGE, _M.SOFT_FORBID, _M.CONDITION, _M.APPROX)
_BLOCKERS = (
    _M.HEDGE,
    _M.SOFT_FORBID,
    _M.CONDITION,
    _M.APPROX,
    _M.PARTIAL,
    _M.LIFT,
    _M.LIFT_VERB,
    _M.OPTIONAL,
    _M.ALLOW,
    _M.WRITE,
)
# Marks an afterthought that points back at the rule but narrows itself to some cases.
_SCOPED = _M.SCOPED
_ONLY_WORDS = frozenset(
    {"other", "else", "besides", "outside", "anything", "except", "another", "anyone", "elsewhere"},
)


@dataclass(frozen=True, slots=True)
class Window:
    """One or two consecutive sentences of one site, and up to two sentences after them."""

    analysis: Analysis
    after: tuple[Analysis, ...]
    site: Site
    tool: bool


@dataclass(frozen=True, slots=True)
class Reading:
    """What one window says about one part.

    `kind` is None for a window that only carries a trace (`rule` "suspect" or "trace").
    `explicit` marks damage stated in the window (a changed value, a reversal, a hedge),
    as opposed to damage inferred from something missing. `signs` marks a window that
    is missing an anchor or modality it could not name, so nothing may certify the part.
    """

    kind: Kind | None
    rule: str
    coverage: float
    site: Site
    tool: bool
    explicit: bool = False
    strong: bool = False
    signs: bool = False
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Context:
    part: Part
    window: Window
    al: Alignment
    w_classes: Counter[Modality]
    w_parity: int
    region_tokens: list[int]
    region_stems: frozenset[str]
    region_values: list[Value]

    @property
    def win(self) -> Analysis:
        return self.window.analysis

    @functools.cached_property
    def topical(self) -> bool:
        """The window speaks about the part: half its content and two independent supports.

        Support counts matched content keys, values found equal, and the part's force
        found in the window; a single shared word never makes a topic.
        """
        if self.al.coverage < TOPIC_COVERAGE:
            return False
        if self.part.key_count >= 3 and self.al.matched_keys < 2:  # noqa: PLR2004
            return False
        values = self.part.analysis.values
        present = sum(1 for v in values if any(comparable(v, f) for f in self.region_values))
        force = _force_kept(self)
        offered = self.part.key_count + len(values) + (1 if _force_offered(self.part) else 0)
        return self.al.matched_keys + present + force >= min(2, offered)

    @functools.cached_property
    def bound_swap(self) -> bool:
        """An upper bound in the rule is a lower bound in the window, or back."""
        part, w = self.part.classes, self.w_classes
        return bool(
            (part[_M.MAX] and not part[_M.MIN] and w[_M.MIN] and not w[_M.MAX])
            or (part[_M.MIN] and not part[_M.MAX] and w[_M.MAX] and not w[_M.MIN]),
        )

    @functools.cached_property
    def complement(self) -> bool:
        """The window states the other side of the rule: "up to $200 without escalation"
        for "above $200 must escalate" (bound and polarity both reversed)."""
        return self.bound_swap and self.part.parity != self.w_parity

    @functools.cached_property
    def lost(self) -> list[str]:
        """The part's force words that the window does not carry (see `_lost_modality`)."""
        return _lost_modality(self)

    @functools.cached_property
    def afterthoughts(self) -> list[tuple[Counter[Modality], str]]:
        """Referring clauses around the window (see `_afterthoughts`)."""
        return _afterthoughts(self)

    def reading(self, kind: Kind | None, rule: str, **extra: Any) -> Reading:
        evidence = {
            "site": self.window.site.value,
            "sentence": self.win.text,
            "constraint": self.part.text,
            "coverage": round(self.al.coverage, 3),
            **extra.pop("evidence", {}),
        }
        return Reading(
            kind,
            rule,
            self.al.coverage,
            self.window.site,
            self.window.tool,
            evidence=evidence,
            **extra,
        )


def evaluate(part: Part, window: Window) -> Reading | None:
    """Return what `window` says about `part`, or None when it carries no trace of it."""
    al = align(part, window.analysis)
    if not _is_trace(part, al, window.analysis):
        return None
    ctx = _context(part, window, al)
    if al.coverage < TOPIC_COVERAGE and not ctx.topical:
        # A weak trace: only an edited name can be stated damage (every other rule needs
        # the topic); otherwise it just keeps the constraint from being called dropped.
        return _changed_identifier(ctx) or _absence(ctx)
    for damage in (_lifted, _polarity, _anchor_diff, _hedge, _modality_loss):
        reading = damage(ctx)
        if reading is not None:
            return reading
    for certify in (_verbatim, _near_verbatim, _paraphrase):
        reading = certify(ctx)
        if reading is not None:
            return reading
    return _absence(ctx)


def _has_sibling(part: Part, al: Alignment, window: Analysis) -> bool:
    names = [part.analysis.tokens[i] for i in part.content if i not in al.matches]
    names = [name for name in names if _is_name(name)]
    found = _names(window.tokens) if names else ()
    return any(are_siblings(name, other) for name in names for _, other in found)


def _force_offered(part: Part) -> bool:
    classes = part.classes
    return any(classes[m] for m in (*STRONG, _M.ONLY, _M.MAX, _M.MIN, _M.READONLY))


def _force_kept(ctx: _Context) -> int:
    if not _force_offered(ctx.part):
        return 0
    return 0 if ctx.lost else 1


def _is_trace(part: Part, al: Alignment, window: Analysis) -> bool:
    if not al.matches:
        return False
    if al.coverage < TOPIC_COVERAGE and _has_sibling(part, al, window):
        return True
    ids = any(part.analysis.keys[i].startswith("id:") for i in al.matches)  # type: ignore[union-attr]
    return ids or al.matched_keys >= min(2, part.key_count) or al.coverage >= TOPIC_COVERAGE


def _pieces(token: str) -> tuple[str, ...]:
    """A token and, for a hyphenated word, its parts ("re-enabled" also reads "enabled")."""
    if "-" in token and is_soft_identifier(token):
        return (token, *token.split("-"))
    return (token,)


def _context(part: Part, window: Window, al: Alignment) -> _Context:
    win = window.analysis
    marks = region_marks(win, al)
    tokens = [i for i, clause in enumerate(win.clauses) if clause in al.region]
    values = [v for v in win.values if win.clauses[v.start] in al.region]
    ctx = _Context(
        part=part,
        window=window,
        al=al,
        w_classes=Counter(mark.modality for mark in marks),
        w_parity=sum(1 for mark in marks if mark.modality in NEGATIVE) % 2,
        region_tokens=tokens,
        region_stems=frozenset(stem(piece) for i in tokens for piece in _pieces(win.tokens[i])),
        region_values=values,
    )
    if part.classes[_M.READONLY] and not ctx.w_classes[_M.READONLY] and _no_writes(ctx):
        # "no writes to X" says "X is read-only": its negation is part of the restriction.
        ctx.w_classes[_M.READONLY] += 1
        ctx.w_parity ^= 1
    if part.classes[_M.ONLY] and not ctx.w_classes[_M.ONLY] and _only_by_negation(ctx):
        # "X and nobody else" says "only X": its negation is part of the restriction.
        ctx.w_classes[_M.ONLY] += 1
        ctx.w_parity ^= 1
    return ctx


# --- contradicted -------------------------------------------------------------------


def _lifted(ctx: _Context) -> Reading | None:
    """A statement that the rule was lifted, waived or no longer applies."""
    c_lift = ctx.part.classes[_M.LIFT] + ctx.part.classes[_M.LIFT_VERB]
    if ctx.al.coverage < TOPIC_COVERAGE:
        return None
    if ctx.w_classes[_M.LIFT] + ctx.w_classes[_M.LIFT_VERB] > c_lift:
        return _contradicted(ctx, "lifted", "the window says the rule was lifted")
    if c_lift or not ctx.topical:
        return None
    for classes, where in ctx.afterthoughts:
        if (classes[_M.LIFT] or classes[_M.LIFT_VERB]) and not classes[_SCOPED]:
            return _contradicted(ctx, "lifted", f"a lifting statement follows in the {where}")
    return None


def _afterthoughts(ctx: _Context) -> list[tuple[Counter[Modality], str]]:
    """Clauses outside the region, and the next sentences, that speak about the rule.

    A clause qualifies when it points back (an anaphor, a rule noun or the part's own
    words) and carries no content of its own: "; the user said this no longer applies".
    """
    win = ctx.win
    groups: dict[int, list[tuple[Analysis, int]]] = {}
    for index, clause in enumerate(win.clauses):
        if clause not in ctx.al.region:
            groups.setdefault(clause, []).append((win, index))
    found = [(tokens, "same sentence") for tokens in groups.values()]
    for after in ctx.window.after:
        for clause in sorted(set(after.clauses)):
            tokens = [(after, i) for i, c in enumerate(after.clauses) if c == clause]
            found.append((tokens, "next sentence"))
    marked = []
    for tokens, where in found:
        classes = _referring_marks(ctx, tokens)
        if classes:
            marked.append((classes, where))
    return marked


def _referring_marks(ctx: _Context, clause: list[tuple[Analysis, int]]) -> Counter[Modality]:
    """Marks of a clause that points back at the rule; empty for a clause about something
    else. A clause that names the rule by anaphor but adds its own content ("waived that
    restriction for the beta cohort") is marked SCOPED."""
    refers = pointed = foreign = False
    classes: Counter[Modality] = Counter()
    for analysis, index in clause:
        mark = analysis.mark_at[index]
        token = analysis.tokens[index]
        key = analysis.keys[index]
        if mark >= 0 and analysis.marks[mark].start == index:
            classes[analysis.marks[mark].modality] += 1
        if token in ANAPHORS or (ctx.part.classes[_M.ONLY] and token in _ONLY_WORDS):
            refers = pointed = True  # "other buckets" points back at an exclusive rule
        elif key in ctx.part.family or stem(token) in RULE_NOUNS:
            refers = True
        elif key is not None and not key.startswith("~") and mark < 0 and key not in GENERIC:
            foreign = True
    if not refers or (foreign and not pointed):
        return Counter()
    if foreign:
        classes[_SCOPED] += 1
    return classes


def _polarity(ctx: _Context) -> Reading | None:
    """Negation inserted or removed, or an incompatible bound or permission."""
    if not ctx.topical:
        return None
    part, w = ctx.part.classes, ctx.w_classes
    if ctx.bound_swap and ctx.part.parity == ctx.w_parity:
        return _contradicted(ctx, "polarity", "an upper bound became a lower bound or back")
    if _read_only(ctx.part) and not _w_read_only(ctx) and _w_writable(ctx):
        return _contradicted(ctx, "polarity", "read-only became writable")
    if part[_M.ONLY] and not w[_M.ONLY] and w[_M.EXTEND] > part[_M.EXTEND]:
        return _contradicted(ctx, "polarity", "an exclusive rule was opened up")
    if part[_M.ONLY] and not w[_M.ONLY] and w[_M.ALLOW] and _alternative_added(ctx):
        return _contradicted(ctx, "polarity", "an exclusive rule now permits an alternative")
    for classes, where in ctx.afterthoughts:
        if _reverses(ctx.part, classes):
            return _contradicted(ctx, "polarity", f"the {where} permits what the rule limits")
    swaps = _antonym_swaps(ctx)
    explicit = swaps or any(w[m] for m in _EXPLICIT)
    flipped = (ctx.part.parity + len(swaps) + ctx.bound_swap) % 2 != ctx.w_parity
    if flipped and explicit and _predicate_kept(ctx):
        what = f"opposite words {swaps}" if swaps else "negation or permission reversed"
        return _contradicted(ctx, "polarity", what)
    return None


def _alternative_added(ctx: _Context) -> bool:
    """`or` in the window but not in the rule: "from X or from spreadsheets"."""
    in_part = "or" in ctx.part.analysis.tokens
    return not in_part and any(ctx.win.tokens[i] == "or" for i in ctx.region_tokens)


def _reverses(part: Part, classes: Counter[Modality]) -> bool:
    """An afterthought that opens an exclusive rule, permits a prohibited act, or makes
    an obligation optional."""
    parity = sum(n for m, n in classes.items() if m in NEGATIVE) % 2
    if part.classes[_M.ONLY] and classes[_M.EXTEND] and (classes[_M.ALLOW] or parity == 0):
        return True
    if part.parity == 1 and classes[_M.ALLOW] and parity == 0:
        return True
    return bool(any(part.classes[m] for m in STRONG) and classes[_M.OPTIONAL])


def _predicate_kept(ctx: _Context) -> bool:
    """The word a negation governs is in the window too: a reversal must be about the
    same act ("must not ship" and "may ship", not "should wait")."""
    for mark in ctx.part.analysis.marks:
        if mark.modality not in NEGATIVE:
            continue
        governed = next((i for i in ctx.part.content if i >= mark.end), None)
        if governed is not None and governed not in ctx.al.matches:
            return False
    return True


def _contradicted(ctx: _Context, rule: str, why: str) -> Reading:
    strong = ctx.al.coverage >= STRONG_COVERAGE
    return ctx.reading(
        Kind.CONTRADICTED,
        rule,
        explicit=True,
        strong=strong,
        evidence={"why": why, "modality": _modality_evidence(ctx)},
    )


def _read_only(part: Part) -> bool:
    stems = {stem(token) for token in part.analysis.tokens}
    return bool(part.classes[_M.READONLY]) or (part.parity == 1 and bool(stems & WRITE_VERBS))


def _w_read_only(ctx: _Context) -> bool:
    if ctx.w_classes[_M.READONLY]:
        return True
    if ctx.w_parity == 1 and ctx.region_stems & WRITE_VERBS:
        return True
    return bool(ctx.w_classes[_M.ONLY] and ctx.region_stems & READ_VERBS)


def _w_writable(ctx: _Context) -> bool:
    if ctx.w_classes[_M.WRITE]:
        return True
    permits = ctx.w_classes[_M.ALLOW] or ctx.w_classes[_M.OBLIGE]
    return bool(permits and ctx.w_parity == 0 and ctx.region_stems & WRITE_VERBS)


def _antonym_swaps(ctx: _Context) -> list[str]:
    swaps = []
    for token in ctx.part.analysis.tokens:
        word = stem(token)
        opposite = ANTONYMS.get(word)
        if opposite and word not in ctx.region_stems and opposite & ctx.region_stems:
            swaps.append(f"{token}->{'/'.join(sorted(opposite & ctx.region_stems))}")
    return swaps


# --- mutated --------------------------------------------------------------------------


def _anchor_diff(ctx: _Context) -> Reading | None:
    """A value, identifier or bound term of the constraint replaced by another."""
    for check in (_changed_value, _changed_identifier, _substituted_word):
        reading = check(ctx)
        if reading is not None:
            return reading
    return None


def _changed_value(ctx: _Context) -> Reading | None:
    # A value without the rule's force ("spent $120 so far" for "cap $500") is a
    # measurement, not a restatement of the rule.
    if not ctx.topical or (ctx.lost and ctx.al.coverage < STRONG_COVERAGE):
        return None
    c_values = ctx.part.analysis.values
    for wanted in c_values:
        if any(values_equal(wanted, found) for found in ctx.region_values):
            continue
        rivals = [
            found
            for found in ctx.region_values
            if comparable(wanted, found) and not any(values_equal(c, found) for c in c_values)
        ]
        for found in rivals:
            if _slot_aligned(ctx, wanted, found) or (
                len(rivals) == 1
                and ctx.al.coverage >= STRONG_COVERAGE
                and ctx.al.matched_keys >= 2  # noqa: PLR2004
            ):
                return _mutated(ctx, wanted.surface, found.surface, "value changed")
    return None


def _slot_aligned(ctx: _Context, wanted: Value, found: Value) -> bool:
    before = [i for i in ctx.al.matches if i < wanted.start]
    after = [i for i in ctx.al.matches if i >= wanted.end]
    if not before and not after:
        return False
    left = ctx.al.matches[max(before)] if before else None
    right = ctx.al.matches[min(after)] if after else None
    if left is not None and found.start <= left:
        return False
    if right is not None and found.start >= right:
        return False
    near = [abs(found.start - p) for p in (left, right) if p is not None]
    return min(near) <= _SLOT_REACH


def _changed_identifier(ctx: _Context) -> Reading | None:
    """A name of the constraint replaced by a sibling name (`orders_prod` by
    `orders_prod_archive`), in a window that restates the rule around it."""
    tokens = ctx.part.analysis.tokens
    for index, weight in zip(ctx.part.content, ctx.part.weights, strict=True):
        token = tokens[index]
        if index in ctx.al.matches or not _is_name(token):
            continue
        sibling = _sibling(ctx, token)
        if sibling is None:
            continue
        if _one_replacement(ctx) == (token, sibling):
            return _mutated(ctx, token, sibling, "identifier replaced", strong=True)
        rest = (ctx.al.coverage * ctx.part.total) / max(ctx.part.total - weight, 1.0)
        if rest >= STRONG_COVERAGE and ctx.al.matched_keys >= 2 and not ctx.lost:  # noqa: PLR2004
            return _mutated(ctx, token, sibling, "identifier replaced")
    return None


def _sibling(ctx: _Context, token: str) -> str | None:
    region = set(ctx.region_tokens)
    for position, found in _names(ctx.win.tokens):
        if position in region and found != token and are_siblings(token, found):
            return found
    return None


@functools.lru_cache(maxsize=16384)
def _names(tokens: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
    return tuple((i, token) for i, token in enumerate(tokens) if _is_name(token))


def _is_name(token: str) -> bool:
    return is_identifier(token) or is_soft_identifier(token)


def _substituted_word(ctx: _Context) -> Reading | None:
    """One content word or name swapped in an otherwise near-verbatim sentence."""
    if ctx.al.complete or not ctx.topical:
        return None
    replaced = _one_replacement(ctx)
    if replaced is None:
        return None
    wanted, found = replaced
    return _mutated(ctx, wanted, found, "a bound term replaced", strong=True)


def _one_replacement(ctx: _Context) -> tuple[str, str] | None:
    part = ctx.part.analysis
    wanted = list(ctx.part.significant)
    if len(wanted) < 3:  # noqa: PLR2004 - too short to tell a swap from a rewrite
        return None
    win = ctx.win
    for start in range(len(win.tokens)):
        if win.clauses[start] not in ctx.al.topic_clauses:
            continue
        found = _walk(part, wanted, win, start)
        if found is not None:
            return found
    return None


def _walk(part: Analysis, wanted: list[int], win: Analysis, start: int) -> tuple[str, str] | None:
    """Match `wanted` from `start`, allowing stopword insertions and one replacement."""
    found = _match_from(part, wanted, 0, win, start, 0, None)
    if found is None:
        return None
    index, position = found
    return part.tokens[index], win.tokens[position]


def _match_from(
    part: Analysis,
    wanted: list[int],
    at: int,
    win: Analysis,
    position: int,
    gap: int,
    replaced: tuple[int, int] | None,
) -> tuple[int, int] | None:
    """Depth-first: match, else skip an inserted function word, else replace once."""
    if at == len(wanted):
        return replaced
    if position >= len(win.tokens) or gap > _MAX_GAP:
        return None
    index = wanted[at]
    if _same(part, index, win, position):
        return _match_from(part, wanted, at + 1, win, position + 1, gap, replaced)
    token = win.tokens[position]
    if token in STOPWORDS and token not in RELATIONS:
        skipped = _match_from(part, wanted, at, win, position + 1, gap + 1, replaced)
        if skipped is not None:
            return skipped
    if replaced is None and _replaceable(part, index, win, position):
        return _match_from(part, wanted, at + 1, win, position + 1, gap, (index, position))
    return None


def _same(part: Analysis, index: int, win: Analysis, position: int) -> bool:
    key = part.keys[index]
    if key is not None and not key.startswith("~"):
        return win.keys[position] == key
    return part.tokens[index] == win.tokens[position]


def _replaceable(part: Analysis, index: int, win: Analysis, position: int) -> bool:
    """A content word or name may be swapped for another word; force words may not."""
    key = part.keys[index]
    if key is None or key.startswith("~") or part.mark_at[index] >= 0:
        return False
    token = win.tokens[position]
    if win.mark_at[position] >= 0 or token in RELATIONS or win.keys[position] is None:
        return False
    return any(v.start <= index < v.end for v in part.values) is False


def _mutated(ctx: _Context, wanted: str, found: str, why: str, *, strong: bool = False) -> Reading:
    strong = strong or ctx.al.coverage >= STRONG_COVERAGE
    return ctx.reading(
        Kind.MUTATED,
        "anchor_diff",
        explicit=True,
        strong=strong,
        evidence={"why": why, "expected": wanted, "found": found},
    )


# --- weakened -------------------------------------------------------------------------


def _hedge(ctx: _Context) -> Reading | None:
    """A hedge, condition or approximation wrapped around the rule."""
    if not ctx.topical or ctx.complement:
        return None
    part, w = ctx.part.classes, ctx.w_classes
    for modality in _SOFTENERS:
        if w[modality] > part[modality]:
            return _weakened(ctx, "hedge", f"{modality.value} added")
    if part[_M.UNIVERSAL] and w[_M.PARTIAL] > part[_M.PARTIAL]:
        return _weakened(ctx, "hedge", "all became some")
    if ctx.part.parity == 1 == ctx.w_parity and w[_M.ALLOW] > part[_M.ALLOW]:
        return _weakened(ctx, "hedge", "an exception was added to a prohibition")
    for classes, where in ctx.afterthoughts:
        if classes[_SCOPED] and (classes[_M.LIFT] or classes[_M.LIFT_VERB]):
            return _weakened(ctx, "hedge", f"the {where} lifts the rule for some cases")
        for modality in _SOFTENERS:
            if classes[modality] > part[modality]:
                return _weakened(ctx, "hedge", f"{modality.value} added in the {where}")
    return None


def _modality_loss(ctx: _Context) -> Reading | None:
    """Obligation turned into permission, or `or` and `and` swapped between terms."""
    if not ctx.topical or ctx.complement:
        return None
    part, w = ctx.part.classes, ctx.w_classes
    has_strong = any(part[m] for m in STRONG)
    if has_strong and not any(w[m] for m in STRONG) and w[_M.ALLOW] > part[_M.ALLOW]:
        return _weakened(ctx, "modality_loss", "must became may")
    swap = _connective_swap(ctx)
    if swap:
        return _weakened(ctx, "modality_loss", f"connective changed: {swap}")
    return None


def _connective_swap(ctx: _Context) -> str | None:
    """`or` and `and` swapped between two aligned terms of the rule.

    Under a negation written after both terms ("A and B must never ...") the swap is De
    Morgan's restatement of "never A or B", not a change.
    """
    tokens = ctx.part.analysis.tokens
    matched = sorted(ctx.al.matches.items())
    negations = [m.start for m in ctx.win.marks if m.modality in NEGATIVE]
    for (c_left, w_left), (c_right, w_right) in zip(matched, matched[1:], strict=False):
        if w_right <= w_left:
            continue
        c_between = {t for t in tokens[c_left + 1 : c_right] if t in {"and", "or"}}
        w_between = {t for t in ctx.win.tokens[w_left + 1 : w_right] if t in {"and", "or"}}
        if len(c_between) == 1 and len(w_between) == 1 and c_between != w_between:
            if ctx.part.parity == 1 and not any(n < w_left for n in negations):
                continue
            return f"{c_between.pop()}->{w_between.pop()}"
    return None


def _weakened(ctx: _Context, rule: str, why: str) -> Reading:
    strong = ctx.al.coverage >= STRONG_COVERAGE
    evidence = {"why": why, "modality": _modality_evidence(ctx)}
    return ctx.reading(Kind.WEAKENED, rule, explicit=True, strong=strong, evidence=evidence)


# --- preserved and paraphrased --------------------------------------------------------


def _verbatim(ctx: _Context) -> Reading | None:
    """The part's tokens appear contiguously, with nothing around them that changes it."""
    wanted = ctx.part.analysis.tokens
    tokens = ctx.win.tokens
    width = len(wanted)
    for start in range(len(tokens) - width + 1):
        if tokens[start] == wanted[0] and tokens[start : start + width] == wanted:
            if _clean(ctx, (start, start + width)) is None:
                return _certified(ctx, Kind.PRESERVED, "verbatim")
            return None
    return None


def _near_verbatim(ctx: _Context) -> Reading | None:
    """Every significant token in order, whole; only function words added or dropped."""
    part = ctx.part.analysis
    wanted = [part.tokens[i] for i in ctx.part.significant]
    if not wanted:
        return None
    tokens = ctx.win.tokens
    for start in [i for i, t in enumerate(tokens) if t == wanted[0]]:
        span = _subsequence(tokens, wanted, start)
        if span is not None:
            if _clean(ctx, span) is None:
                return _certified(ctx, Kind.PRESERVED, "near_verbatim")
            return None
    return None


def _subsequence(tokens: tuple[str, ...], wanted: list[str], start: int) -> tuple[int, int] | None:
    position = start
    extra = 0
    for token in wanted[1:]:
        position += 1
        while position < len(tokens) and tokens[position] != token:
            if tokens[position] not in STOPWORDS or tokens[position] in RELATIONS:
                return None
            extra += 1
            position += 1
        if position >= len(tokens) or extra > _MAX_GAP:
            return None
    return start, position + 1


def _paraphrase(ctx: _Context) -> Reading | None:
    """All content, values, identifiers and modality in one window, in other words."""
    if not ctx.al.complete or not ctx.topical:
        return None
    if ctx.lost or not _order_kept(ctx) or _clean(ctx, None) is not None:
        return None
    return _certified(ctx, Kind.PARAPHRASED, "paraphrase")


def _certified(ctx: _Context, kind: Kind, rule: str) -> Reading:
    values = [v.surface for v in ctx.part.analysis.values]
    ids = [t for t in ctx.part.analysis.tokens if _is_name(t)]
    evidence = {"anchors": {"values": values, "identifiers": ids}}
    return ctx.reading(kind, rule, strong=True, evidence=evidence)


def _clean(ctx: _Context, span: tuple[int, int] | None) -> str | None:
    """Return why the window cannot certify the part, or None when it can."""
    part, w = ctx.part.classes, ctx.w_classes
    if ctx.w_parity != ctx.part.parity:
        return "polarity differs"
    for modality in _BLOCKERS:
        if w[modality] > part[modality] and not _bounded_permission(ctx, modality):
            return f"{modality.value} added"
    if _missing_values(ctx) or _extra_values(ctx):
        return "values differ"
    keys = ctx.part.family
    inside = range(*span) if span else range(0)
    framing = _attributions(ctx)
    for index in ctx.region_tokens:
        if index in framing:
            continue
        key = ctx.win.keys[index]
        if index in inside or index in ctx.al.covered or key is None or key in keys:
            continue
        if key.startswith("~"):
            continue
        if ctx.win.clauses[index] in ctx.al.topic_clauses and key not in GENERIC:
            return f"extra content {ctx.win.tokens[index]!r}"
    if span and span[1] < len(ctx.win.tokens) and ctx.win.tokens[span[1]] in RELATIONS:
        nxt = span[1]
        if ctx.win.clauses[nxt] == ctx.win.clauses[span[1] - 1]:
            return "a qualifier follows"
    return None


def _bounded_permission(ctx: _Context, modality: Modality) -> bool:
    """`may` inside a kept bound ("no more than 4 may run") does not loosen the rule."""
    if modality is not _M.ALLOW:
        return False
    return any(ctx.part.classes[m] and ctx.w_classes[m] for m in (_M.ONLY, _M.MAX, _M.MIN))


def _attributions(ctx: _Context) -> set[int]:
    """Tokens that say who stated the rule ("the team lead said that ..."): everything in
    a clause up to a reporting verb that comes before the clause's first matched word."""
    win = ctx.win
    first: dict[int, int] = {}
    for position in ctx.al.matches.values():
        clause = win.clauses[position]
        first[clause] = min(first.get(clause, position), position)
    framing: set[int] = set()
    for clause, stop in first.items():
        start = stop
        while start > 0 and win.clauses[start - 1] == clause:
            start -= 1
        said = [i for i in range(start, stop) if stem(win.tokens[i]) in REPORTING]
        if said:
            framing.update(range(start, said[-1] + 1))
    return framing


def _missing_values(ctx: _Context) -> list[Value]:
    return [
        v
        for v in ctx.part.analysis.values
        if not any(values_equal(v, found) for found in ctx.region_values)
    ]


def _extra_values(ctx: _Context) -> list[Value]:
    return [
        found
        for found in ctx.region_values
        if not any(values_equal(v, found) for v in ctx.part.analysis.values)
    ]


def _order_kept(ctx: _Context) -> bool:
    """Directional words keep their arguments: `from A to B` never certifies `from B to A`."""
    part = ctx.part.analysis
    for index, position in ctx.al.matches.items():
        before = {t for t in part.tokens[max(0, index - 2) : index] if t in _DIRECTIONS}
        if not before:
            continue
        seen = {t for t in ctx.win.tokens[max(0, position - 3) : position] if t in _DIRECTIONS}
        if seen and not before & _directions(seen):
            return False
    return True


_DIRECTIONS = frozenset({"from", "to", "into", "onto", "than", "toward", "towards"})


def _directions(words: set[str]) -> set[str]:
    grouped = set(words)
    if words & {"to", "into", "onto", "toward", "towards"}:
        grouped |= {"to", "into", "onto", "toward", "towards"}
    return grouped


# --- absence --------------------------------------------------------------------------


def _absence(ctx: _Context) -> Reading:
    """Something the part binds is missing: a value, an identifier, or its force."""
    missing = [v.surface for v in _missing_values(ctx)]
    ids = _missing_identifiers(ctx)
    lost = ctx.lost
    strong = ctx.al.coverage >= STRONG_COVERAGE and ctx.topical
    evidence = {"missing": missing + ids, "lost": lost}
    if missing and strong:
        return ctx.reading(Kind.MUTATED, "anchor_diff", evidence=evidence | {"why": "value vanished"})
    if ids and _rest_coverage(ctx, ids) >= STRONG_COVERAGE and ctx.al.matched_keys >= 2:  # noqa: PLR2004
        return ctx.reading(Kind.MUTATED, "anchor_diff", evidence=evidence | {"why": "identifier vanished"})
    if lost and strong and not missing:
        return ctx.reading(Kind.WEAKENED, "modality_loss", evidence=evidence | {"why": "force lost"})
    signs = bool(missing or ids or lost) or (ctx.topical and _clean(ctx, None) is not None)
    rule = "suspect" if ctx.topical else "trace"
    return ctx.reading(None, rule, signs=signs, evidence=evidence)


def _missing_identifiers(ctx: _Context) -> list[str]:
    tokens = ctx.part.analysis.tokens
    return [
        tokens[i] for i in ctx.part.content if i not in ctx.al.matches and is_identifier(tokens[i])
    ]


def _rest_coverage(ctx: _Context, ids: list[str]) -> float:
    lost = sum(3.0 for _ in ids)
    return (ctx.al.coverage * ctx.part.total) / max(ctx.part.total - lost, 1.0)


def _lost_modality(ctx: _Context) -> list[str]:
    part, w = ctx.part.classes, ctx.w_classes
    lost = []
    if any(part[m] for m in STRONG) and not any(w[m] for m in STRONG):
        lost.append("must/never")
    if part[_M.ONLY] and not (w[_M.ONLY] or _only_by_negation(ctx)):
        lost.append("only")
    for bound in (_M.MAX, _M.MIN):
        if part[bound] and not w[bound]:
            lost.append(bound.value)
    if part[_M.READONLY] and not _w_read_only(ctx):
        lost.append("read-only")
    if part[_M.CONDITION] > w[_M.CONDITION]:
        lost.append("condition")
    return lost


def _no_writes(ctx: _Context) -> bool:
    return ctx.w_parity == 1 and bool(ctx.region_stems & WRITE_VERBS)


def _only_by_negation(ctx: _Context) -> bool:
    if ctx.w_parity != 1:
        return False
    words = {ctx.win.tokens[i] for i in ctx.region_tokens}
    return bool(words & _ONLY_WORDS) or bool(ctx.w_classes[_M.CONDITION])


def _modality_evidence(ctx: _Context) -> dict[str, list[str]]:
    return {
        "constraint": sorted(m.value for m in ctx.part.classes),
        "found": sorted(m.value for m in ctx.w_classes),
    }
