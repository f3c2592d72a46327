"""What one window of sentences says about one constraint part, before any rule decides.

`Context` holds the alignment, the window's force words in the part's region, and the
derived facts every rule reads (topicality, lost force, afterthoughts). `Reading` is
what a rule concludes.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from compaction_guard.anchors import (
    are_siblings,
    comparable,
    is_identifier,
    is_soft_identifier,
    range_pairs,
    values_equal,
)
from compaction_guard.detectors.lexical import afterthought
from compaction_guard.detectors.lexical.align import (
    closing_bounds,
    each_nouns,
    region_marks,
)
from compaction_guard.detectors.lexical.lexicon import (
    ANTONYMS,
    GENERIC,
    ONLY_WORDS,
    OPPOSITE_ACTS,
    READ_VERBS,
    SUBORDINATORS,
    WRITE_VERBS,
)
from compaction_guard.detectors.lexical.modality import NEGATIVE, STRONG, Mark, Modality
from compaction_guard.detectors.lexical.restate import (
    GATES,
    TRIGGERS,
    added_condition,
    bound_tokens,
    exclusive_echo,
    necessity,
    negated_exclusives,
    negated_other_bound,
    others_banned,
    pieces,
    swaps,
)
from compaction_guard.detectors.lexical.switches import is_on
from compaction_guard.detectors.lexical.text import canonical, force_marks
from compaction_guard.normalize import stem
from compaction_guard.taxonomy import Site

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from compaction_guard.anchors import Value
    from compaction_guard.detectors.lexical.align import Alignment, Part
    from compaction_guard.detectors.lexical.text import Analysis
    from compaction_guard.taxonomy import Kind

__all__ = [
    "MAX_GAP",
    "STRONG_COVERAGE",
    "TOPIC_COVERAGE",
    "Context",
    "Copy",
    "Glance",
    "Reading",
    "Region",
    "Sentences",
    "Surroundings",
    "Window",
    "build_context",
    "extra_values",
    "has_sibling",
    "is_name",
    "lost_modality",
    "marked",
    "missing_values",
    "modality_evidence",
    "names_core",
    "names_in",
    "read_only_kept",
]

TOPIC_COVERAGE = 0.5
STRONG_COVERAGE = 0.75
MAX_GAP = 3
_M = Modality

_C = TypeVar("_C", bound=type)
_T = TypeVar("_T")


class _Unlocked:
    """A `functools.cached_property` without its lock.

    Python 3.11's cached_property takes a lock on every first read, and each of the
    hundreds of contexts a view builds reads a dozen of them. A context lives in one
    call of `rules.evaluate`, in one thread, so the lock guards nothing. Like
    cached_property this is a non-data descriptor: once the value sits in the
    instance's `__dict__`, it is read from there directly.
    """

    def __init__(self, func: Callable[[Any], object], name: str) -> None:
        self.func = func
        self.name = name
        self.__doc__ = func.__doc__

    def __get__(self, instance: object, owner: type | None = None) -> object:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.func(instance)
        return value


def _unlocked(cls: _C) -> _C:
    """Swap the cached properties of `cls` for `_Unlocked` ones (typed as cached_property)."""
    for name, attr in list(vars(cls).items()):
        if isinstance(attr, functools.cached_property):
            setattr(cls, name, _Unlocked(attr.func, name))
    return cls


def _alone() -> tuple[tuple[Analysis, ...], Analysis | None]:
    return (), None


def marked(tokens: tuple[str, ...]) -> bool:
    """Tell from its tokens alone whether a sentence's analysis has marks (force words).

    An analysis's marks are the modality reading of its tokens, each recast by its frame
    one for one (`text.analyse`, `frame.reframe`), so there are marks exactly when that
    reading finds one.
    """
    return bool(force_marks(list(tokens)))


Surroundings = tuple[tuple["Analysis", ...], "Analysis | None"]
# Whether a sentence after a window holds a force word (`marked`), and the heading over it.
Glance = tuple[bool, "Analysis | None"]
Clause = list[tuple["Analysis", int]]  # one clause's words as (analysis, position) pairs


@_unlocked
class Sentences:
    """What a window's own sentences hold, the same for every part read against them.

    `detector._read` keeps one per window in the view's memo, so every constraint of a
    view reads one set of these facts, and they die with the view. `surroundings`
    returns, on demand, the sentences after the window (up to two) and the heading over
    it: only a window that speaks about a rule needs to read them. `glance` tells from
    `ahead` whether any of those sentences has a force word (`marked_following`), which
    the caller reads from their tokens before one is analysed, and gives the heading.
    """

    def __init__(
        self,
        analysis: Analysis,
        around: Callable[[], Surroundings] = _alone,
        ahead: Callable[[], Glance] | None = None,
    ) -> None:
        self.analysis = analysis
        self._around = around
        self._ahead = ahead
        self._regions: dict[frozenset[int], Region] = {}
        self._derived: dict[Callable[[Analysis], object], object] = {}
        # The constraint part's analysis that `analysis` was found equal to, if any
        # (`rules._known_window`): compared once per window, not once per part reading it.
        self.equals: Analysis | None = None

    def once(self, compute: Callable[[Analysis], _T]) -> _T:
        """Return `compute(analysis)`, worked out once for this window.

        A rule module keeps a fact of the window's own words here (keyed by the function)
        without this class naming it: `modifiers` keeps the window's runs of nouns.
        """
        if compute not in self._derived:
            self._derived[compute] = compute(self.analysis)
        return self._derived[compute]  # type: ignore[return-value]

    def surroundings(self) -> Surroundings:
        """Return the sentences after the window (up to two) and the heading over it."""
        return self._surrounding

    @functools.cached_property
    def _surrounding(self) -> Surroundings:
        return self._around()

    def glance(self) -> Glance:
        """Return whether a sentence after the window has a force word, and the heading."""
        return self._glance

    @functools.cached_property
    def _glance(self) -> Glance:
        if self._ahead is None or "_surrounding" in self.__dict__:
            following, heading = self.surroundings()
            return any(after.marks for after in following), heading
        return self._ahead()

    @property
    def marked_following(self) -> bool:
        """Whether a sentence after the window holds a force word (`following_groups`).

        Told from the tokens alone when they are not analysed yet (`marked`): a window
        none of whose next sentences has one need not analyse them.
        """
        return self.glance()[0]

    @functools.cached_property
    def members(self) -> dict[int, list[int]]:
        """The positions of each clause, in reading order."""
        found: dict[int, list[int]] = {}
        for index, clause in enumerate(self.analysis.clauses):
            found.setdefault(clause, []).append(index)
        return found

    def region(self, clauses: frozenset[int]) -> Region:
        """Return what a region of clauses holds, worked out once per region.

        Parts with the same region in this window (a rule's siblings, rules sharing its
        words) read the same marks, positions and values.
        """
        found = self._regions.get(clauses)
        if found is None:
            win = self.analysis
            members = self.members
            # Clauses are numbered in reading order (`text.analyse`, `text.join`), so the
            # positions taken clause by clause, lowest first, come out sorted.
            tokens = tuple(i for c in sorted(clauses) if c in members for i in members[c])
            values = tuple(v for v in win.values if win.clauses[v.start] in clauses)
            found = self._regions[clauses] = Region(win, clauses, tokens, values)
        return found

    @functools.cached_property
    def following_groups(self) -> tuple[tuple[Analysis, tuple[Clause, ...]], ...]:
        """Each sentence after the window with its clauses that hold a force word, in order."""
        following, _ = self.surroundings()
        return tuple(
            (
                after,
                tuple(
                    [(after, i) for i, c in enumerate(after.clauses) if c == clause]
                    for clause in sorted({after.clauses[m.start] for m in after.marks})
                ),
            )
            for after in following
        )

    @functools.cached_property
    def marked_groups(self) -> dict[int, list[tuple[Analysis, int]]]:
        """Each clause that holds a force word, as (analysis, position) pairs, lowest first."""
        win = self.analysis
        marked = {win.clauses[m.start] for m in win.marks}
        return {c: [(win, i) for i in self.members[c]] for c in sorted(marked)}

    @functools.cached_property
    def closers(self) -> tuple[tuple[int, int], ...]:
        """The clauses that only close a bound, each with the clause before (`align`)."""
        return closing_bounds(self.analysis)

    @functools.cached_property
    def canonical_words(self) -> list[str]:
        """The window's words for a near-verbatim comparison (`text.canonical`)."""
        return [word for word, _, _ in canonical(self.analysis)]

    @functools.cached_property
    def canonical_starts(self) -> dict[str, list[int]]:
        """Where each canonical word stands, in order."""
        found: dict[str, list[int]] = {}
        for index, word in enumerate(self.canonical_words):
            found.setdefault(word, []).append(index)
        return found

    @functools.cached_property
    def names(self) -> tuple[tuple[int, str], ...]:
        """The positions and tokens of the window's names (`names_in`)."""
        return names_in(self.analysis.tokens)

    @functools.cached_property
    def each(self) -> frozenset[str]:
        """What a distributive "each" or "every" of the window governs (`align.each_nouns`)."""
        return each_nouns(self.analysis)


@_unlocked
class Region:
    """What the clauses of a region hold: positions, values, and on first read its marks.

    Every reading of the region needs its positions and values; only a reading that
    weighs the window's force (`Context.w_classes`) needs its marks, so they are read
    for the first part that asks, and kept for the others.
    """

    def __init__(
        self,
        win: Analysis,
        clauses: frozenset[int],
        tokens: tuple[int, ...],
        values: tuple[Value, ...],
    ) -> None:
        self.win = win
        self.clauses = clauses
        self.tokens = tokens
        self.values = values

    @functools.cached_property
    def marks(self) -> tuple[Mark, ...]:
        """The window's marks in the region, in order."""
        win, clauses = self.win, self.clauses
        return tuple(m for m in win.marks if win.clauses[m.start] in clauses)

    @functools.cached_property
    def lift_verbs(self) -> bool:
        """A mark is a lift verb ("removed"), maybe the rule's own act."""
        return any(m.modality is _M.LIFT_VERB for m in self.marks)

    @functools.cached_property
    def negative(self) -> tuple[Mark, ...]:
        """The marks of `modality.NEGATIVE`, in order."""
        return tuple(m for m in self.marks if m.modality in NEGATIVE)

    @functools.cached_property
    def classes(self) -> Counter[Modality]:
        """How often the region says each force."""
        return Counter(m.modality for m in self.marks)

    @functools.cached_property
    def keys(self) -> Counter[str]:
        """How often the region says each content key."""
        keys = self.win.keys
        return Counter(key for i in self.tokens if (key := keys[i]) is not None)

    @functools.cached_property
    def stems(self) -> frozenset[str]:
        """Its words' stems, hyphenated words also read by their parts (`Context.region_stems`)."""
        return _stems(self.win, self.tokens)

    @functools.cached_property
    def unbound_stems(self) -> frozenset[str]:
        """The stems of its words outside bound phrases (`Context.unbound_stems`)."""
        inside = bound_tokens(self.win)
        return _stems(self.win, tuple(i for i in self.tokens if i not in inside))


# Not frozen: a frozen dataclass sets each field by a call to `object.__setattr__`, and
# one is built per window read. Nothing assigns to one once built.
@dataclass(slots=True)
class Window:
    """One or two consecutive sentences of one site, with their facts (`Sentences`)."""

    analysis: Analysis
    site: Site
    tool: bool
    facts: Sentences
    sids: tuple[int, ...] = ()
    # The catalogued rules switched off while its view is read (`rules.switched_off_now`),
    # or None to read them when asked: the tier's memos of a view take them as fixed.
    switched_off: tuple[str, ...] | None = None


# Not frozen: a frozen dataclass sets each field by a call to `object.__setattr__`, and
# one is built per pair of a part and a window. Nothing assigns to one once built.
@dataclass(slots=True)
class Reading:
    """What one window says about one part.

    `kind` is None for a window that only carries a trace (`rule` "suspect" or "trace").
    `explicit` marks damage stated in the window (a changed value, a reversal, a hedge),
    as opposed to damage inferred from something missing. `signs` marks a window that
    is missing an anchor or modality it could not name, so nothing may certify the part.
    `hint` is the damage a loosely aligned summary window suggests through its force
    words alone; it counts only against a copy that survives outside the summary.
    """

    kind: Kind | None
    rule: str
    coverage: float
    site: Site
    tool: bool
    explicit: bool = False
    strong: bool = False
    signs: bool = False
    # The evidence, or how to work it out (`evidence`): most readings are never shown.
    _evidence: dict[str, Any] | Callable[[], dict[str, Any]] = field(default_factory=dict)
    hint: Kind | None = None
    sids: tuple[int, ...] = ()
    span: tuple[int, int] | None = None

    @property
    def settled(self) -> bool:
        """Whether the evidence is worked out already (not left for a first read)."""
        return not callable(self._evidence)

    def moved(self, window: Window) -> Reading:
        """Return this reading of another window that reads alike (`Copy.reading`).

        Only the window's place differs: its site, whether a tool said it, its sentences.
        The evidence is copied whole, so no two readings share a list or a dict.
        """
        evidence = _fresh(self.evidence)
        evidence["site"] = _SITE_VALUES[window.site]
        return Reading(
            self.kind,
            self.rule,
            self.coverage,
            window.site,
            window.tool,
            explicit=self.explicit,
            strong=self.strong,
            signs=self.signs,
            _evidence=evidence,
            hint=self.hint,
            sids=window.sids,
            span=self.span,
        )

    @property
    def evidence(self) -> dict[str, Any]:
        """The evidence that decided the reading, worked out on first read.

        A verdict shows the evidence of one reading, or of a few traces, out of every
        reading of a constraint; a rule that gathers evidence no decision reads
        (`Context.reading`, `later`) leaves it until it is shown.
        """
        found = self._evidence
        if callable(found):
            found = self._evidence = found()
        return found


def _fresh(evidence: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of evidence, its dicts and lists copied too (what `deepcopy` would do).

    Evidence holds strings, numbers, lists and dicts; `deepcopy` walks them in Python
    with a memo of every object, which this does not need.
    """
    return {key: _fresh_value(value) for key, value in evidence.items()}


def _fresh_value(value: object) -> object:
    if isinstance(value, dict):
        return {key: _fresh_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_fresh_value(item) for item in value]
    return value


@dataclass(slots=True)
class Copy:
    """What a part reads in a window that is a constraint's sentence (`rules.evaluate`).

    The window's analysis equals that constraint part's (`analysis`), so the part's
    alignment there, and what the copy checks of `rules._clean` find (they read the
    analysis and the alignment alone, never the sentences around it nor its site), are
    the same in every view: worked out once, kept per part.
    """

    analysis: Analysis  # the constraint part's analysis the window's equals
    al: Alignment
    checked: bool = False  # `why` is worked out
    why: str | None = None  # why the copy cannot certify (`rules._clean`), or None
    # The reading when nothing around the window refers to the rule (no afterthought):
    # the rules read the sentences around a window only through its afterthoughts, and
    # its site only in the reading, except `rules._absence`, whose readings are never
    # settled when made. Kept for a settled reading only (`Reading.settled`).
    reading: Reading | None = None


@_unlocked
@dataclass
class Context:
    """The facts about one part in one window that every rule reads."""

    part: Part
    window: Window
    win: Analysis  # the window's analysis, read by every rule
    facts: Sentences  # what the window's sentences hold whatever the part
    al: Alignment
    held: Region  # what the clauses of the alignment's region hold
    region_tokens: tuple[int, ...]
    region_values: list[Value]
    copy: Copy | None = None  # the part's own facts when the window is its sentence

    # The window's forces, its polarity and its count of negations, as the restatements
    # read them (`_restate`). Not every reading asks for them: a weak trace whose
    # missing anchors already show damage never does, so they are read on first use.
    @functools.cached_property
    def w_classes(self) -> Counter[Modality]:
        """How often the region says each force, restatements read in (`_restate`)."""
        return _restate(self)

    @functools.cached_property
    def w_parity(self) -> int:
        """The window's polarity: its counted negations, turned by restatements (`_restate`)."""
        _ = self.w_classes
        return self.__dict__["w_parity"]  # type: ignore[no-any-return]

    @functools.cached_property
    def counted(self) -> int:
        """How many of the region's negations count (`_negates`), less denied exclusives."""
        _ = self.w_classes
        return self.__dict__["counted"]  # type: ignore[no-any-return]

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
        force = force_kept(self)
        offered = self.part.key_count + len(values) + (1 if force_offered(self.part) else 0)
        return self.al.matched_keys + present + force >= min(2, offered)

    @functools.cached_property
    def bound_swap(self) -> bool:
        """An upper bound in the rule is a lower bound in the window, or back."""
        part, w = self.part.classes.get, self.w_classes.get  # no `__missing__` calls
        rule_max, rule_min = part(_M.MAX, 0), part(_M.MIN, 0)
        win_max, win_min = w(_M.MAX, 0), w(_M.MIN, 0)
        fewer_max, fewer_min = rule_max > win_max, rule_min > win_min
        more_max, more_min = win_max > rule_max, win_min > rule_min
        return (fewer_max and more_min) or (fewer_min and more_max)

    @functools.cached_property
    def bound_on_value(self) -> bool:
        """Whether a swapped bound holds the rule's own value (see `bound_swap`).

        "Spend so far is above $120" for "the cap is $500" bounds another value: a
        measurement, not the rule turned round.
        """
        values = self.part.analysis.values
        return not values or any(
            values_equal(v, found) for v in values for found in self.region_values
        )

    @functools.cached_property
    def complement(self) -> bool:
        """Whether the window states the other side of the rule (bound and polarity reversed).

        "Up to $200 without escalation" is the other side of "above $200 must escalate".
        """
        turned = (self.part.parity + len(self.act_swaps)) % 2
        return self.bound_swap and turned != self.w_parity

    @functools.cached_property
    def guarded(self) -> bool:
        """Whether the window says what to do past the bound, under a condition.

        "If spending would go over $500, stop and ask" for "the cap is $500": the other
        bound, but as the trigger of a stop, not as a permission. This never certifies.
        """
        w = self.w_classes
        if not self.bound_swap or w[_M.ALLOW] or w[_M.OPTIONAL]:
            return False
        if self.part.classes.get(_M.CONDITION) or TRIGGERS & set(self.part.analysis.tokens):
            return False  # the rule is a trigger itself: its bound turned is a reversal
        if w[_M.CONDITION] or any(m.modality is _M.CONDITION for m in self.win.marks):
            return True  # a condition anywhere in the sentence: "..., if that happens, ask"
        if w[_M.OBLIGE] and not self.part.strong and self.consequence:
            return True  # "anything over $500 needs the user's approval"
        win = self.win
        # A trigger word of its own ("once", "when"), not one inside a hedge ("if possible").
        return any(t in TRIGGERS and win.mark_at[i] < 0 for i, t in enumerate(win.tokens))

    @functools.cached_property
    def consequence(self) -> bool:
        """Whether the window names something the rule does not (an approval, a stop)."""
        win, family, covered = self.win, self.part.family, self.al.covered
        return any(
            (key := win.keys[i]) is not None
            and not key.startswith("~")
            and key not in family
            and key not in GENERIC
            and i not in covered
            for i in self.region_tokens
        )

    @functools.cached_property
    def gated(self) -> bool:
        """Whether the window states an obligation as a ban on acting first.

        "No change goes out until the lead signs off" for "changes require the lead's
        sign-off": the polarity turns with the gate word, not against the rule. Which
        side of the gate each word is on is not checked, so this never certifies.
        """
        part, w = self.part.classes, self.w_classes
        # An imperative that orders two acts ("Run the suite before merging") obliges too.
        ordered = not +part and not _PRECEDENCE.isdisjoint(self.part.analysis.tokens)
        if self.part.parity != 0 or self.w_parity != 1 or not (part[_M.OBLIGE] or ordered):
            return False
        if any(w[m] for m in (_M.OBLIGE, _M.OPTIONAL, _M.ALLOW, _M.LIFT, _M.LIFT_VERB)):
            return False
        return any(self.win.tokens[i] in GATES for i in self.region_tokens)

    @property
    def region_stems(self) -> frozenset[str]:
        """Stems of the region's words, hyphenated words also read by their parts.

        The same for every part with this region (`Region.stems`): kept there.
        """
        return self.held.stems

    @property
    def unbound_stems(self) -> frozenset[str]:
        """Stems of the region's words outside bound phrases ("at or below"), as above."""
        return self.held.unbound_stems

    @functools.cached_property
    def relation_swaps(self) -> list[str]:
        """Relations of the rule swapped for their opposites ("before" for "after").

        Words of a bound phrase ("at or below", "may not go above") are read as the
        bound they make, which `bound_swap` compares; they are not relations here.
        """
        return swaps(self, ANTONYMS, skip_bounds=True)

    @functools.cached_property
    def act_swaps(self) -> list[str]:
        """Acts of the rule swapped for their opposites ("delete" for "keep").

        An act the alignment read from its other side ("stay in" for "leave", see
        `acts.STAY`) already turned the window's polarity and is no swap here.
        """
        found = swaps(self, OPPOSITE_ACTS)
        tokens = self.part.analysis.tokens
        said = {f"{tokens[i]}->" for i in self.al.turned}
        return [s for s in found if not any(s.startswith(prefix) for prefix in said)]

    @functools.cached_property
    def lost(self) -> list[str]:
        """The part's force words that the window does not carry (see `lost_modality`)."""
        return lost_modality(self)

    @functools.cached_property
    def afterthoughts(self) -> list[tuple[Counter[Modality], str]]:
        """Referring clauses around the window (see `afterthought`)."""
        return afterthought.afterthoughts(self)

    def reading(
        self,
        kind: Kind | None,
        rule: str,
        *,
        later: Callable[[], dict[str, Any]] | None = None,
        **extra: Any,
    ) -> Reading:
        """Return a Reading of this window with the standard evidence fields.

        `later`, when given, works out the rule's own evidence (instead of `evidence`)
        the first time the reading's evidence is read.
        """
        evidence: dict[str, Any] | Callable[[], dict[str, Any]]
        if later is None:
            evidence = self._evidence(extra.pop("evidence", {}))
        else:
            evidence = lambda: self._evidence(later())  # noqa: E731 (read on first use)
        return Reading(
            kind,
            rule,
            self.al.coverage,
            self.window.site,
            self.window.tool,
            _evidence=evidence,
            sids=self.window.sids,
            **extra,
        )

    def _evidence(self, own: dict[str, Any]) -> dict[str, Any]:
        """Return the standard evidence fields followed by a rule's `own`."""
        return {
            "site": _SITE_VALUES[self.window.site],
            "sentence": self.win.text,
            "constraint": self.part.text,
            "coverage": round(self.al.coverage, 3),
            **own,
        }


def _stems(win: Analysis, positions: Sequence[int]) -> frozenset[str]:
    tokens = win.tokens
    return frozenset(stem(piece) for i in positions for piece in pieces(tokens[i]))


_PRECEDENCE = frozenset({"before", "first", "prior"})
# Each site's name, read once: an enum's `.value` is a property, read in Python per call.
_SITE_VALUES = {site: site.value for site in Site}


def build_context(part: Part, window: Window, al: Alignment, copy: Copy | None = None) -> Context:
    """Collect the part's region of the window; its force words are read on first use."""
    facts = window.facts
    held = facts.region(al.region)
    return Context(
        part=part,
        window=window,
        win=window.analysis,
        facts=facts,
        al=al,
        held=held,
        region_tokens=held.tokens,
        region_values=_distributed(part, list(held.values), facts.each),
        copy=copy,
    )


def _restate(ctx: Context) -> Counter[Modality]:
    """Collect the window's force words in the part's region and apply the restatements.

    Called once, on the first read of `w_classes`, `w_parity` or `counted`: it puts all
    three in the context's `__dict__` first, where the restatements below read and turn
    them, and returns the forces.
    """
    part, win, al = ctx.part, ctx.win, ctx.al
    marks, classes = _force_words(ctx.held, win, al)
    # Only a negative mark can count (`_negates`), and a lift verb is none: the region's
    # negative marks are those of `marks` either way.
    counted = sum(1 for mark in ctx.held.negative if _negates(mark, win, al))
    ctx.__dict__.update(w_classes=classes, w_parity=counted % 2, counted=counted)
    _turned_acts(ctx)
    _restrict_permissions(ctx, marks)
    if negated_other_bound(ctx):
        # "Spending above $500 is not allowed" states "at most $500": the negation
        # belongs to the bound, as "never go above" does.
        bound = _M.MAX if part.classes.get(_M.MAX) else _M.MIN
        other = _M.MIN if bound is _M.MAX else _M.MAX
        ctx.w_classes[bound] += ctx.w_classes.pop(other)
        ctx.w_parity ^= 1
    needed = necessity(ctx)
    if needed is not None and part.classes.get(_M.OBLIGE) and not part.classes.get(_M.ONLY):
        # "Merged only after two reviews" states "needs two reviews before merging".
        ctx.w_classes[_M.OBLIGE] += 1
        if needed:
            ctx.w_classes[_M.CONDITION] -= 1  # the condition is the requirement itself
    if added_condition(part, win, al):
        # "Where the schedule allows it, <rule>": a leading clause that sets a condition
        # the rule does not have, without a condition word of its own.
        ctx.w_classes[_M.CONDITION] += 1
    if part.classes.get(_M.READONLY) and not ctx.w_classes.get(_M.READONLY) and no_writes(ctx):
        # "no writes to X" says "X is read-only": its negation is part of the restriction.
        ctx.w_classes[_M.READONLY] += 1
        ctx.w_parity ^= 1
    if part.classes.get(_M.ONLY) and not ctx.w_classes.get(_M.ONLY) and others_banned(ctx):
        # "...; other regions are off-limits": a ban on every alternative says "only".
        ctx.w_classes[_M.ONLY] += 1
    if part.classes.get(_M.ONLY) and not ctx.w_classes.get(_M.ONLY) and only_by_negation(ctx):
        # "X and nobody else" says "only X": its negation is part of the restriction
        # (when it was counted at all: "and to nobody else" frames, it was not).
        ctx.w_classes[_M.ONLY] += 1
        if ctx.counted:
            ctx.w_parity ^= 1
        # "never run anywhere but X": that "anywhere" names the others, it opens nothing
        ctx.w_classes[_M.EXTEND] -= sum(
            1 for i in but_exceptions(ctx) if ctx.win.tokens[i - 1] == "anywhere"
        )
    elif ctx.counted and is_on("exclusive_echo") and exclusive_echo(ctx):
        ctx.w_parity ^= 1  # "only on X and nowhere else": its negation says "only" again
    _deny_exclusive(ctx, marks)
    return classes


def _force_words(
    held: Region, win: Analysis, al: Alignment
) -> tuple[tuple[Mark, ...], Counter[Modality]]:
    """Return the marks of the region the context reads, and a fresh count of their forces.

    A lift verb may be the rule's own word, matched: then it is no mark (`region_marks`).
    The count is a copy: the restatements of `build_context` change it.
    """
    if held.lift_verbs:
        marks = tuple(region_marks(win, al))
        return marks, Counter(mark.modality for mark in marks)
    return held.marks, _copied(held.classes)


def _copied(counts: Counter[Modality]) -> Counter[Modality]:
    """Return a copy of `counts`, built without `Counter.__init__`.

    `Counter(counts)` runs `__init__` and `update` in Python (and a `Mapping` check) only
    to land in `dict.update`; a Counter holds nothing but its dict, so an empty one
    filled by `dict.update` is the same copy, keys in the same order.
    """
    copy: Counter[Modality] = Counter.__new__(Counter)
    dict.update(copy, counts)
    return copy


def _deny_exclusive(ctx: Context, marks: Sequence[Mark]) -> None:
    """Read a negation over the window's exclusive word as "not only": it opens the rule.

    "Backups are never stored only in R": the negation and the "only" are one denial of
    the exclusive, as the phrase "not only" is, not a polarity flip that a second
    negation ("... and nowhere else") may cancel. Each such pair leaves the window's
    "only" and its count of negations and becomes an EXTEND. A rule that itself denies
    an exclusive ("do not rely solely on unit tests") is read as usual.
    """
    if not ctx.part.classes.get(_M.ONLY) or not ctx.w_classes.get(_M.ONLY):
        return
    denied = negated_exclusives(ctx.win, marks) if is_on("negated_exclusive") else []
    if not denied:
        return
    part = ctx.part.analysis
    if negated_exclusives(part, part.marks):
        return
    for negation, exclusive in denied:
        ctx.w_classes[exclusive.modality] -= 1
        ctx.w_classes[negation.modality] -= 1
        ctx.w_classes[_M.EXTEND] += 1
        if _negates(negation, ctx.win, ctx.al):
            ctx.w_parity ^= 1
            ctx.counted -= 1


def _turned_acts(ctx: Context) -> None:
    """Read an act said from its other side ("must stay in R" for "must not leave R").

    Its polarity turns with it, and a force phrase that names it ("is confined to R")
    states the restriction (see `acts.STAY`).
    """
    if ctx.al.turned:
        ctx.w_parity ^= len(ctx.al.turned) % 2
    if ctx.al.carried and not any(map(ctx.w_classes.get, STRONG)):
        ctx.w_classes[_M.OBLIGE] += 1


def _restrict_permissions(ctx: Context, marks: Sequence[Mark]) -> None:
    """Read a permission held to one choice as the exclusive rule's force.

    "may only live in ca-central-1", "the only port the service may bind": a permission
    held to one choice states the rule's obligation, it grants nothing. For "no API other
    than X", the rule's negation and its "other than" are the window's "only".
    """
    part = ctx.part
    restricted = _restricted_permissions(ctx.win, marks) if part.exclusive else 0
    if not restricted:
        return
    ctx.w_classes[_M.ALLOW] -= restricted
    ctx.w_classes[_M.OBLIGE] += restricted
    if not part.classes.get(_M.ONLY) and ctx.w_parity == 0:
        ctx.w_parity = 1
        ctx.w_classes[_M.CONDITION] += 1


def _distributed(part: Part, values: list[Value], win_each: frozenset[str]) -> list[Value]:
    """Read "each query ... 50 GB" and "50 GB per query" as one value.

    A distributive "each X" or "every X" on one side states the other side's "per X"
    (`win_each`: what the window's governs): the window's value takes the rule's form
    when the two differ only there.
    """
    rule_each = part.each
    if not rule_each and not win_each:
        return values
    rule = part.analysis
    read = []
    for value in values:
        for wanted in rule.values:
            if value.per and not wanted.per and stem(value.per) in rule_each:
                candidate = dataclasses.replace(value, per="")
            elif wanted.per and not value.per and stem(wanted.per) in win_each:
                candidate = dataclasses.replace(value, per=wanted.per)
            else:
                continue
            if values_equal(wanted, candidate):
                value = candidate  # noqa: PLW2901 (the value read in the rule's form)
                break
        read.append(value)
    return read


_RESTRICT_REACH = 4  # "the only registry we are allowed to pull from"


def _restricted_permissions(win: Analysis, marks: Sequence[Mark]) -> int:
    """Count permission marks within four words of an "only" mark in the same clause."""
    onlies = [m for m in marks if m.modality is _M.ONLY]
    return sum(
        1
        for m in marks
        if m.modality is _M.ALLOW
        and any(
            _gap(win, m, o) <= _RESTRICT_REACH and win.clauses[m.start] == win.clauses[o.end - 1]
            for o in onlies
        )
    )


def _gap(win: Analysis, permission: Mark, only: Mark) -> int:
    """Words from an "only" phrase to a permission, past the noun it picks.

    "the one and only port the service may bind", "the only third-party API we are
    allowed to hit": the content words right after "only" name the one choice, and the
    permission in the clause that follows them is held to it.
    """
    if permission.start < only.start:
        return only.start - permission.start
    start = only.end
    while start < permission.start and win.keys[start] is not None:
        start += 1
    return permission.start - start + 1


def _negates(mark: Mark, win: Analysis, al: Alignment) -> bool:
    """Tell whether a mark counts toward the window's polarity.

    A bare "not" in a framing clause ("if it is not too much trouble, ...") negates the
    frame, not the rule.
    """
    if mark.modality not in NEGATIVE:
        return False
    if mark.modality is not _M.NEGATION or win.clauses[mark.start] in al.topic_clauses:
        return True
    return not _framing(win, win.clauses[mark.start])


def _framing(win: Analysis, clause: int) -> bool:
    """Tell whether a clause opens with a condition, a hedge or a subordinating word."""
    first = win.clauses.index(clause)
    mark = win.mark_at[first]
    if mark >= 0 and win.marks[mark].modality in (_M.CONDITION, _M.HEDGE):
        return True
    return win.tokens[first] in SUBORDINATORS


def force_offered(part: Part) -> bool:
    return part.forced  # any of `modality.FORCE`


def force_kept(ctx: Context) -> int:
    if not force_offered(ctx.part):
        return 0
    return 0 if ctx.lost else 1


def has_sibling(part: Part, al: Alignment, window: Sentences) -> bool:
    """Tell whether the window names a sibling of an unmatched identifier of the part."""
    names = [part.analysis.tokens[i] for i in part.names if i not in al.matches]
    found = window.names if names else ()
    return any(are_siblings(name, other) for name in names for _, other in found)


def lost_modality(ctx: Context) -> list[str]:
    """Return the force words of the part that the window does not carry."""
    # `Counter.get` reads a missing force as None where indexing calls `__missing__` (in
    # Python) for 0; every test below reads the two the same way.
    part, w = ctx.part.classes.get, ctx.w_classes.get
    lost = []
    if ctx.part.strong and not any(map(w, STRONG)):
        lost.append("must/never")
    if part(_M.ONLY) and not (w(_M.ONLY) or only_by_negation(ctx)):
        lost.append("only")
    if part(_M.MAX) and not w(_M.MAX):
        lost.append(_M.MAX.value)
    if part(_M.MIN) and not w(_M.MIN):
        lost.append(_M.MIN.value)
    if part(_M.READONLY) and not read_only_kept(ctx):
        lost.append("read-only")
    if part(_M.CONDITION, 0) > w(_M.CONDITION, 0):
        lost.append("condition")
    return lost


def no_writes(ctx: Context) -> bool:
    return ctx.w_parity == 1 and bool(ctx.region_stems & WRITE_VERBS)


def only_by_negation(ctx: Context) -> bool:
    """Tell whether a negation plus "other", "else" or "except" says "only" in the window."""
    if not (ctx.w_classes.get(_M.NEGATION) or ctx.w_classes.get(_M.FORBID)):
        return False
    words = {ctx.win.tokens[i] for i in ctx.region_tokens}
    if words & ONLY_WORDS or ctx.w_classes.get(_M.CONDITION):
        return True
    return bool(but_exceptions(ctx))


_ANY_WORDS = frozenset({"anywhere", "nowhere", "anyone", "anybody", "nobody", "nothing"})
_CLAUSE_OPENERS = frozenset(
    {"is", "are", "was", "were", "can", "may", "must", "will", "should", "do", "does", "did"}
    | {"it", "they", "we", "you", "he", "she", "i", "there", "this", "that", "these", "those"},
)


def but_exceptions(ctx: Context) -> list[int]:
    """Return where "but" names the one choice after "anywhere", "nowhere", "any region".

    "Load tests never run anywhere but the perf cluster", "stored nowhere but in R", "may
    not be stored in any region but eu-west-1": under a negation, "but" there is "except",
    and the window says "only" (`lexical.but_exception`). "Everywhere but R" and a "but"
    that joins clauses are read as usual.
    """
    if not is_on("but_exception"):
        return []
    tokens = ctx.win.tokens
    found = []
    for i in ctx.region_tokens:
        if tokens[i] != "but" or i == 0 or i + 1 >= len(tokens) or tokens[i + 1] in _CLAUSE_OPENERS:
            continue  # "... in any region, but are kept in R" opens a clause
        if tokens[i - 1] in _ANY_WORDS or (i > 1 and tokens[i - 2] in ("any", "no")):
            found.append(i)
    return found


def read_only_kept(ctx: Context) -> bool:
    """Tell whether the window keeps a read-only restriction in any of its wordings."""
    if ctx.w_classes.get(_M.READONLY):
        return True
    if ctx.w_parity == 1 and ctx.region_stems & WRITE_VERBS:
        return True
    return bool(ctx.w_classes.get(_M.ONLY) and ctx.region_stems & READ_VERBS)


def missing_values(ctx: Context) -> tuple[Value, ...]:
    """Return the part's values that no value of the region equals.

    Worked out once per context: several rules ask, and the region's values are fixed
    once the context is built.
    """
    found = ctx.__dict__.get("_missing_values")
    if found is None and not (ctx.part.analysis.values and ctx.region_values):
        # Nothing to equal, or nothing to be equalled: every rule value is missing.
        found = ctx.__dict__["_missing_values"] = ctx.part.analysis.values
    if found is None:
        part = ctx.part.analysis
        joined = _ranged(part, part.values, ctx.win, ctx.region_values)
        found = ctx.__dict__["_missing_values"] = tuple(
            v
            for v in ctx.part.analysis.values
            if not (joined and v in joined)
            and not any(values_equal(v, seen) for seen in ctx.region_values)
        )
    return found


def extra_values(ctx: Context) -> tuple[Value, ...]:
    """Return the region's values that equal none of the part's (once per context)."""
    found = ctx.__dict__.get("_extra_values")
    if found is None and not (ctx.part.analysis.values and ctx.region_values):
        found = ctx.__dict__["_extra_values"] = tuple(ctx.region_values)  # none to equal
    if found is None:
        part = ctx.part.analysis
        joined = _ranged(ctx.win, ctx.region_values, part, part.values)
        found = ctx.__dict__["_extra_values"] = tuple(
            value
            for value in ctx.region_values
            if not (joined and value in joined)
            and not any(values_equal(v, value) for v in part.values)
        )
    return found


def _ranged(
    analysis: Analysis, values: Sequence[Value], against: Analysis, other: Sequence[Value]
) -> frozenset[Value]:
    """Return the values of one side that state a range the other side states as one value.

    "between 2 °C and 8 °C" is "2-8 °C", and "2-4 AM" is "from 02:00 to 04:00": a pair
    joined by a range word, or a range value, whose two ends equal the other side's in
    order. "8-2 °C" or "between 8 °C and 2 °C" keep their order, so they never match.
    """
    ranges = [v for v in other if len(v.ends) == 2]  # noqa: PLR2004
    has_range = any(len(v.ends) == 2 for v in values)  # noqa: PLR2004
    if not is_on("range_pair") or not (ranges or has_range):
        return frozenset()  # no range on either side: nothing is one
    found: set[Value] = set()
    for low, high in range_pairs(analysis.tokens, values) if ranges else ():
        if any(_ends_equal((low, high), r.ends) for r in ranges):
            found.update((low, high))
    pairs = range_pairs(against.tokens, other) if has_range and len(other) > 1 else []
    found.update(
        v
        for v in values
        if len(v.ends) == 2 and any(_ends_equal(p, v.ends) for p in pairs)  # noqa: PLR2004
    )
    return frozenset(found)


def _ends_equal(pair: tuple[Value, Value], ends: tuple[Value, ...]) -> bool:
    return values_equal(pair[0], ends[0]) and values_equal(pair[1], ends[1])


def names_core(ctx: Context) -> bool:
    """Tell whether the window carries the part's most specific word (identifier, longest)."""
    return ctx.part.core in ctx.al.matches  # -1, never matched, for a part without content


def names_in(tokens: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
    """Return the positions and tokens of the names in `tokens`."""
    return tuple((i, token) for i, token in enumerate(tokens) if is_name(token))


@functools.lru_cache(maxsize=65536)
def is_name(token: str) -> bool:
    """Tell whether a token is an identifier, strict or soft."""
    return is_identifier(token) or is_soft_identifier(token)


def modality_evidence(ctx: Context) -> dict[str, list[str]]:
    """Return the force classes of the part and of the window, for evidence."""
    return {
        "constraint": sorted(m.value for m in ctx.part.classes),
        "found": sorted(m.value for m in ctx.w_classes),
    }
