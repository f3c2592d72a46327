"""What a leading label may say about the copy under it: a topic, or a scope.

"Git: never push directly to main" and "Rules: ..." name the topic or the house heading
the copy is filed under. "Staging: never push directly to main" may hold the rule to
staging, "Rate per user: ..." divides the cap among users, and "Weekends: ...", "EU: ...",
"Admins: ..." pick some cases ("user" alone is who set the rule: "Rule from the user:").
The tier cannot tell a label that files the copy from one that scopes it, so a label
word of these classes that the rule lacks keeps the copy from certifying (the verdict is
`unverifiable`); a topic name never does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compaction_guard.detectors.lexical.slot import TIME_WORDS
from compaction_guard.normalize import stem

if TYPE_CHECKING:
    from compaction_guard.detectors.lexical.align import Part
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = ["ENVIRONMENTS", "label_scope"]


def _words(text: str) -> frozenset[str]:
    # Whole words, not stems: "product" and "production" share a stem.
    return frozenset(text.split())


# Environments a rule may be held to: "Staging:", "Prod only:", "In dev:".
ENVIRONMENTS = _words(
    "staging stage prod production dev development sandbox preview canary uat preprod "
    "pre-prod qa beta demo",
)
# Kinds of people or accounts a rule may be held to: "Admins:", "EU customers:". Plurals
# only: "Customer support:", "Account security:" name a topic.
_POPULATIONS = _words(
    "customers clients accounts tenants admins administrators contractors employees members "
    "partners vendors guests visitors interns minors students patients subscribers",
)
# Times of day or week a rule may be held to, beside the weekday words: "Nights:".
_TIMES = _words("night nights overnight evenings mornings holidays after-hours")
# Weekday abbreviations, read as words or hyphen pieces ("Mon-Fri:").
_TIMES |= _words("mon tue tues wed thu thur thurs fri sat sun")
# Words that divide what follows them in a label: "Rate per user:", "Each tenant:".
_DIVIDERS = frozenset({"per", "each"})
_DETERMINERS = frozenset({"the", "a", "an"})
# Value dimensions of a label that pick cases: a region, a set of days, a time of day.
_SCOPING_VALUES = frozenset({"region", "dayset", "clock", "clock-range"})


def _kind_of_users(tokens: tuple[str, ...], index: int) -> bool:
    """Tell whether "users" follows a word that picks a kind of them ("Free-tier users:").

    "users" alone, or after a determiner ("Rule from the user:"), is who set the rule.
    """
    if tokens[index] not in {"user", "users"} or index == 0:
        return False
    before = tokens[index - 1]
    return before.replace("-", "").isalpha() and before not in _NOT_A_KIND


_NOT_A_KIND = frozenset({"the", "a", "an", "our", "my", "your", "their", "this", "from", "by"})
_NOT_A_KIND |= frozenset({"per", "each", "all", "every", "any", "for", "to", "of", "and", "or"})


def label_scope(part: Part, win: Analysis, width: int) -> str | None:
    """Name a word of the window's leading label (its first `width` tokens) that may scope it.

    Only words the rule lacks count: "Staging:" over a rule about staging names the topic.
    """
    own = frozenset(part.stems)
    tokens = win.tokens[: min(width, len(win.tokens))]

    def foreign(index: int) -> bool:
        key = win.keys[index]
        return stem(win.tokens[index]) not in own and (key is None or key not in part.family)

    for index, token in enumerate(tokens):
        pieces = token.split("-")
        named = any(p in ENVIRONMENTS or p in _POPULATIONS or p in _TIMES for p in pieces)
        if (named or token in TIME_WORDS or _kind_of_users(tokens, index)) and foreign(index):
            return f"the label's {token!r} may scope the copy"
        if len(pieces) == 2 and pieces[0] in _DIVIDERS and foreign(index):  # noqa: PLR2004
            return f"the label's {token!r} may scope the copy"  # "Per-user rate:"
        # "per" or "each" before a bare word the rule lacks ("per" may be the rule's own:
        # "per minute"); "per the user:" says who asked.
        following = index + 1
        if (
            token in _DIVIDERS
            and following < len(tokens)
            and tokens[following].isalpha()
            and tokens[following] not in _DETERMINERS
            and foreign(following)
        ):
            return f"the label's {token!r} {tokens[following]!r} may scope the copy"
    for value in win.values:
        scoping = value.start < len(tokens) and value.dimension in _SCOPING_VALUES
        if scoping and not any(v.dimension == value.dimension for v in part.analysis.values):
            return f"the label's {value.surface!r} may scope the copy"
    return None
