"""Which noun each modifier of the rule modifies: "signed builds in the public registry".

The alignment matches words, so "public builds in the signed registry" matches every word
of "signed builds in the public registry" and says another rule: each adjective moved to
the other noun. A modifier is read as fastened to the noun that closes its run of content
words ("signed builds", "production database backups"); a restatement keeps each modifier
fastened to its own noun, whatever order the noun phrases come in ("in the public
registry, keep signed builds").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from compaction_guard.detectors.lexical.lexicon import LIGHT_NOUNS
from compaction_guard.detectors.lexical.memo import IdentityMemo
from compaction_guard.normalize import stem

if TYPE_CHECKING:
    from compaction_guard.detectors.lexical.align import Part
    from compaction_guard.detectors.lexical.context import Context
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = ["modifiers_moved"]


def modifiers_moved(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a rule modifier the window fastens to another of the rule's nouns.

    "Public builds" for "signed builds ... public registry": "public" modifies the rule's
    "registry", and in the window it stands right before the rule's "builds", a noun the
    rule gives other modifiers or none, while "registry" is there and nowhere with it. A
    run that holds the modifier's own noun as well ("production database backups" for
    "backups of the production database") still fastens it there; so may a word between
    ("Canadian customers' data": "Canadian" modifies the customers). A modifier whose own
    noun the window does not say ("Stripe calls" for "the Stripe API") moved nowhere, and
    one standing alone ("builds that are signed") is not read. Words are compared by key,
    so a rule that says one word twice ("shared branches ... feature branches") is read
    whole.
    """
    win = ctx.win
    rule = _IN_RULES.get(ctx.part, _rule_runs)
    own, heads, rule_pairs = rule.own, rule.heads, rule.pairs
    region = ctx.al.region
    runs = [run for run in ctx.facts.once(_runs) if win.clauses[run[0]] in region]
    # What the window says and pairs is worked out on the first modifier that may have
    # moved: in a copy every modifier stands before its own noun, and none is asked.
    found: set[tuple[str, str]] | None = None
    said: set[str] | None = None
    for run in runs:
        for position in run[:-1]:
            key, closer = _key(win, position), _key(win, position + 1)
            nouns = own.get(key)
            if not nouns or closer not in heads or (key, closer) in rule_pairs:
                continue
            if said is None:
                said = {_key(win, p) for each in runs for p in each}
            if nouns & {_key(win, p) for p in run} or not nouns & said:
                continue  # its own noun in the run, or not in the window: nothing moved
            if found is None:
                found = _pairs(win, runs)
            if not any((key, noun) in found for noun in nouns):
                noun = win.tokens[position + 1]
                return f"{win.tokens[position]!r} modifies {noun!r}, not the rule's noun"
    return None


@dataclass(frozen=True, slots=True)
class _InRule:
    """The rule's modifiers with the nouns they modify, worked out once per part."""

    own: dict[str, set[str]]  # each modifier's key -> the keys of the nouns it closes on
    heads: set[str]  # the keys of the nouns that close a run
    pairs: set[tuple[str, str]]  # (modifier, noun) keys of the rule (`_pairs`)


def _rule_runs(part: Part) -> _InRule:
    analysis = part.analysis
    runs = _runs(analysis)
    own: dict[str, set[str]] = {}
    heads: set[str] = set()
    for run in runs:
        heads.add(_key(analysis, run[-1]))
        for index in run[:-1]:
            own.setdefault(_key(analysis, index), set()).add(_key(analysis, run[-1]))
    return _InRule(own, heads, _pairs(analysis, runs))


_IN_RULES: IdentityMemo[Part, _InRule] = IdentityMemo(4096)


def _key(analysis: Analysis, index: int) -> str:
    """Return a content word's key; a light noun keys by its word."""
    key = analysis.keys[index]
    return key if key is not None else "light:" + stem(analysis.tokens[index])


def _pairs(analysis: Analysis, runs: list[tuple[int, ...]]) -> set[tuple[str, str]]:
    """Return (modifier, noun) keys: each word of a run with the next and with the last."""
    pairs = {(_key(analysis, i), _key(analysis, run[-1])) for run in runs for i in run[:-1]}
    return pairs | {(_key(analysis, i), _key(analysis, i + 1)) for run in runs for i in run[:-1]}


def _runs(analysis: Analysis) -> list[tuple[int, ...]]:
    """Return the runs of adjacent content words in one clause; the last closes each run.

    A content word with none beside it is a run of its own; a light noun closes a run as
    a content word does ("the security team").

    A bound word ("under") keys as `~bound` and a value or function word as nothing, so
    each ends a run: "keep signed builds in the public registry" has the runs "signed
    builds" and "public registry".
    """
    runs: list[tuple[int, ...]] = []
    current: list[int] = []
    keys, clauses, tokens = analysis.keys, analysis.clauses, analysis.tokens
    for index, key in enumerate(keys):
        content = (key is not None and not key.startswith("~")) or (
            key is None and analysis.mark_at[index] < 0 and stem(tokens[index]) in LIGHT_NOUNS
        )
        if content and current and clauses[current[-1]] == clauses[index]:
            current.append(index)
            continue
        if current:
            runs.append(tuple(current))
        current = [index] if content else []
    if current:
        runs.append(tuple(current))
    return runs
