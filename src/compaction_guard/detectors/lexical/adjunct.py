"""Extra words of a restatement that neither narrow the rule nor stand in for one of its words.

A paraphrase that adds a content word is normally not certified: the word may be a
qualifier ("for EU users", "DEBUG-level logs") or it may replace a rule word ("archived"
for "deleted"). Four classes of words add nothing, and only when every content word of
the rule is matched (so the extra word cannot be standing where a rule word is missing)
and the word is fastened to no rule word as its modifier:

- a measure noun headed by the rule's own value ("on a 90-day cycle", "above the €250
  threshold"): the value already fixes the quantity, the noun names its kind ("in that
  window" is not one: the anaphor may point at another span, which would narrow the rule);
- an adverb of sequence that closes its clause ("approved by a manager first"): it
  places the rule's act before the act it guards, which the rule already requires, unless
  a later act stands ahead of it ("refund, then get approval first");
- a verb of inclusion where the rule says "without" ("every DELETE must include a
  WHERE clause" for "never run DELETE without a WHERE clause"): the same requirement
  said from its positive side; polarity is still compared by the force guard;
- an aspect noun whose clause holds nothing but the rule's own words and values ("GitHub
  rate: ...", "Retention for build artifacts is 90 days, after which ..."): it names which
  aspect of the rule's subject the rule sets, as a label or as the subject of the clause
  that states the value. Any other word in that clause ("burst rate", "retention target",
  "nightly build artifacts") keeps it from counting, and a thing noun ("Stripe sandbox:")
  is no aspect: it may name a scope;
- the second word of an emphatic idiom ("every single", "any given"): it restates the
  quantifier it stands by. Outside the idiom the word keeps its meaning ("single tenants",
  "every distance given by the client");
- a word of the phrase right before the rule's own identifier in parentheses ("the
  Frankfurt region (eu-central-1)", "German local time (Europe/Berlin)"): the name fixes
  what the phrase means, so the phrase cannot narrow it. A word outside that phrase, or a
  parenthesis holding more than the one name, is read as usual.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compaction_guard.anchors import values_equal
from compaction_guard.detectors.lexical.lexicon import STOPWORDS, concept
from compaction_guard.detectors.lexical.modality import Modality
from compaction_guard.detectors.lexical.switches import is_on
from compaction_guard.detectors.lexical.text import ID
from compaction_guard.normalize import stem

if TYPE_CHECKING:
    from collections.abc import Sequence

    from compaction_guard.detectors.lexical.context import Context
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = [
    "aspect_label",
    "count_consequence",
    "emphatic_idiom",
    "is_adjunct",
    "name_gloss",
    "time_relation",
]

# Nouns that name a kind of quantity: a span of time, a recurrence, a threshold.
_MEASURE_NOUNS = frozenset(
    stem(word)
    for word in (
        "cycle",
        "period",
        "interval",
        "span",
        "duration",
        "timeframe",
        "window",
        "cadence",
        "threshold",
        "stretch",
    )
)
# Adverbs that put the rule's act first; "at first" (initially) frames the past instead.
_SEQUENCE = frozenset({"first", "beforehand", "upfront", "up-front"})
# Words that order what follows them after something else: ahead of a sequence adverb they
# place the rule's act second, so "first" no longer restates the rule's "before".
_LATER = frozenset({"then", "later", "afterwards", "afterward", "subsequently", "next", "after"})
_INCLUDE = frozenset({concept(stem("include")), concept(stem("contain"))})


def is_adjunct(ctx: Context, index: int) -> bool:
    """Tell whether the window's extra word at `index` only restates the rule."""
    if not _all_matched(ctx):
        return False
    if is_on("emphatic_idiom") and emphatic_idiom(ctx.win.tokens, index):
        return True  # "every single tenant": the idiom sits before the noun it quantifies
    if is_on("name_gloss") and name_gloss(ctx, index):
        return True  # "the Frankfurt region (eu-central-1)": the name fixes the words
    if is_on("count_consequence") and count_consequence(ctx, index):
        return True  # "no more than three retries before being parked in the DLQ"
    if _fastened(ctx, index):
        return False
    return (
        _measure_noun(ctx, index)
        or _sequence_adverb(ctx, index)
        or _inclusion(ctx, index)
        or (is_on("aspect_label") and aspect_label(ctx, index))
    )


def _all_matched(ctx: Context) -> bool:
    """Every content word of the rule has its place, generic nouns included.

    A bound said twice in the rule ("do not ... more than 2" reads a bound at "do not"
    and at "more than") has its place when the window says it once.
    """
    keys = ctx.part.analysis.keys
    said = {keys[i] for i in ctx.al.matches}
    return all(
        i in ctx.al.matches or (((key := keys[i]) or "").startswith("~") and key in said)
        for i in ctx.part.content
    )


def _fastened(ctx: Context, index: int) -> bool:
    """Tell whether the word sits right before a matched rule word of its clause (a modifier)."""
    after = index + 1
    win = ctx.win
    return (
        after < len(win.tokens)
        and win.clauses[after] == win.clauses[index]
        and after in ctx.al.matches.values()
    )


def _measure_noun(ctx: Context, index: int) -> bool:
    """Tell whether the word is a measure noun right after a rule value ("a 90-day cycle")."""
    if stem(ctx.win.tokens[index]) not in _MEASURE_NOUNS:
        return False
    part = ctx.part.analysis
    # The value keeps its relation in time: "within a 30-day window" is not "after 30 days".
    return any(
        found.end == index
        and any(
            values_equal(wanted, found)
            and wanted.dimension in {"time", "date"}
            and time_relation(part, wanted.start, wanted.end) is not None
            and time_relation(part, wanted.start, wanted.end)
            == time_relation(ctx.win, found.start, found.end)
            for wanted in part.values
        )
        for found in ctx.region_values
    )


def _sequence_adverb(ctx: Context, index: int) -> bool:
    """Tell whether the word is a sequence adverb ending its clause ("approved ... first")."""
    win = ctx.win
    if win.tokens[index] not in _SEQUENCE:
        return False
    if index > 0 and win.tokens[index - 1] == "at":
        return False  # "at first" is "initially": a framing in the past
    if any(token in _LATER for token in win.tokens[:index]):
        return False  # "refund, then get approval first": the approval comes second
    after = index + 1
    return after >= len(win.tokens) or win.clauses[after] != win.clauses[index]


def _inclusion(ctx: Context, index: int) -> bool:
    """Tell whether the word is "include" standing for the rule's "without"."""
    if ctx.win.keys[index] not in _INCLUDE:
        return False
    return "without" in ctx.part.analysis.tokens and "without" not in ctx.win.tokens


# Nouns that name an aspect of a thing (how fast, how long kept, in what form), not a thing:
# heading a phrase of the rule's own words they say which aspect the rule sets.
_ASPECTS = frozenset(
    stem(word)
    for word in (
        *("rate", "range", "format", "formatting", "retention", "residency"),
        *("frequency", "size", "quota", "usage", "timing", "schedule", "length"),
    )
)


def aspect_label(ctx: Context, index: int) -> bool:
    """Tell whether the word is an aspect noun in a clause of the rule's own words.

    "GitHub rate: call the API ...", "Retention for build artifacts is 90 days, after which
    they have to be deleted": every other word of its clause is a matched rule word, a
    function word or a part of a rule value. A word that is none of these ("burst",
    "target", "nightly") may narrow or soften the rule, so the noun is left extra.
    """
    win = ctx.win
    if stem(win.tokens[index]) not in _ASPECTS:
        return False
    clause = win.clauses[index]
    matched = set(ctx.al.matches.values()) | ctx.al.covered
    rule_values = {
        position
        for found in ctx.region_values
        if any(values_equal(wanted, found) for wanted in ctx.part.analysis.values)
        for position in range(found.start, found.end)
    }
    return all(
        at == index or at in matched or at in rule_values or win.tokens[at] in STOPWORDS
        for at, number in enumerate(win.clauses)
        if number == clause
    )


# Quantifiers and the word that only stresses them right after: "every single", "any given".
_STRESSED = frozenset({"every", "each", "any"})
_STRESS = frozenset({"single", "given", "one"})


def emphatic_idiom(tokens: Sequence[str], index: int) -> bool:
    """Tell whether the word only stresses the quantifier before it ("every single").

    "Every single tenant" is every tenant, "any given week" any week, "at any one time" at
    a time. Elsewhere the word says something ("single tenants", "a given region", "for
    one tenant"). "The one and only" is an "only" phrase of the modality lexicon.
    """
    return tokens[index] in _STRESS and index > 0 and tokens[index - 1] in _STRESSED


def name_gloss(ctx: Context, index: int) -> bool:
    """Tell whether the word is in a phrase glossing the rule's name that follows in parentheses.

    "Stored in the Frankfurt region (eu-central-1)": every word from this one to the end of
    its clause is a content word (no function, force or relation word between), and the next
    clause is one identifier of the rule, written in parentheses.
    """
    win = ctx.win
    clause = win.clauses[index]
    end = index
    while end < len(win.tokens) and win.clauses[end] == clause:
        if win.keys[end] is None or win.mark_at[end] >= 0:
            return False
        end += 1
    if end >= len(win.tokens):
        return False
    following = [i for i in range(end, len(win.tokens)) if win.clauses[i] == win.clauses[end]]
    if following != [end] or end not in ctx.al.matches.values():
        return False
    name = win.tokens[end]
    if not (win.keys[end] or "").startswith(ID):
        return False
    return re.search(rf"\(\s*{re.escape(name)}\s*\)", win.text, flags=re.IGNORECASE) is not None


def count_consequence(ctx: Context, index: int) -> bool:
    """Tell whether the word is in a "before being ..." step after a used-up count bound.

    "Failed uploads get no more than four retries before being moved to the error bucket":
    after an upper bound on a counted attempt, "before being <done>" says what happens once
    the attempts are used up. On a prohibition or a cap of money or time the same words
    set a condition ("never merged before being approved"), so only a count qualifies.
    """
    win, part = ctx.win, ctx.part
    if not part.classes[Modality.MAX] or part.classes[Modality.MIN]:
        return False
    counts = [
        found
        for found in ctx.region_values
        if found.dimension == "count"
        and any(values_equal(wanted, found) for wanted in part.analysis.values)
    ]
    clause = win.clauses[index]
    return any(
        tuple(win.tokens[at : at + 2]) == ("before", "being")
        and found.end <= at < index
        and all(win.clauses[i] == clause for i in range(found.end, index + 1))
        for found in counts
        for at in range(found.end, min(index, found.end + _CONSEQUENCE_REACH))
    )


_CONSEQUENCE_REACH = 3


# Words that set a value's relation in time: "after 30 days" is not "during 30 days",
# "every 90 days" is not "after 90 days".
_TIME_RELATIONS = frozenset(
    {"after", "before", "within", "during", "every", "each", "until", "since", "by", "in"}
)
_DETERMINERS = frozenset({"a", "an", "the", "one", "single"})
# "on a 90-day cycle" recurs as "every 90 days" does.
_RECURRING = frozenset(stem(word) for word in ("cycle", "cadence", "interval", "rotation"))


def time_relation(analysis: Analysis, start: int, end: int) -> str | None:
    """Return the word that sets the value at [start, end) in time ("after", "every")."""
    tokens = analysis.tokens
    at = start - 1
    while at >= 0 and tokens[at] in _DETERMINERS:
        at -= 1
    word = tokens[at] if at >= 0 else ""
    word = "every" if word == "each" else word
    recurring = end < len(tokens) and stem(tokens[end]) in _RECURRING
    if recurring and word in {"on", "at", "in", "every"}:
        return "every"
    return word if word in _TIME_RELATIONS else None
