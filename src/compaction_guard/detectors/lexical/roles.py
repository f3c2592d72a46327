"""Who does the rule's act and who or what receives it: "Staff may not approve their own expenses".

The alignment matches words, so "managers may not approve staff expenses" matches every
word of the rule and says another rule: the staff moved from doing the act to receiving
it. The rule's force word ("may not", "must", "need") divides a rule that names who acts
into that side (before it) and the act's object (the words right after the act). A
restatement keeps both on their sides ("staff members may not approve their own expense
claims"), or, written the other way round, moves both across ("expenses may not be
approved by the staff who filed them"); one moved and the other kept is an exchange.

An agent named by "by" keeps its place the same way: "schema changes proposed by the
app team" is not "schema changes proposed by the data team" when the data team was the
rule's other party.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import TYPE_CHECKING

from compaction_guard.detectors.lexical.lexicon import RELATIONS
from compaction_guard.detectors.lexical.modality import Modality

if TYPE_CHECKING:
    from collections.abc import Iterable

    from compaction_guard.detectors.lexical.context import Context
    from compaction_guard.detectors.lexical.modality import Mark
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = ["roles_exchanged"]

# The force words that stand between who acts and the act ("staff may not approve").
_DIVIDING = frozenset(
    {Modality.FORBID, Modality.OBLIGE, Modality.ALLOW, Modality.SOFT_FORBID, Modality.OPTIONAL}
)
# Words that end the act's object: a relation word or a clause opener ("before merging").
_OBJECT_ENDS = (RELATIONS - {"not", "no"}) | {
    "if",
    "when",
    "unless",
    "while",
    "because",
    "that",
    "which",
    "who",
    "whose",
    "once",
}
_PASSIVE = frozenset({"be", "been", "being", "get", "gets"})
_AGENT_REACH = 3  # "by the app team": the agent within three words after "by"


def roles_exchanged(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a word of the rule whose role the window changed, or None."""
    return _sides_differ(ctx) or _agent_exchanged(ctx)


def _sides_differ(ctx: Context) -> str | None:
    """Name who acts when it moved across the force word while the act's object stayed.

    "Managers may not approve staff expenses": the staff now come after "may not", the
    expenses still do. Written the other way round, the object comes first; with who acts
    still first, the act must not be passive ("the security team must be reviewed").
    """
    found = _parties(ctx)
    if found is None:
        return None
    actors, objects, said = found
    matches, tokens = ctx.al.matches, ctx.part.analysis.tokens
    before = [i for i in actors if matches[i] < said.start]
    after = [i for i in objects if matches[i] >= said.end]
    if len(before) < len(actors) and after:
        moved = next(i for i in actors if i not in before)
        return f"{tokens[moved]!r} acts in the rule and is acted on in the window"
    if before and len(after) < len(objects) and _passive_after(ctx.win, said):
        return f"{tokens[before[0]]!r} acts in the rule and is acted on in the window"
    return None


def _parties(ctx: Context) -> tuple[list[int], list[int], Mark] | None:
    """Return the matched words of who acts and of the act's object, and the window's divider.

    Read only for a rule that names who acts before its first force word, in the same
    clause, and a window whose matches are out of order; the act itself (the first
    content word after the force word) is on neither side. Words the rule says on both
    sides ("the data team ... the app team") tell nothing and are left out.
    """
    rule, matches = ctx.part.analysis, ctx.al.matches
    divider = next(iter(rule.marks), None)
    if divider is None or divider.modality not in _DIVIDING or divider.start == 0:
        return None  # "Never write to orders_prod": no one named acts
    clause = rule.clauses[divider.start]
    if _in_order(matches) or any(rule.clauses[i] != clause for i in range(divider.start)):
        return None  # a copy, or function words changed: nothing moved
    keys = rule.keys
    actors = [i for i in range(divider.start) if _content(keys[i])]
    objects = _object(rule, divider.end)
    shared = {keys[i] for i in actors} & {keys[i] for i in objects}
    actors = [i for i in actors if keys[i] not in shared and i in matches]
    objects = [i for i in objects if keys[i] not in shared and i in matches]
    if not actors or not objects:
        return None
    said = _divider(ctx.win, ctx.al.region, [matches[i] for i in (*actors, *objects)], divider)
    return None if said is None else (actors, objects, said)


def _passive_after(analysis: Analysis, mark: Mark) -> bool:
    """Tell whether the force word is followed by a passive ("must be reviewed")."""
    return mark.end < len(analysis.tokens) and analysis.tokens[mark.end] in _PASSIVE


def _agent_exchanged(ctx: Context) -> str | None:
    """Name the rule's agent after "by" when the window gives "by" another word or head.

    "Changes proposed by the app team" read "changes proposed by the data team" (another
    agent), or "reviewed by the app team" (the agent of another act).
    """
    rule, win, matches = ctx.part.analysis, ctx.win, ctx.al.matches
    agents = {at: head for at, head in _agents(rule) if at in matches}
    if not agents:
        return None
    by_in_window = dict(_agents(win))
    for at, head in agents.items():
        other = by_in_window.get(matches[at], head)
        if head is not None and other is not None and other != head:
            return f"{rule.tokens[at]!r} is the agent of another act in the window"
    if all(matches[at] in by_in_window for at in agents):
        return None
    for at, position in matches.items():
        if at not in agents and _content(rule.keys[at]) and position in by_in_window:
            return f"{rule.tokens[at]!r} is the agent after 'by' in the window, not in the rule"
    return None


def _agents(analysis: Analysis) -> Iterable[tuple[int, str | None]]:
    """Return the content words "by" governs, each with the key of the word "by" follows.

    An agent is within reach of "by" with no content word between; its head is the
    content word right before "by" ("proposed by the app team"), None when there is none.
    """
    tokens, keys = analysis.tokens, analysis.keys
    for at in (i for i, word in enumerate(tokens) if word == "by"):
        head = keys[at - 1] if at > 0 and _content(keys[at - 1]) else None
        reach = range(at + 1, min(len(tokens), at + 1 + _AGENT_REACH))
        first = next((i for i in reach if _content(keys[i])), None)
        if first is None:
            continue
        # A compound agent ("the app team") is one run of content words.
        last = first
        while last + 1 < len(tokens) and _content(keys[last + 1]):
            last += 1
        for position in range(first, last + 1):
            yield position, head


def _object(rule: Analysis, start: int) -> list[int]:
    """Return the act's object: the content words after the act, up to a relation or clause."""
    keys, tokens, clauses = rule.keys, rule.tokens, rule.clauses
    act = next((i for i in range(start, len(keys)) if _content(keys[i])), None)
    if act is None:
        return []
    found: list[int] = []
    for at in range(act + 1, len(tokens)):
        if clauses[at] != clauses[act] or (found and tokens[at] in _OBJECT_ENDS):
            break
        if _content(keys[at]):
            found.append(at)
    return found


def _divider(analysis: Analysis, region: frozenset[int], near: list[int], own: Mark) -> Mark | None:
    """Return the window's force mark between who acts and the act.

    A dividing mark in the clause holding most of the matched words `near`, when that
    clause is in `region` ("Requirement: API responses must ..." divides at "must"): the
    first of the rule's own modality, else the first ("We used to require that PII must
    not leave ..." divides at "must not").
    """
    clauses = analysis.clauses
    clause = Counter(clauses[p] for p in near).most_common(1)[0][0]
    if clause not in region:
        return None
    marks = [m for m in analysis.marks if m.modality in _DIVIDING and clauses[m.start] == clause]
    return next((m for m in marks if m.modality is own.modality), next(iter(marks), None))


def _in_order(matches: dict[int, int]) -> bool:
    positions = [matches[at] for at in sorted(matches)]
    return all(a < b for a, b in itertools.pairwise(positions))


def _content(key: str | None) -> bool:
    return key is not None and not key.startswith("~")
