"""Afterthoughts: clauses and sentences around a window that speak about the rule.

"...; the user said this no longer applies", "Soft preferences:" over a list. They
point back at the rule (an anaphor, a rule noun, the rule's words) and add force.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from compaction_guard.detectors.lexical.frame import WISH
from compaction_guard.detectors.lexical.lexicon import ANAPHORS, GENERIC, ONLY_WORDS, RULE_NOUNS
from compaction_guard.detectors.lexical.modality import Modality
from compaction_guard.normalize import stem

if TYPE_CHECKING:
    from compaction_guard.detectors.lexical.context import Context
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = ["POINTED", "SCOPED", "afterthoughts"]

_M = Modality
# Marks an afterthought that points back at the rule but narrows itself to some cases.
SCOPED = _M.SCOPED
# Marks an afterthought that points back by anaphor or rule noun ("this", "the rule").
POINTED = _M.ABSORBED


def afterthoughts(ctx: Context) -> list[tuple[Counter[Modality], str]]:
    """Clauses outside the region, and the next sentences, that speak about the rule.

    A clause qualifies when it points back (an anaphor, a rule noun or the part's own
    words) and carries no content of its own: "; the user said this no longer applies".
    """
    # A clause without force words says nothing here: only clauses with marks are read.
    win = ctx.win
    groups: dict[int, list[tuple[Analysis, int]]] = {}
    marked_clauses = {win.clauses[m.start] for m in win.marks}
    for index, clause in enumerate(win.clauses):
        if clause not in ctx.al.region and clause in marked_clauses:
            groups.setdefault(clause, []).append((win, index))
    found = [(tokens, "same sentence") for tokens in groups.values()]
    following, heading = ctx.window.surroundings()
    for after in following:
        for clause in sorted({after.clauses[m.start] for m in after.marks}):
            tokens = [(after, i) for i, c in enumerate(after.clauses) if c == clause]
            found.append((tokens, "next sentence"))
    marked = []
    for tokens, where in found:
        classes = _referring_marks(ctx, tokens)
        if classes:
            marked.append((classes, where))
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


def _referring_marks(ctx: Context, clause: list[tuple[Analysis, int]]) -> Counter[Modality]:
    """Return the marks of a clause that points back at the rule, or none.

    A clause about something else yields none. A clause that names the rule by anaphor but
    adds content of its own ("waived that restriction for the beta cohort") is SCOPED.
    """
    refers = pointed = foreign = False
    classes: Counter[Modality] = Counter()
    for analysis, index in clause:
        mark = analysis.mark_at[index]
        token = analysis.tokens[index]
        key = analysis.keys[index]
        if mark >= 0 and analysis.marks[mark].start == index:
            classes[analysis.marks[mark].modality] += 1
        if token in ANAPHORS or (ctx.part.classes[_M.ONLY] and token in ONLY_WORDS):
            refers = pointed = True  # "other buckets" points back at an exclusive rule
        elif key in ctx.part.family or stem(token) in RULE_NOUNS:
            refers = True
        elif key is not None and not key.startswith("~") and mark < 0 and key not in GENERIC:
            foreign = True
    if not refers or (foreign and not pointed):
        return Counter()
    if foreign:
        classes[SCOPED] += 1
    if pointed:
        classes[POINTED] += 1
    return classes
