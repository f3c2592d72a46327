"""What a judge's cited paraphrase must carry before it may stand.

Private to the judge layer. The span must bind every value and identifier of the rule in
its role, keep its force and polarity, and restate its subject. See docs/DESIGN.md,
"Detector chain".
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compaction_guard.anchors import (
    Value,
    are_siblings,
    comparable,
    extract_values,
    is_identifier,
    is_soft_identifier,
    values_equal,
)
from compaction_guard.normalize import detection_form, stem, tokenize

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["span_defect"]

_NEGATIONS = frozenset(
    {"not", "no", "never", "nor", "cannot", "without", "none", "nothing", "neither", "nobody"},
)
# Words that lift, suspend, hedge, permit, except, change or date a rule. A span that adds
# one the rule does not have may say the rule no longer binds.
_DEPARTURES = frozenset(
    {
        "longer", "anymore", "lifted", "lift", "waived", "waive", "suspended", "paused",
        "relaxed", "revoked", "retired", "removed", "dropped", "scrapped", "cancelled",
        "canceled", "obsolete", "superseded", "rescinded", "expired", "ignore", "ignored",
        "former", "formerly", "previously", "used", "was", "were", "had", "until", "unless",
        "except", "exception", "exceptions", "exempt", "but", "however", "although", "though",
        "optional", "ideally", "preferably", "prefer", "preferred", "should", "try", "attempt",
        "recommended", "suggested", "encouraged", "may", "might", "could", "can", "allowed",
        "permitted", "fine", "ok", "okay", "acceptable", "raised", "lowered", "increased",
        "decreased", "bumped", "doubled", "tripled", "halved", "changed", "updated", "now",
        "instead", "temporarily", "if", "when", "whenever", "draft", "proposed",
        "rejected", "legacy", "old", "earlier", "initially", "originally", "later", "since",
    },
)
# What keeps a prohibition in other words ("is capped at", "off-limits", "only").
_PROHIBITIONS = frozenset(
    {
        "forbidden", "prohibited", "banned", "off-limits", "disallowed", "only", "solely",
        "exclusively", "cap", "capped", "limit", "limited", "max", "maximum", "most", "under",
        "below", "within", "nowhere", "least", "min", "minimum",
    },
)
_ONLY = frozenset({"only", "solely", "exclusively", "exclusive", "sole", "nowhere", "else", "just"})
_PERMISSIONS = frozenset({"allowed", "permitted", "fine", "ok", "okay", "acceptable"})
_BOUNDS_AFTER = frozenset({"only", "solely", "exclusively"})
_BOUNDS_BEFORE = frozenset({"most", "only", "solely", "exclusively"})
_REPORTED = frozenset({"told", "asked", "instructed"})
_STOPWORDS = frozenset(
    {
        "a", "an", "the", "this", "that", "these", "those", "it", "its", "is", "are", "be",
        "been", "being", "of", "for", "to", "in", "on", "at", "by", "with", "from", "into",
        "and", "or", "as", "any", "all", "each", "every", "per", "so", "than", "then", "there",
        "here", "we", "you", "they", "our", "your", "their", "us", "them", "do", "does", "must",
        "shall", "will", "would", "has", "have", "need", "needs", "required", "requires",
        "require", "always", "get", "got",
    },
)
_MODALS = frozenset({"may", "might", "can", "could", "should"})
# A rule with no value or identifier is tied to its span by most of its words.
_SUBJECT_SHARE = 0.7
# A span that keeps this share of the rule's words in order but replaces others is an edit.
_COPY_SHARE = 0.6
_COPY_WORDS = 4  # in a shorter rule one changed word is a rewording as often as an edit
# Ways to state a bound; trading one for another ("at most" for "under") is no edit.
_BOUND_WORDS = frozenset(
    {
        "most", "least", "under", "below", "above", "over", "exceed", "than", "more", "less",
        "fewer", "max", "maximum", "min", "minimum", "cap", "capped", "limit", "limited", "up",
    },
)
# Items of a list ("age, marital status or religion"; "email or phone"): words, not numbers.
_LIST = re.compile(
    r"([^\W\d_][\w-]*)\s*(?:,\s*(?:(?:and|or|nor)\s+)?|\s(?:or|nor)\s+)([^\W\d_][\w-]*)",
)

# A name: a capitalised word inside a sentence (German, Priya, Kubernetes) or an acronym.
_NAME = re.compile(r"(?<![.:;!?]\s)(?<!^)\b[A-Z][A-Za-z]*[A-Z]?[a-z]*\b|\b[A-Z]{2,}[a-z]?\b")

# Data sizes keep their case outside the detection form: 25 Mb (bits) is not 25 MB (bytes).
_DATA_SIZE = re.compile(r"(?<![\w.])(\d[\d,.]*)\s?([kmgtpe]i?b)\b", re.IGNORECASE)


def span_defect(rule: str, span: str) -> str | None:
    """Say why `span` cannot stand as a paraphrase of `rule`, or None when it can.

    Anchors: every value of the rule occurs in the span with the same meaning, every
    identifier whole; no other value of a dimension the rule states and no edited sibling of
    its identifiers; two values of one dimension (or two identifiers) keep the rule's order,
    so slots cannot swap. Force and polarity: the span adds no negation, lift, hedge,
    permission, exception or change word the rule lacks, keeps a negation and an `only`,
    and keeps every item of a list. Subject: it restates at least half the rule's words.
    """
    rule_tokens = tokenize(detection_form(rule))
    span_tokens = tokenize(detection_form(span))
    rule_values = extract_values(rule_tokens)
    span_values = extract_values(span_tokens)
    return (
        _unbound_values(rule_values, span_values)
        or _recased_data_size(rule, span)
        or _unbound_identifiers(
            _identifiers(rule_tokens, rule_values),
            span_tokens,
            _identifiers(span_tokens, span_values),
        )
        or _lost_name(rule, span_tokens)
        or _departing_word(rule_tokens, span_tokens)
        or _lost_force(rule_tokens, span_tokens)
        or _lost_list_item(rule, span_tokens)
        or _edited_copy(rule_tokens, rule_values, span_tokens, span_values)
        or _thin_subject(
            rule_tokens,
            rule_values,
            span_tokens,
            anchored=bool(rule_values),
        )
    )


def _same(left: Value, right: Value) -> bool:
    """Equal values stated the same way: `500` is not `$500`, `300 characters` not `300 words`."""
    if not values_equal(left, right) or left.kind != right.kind:
        return False
    return left.kind != "number" or left.unit == right.unit


def _unbound_values(rule: Sequence[Value], span: Sequence[Value]) -> str | None:
    where: list[int] = []
    for value in rule:
        found = next((i for i, other in enumerate(span) if _same(value, other)), None)
        if found is None:
            return f"lacks {value.surface}"
        where.append(found)
    for other in span:
        if any(_same(v, other) for v in rule):
            continue
        same = [v for v in rule if comparable(v, other)]
        if same:
            return f"states {other.surface} beside the rule's {same[0].surface}"
        # A value the rule does not state adds a scope, a rate or a date to it.
        return f"states {other.surface}, which the rule does not"
    for a, b in _pairs(len(rule)):
        if comparable(rule[a], rule[b]) and where[a] > where[b]:
            return f"swaps {rule[a].surface} and {rule[b].surface}"
    return None


def _unbound_identifiers(
    rule: Sequence[str], tokens: Sequence[str], span: Sequence[str],
) -> str | None:
    where: list[int] = []
    for name in rule:
        found = _find_identifier(name, tokens)
        if found is None:
            return f"lacks {name}"
        where.append(found)
    for other in span:
        inflected = is_soft_identifier(other) and _find_identifier(other, rule) is not None
        same = other in rule or inflected
        if not same and any(are_siblings(name, other) for name in rule):
            return f"names {other}, an edited form of the rule's identifier"
        # A further path, table or host widens or moves the rule ("under /data or /tmp").
        if not same and is_identifier(other):
            return f"names {other}, which the rule does not"
    for a, b in _pairs(len(rule)):
        if rule[a] != rule[b] and where[a] > where[b]:
            return f"swaps {rule[a]} and {rule[b]}"
    return None


def _find_identifier(name: str, tokens: Sequence[str]) -> int | None:
    if name in tokens:
        return tokens.index(name)
    if not is_soft_identifier(name):
        return None
    # A hyphenated word written with spaces, run together or inflected names the same thing.
    parts = [stem(part) for part in name.split("-")]
    for i, token in enumerate(tokens):
        pieces = [stem(piece) for piece in token.split("-")]
        if pieces == parts or stem(token) == "".join(parts):
            return i
        if [stem(t) for t in tokens[i : i + len(parts)]] == parts:
            return i
    return None


def _identifiers(tokens: Sequence[str], values: Sequence[Value]) -> list[str]:
    inside = {i for v in values for i in range(v.start, v.end)}
    return [
        token
        for i, token in enumerate(tokens)
        if i not in inside and (is_identifier(token) or is_soft_identifier(token))
    ]


def _pairs(count: int) -> list[tuple[int, int]]:
    return [(a, b) for a in range(count) for b in range(a + 1, count)]


def _negated(token: str) -> bool:
    return token in _NEGATIONS or token.endswith("n't")


def _departing_word(rule: Sequence[str], span: Sequence[str]) -> str | None:
    said = set(rule)
    bound = any(_negated(t) or t in _PROHIBITIONS for t in rule)
    for i, token in enumerate(span):
        if token in said or _bounded(span, i):
            continue
        if token in _DEPARTURES:
            return f"says {token!r}, which the rule does not"
        if _negated(token) and not bound:
            return f"negates with {token!r} a rule that states no negation or bound"
    return None


def _bounded(span: Sequence[str], i: int) -> bool:
    """Whether span[i] is a modal or permission that forbids ("may only", "not allowed")."""
    token, after, before = span[i], span[i + 1 : i + 4], span[max(0, i - 6) : i]
    if token in _MODALS:
        # "may not", "may only", "at most 10% of traffic may": a bound, not a permission.
        return any(_negated(t) or t in _BOUNDS_AFTER for t in after) or any(
            t in _BOUNDS_BEFORE for t in before
        )
    if token in _PERMISSIONS:
        return any(_negated(t) for t in span[max(0, i - 4) : i])
    # "I was told:" reports the rule; "the cap was $500" dates it.
    return token in {"was", "were"} and bool(after) and after[0] in _REPORTED


def _lost_force(rule: Sequence[str], span: Sequence[str]) -> str | None:
    if any(_negated(t) for t in rule) and not any(
        _negated(t) or t in _PROHIBITIONS for t in span
    ):
        return "drops the rule's negation"
    if any(t in _ONLY for t in rule) and not any(t in _ONLY for t in span):
        return "drops the rule's 'only'"
    return None


def _lost_list_item(rule: str, span: Sequence[str]) -> str | None:
    stems = {stem(t) for t in span} | set(span)
    pairs = [m.groups() for m in _LIST.finditer(detection_form(rule))]
    items = {word for pair in pairs if all(map(_is_item, pair)) for word in pair}
    for item in sorted(items):
        if item not in stems and stem(item) not in stems:
            return f"drops {item!r} from the rule's list"
    return None


def _is_item(word: str) -> bool:
    return not (word in _STOPWORDS or word in _MODALS or _negated(word) or word in _DEPARTURES)


def _thin_subject(
    rule: Sequence[str], values: Sequence[Value], span: Sequence[str], *, anchored: bool,
) -> str | None:
    inside = {i for v in values for i in range(v.start, v.end)}
    # Without a value, an identifier alone ("new_pricing_engine is enabled") names no topic.
    words = {
        stem(part)
        for i, t in enumerate(rule)
        if i not in inside and t not in _STOPWORDS and (anchored or not is_identifier(t))
        for part in (t.split("-") if is_soft_identifier(t) else [t])
    }
    if not words:
        return None
    have = {stem(t) for t in span} | {stem(part) for t in span for part in t.split("-")}
    shared = len(words & have)
    # A rule's values tie a span to it; one more shared word names the topic. An identifier
    # alone does not ("new_pricing_engine is enabled" is about the flag, not the rule).
    needed = 1 if anchored else _SUBJECT_SHARE * len(words)
    if shared < needed:
        return f"restates too little of the rule ({shared} of {len(words)} words)"
    return None


def _recased_data_size(rule: str, span: str) -> str | None:
    stated = {(m[1], m[2][-1]) for m in _DATA_SIZE.finditer(span)}
    for match in _DATA_SIZE.finditer(rule):
        if (match[1], match[2][-1]) not in stated:
            return f"lacks {match[0]} with its case (b is bits, B is bytes)"
    return None


def _lost_name(rule: str, span: Sequence[str]) -> str | None:
    """Require each name or acronym of the rule: a value in words (`German` is not `Dutch`)."""
    stems = {stem(t) for t in span} | {stem(p) for t in span for p in t.split("-")}
    for match in _NAME.finditer(rule.strip()):
        name = detection_form(match.group())
        if name not in _STOPWORDS and stem(name) not in stems:
            return f"lacks the name {match.group()!r}"
    return None


def _edited_copy(
    rule: Sequence[str],
    rule_values: Sequence[Value],
    span: Sequence[str],
    span_values: Sequence[Value],
) -> str | None:
    """Refuse a copy of the rule with words swapped ("full backup" -> "snapshot").

    That is the shape of a mutation, which the lexical tier decides, not a restatement.
    """
    ours, theirs = _content(rule, rule_values), _content(span, span_values)
    kept = _common_run(ours, theirs)
    # Counted with repeats, so "shared branches" -> "shared repos" shows even when the
    # rule says "branches" again later.
    lost = [word for word in dict.fromkeys(ours) if ours.count(word) > theirs.count(word)]
    added = [word for word in dict.fromkeys(theirs) if theirs.count(word) > ours.count(word)]
    if len(ours) >= _COPY_WORDS and kept >= _COPY_SHARE * len(ours) and lost and added:
        return f"reads as the rule with {', '.join(repr(w) for w in lost)} replaced"
    return None


def _content(tokens: Sequence[str], values: Sequence[Value]) -> list[str]:
    inside = {i for v in values for i in range(v.start, v.end)}
    return [
        stem(t)
        for i, t in enumerate(tokens)
        if i not in inside and t not in _STOPWORDS and t not in _BOUND_WORDS
    ]


def _common_run(left: Sequence[str], right: Sequence[str]) -> int:
    """Return the length of the longest common subsequence of two word lists."""
    row = [0] * (len(right) + 1)
    for word in left:
        previous = 0
        for j, other in enumerate(right, start=1):
            current = row[j]
            row[j] = previous + 1 if word == other else max(row[j], row[j - 1])
            previous = current
    return row[-1]

