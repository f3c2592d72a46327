"""Afterthoughts: clauses and sentences around a window that speak about the rule.

"...; the user said this no longer applies", "Soft preferences:" over a list. They
point back at the rule (an anaphor, a rule noun, the rule's words) and add force.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Protocol

from compaction_guard.detectors.lexical.acts import act_on_object
from compaction_guard.detectors.lexical.frame import WISH
from compaction_guard.detectors.lexical.lexicon import ANAPHORS, GENERIC, ONLY_WORDS, RULE_NOUNS
from compaction_guard.detectors.lexical.modality import Modality
from compaction_guard.detectors.lexical.slot import lifted_to_value, permitted_side
from compaction_guard.detectors.lexical.switches import is_on
from compaction_guard.normalize import stem

if TYPE_CHECKING:
    from collections.abc import Sequence

    from compaction_guard.detectors.lexical.align import Alignment, Part
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = ["POINTED", "SCOPED", "afterthoughts"]



class _Sentences(Protocol):
    """The window's own facts (`context.Sentences`)."""

    @property
    def marked_groups(self) -> dict[int, list[tuple[Analysis, int]]]: ...
    @property
    def following_groups(
        self,
    ) -> tuple[tuple[Analysis, tuple[list[tuple[Analysis, int]], ...]], ...]: ...
    def surroundings(self) -> tuple[tuple[Analysis, ...], Analysis | None]: ...
    def glance(self) -> tuple[bool, Analysis | None]: ...
    @property
    def marked_following(self) -> bool: ...


class _Facts(Protocol):
    """What the afterthought reader reads about one part in one window.

    `context.Context` has these members and calls `afterthoughts` with itself; this
    module names only the protocol, so the dependency runs one way (context imports it).
    """

    part: Part
    al: Alignment
    @property
    def win(self) -> Analysis: ...
    @property
    def facts(self) -> _Sentences: ...


_M = Modality
# Marks an afterthought that points back at the rule but narrows itself to some cases.
SCOPED = _M.SCOPED
# Marks an afterthought that points back by anaphor or rule noun ("this", "the rule").
POINTED = _M.ABSORBED


def afterthoughts(ctx: _Facts) -> list[tuple[Counter[Modality], str]]:
    """Clauses outside the region, and the next sentences, that speak about the rule.

    A clause qualifies when it points back (an anaphor, a rule noun or the part's own
    words) and carries no content of its own: "; the user said this no longer applies".
    """
    # A clause without force words says nothing here: only clauses with marks are read.
    region = ctx.al.region
    marked = []
    for clause, tokens in ctx.facts.marked_groups.items():
        classes = _referring_marks(ctx, tokens) if clause not in region else None
        if classes:
            marked.append((classes, "same sentence"))
    _, heading = ctx.facts.glance()
    # Next sentences without a force word hold no clause to read: they are not analysed.
    for after, clauses in ctx.facts.following_groups if ctx.facts.marked_following else ():
        # Each clause is read first and the sentence's side tested only when one of them
        # points back: `permitted_side` only ever drops clauses, so a sentence none of
        # whose clauses refers to the rule adds nothing either way.
        # A relative clause inside a later sentence ("..., which were replaced") points at
        # a noun of its own sentence, never back at the rule.
        read = [
            classes
            for tokens in clauses
            if not _relative(tokens) and (classes := _referring_marks(ctx, tokens))
        ]
        if read and not permitted_side(ctx.part, after):
            # "Deploys are fine outside that window" after a forbidden window is dropped.
            marked.extend((classes, "next sentence") for classes in read)
    if heading is not None:
        classes = _heading_marks(heading)
        if classes:
            marked.append((classes, "heading"))
    return marked


def _heading_marks(heading: Analysis) -> Counter[Modality]:
    """Return the marks of a heading over the rule's list, unless it names a topic.

    "Soft preferences (best effort):" governs every item under it; "Billing:" does not
    speak about force at all. A heading headed by a wish ("Suggestions from the design
    review:") hedges its list whatever else it names.
    """
    if any(frame.kind == WISH for frame in heading.frames):
        return Counter({_M.HEDGE: 1})
    for index, key in enumerate(heading.keys):
        topical = key is not None and not key.startswith("~") and key not in GENERIC
        if topical and heading.mark_at[index] < 0:
            return Counter()
    return Counter(heading.marks[m].modality for m in set(heading.mark_at) if m >= 0)


def _referring_marks(ctx: _Facts, clause: list[tuple[Analysis, int]]) -> Counter[Modality]:
    """Return the marks of a clause that points back at the rule, or none.

    A clause about something else yields none. A clause that names the rule by anaphor but
    adds content of its own ("waived that restriction for the beta cohort") is SCOPED.
    """
    refers = pointed = False
    referring: list[int] = []  # the places that point back at the rule
    foreign: list[int] = []  # the places of content of the clause's own
    # An exclusive rule is pointed back at by "other", "else" too (`_POINTERS`).
    pointers = _POINTERS if ctx.part.classes.get(_M.ONLY) else ANAPHORS
    family = ctx.part.family
    for place, (analysis, index) in enumerate(clause):
        mark = analysis.mark_at[index]
        token = analysis.tokens[index]
        key = analysis.keys[index]
        if token in pointers:
            refers = pointed = True  # "other buckets" points back at an exclusive rule
            referring.append(place)
        elif key in family or stem(token) in RULE_NOUNS:
            refers = True
            referring.append(place)
        elif key is not None and not key.startswith("~") and mark < 0 and key not in GENERIC:
            foreign.append(place)
    if not refers or (foreign and not pointed):
        return Counter()
    # Its marks and the words that scope it are read only for a clause that points back.
    classes = _clause_marks(ctx.part, clause, referring)
    if foreign and any(map(_scoping_words(clause).__getitem__, foreign)):
        classes[SCOPED] += 1
    if pointed:
        classes[POINTED] += 1
    return classes


_POINTERS = ANAPHORS | ONLY_WORDS


def _clause_marks(
    part: Part, clause: list[tuple[Analysis, int]], referring: Sequence[int]
) -> Counter[Modality]:
    """Count the force words of a clause, less lifting verbs that are the rule's act (`_acts`).

    A lifting verb denied just before it ("the rule was never lifted") lifts nothing, nor
    does one whose agent is all that points back at the rule ("Helvetica, replaced by the
    Inter rule above": the rule is what replaced, not what was replaced).
    """
    classes: Counter[Modality] = Counter()
    for place, (analysis, index) in enumerate(clause):
        mark = analysis.mark_at[index]
        if mark >= 0 and analysis.marks[mark].start == index:
            modality = analysis.marks[mark].modality
            if modality is _M.LIFT_VERB and _acts(part, analysis, index):
                continue
            if modality in _LIFTS and (
                _denied(analysis, index) or _by_the_rule(clause, place, referring)
            ):
                continue
            classes[modality] += 1
    return classes


_DENIALS = frozenset({"not", "never", "no", "n't"})
_LIFTS = frozenset({_M.LIFT, _M.LIFT_VERB})


def _relative(clause: list[tuple[Analysis, int]]) -> bool:
    """Tell whether a clause past its sentence's start opens with a relative pronoun."""
    if not clause:
        return False
    analysis, index = clause[0]
    return index > 0 and analysis.tokens[index] in _RELATIVES


_RELATIVES = frozenset({"which", "who", "whom", "whose"})


def _by_the_rule(clause: list[tuple[Analysis, int]], place: int, referring: Sequence[int]) -> bool:
    """Tell whether a lifting verb's agent ("replaced by ...") holds every pointer to the rule."""
    if place + 1 >= len(clause):
        return False
    analysis, index = clause[place + 1]
    return analysis.tokens[index] == "by" and bool(referring) and min(referring) > place + 1


def _denied(analysis: Analysis, index: int) -> bool:
    """Tell whether a denial stands in the two words before `index`, in its clause.

    "was never lifted", "has not been waived"; "The user answered no, drop it" ends the
    denial's clause before the lift, and "is not a constraint anymore" lifts with it.
    """
    clauses = analysis.clauses
    return any(
        analysis.tokens[at] in _DENIALS and (not clauses or clauses[at] == clauses[index])
        for at in range(max(0, index - 2), index)
    )


def _acts(part: Part, analysis: Analysis, index: int) -> bool:
    """Tell whether a lifting verb acts, not lifts: the rule's act on its object, or a change.

    "Customer uploads can be removed after 3 days" deletes (`act_on_object`); "the user
    dropped that to 3 days" sets a new value (`slot.lifted_to_value`).
    """
    if lifted_to_value(analysis.tokens, analysis.values, index):
        return True
    return is_on("act_not_lift") and act_on_object(part.analysis, part.family, analysis, index)


def _scoping_words(clause: list[tuple[Analysis, int]]) -> list[bool]:
    """Tell, per word of a clause, whether content there would narrow the clause's force.

    Outside a lift, any content does. A lift is scoped by what follows "for", "in",
    "during" ...; its actor, and a reason or time after it ("after the grant came
    through", "for the rest of the session"), leave it whole. A lift inside a reason
    ("because the env vars override it") is about something else.
    """
    lifts = [
        a.mark_at[i] >= 0 and a.marks[a.mark_at[i]].modality in (_M.LIFT, _M.LIFT_VERB)
        for a, i in clause
    ]
    if not any(lifts):
        return [True] * len(clause)
    scoping = lifted = False
    found = []
    for place, (analysis, index) in enumerate(clause):
        token = analysis.tokens[index]
        lifted = lifted or lifts[place]
        if token in _SCOPING:
            scoping = not _whole_time(clause, place)
        elif token in _REASONS:
            scoping = not lifted
        found.append(scoping)
    return found


_SCOPING = frozenset({"for", "in", "on", "during", "while", "when", "if", "unless", "within", "to"})
_REASONS = frozenset({"after", "since", "because", "once", "so", "as", "following"})
_WHOLE = (("the", "rest", "of"), ("the", "remainder", "of"), ("now", "on"))


def _whole_time(clause: list[tuple[Analysis, int]], place: int) -> bool:
    """Tell whether a scoping word opens all the time there is ("for the rest of ...")."""
    following = tuple(a.tokens[i] for a, i in clause[place + 1 : place + 4])
    return any(following[: len(phrase)] == phrase for phrase in _WHOLE)
