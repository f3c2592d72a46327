"""Frames: a label or a bare trailing remark that says what kind of statement a rule is.

"Soft preference from the user: <rule>", "Guideline: <rule>", "<rule> (optional)". A
frame whose head word is a hedge reframes the obligation it governs as a wish, whatever
the rule's own words say. See docs/DESIGN.md, "Lexical layer".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from compaction_guard.detectors.lexical.lexicon import RELATIONS, STOPWORDS
from compaction_guard.detectors.lexical.modality import Mark, Modality
from compaction_guard.normalize import tokenize

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["FIRM", "TOPIC", "WISH", "Frame", "bare_words", "find_frames", "reframe"]

_M = Modality
# A label: up to the first ": " (or a spaced dash), optionally with a parenthetical in
# it; or a parenthetical that opens the sentence.
_LEAD = re.compile(
    r"^(?:\((?P<paren>[^()]{1,80})\)\s"
    r"|(?P<label>[^:;()\"]{1,80}?(?:\s?\([^()]{0,60}\))?)(?::(?=\s|$)|\s-{1,3}\s))",
)
# A bare remark that closes the sentence: "(best effort)", ", if possible", "-- ideally".
_TRAIL = re.compile(
    r"(?:\((?P<paren>[^()]{1,60})\)|(?:[,;]|\s-{1,3})\s+(?P<tail>[^,;()]{1,40}?))\W*$",
)
_MAX_LABEL = 8
# A label's colon or first dash stands at index 144 at the latest (80 label characters,
# then a bracket of up to 63 and a space): within the text's first `_LEAD_REACH`.
_LEAD_REACH = 148
# A frame that carries these is about force or lifting, not a wish.
_UNDOING = frozenset({_M.LIFT, _M.LIFT_VERB, _M.OBLIGE})
_WISH = frozenset({_M.HEDGE, _M.OPTIONAL})
_BARE = frozenset({"a", "an", "the", "this", "is", "just"})
_TEMPORAL = frozenset({"now", "anymore", "longer"})


@dataclass(frozen=True, slots=True)
class Frame:
    """A label or remark at tokens [start, end) that governs [scope_start, scope_end).

    `kind` is WISH (it hedges the rule), FIRM (a negated wish: "Not a suggestion:") or
    TOPIC (a label that names a thing: "Recommendations service:").
    """

    kind: str
    start: int
    end: int
    scope_start: int
    scope_end: int


WISH, FIRM, TOPIC = "wish", "firm", "topic"


@dataclass(frozen=True, slots=True)
class _Words:
    tokens: Sequence[str]
    marks: Sequence[Mark]
    mark_at: list[int]
    clauses: Sequence[int]


def find_frames(
    text: str, tokens: Sequence[str], marks: Sequence[Mark], clauses: Sequence[int]
) -> tuple[Frame, ...]:
    """Return the hedging frames of one sentence: a leading label and a trailing remark.

    A label frames the rule when its head word (the last word before a relation word
    or a bracket) is a hedge or `optional`, and it holds no negation, obligation or
    lifting word ("Not optional:", "Hard rule:", "Now optional:" do not hedge). A
    trailing remark must be bare: wish words only ("(best effort)", ", if possible").
    """
    mark_at = [-1] * len(tokens)
    for number, mark in enumerate(marks):
        for position in range(mark.start, min(mark.end, len(tokens))):
            mark_at[position] = number
    words = _Words(tokens, marks, mark_at, clauses)
    frames: list[Frame] = []
    lead = _lead(text)
    if lead:
        end = len(tokenize(text[: lead.end()]))
        # A label that ends the text is a heading: it governs the lines under it.
        heading = end == len(tokens) and lead.group("label") is not None
        kind = _label_kind(words, 0, end) if 0 < end <= _MAX_LABEL else None
        if kind is not None and (end < len(tokens) or heading):
            frames.append(Frame(kind, 0, end, end, len(tokens)))
    trail = _TRAIL.search(text)
    if trail:
        start = len(tokenize(text[: trail.start()]))
        bare = all(mark_at[i] >= 0 or tokens[i] in _BARE for i in range(start, len(tokens)))
        kind = _label_kind(words, start, len(tokens)) if bare and 0 < start < len(tokens) else None
        if kind == WISH:
            frames.append(Frame(WISH, start, len(tokens), 0, start))
    return tuple(frames)


def bare_words(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the words of a short leading label and of a closing bracketed remark.

    "Draft: <rule>", "GitHub rate (draft): <rule>", "<rule> (to be confirmed)": what a
    few words around a rule say of its standing, whatever their marks (world.framing).
    Either is empty when the text has none, or when it is longer than a label.
    """
    label: tuple[str, ...] = ()
    remark: tuple[str, ...] = ()
    lead = _lead(text)
    if lead:
        words = tuple(tokenize(text[: lead.end()]))
        label = words if len(words) <= _MAX_BARE else ()
    trail = _TRAIL.search(text)
    if trail and trail.group("paren"):
        words = tuple(tokenize(trail.group("paren")))
        remark = words if len(words) <= _MAX_BARE else ()
    return label, remark


_MAX_BARE = 4


def _lead(text: str) -> re.Match[str] | None:
    """Return `_LEAD.match(text)`, without running the pattern on a text it cannot match.

    Its bracket form opens with "(", and its label form ends at a colon or a dash (at
    most `_LEAD_REACH` characters in); most sentences have neither, and the lazy label
    costs a step for each of its first 80 characters before it fails.
    """
    head = text[:_LEAD_REACH]
    if ":" not in head and "-" not in head and not text.startswith("("):
        return None
    return _LEAD.match(text)


def reframe(marks: Sequence[Mark], frames: Sequence[Frame]) -> tuple[Mark, ...]:
    """Return `marks` as the frames read them.

    Inside a wish frame every mark is a hedge: "Optional: <rule>" says the rule is a
    wish; it does not negate the rule's predicate. Inside a firm frame ("Not a
    suggestion:") the marks restate the rule's force and count for nothing.
    """
    read = {WISH: _M.HEDGE, FIRM: _M.ABSORBED}
    kept = [f for f in frames if f.kind in read]
    if not kept:
        return tuple(marks)
    result = []
    for mark in marks:
        frame = next((f for f in kept if f.start <= mark.start < f.end), None)
        result.append(mark if frame is None else Mark(read[frame.kind], mark.start, mark.end))
    return tuple(result)


def _label_kind(words: _Words, start: int, end: int) -> str | None:
    """Return what a label at [start, end) is: a wish, a firm (negated) wish, a topic, or None."""
    head = _head(words, start, end)
    if head is None:
        return None
    marks, mark_at = words.marks, words.mark_at
    if mark_at[head] < 0:
        # "Preferred vendors:" hedges its head noun; "Recommendations service:" names one.
        before = {mark_at[i] for i in range(start, head) if mark_at[i] >= 0}
        if any(_is_wish_adjective(words, i) for i in range(start, head)):
            return WISH
        named = bool(before) and all(marks[m].modality in _WISH for m in before)
        return TOPIC if named else None
    if marks[mark_at[head]].modality not in _WISH:
        return None
    if _negated_head(words, start, head):
        return FIRM
    return _wish_or_topic(words, start, head, end)


def _wish_or_topic(words: _Words, start: int, head: int, end: int) -> str | None:
    """Return what a label headed by a wish word is: a wish, a document's name, or None."""
    if _names_a_rulebook(words, start, head):
        return TOPIC
    return None if _undone(words, start, end) else WISH


def _names_a_rulebook(words: _Words, start: int, head: int) -> bool:
    """Tell whether a label names a body of rules by its subject ("Interview guidelines:").

    "Guideline:" alone reframes the rule as a wish; a rulebook noun qualified by the
    thing it governs names a document, as "Interview policy:" would, and says nothing
    about the force of the rules under it. A qualifier shaped as an adjective or participle
    ("Abandoned", "Hypothetical", "Possible guidelines:") says what standing the rules have,
    not what they govern, so the label stays a wish.
    """
    if words.tokens[head] not in _RULEBOOK or head == start:
        return False
    qualifiers = [i for i in range(start, head) if words.tokens[i] not in STOPWORDS]
    return bool(qualifiers) and all(_names_a_subject(words, i) for i in qualifiers)


def _names_a_subject(words: _Words, index: int) -> bool:
    """Tell whether a qualifier of a rulebook noun can only name what the rules govern.

    An adjective or participle ("Discarded", "Temporary"), a word of standing ("Interim",
    "Draft") or an agent noun ("Competitor", "Vendor": whose rules they are) may say the
    rules are not ours or not in force, so the label is not read as a document name.
    """
    word = words.tokens[index]
    return (
        words.mark_at[index] < 0
        and word.isalpha()
        and word not in _STANDING
        and not word.endswith(_ADJECTIVE_ENDINGS + _AGENT_ENDINGS)
    )


_RULEBOOK = frozenset({"guidelines", "guideline"})
# Endings of adjectives and participles: a qualifier ending so describes the rulebook.
_ADJECTIVE_ENDINGS = (
    "ed", "al", "ible", "able", "ive", "ous", "ic", "ful", "less", "ish", "ary", "ory",
)  # fmt: skip
# Endings of agent nouns: a qualifier ending so names who keeps the rulebook.
_AGENT_ENDINGS = ("or", "er", "ist", "ant", "ent")
# Words of standing that carry no adjective ending: the rulebook is not (yet, still) in force.
_STANDING = frozenset({
    "interim", "draft", "old", "former", "legacy", "prior", "past", "sample", "example",
    "trial", "pilot", "beta", "stale", "other", "alternate", "alternative",
})  # fmt: skip


def _undone(words: _Words, start: int, end: int) -> bool:
    """Tell whether a force or lifting word, or a time word, in the frame undoes its wish."""
    inside = {words.mark_at[i] for i in range(start, end) if words.mark_at[i] >= 0}
    if any(words.marks[m].modality in _UNDOING for m in inside):
        return True
    return any(words.tokens[i] in _TEMPORAL for i in range(start, end))


def _negated_head(words: _Words, start: int, head: int) -> bool:
    """Tell whether a negation stands right before the head's phrase ("not a suggestion")."""
    first = words.marks[words.mark_at[head]].start
    before = first - 1
    while before >= start and words.tokens[before] in _BARE | {"merely", "simply", "only"}:
        before -= 1
    if before < start or words.mark_at[before] < 0:
        return False
    return words.marks[words.mark_at[before]].modality in (_M.NEGATION, _M.FORBID)


def _is_wish_adjective(words: _Words, index: int) -> bool:
    mark = words.mark_at[index]
    if mark < 0 or words.marks[mark].modality not in _WISH:
        return False
    word = words.tokens[index]
    return word.endswith("ed") or word in _WISH_ADJECTIVES


_WISH_ADJECTIVES = frozenset({"optional", "ideal", "preferable", "advisable", "soft"})


def _head(words: _Words, start: int, end: int) -> int | None:
    """Return the head of the frame's first phrase: its last word before a relation."""
    head = None
    for index in range(start, end):
        if words.clauses[index] != words.clauses[start]:
            break
        inside = words.mark_at[index] >= 0
        word = words.tokens[index]
        if not inside and (word in RELATIONS or word == "of"):
            break
        if inside or word not in STOPWORDS:
            head = index
    return head
