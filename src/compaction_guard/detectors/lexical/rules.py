"""The lexical rules for one constraint part against one window of sentences.

`evaluate` runs the damage rules first (lifted, polarity, anchor_diff, hedge,
modality_loss), then the certifying rules (verbatim, near_verbatim, paraphrase), then
the absence rules. Every rule returns a Reading with the evidence that decided it.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from compaction_guard.anchors import are_siblings, comparable, is_identifier, values_equal
from compaction_guard.detectors.lexical.adjunct import is_adjunct, time_relation
from compaction_guard.detectors.lexical.align import align, constraint_analysis
from compaction_guard.detectors.lexical.context import (
    MAX_GAP,
    STRONG_COVERAGE,
    TOPIC_COVERAGE,
    Context,
    Copy,
    Reading,
    Window,
    build_context,
    extra_values,
    has_sibling,
    is_name,
    missing_values,
    names_core,
    names_in,
)
from compaction_guard.detectors.lexical.damage import (
    hedge,
    lifted,
    modality_loss,
    negations_dropped,
    polarity,
    unsure_extension,
)
from compaction_guard.detectors.lexical.label import label_scope
from compaction_guard.detectors.lexical.lexicon import (
    GENERIC,
    LIGHT_NOUNS,
    MOTION,
    PHRASES,
    RELATIONS,
    REPORTING,
    STOPWORDS,
    concept,
)
from compaction_guard.detectors.lexical.memo import IdentityMemo
from compaction_guard.detectors.lexical.modality import NEGATIVE, Modality
from compaction_guard.detectors.lexical.modifiers import modifiers_moved
from compaction_guard.detectors.lexical.mutation import (
    anchor_diff,
    changed_identifier,
    distributed_rate,
    rated_period,
)
from compaction_guard.detectors.lexical.restate import pieces
from compaction_guard.detectors.lexical.roles import roles_exchanged
from compaction_guard.detectors.lexical.switches import is_on
from compaction_guard.detectors.lexical.text import BOUND, ID, canonical, force_marks, token_key
from compaction_guard.detectors.lexical.world import CHANGE_VERBS
from compaction_guard.normalize import stem, tokenize
from compaction_guard.taxonomy import Kind, Site

if TYPE_CHECKING:
    from collections.abc import Sequence

    from compaction_guard.anchors import Value
    from compaction_guard.detectors.lexical.align import Alignment, Part
    from compaction_guard.detectors.lexical.context import Sentences
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = [
    "STRONG_COVERAGE",
    "Reading",
    "Window",
    "Words",
    "could_trace",
    "evaluate",
    "switched_off_now",
    "words_of",
]

_Rule = TypeVar("_Rule", bound=Callable[..., object])

_M = Modality
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


def evaluate(part: Part, window: Window) -> Reading | None:
    """Return what `window` says about `part`, or None when it carries no trace of it."""
    known = _known_window(part, window)
    al = align(part, window.analysis, window.facts) if known is None else known.al
    if not _is_trace(part, al, window.facts):
        return None
    ctx = build_context(part, window, al, known)
    if known is None:
        return _decide(ctx)
    if known.reading is not None and not ctx.afterthoughts:
        return known.reading.moved(window)
    reading = _decide(ctx)
    settled = reading is not None and reading.settled
    if known.reading is None and settled and not ctx.afterthoughts:
        known.reading = reading
    return reading


def _known_window(part: Part, window: Window) -> Copy | None:
    """Return what the part reads in a window that is a constraint's sentence, or None.

    Such a window's analysis equals that constraint part's (`align.constraint_analysis`):
    the part's own sentence, or a sibling rule's ("The budget cap for svc_13 is $900."
    for svc_03's cap). What the part reads there is kept per part and constraint sentence
    (`context.Copy`), for the switches that are off (the ablation test turns them).
    """
    win = window.analysis
    known = constraint_analysis(win.text)
    if known is None:
        return None
    if known is not win and known is not window.facts.equals:
        # Compared field by field once per window, not once per part reading it.
        if known != win:
            return None
        window.facts.equals = known
    off = window.switched_off
    copies = _COPIES.get(part, _no_copies, tag=switched_off_now() if off is None else off)
    found = copies.get(id(known))
    if found is None or found.analysis is not known:
        found = copies[id(known)] = Copy(known, align(part, win, window.facts))
    return found


def _no_copies(_part: Part) -> dict[int, Copy]:
    return {}


# Per part: the windows that are constraint sentences, by the id of that analysis.
_COPIES: IdentityMemo[Part, dict[int, Copy]] = IdentityMemo(4096)


def switched_off_now() -> tuple[str, ...]:
    """Return the catalogued rules that are switched off (`switches.switched_off`)."""
    names = _rule_names()
    if all(map(is_on, names)):
        return ()
    return tuple(name for name in names if not is_on(name))


@functools.cache
def _rule_names() -> tuple[str, ...]:
    """Return the names of the catalogued rules, read once (the catalogue imports this module)."""
    catalogue = importlib.import_module("compaction_guard.detectors.lexical.catalogue")
    return tuple(rule.name for rule in catalogue.RULES)


def _decide(ctx: Context) -> Reading | None:
    """Run the rules in their order (see the module docstring) on a trace of the part."""
    if ctx.al.coverage < TOPIC_COVERAGE and not ctx.topical:
        # A weak trace: only an edited name can be stated damage (every other rule needs
        # the topic); otherwise it just keeps the constraint from being called dropped.
        return changed_identifier(ctx) or _absence(ctx)
    for rule, name in _DAMAGE_RULES:
        reading = rule(ctx) if is_on(name) else None
        if reading is not None:
            return reading
    unsure = unsure_extension(ctx) if is_on("polarity") else None
    if unsure is not None:
        return unsure
    for certify, name in _CERTIFYING_RULES:
        reading = certify(ctx) if is_on(name) else None
        if reading is not None:
            return reading
    return (_narrowed(ctx) if is_on("narrowed") else None) or _absence(ctx)


def _is_trace(part: Part, al: Alignment, window: Sentences) -> bool:
    if not al.matches:
        return False
    if al.matched_keys >= min(2, part.key_count) or al.coverage >= TOPIC_COVERAGE:
        return True
    if not part.named.isdisjoint(al.matches):  # a matched identifier (keyed `id:`)
        return True
    return has_sibling(part, al, window)


@dataclass(slots=True)
class Words:
    """What the tokens of a sentence tell before it is analysed (`could_trace`)."""

    tokens: tuple[str, ...]
    keys: frozenset[str | None]  # the content key of each token as written (`token_key`)
    names: tuple[tuple[int, str], ...]  # its names, as `Sentences.names` has them
    hyphenated: bool  # a token has a hyphen: its pieces may carry keys (`Analysis.compounds`)
    bounded: bool | None = None  # `bound`, once read

    def bound(self) -> bool:
        """Tell whether the tokens hold a bound phrase, the one place of the `~bound` key.

        The analysis puts that key on the first word of each bound mark; its marks are
        those of `text.force_marks` recast by frames to hedges or absorbed marks only
        (`frame.reframe`), so a sentence without a bound there has none.
        """
        if self.bounded is None:
            marks = force_marks(list(self.tokens))
            self.bounded = any(m.modality in (_M.MAX, _M.MIN) for m in marks)
        return self.bounded


def words_of(tokens: tuple[str, ...]) -> Words:
    """Read a sentence's tokens for `could_trace`."""
    return Words(
        tokens,
        frozenset(map(token_key, tokens)),
        names_in(tokens),
        any("-" in t for t in tokens),
    )


# The keys an analysis gives a token other than its own (`text.analyse`): a multi-word
# synonym's key on its first word (`lexicon.PHRASES`), or `~bound` on a bound mark.
_PHRASE_KEYS = frozenset(PHRASES.values())


def could_trace(part: Part, words: Words) -> bool:
    """Tell whether a sentence may be a trace of `part`, from its tokens alone.

    False only where `evaluate` finds no trace, so the sentence need not be analysed for
    this part. An analysis keys each token with its own key (`text.token_key`), none, a
    multi-word synonym's key, or `~bound` on a bound mark (`Words.bound`), so the part's
    words an alignment can match are among those whose key one of these may be. Each
    test of `_is_trace` asks more of those words than this does (its sibling test, of
    fewer names). A part with verbs of an act (matched by other verbs) is rejected only
    when no word at all may match; a part whose words may sit in a window other than as
    their keys (`Part.indirect`) and a hyphenated sentence (whose pieces carry keys of
    their own: "cost-center" says "cost") are never rejected.
    """
    if part.indirect or words.hyphenated:
        return True  # words found other ways (`align._found`)
    keys = part.analysis.keys
    found = [i for i, key in part.keyed if key in words.keys or key in _PHRASE_KEYS]
    pseudo = [i for i, key in part.keyed if key.startswith("~")]
    if any(keys[i] != BOUND for i in pseudo):
        return True  # a pseudo key this does not know where an analysis puts
    if pseudo and words.bound():
        found += pseudo
    if not found:
        return False
    if part.acts or not part.named.isdisjoint(found):
        return True
    tokens = part.analysis.tokens
    return (
        len({keys[i] for i in found}) >= min(2, part.key_count)
        or sum(part.weight_at[i] for i in found) / part.total >= TOPIC_COVERAGE
        or any(are_siblings(tokens[i], name) for i in part.names for _, name in words.names)
    )


def _verbatim(ctx: Context) -> Reading | None:
    """Certify a contiguous copy of the part with nothing around it that changes it."""
    wanted = ctx.part.analysis.tokens
    tokens = ctx.win.tokens
    width = len(wanted)
    for start in range(len(tokens) - width + 1):
        if tokens[start] == wanted[0] and tokens[start : start + width] == wanted:
            if _clean_copy(ctx, (start, start + width)) is None:
                return _certified(ctx, Kind.PRESERVED, "verbatim", (start, start + width))
            return None
    return None


def _clean_copy(ctx: Context, span: tuple[int, int]) -> str | None:
    """Return why a copy of the part at `span` cannot certify it (`_clean`).

    In a constraint's sentence (`Context.copy`) the checks read an analysis and an
    alignment that are the same in every view, and so is their answer: kept there.
    """
    copy = ctx.copy
    if copy is None:
        return _clean(ctx, span)
    if not copy.checked:
        copy.why, copy.checked = _clean(ctx, span), True
    return copy.why


def _near_verbatim(ctx: Context) -> Reading | None:
    """Certify every significant token in order and whole; only function words differ.

    Contractions are expanded and each value is compared by meaning, so `don't` reads
    `do not` and `$1200` reads `$1,200`; any other change of a word fails.
    """
    rule = _words_of(ctx.part)
    wanted = rule.significant
    if not wanted or not _names_held(ctx, rule.names):
        return None
    found = canonical(ctx.win)
    words = ctx.facts.canonical_words
    for start in ctx.facts.canonical_starts.get(wanted[0], ()):
        stop = _subsequence(words, wanted, start)
        if stop is not None:
            span = (found[start][1], found[stop - 1][2])
            if _clean(ctx, span) is None:
                return _certified(ctx, Kind.PRESERVED, "near_verbatim", span)
            return None
    return None


def _significant(word: str) -> bool:
    return word not in STOPWORDS or word in RELATIONS


def _subsequence(words: list[str], wanted: list[str], start: int) -> int | None:
    """Return the end of `wanted` matched from `start` with at most MAX_GAP function words."""
    position = start
    extra = 0
    for word in wanted[1:]:
        position += 1
        while position < len(words) and words[position] != word:
            if _significant(words[position]):
                return None
            extra += 1
            position += 1
        if position >= len(words) or extra > MAX_GAP:
            return None
    return position + 1


def _paraphrase(ctx: Context) -> Reading | None:
    """All content, values, identifiers and modality in one window, in other words."""
    if not ctx.al.complete or not ctx.topical:
        return None
    if ctx.lost or not _order_kept(ctx) or _clean(ctx, None) is not None:
        return None
    # The restatement spans its matched words, its values, its adjuncts and its force
    # words: what follows them is read as appended to the copy.
    adjuncts = _adjuncts(ctx)
    starts = [*ctx.al.matches.values(), *(v.start for v in ctx.region_values), *adjuncts]
    # Covered words count too: a medium read with the act ("appear in output").
    ends = [p + 1 for p in [*ctx.al.matches.values(), *adjuncts, *ctx.al.covered]]
    ends += [v.end for v in ctx.region_values]
    region = set(ctx.al.region)
    marks = [m for m in ctx.win.marks if ctx.win.clauses[m.start] in region]
    starts += [m.start for m in marks]
    ends += [m.end for m in marks]
    return _certified(ctx, Kind.PARAPHRASED, "paraphrase", (min(starts), _own_tail(ctx, max(ends))))


def _own_tail(ctx: Context, stop: int) -> int:
    """Extend a restatement over the rule's own unkeyed words that close it.

    "... through the billing team": "team" is a light word, matched to nothing, yet the
    rule's; what is appended after it ("or the support team") must be read as appended.
    """
    win, own = ctx.win, set(ctx.part.analysis.tokens)
    tokens = win.tokens
    while (
        0 < stop < len(tokens)
        and tokens[stop] in own
        and tokens[stop] not in RELATIONS
        and win.clauses[stop] == win.clauses[stop - 1]
    ):
        stop += 1
    return stop


def _certified(ctx: Context, kind: Kind, rule: str, span: tuple[int, int]) -> Reading:
    values = [v.surface for v in ctx.part.analysis.values]
    ids = [t for t in ctx.part.analysis.tokens if is_name(t)]
    evidence = {"anchors": {"values": values, "identifiers": ids}}
    return ctx.reading(kind, rule, strong=True, evidence=evidence, span=span)


def _clean(ctx: Context, span: tuple[int, int] | None) -> str | None:
    """Return why the window cannot certify the part, or None when it can."""
    for check, name in _CLEAN_CHECKS:
        why = check(ctx, span) if is_on(name) else None
        if why is not None:
            return why
    return None


def _switched(*rules: _Rule) -> tuple[tuple[_Rule, str], ...]:
    """Pair each rule with its switch name (`switches.is_on`), worked out once."""
    return tuple((rule, rule.__name__.lstrip("_")) for rule in rules)


def _force_differs(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    if ctx.w_parity != ctx.part.parity:
        return "polarity differs"
    if ctx.relation_swaps or ctx.act_swaps:
        return "opposite words"  # a reworded rule with swapped opposites is never certified
    # `Counter.get` reads a missing force as None, without a `__missing__` call for its 0.
    part, w = ctx.part.classes.get, ctx.w_classes.get
    for modality in _BLOCKERS:
        added = w(modality, 0) > part(modality, 0)
        if added and not _bounded_permission(ctx, modality):
            return f"{modality.value} added"
    if not (part(_M.MAX) or part(_M.MIN)) and (w(_M.MAX) or w(_M.MIN)):
        return "a bound added"  # "after 3 failures" is not "after more than 3 failures"
    return None


def _values_differ(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    extra = [v for v in extra_values(ctx) if not _progress_reading(ctx, v)]
    return "values differ" if missing_values(ctx) or extra else None


def _progress_reading(ctx: Context, value: Value) -> bool:
    """Tell whether an extra value reports a level reached inside the rule's bound.

    "Under $900 for this sprint (currently at $412.50)": in a clause of its own with no rule
    word and no force word, "currently at" or "so far" reads where the bounded quantity
    stands. The value must lie inside the bound (a reading past it is a violation or a
    raised cap), and a bare "(currently $600)" or "now" may state a new cap, so neither counts.
    """
    if not is_on("progress_reading") or not _reads_a_level(ctx, value):
        return False
    part = ctx.part
    bounds = [
        v for v in part.analysis.values if (v.dimension, v.unit) == (value.dimension, value.unit)
    ]
    if len(bounds) != 1 or value.per != bounds[0].per:
        return False
    if any(
        v is not value and v.dimension == value.dimension and not values_equal(v, bounds[0])
        for v in ctx.win.values
    ):
        return False  # "(currently at $412, lowered to $600)": another reading of the slot
    upper, lower = part.classes[_M.MAX], part.classes[_M.MIN]
    inside = (upper and not lower and value.amount < bounds[0].amount) or (
        lower and not upper and value.amount > bounds[0].amount
    )
    return bool(inside)


def _reads_a_level(ctx: Context, value: Value) -> bool:
    """Tell whether the value's clause is a bare progress reading ("currently at $412")."""
    win = ctx.win
    clause = win.clauses[value.start]
    members = [i for i, c in enumerate(win.clauses) if c == clause]
    words = [win.tokens[i] for i in members]
    if not set(itertools.pairwise(words)) & _PROGRESS or "now" in words:
        return False
    matched = set(ctx.al.matches.values())
    return not any(win.mark_at[i] >= 0 or i in matched for i in members)


# Pairs that read a level reached: "currently at $412", "used so far", "spent to date".
_PROGRESS = frozenset({("currently", "at"), ("so", "far"), ("to", "date")})


def _unit_dropped(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a value whose unit or currency was dropped ("500" for "$500")."""
    for value in ctx.part.analysis.values:
        found = [f for f in ctx.region_values if values_equal(value, f)]
        if value.kind != "number" and found and all(f.kind == "number" for f in found):
            return f"the unit of {value.surface} was dropped"
    return None


_TIME_DIMENSIONS = frozenset({"time", "date"})


def _relation_changed(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a value whose relation word in time was replaced ("during" for "after").

    Only a stated other relation counts: a value the window gives without one ("30 days
    old") is left to the other checks.
    """
    part = ctx.part.analysis
    for value in part.values:
        if value.dimension not in _TIME_DIMENSIONS:
            continue
        said = time_relation(part, value.start, value.end)
        if said is None:
            continue
        for found in ctx.region_values:
            if not values_equal(value, found):
                continue
            seen = time_relation(ctx.win, found.start, found.end)
            if seen is not None and seen != said:
                return f"{seen!r} for {said!r} before {value.surface}"
    return None


def _slots_swapped(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Values and names keep their slots: "below 0.1% ... 5%" is not "5% ... below 0.1%".

    Two values of one dimension (or two identifiers) that come in the other order
    certify only when each keeps the word before it.
    """
    part = ctx.part.analysis
    pairs: list[tuple[int, int, str]] = []
    for value in part.values:
        found = [f for f in ctx.region_values if values_equal(value, f)]
        if len(found) == 1:
            pairs.append((value.start, found[0].start, f"{value.kind}:{value.dimension}"))
    pairs += [(i, p, "id") for i, p in ctx.al.matches.items() if is_identifier(part.tokens[i])]
    pairs.sort()
    for (a, wa, ka), (b, wb, kb) in itertools.combinations(pairs, 2):
        if wa < wb or ka != kb:
            continue
        own = _before(part.tokens, a) == _before(ctx.win.tokens, wa) and _before(
            part.tokens, b
        ) == _before(ctx.win.tokens, wb)
        if not own or _before(part.tokens, a) == _before(part.tokens, b):
            return f"{part.tokens[a]!r} and {part.tokens[b]!r} changed places"
    return None


def _before(tokens: tuple[str, ...], index: int) -> str:
    return tokens[index - 1] if index > 0 else ""


def _scope_moved(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a word moved into or out of a contrast ("kilometres, not miles")."""
    part, win = ctx.part.analysis, ctx.win
    if not _contrasts(part):
        return None
    into = out = False
    for index, position in ctx.al.matches.items():
        before, after = _contrasted(part, index), _contrasted(win, position)
        into = into or (after and not before)
        out = out or (before and not after)
    return "a word moved across a contrast" if into and out else None


def _contrasts(analysis: Analysis) -> list[int]:
    """Return the clauses a negation opens after another clause: ", not Y", ", never in B"."""
    opened = []
    for mark in analysis.marks:
        clause = analysis.clauses[mark.start]
        first = analysis.clauses.index(clause)
        if mark.modality in NEGATIVE and first == mark.start and clause != analysis.clauses[0]:
            opened.append(clause)
    return opened


def _contrasted(analysis: Analysis, index: int) -> bool:
    return analysis.clauses[index] in _contrasts(analysis)


_NEGATING_PREFIXES = frozenset({"non", "un", "anti", "not", "no", "in", "dis"})


def _prefix_negated(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a negating prefix the rule's word does not have ("non-Canadian")."""
    words = frozenset(ctx.part.stems)
    keys = _words_of(ctx.part).keys  # its content keys, counted
    for index in ctx.region_tokens:
        token = ctx.win.tokens[index]
        head, _, rest = token.partition("-")
        # The rest may be the rule's word in another form ("non-administrative", "admin").
        pieces = [rest, *rest.split("-")] if rest else []
        prefixed = head in _NEGATING_PREFIXES and any(
            stem(piece) in words or token_key(piece) in keys for piece in pieces
        )
        if prefixed and token not in ctx.part.analysis.tokens:
            return f"negating prefix in {token!r}"
    return None


# SQL statements share a synonym group with plain verbs, but DELETE is not DROP.
_SQL = frozenset({"select", "insert", "update", "delete", "drop", "truncate", "alter", "create"})


def _keyword_swapped(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """One SQL statement aligned with another ("DROP" for "DELETE") is a different act."""
    part, win = ctx.part.analysis, ctx.win
    for index, position in ctx.al.matches.items():
        said, found = part.tokens[index], win.tokens[position]
        if said in _SQL and found in _SQL and said != found:
            return f"{found!r} for {said!r}"
    return None


# Forms of "go": said of a message it places it ("notices go to #deploys"), said of a
# person it moves them ("Go to #deploys for notices", "we go to #deploys").
_GO = frozenset({"go", "goes", "went", "gone", "going"})
_WAY = frozenset({"through", "via"})  # "go through the support team": the rule's way


def _reader_motion(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a "go" read as the rule's act of placing something with no rule word as its subject.

    "Deploy notices go to #deploys" restates "post deploy notices in #deploys": the
    notices go there. "Go to #deploys for deploy notices" (an imperative) or "engineers
    go to #deploys" move someone to the channel, to read what is there: another act. The
    nearest content word before the verb in its clause must be aligned to the rule.
    """
    part, win = ctx.part.analysis, ctx.win
    aligned = set(ctx.al.matches.values())
    for index, position in ctx.al.matches.items():
        if win.tokens[position] not in _GO or part.tokens[index] in _GO:
            continue
        after = position + 1
        if after < len(win.tokens) and win.tokens[after] in _WAY:
            continue
        subject = next(
            (
                before
                for before in range(position - 1, -1, -1)
                if win.clauses[before] != win.clauses[position] or win.keys[before] is not None
            ),
            None,
        )
        if subject is None or win.clauses[subject] != win.clauses[position]:
            return f"{win.tokens[position]!r} has no subject: someone goes there"
        if subject not in aligned:
            return f"{win.tokens[subject]!r} goes there, not the rule's object"
    return None


def _compound_pieces(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a hyphenated word that stands for a rule word it holds but says more.

    A rule word matched to a piece of a compound ("orders" in "orders-database") is said
    only when every other piece with content is the rule's word next to it, in order
    ("smoke-tested" for "smoke tests") or turned around a relation word ("AGPL-licensed"
    for "licensed under AGPL"); a closing generic noun only says what kind of thing the
    rest names ("TRACE-level"), and a negating prefix is `_prefix_negated`'s. A piece the
    rule lacks ("legacy-orders", "user-data")
    names a kind of the thing, and a rule word from elsewhere in the rule ("night-orders
    database" for "the orders database every night", "rest-customer data" for "customer
    data at rest") is pulled into another name.
    """
    part, win = ctx.part.analysis, ctx.win
    for index, position in ctx.al.matches.items():
        token = win.tokens[position]
        if "-" not in token or win.keys[position] == part.keys[index]:
            continue
        found = [piece for piece in pieces(token)[1:] if piece not in _NEGATING_PREFIXES]
        keyed = [key for piece in found if (key := _piece_key(piece)) is not None]
        if keyed and keyed[-1] in GENERIC and keyed[-1] not in part.keys:
            keyed.pop()  # "TRACE-level": a generic head says what kind of thing the name is
        if any(key not in part.keys for key in keyed):
            return f"{token!r}: a piece the rule lacks"
        if any(not _neighbours(part, a, b) for a, b in itertools.pairwise(keyed)):
            return f"{token!r} joins rule words the rule keeps apart"
    return None


def _piece_key(piece: str) -> str | None:
    """Return the key of a piece of a compound; a light noun ("user", "team") keys too."""
    key = token_key(piece)
    if key is None and stem(piece) in LIGHT_NOUNS:
        return concept(stem(piece))
    return key


def _neighbours(part: Analysis, first: str, second: str) -> bool:
    """Tell whether two keys sit next to each other in the rule, as a compound may say them.

    Next to each other in order with only function words between ("smoke tests"), or the
    other way round across a relation word ("licensed under AGPL": "AGPL-licensed").
    """
    keys, tokens = part.keys, part.tokens
    for a, key in enumerate(keys):
        if key != first:
            continue
        for b in (b for b, other in enumerate(keys) if other == second and b != a):
            low, high = min(a, b), max(a, b)
            if any(keys[i] is not None for i in range(low + 1, high)):
                continue
            if a < b or any(tokens[i] in RELATIONS for i in range(low + 1, high)):
                return True
    return False


def _repeated_modifier(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a rule word said once more, fastened to a rule noun the rule leaves bare.

    "EU data must not leave the EU" for "Data must not leave the EU": the rule's place
    said again before its subject picks a kind of data (only data from the EU is kept
    in), as "Store eu-west-1 data only in eu-west-1" does, and so does a phrase after the
    noun ("data from the EU", "data of EU users"); whichever of the two the alignment
    took, one is extra. A word the rule has as often, or has fastened to that same noun
    ("customer data", "data of customers"), is the rule's own.
    """
    part, win = ctx.part.analysis, ctx.win
    said = _words_of(ctx.part).keys
    region = ctx.region_tokens
    found = ctx.facts.region(ctx.al.region).keys
    nouns = {position: index for index, position in ctx.al.matches.items()}
    for position in region:
        key = win.keys[position]
        if key is None or found[key] <= said[key] or not said[key]:
            continue
        beside = win.keys[max(0, position - 1) : position + 2]
        if list(beside).count(key) > 1:
            continue  # "live production database": two words of one key are one phrase
        fastened = _fastened_to(ctx, position, position + 1, nouns)
        before = fastened is not None and position < fastened
        if fastened is not None and not _rule_fastens(
            part, nouns[fastened], before=before, key=key
        ):
            return f"{win.tokens[position]!r} said again beside a rule noun"
    # A value of the rule said again the same way ("EU data ... the EU": a region value).
    values = [v for v in win.values if win.clauses[v.start] in ctx.al.region]
    for value in values:
        own = [v for v in part.values if values_equal(v, value)]
        if not own or sum(1 for v in values if values_equal(v, value)) <= len(own):
            continue
        fastened = _fastened_to(ctx, value.start, value.end, nouns)
        if fastened is None:
            continue
        before = value.start < fastened
        index = nouns[fastened]
        if not any((v.end == index) if before else _after_noun(part, index, v.start) for v in own):
            return f"{value.surface!r} said again beside a rule noun"
    return None


def _fastened_to(ctx: Context, start: int, end: int, nouns: dict[int, int]) -> int | None:
    """Return the matched rule noun a word or value at [start, end) is fastened to.

    Right before it ("EU data"), or in a phrase right after it opened by a relation
    word ("data from the EU", "data of EU users").
    """
    if _rule_word_beside(ctx, start, end) and end in nouns:
        return end
    at = start - 1
    while at > 0 and ctx.win.tokens[at] in _DETERMINERS:
        at -= 1
    if at > 0 and ctx.win.tokens[at] in _POSTMODIFIERS and start - at <= 2:  # noqa: PLR2004
        noun = at - 1
        if noun in nouns and _rule_word_beside(ctx, start, noun):
            return noun
    return None


def _rule_fastens(part: Analysis, noun: int, *, before: bool, key: str) -> bool:
    """Tell whether the rule has `key` fastened to its noun (at `noun`) on that side itself."""
    if before:
        return noun > 0 and part.keys[noun - 1] == key
    ahead = [j for j in range(noun + 2, min(noun + 4, len(part.keys))) if part.keys[j] == key]
    return bool(ahead) and _after_noun(part, noun, ahead[0])


def _after_noun(part: Analysis, noun: int, start: int) -> bool:
    """Tell whether a rule word or value at `start` stands in a phrase right after its noun."""
    if noun + 1 >= len(part.tokens) or part.tokens[noun + 1] not in _POSTMODIFIERS:
        return False
    return 0 < start - noun <= 3  # noqa: PLR2004


_POSTMODIFIERS = frozenset({"from", "of", "in", "for", "by", "about"})
_DETERMINERS = frozenset({"the", "a", "an", "our", "their", "its"})


def _extra_identifier(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name an identifier in the rule's sentence that the rule does not have ("or /tmp")."""
    own = set(ctx.part.analysis.tokens)
    matched = sorted(ctx.al.matches.values())
    if not matched:
        return None
    positions = set(matched)
    for index in range(matched[0], matched[-1] + 1):
        token = ctx.win.tokens[index]
        if token.endswith("'s") and index in positions and index + 1 not in positions:
            # "bastion-03's agent" is not bastion-03: the possessive names what follows
            # it, which must be the rule's own word ("NDA-2291's contents").
            return f"{token!r} names something of the rule's name"
        if is_identifier(token) and token not in own and index not in ctx.al.covered:
            key = ctx.win.keys[index]
            if key is None or key not in ctx.part.family:
                return f"{token!r} is not in the rule"
    return None


def _generic_lost(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a generic noun of the rule that is a list item ("age, ...") or was replaced.

    "Shared repos" for "shared branches": a generic word the rule does not have stands
    where the rule's own is missing.
    """
    part = ctx.part.analysis
    lost = [i for i in ctx.part.content if part.keys[i] in GENERIC and i not in ctx.al.matches]
    if not lost:
        return None
    replaced = any(
        ctx.win.keys[i] in GENERIC and ctx.win.keys[i] not in ctx.part.family
        for i in ctx.region_tokens
    )
    for index in lost:
        near = [j for j in (index - 1, index + 1) if 0 <= j < len(part.tokens)]
        # A list item: next to "or"/"and", or right before a comma that ends its clause.
        listed = any(part.tokens[j] in {"or", "and", "nor"} for j in near) or (
            index + 1 < len(part.tokens) and part.clauses[index + 1] != part.clauses[index]
        )
        if listed or replaced:
            return f"{part.tokens[index]!r} is missing"
    return None


# Prepositions that make the light noun after them the rule's own object ("from users").
_OBJECT_PREPOSITIONS = frozenset(
    ("from", "for", "to", "of", "by", "with", "without", "among", "between", "on", "about")
)


def _value_transition(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a value the window moves from ("retries went from 3 to 5", "rose 3 to 5").

    A change from one value to another reports an event; its two ends are not the range
    the rule keeps, however alike "3 to 5" and "between 3 and 5" read.
    """
    win = ctx.win
    starts = {v.start for v in ctx.region_values}
    for value in ctx.region_values:
        before = value.start - 1
        if before >= 0 and win.tokens[before] == "from":
            before -= 1
        moved = before >= 0 and (
            win.tokens[before] in MOTION or win.tokens[before] in CHANGE_VERBS
        )
        joined = value.end + 1 in starts and win.tokens[value.end] == "to"
        if moved and joined:
            return f"{win.tokens[before]!r} moves the value, it keeps no range"
    return None


# Words for every person: a prohibition over them covers the rule's users or team.
_EVERYONE = frozenset(stem(word) for word in ("anyone", "anybody", "everyone", "everybody"))


def _light_noun_lost(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a light noun that is the rule's content and is missing from the window.

    "User" and "team" usually frame a rule ("the user said"), so they carry no key; but
    right after a preposition ("data from users under 13") or fastened before a rule word
    ("user passwords") they are what the rule is about, and "accounts under 13" or bare
    "passwords" is another rule.
    """
    part = ctx.part.analysis
    stems = ctx.part.stems
    light = [
        index
        for index, word in enumerate(stems)
        if word in LIGHT_NOUNS
        and part.mark_at[index] < 0  # "not" stems like "note"
        and not part.tokens[index].endswith("'s")
    ]
    if not light:
        return None  # the rule has no light noun of its own: the window's words are not read
    present = {stem(ctx.win.tokens[i]) for i in ctx.region_tokens}
    if ctx.part.parity and present & _EVERYONE:
        return None  # "no data from anyone under 13" forbids it for users too
    for index in light:
        token = part.tokens[index]
        if stems[index] in present:
            continue
        object_of = index > 0 and part.tokens[index - 1] in _OBJECT_PREPOSITIONS
        after = index + 1
        modifier = (
            after < len(part.tokens)
            and part.clauses[after] == part.clauses[index]
            and part.keys[after] is not None
            and stem(part.tokens[after]) not in REPORTING
        )
        if object_of or modifier:
            return f"the rule's {token!r} is missing"
    return None


def _extra_content(ctx: Context, span: tuple[int, int] | None) -> str | None:
    """Name a content word the part does not have in the topic clauses (a qualifier)."""
    found = _extra_words(ctx, span)
    return f"extra content {ctx.win.tokens[found[0]]!r}" if found else None


def _extra_words(ctx: Context, span: tuple[int, int] | None) -> list[int]:
    found = _unshared_words(ctx, span)
    if found and is_on("adjunct"):
        return [index for index in found if not is_adjunct(ctx, index)]
    return found


def _adjuncts(ctx: Context) -> list[int]:
    """Return the extra words that only restate the rule (see `adjunct`)."""
    if not is_on("adjunct"):
        return []
    return [index for index in _unshared_words(ctx, None) if is_adjunct(ctx, index)]


def _unshared_words(ctx: Context, span: tuple[int, int] | None) -> list[int]:
    inside = range(*span) if span else range(0)
    skip = _attributions(ctx) | ctx.al.covered
    found = []
    for index in ctx.region_tokens:
        key = ctx.win.keys[index]
        if index in skip or index in inside:
            continue
        if key is None and (_light_modifier(ctx, index) or _distributed_to(ctx, index)):
            found.append(index)
            continue
        if key is None or key in ctx.part.family or _rule_word_compound(ctx, index):
            continue
        if _container_extent(ctx, index):
            continue
        # A generic noun says no more than the name it stands by ("orders_prod database"),
        # but fastened before a rule noun it picks a kind of it ("database backups"), and
        # after one it is the new head ("the backups database" is one database).
        generic = key in GENERIC and (
            key in _WHOLE
            or not (_fastened_to_rule_noun(ctx, index) or _heads_a_rule_noun(ctx, index))
        )
        if generic and key in _ACT_NOUNS and is_on("act_noun"):
            generic = False  # "PII access", "processing of PII": another act than the rule's
        extra = not key.startswith("~") and not generic
        if extra and ctx.win.clauses[index] in ctx.al.topic_clauses:
            found.append(index)
    return found


def _light_modifier(ctx: Context, index: int) -> bool:
    """Tell whether a light noun the rule lacks is fastened before a rule noun.

    "Session tokens" for "tokens": the light word names a kind of the rule's noun. A
    possessive ("the user's budget") names who set the rule and is not read.
    """
    win = ctx.win
    token = win.tokens[index]
    if win.mark_at[index] >= 0 or token.endswith("'s") or stem(token) not in LIGHT_NOUNS:
        return False
    if stem(token) in ctx.part.stems:
        return False
    return _fastened_to_rule_noun(ctx, index)


def _rule_word_compound(ctx: Context, index: int) -> bool:
    """Tell whether a hyphenated word is made only of the rule's own words ("smoke-tested").

    "Production is never smoke-tested" for "never run smoke tests against production": the
    pieces key as a phrase of the rule, in its order, so the compound says the rule's words
    again. A piece the rule lacks ("stress-tested"), one without a key, or words the rule
    keeps apart ("night-orders", "rest-customer") leave the word extra.
    """
    if not is_on("rule_word_compound"):
        return False
    found = pieces(ctx.win.tokens[index])[1:]
    keys = tuple(token_key(piece) for piece in found)
    if len(found) < 2 or None in keys:  # noqa: PLR2004
        return False
    # The pieces must be a phrase of the rule, in its order: "night-orders" joins words
    # the rule keeps apart ("the orders database every night") into another name.
    own = ctx.part.analysis.keys
    return any(own[at : at + len(keys)] == keys for at in range(len(own) - len(keys) + 1))


def _distributed_to(ctx: Context, index: int) -> bool:
    """Tell whether a light noun the rule lacks follows "per" or "for each" (a quota for each).

    "At most 50 calls per minute per user" gives every user the rule's quota: the total
    the rule caps is no longer capped. The light noun ("user", "agent", "session") is no
    frame there but the unit the rule's quantity is divided by.
    """
    tokens = ctx.win.tokens
    word = stem(tokens[index])
    if word not in LIGHT_NOUNS or word in ctx.part.stems:
        return False
    before = tokens[index - 1] if index > 0 else ""
    if before == "per":
        return True
    return before in {"each", "every"} and index > 1 and tokens[index - 2] == "for"


# Generic nouns of a place that holds things: after a plain rule noun they are its head.
_CONTAINERS = frozenset(
    concept(stem(word))
    for word in (
        *("database", "db", "table", "bucket", "repository", "repo", "folder"),
        *("directory", "channel", "server", "cluster", "instance", "file"),
    )
)


def _heads_a_rule_noun(ctx: Context, index: int) -> bool:
    """Tell whether a container noun follows a matched rule word that is no name, as its head.

    A head that names the kind of the names listed after it ("inference regions:
    us-east-1 and eu-west-1") picks nothing out of the rule noun.
    """
    win = ctx.win
    if win.keys[index] not in _CONTAINERS or not _rule_word_beside(ctx, index, index - 1):
        return False
    if win.mark_at[index - 1] >= 0:
        return False
    clause = win.clauses[index]
    return not any(
        is_name(win.tokens[i])
        for i in range(index + 1, len(win.tokens))
        if win.clauses[i] == clause
    )


# Generic nouns that name an act: a restatement that adds one speaks of that act ("PII
# access is limited to eu-west-1" says where PII is read from, not where it is kept).
_ACT_NOUNS = frozenset(concept(stem(word)) for word in ("access", "process", "processing"))
def _container_extent(ctx: Context, index: int) -> bool:
    """Tell whether an extent noun follows a container noun after the rule's name.

    "Inside the /var/lib/reports/ directory tree" is the path with everything under it,
    which "under /var/lib/reports/" already says. After any other word ("archive tree") the
    noun names a part of the path.
    """
    if not is_on("container_extent") or index < 2:  # noqa: PLR2004
        return False
    win = ctx.win
    name = index - 2
    return (
        stem(win.tokens[index]) in _EXTENTS
        and win.keys[index - 1] in _CONTAINERS
        and is_name(win.tokens[name])
        and name in ctx.al.matches.values()
        and len({win.clauses[i] for i in (name, index - 1, index)}) == 1
    )


_EXTENTS = frozenset(stem(word) for word in ("tree", "subtree", "hierarchy"))


# Words for the whole of a thing ("total spend"): before a rule noun they narrow nothing.
_WHOLE = frozenset(concept(stem(word)) for word in ("total", "overall", "entire", "whole"))


def _fastened_to_rule_noun(ctx: Context, index: int) -> bool:
    """Tell whether the word stands right before a matched rule word that is no name.

    Before a name it is the name's kind ("the database orders_prod"), not a modifier.
    """
    return _rule_word_beside(ctx, index, index + 1)


def _rule_word_beside(ctx: Context, index: int, other: int) -> bool:
    """Tell whether `other`, in the clause of `index`, is a matched plain rule word."""
    win = ctx.win
    return (
        0 <= other < len(win.tokens)
        and win.clauses[other] == win.clauses[index]
        and other in ctx.al.matches.values()
        and not (win.keys[other] or "~").startswith(("~", ID))
        and not is_name(win.tokens[other])
    )


def _narrowed(ctx: Context) -> Reading | None:
    """Find the whole rule restated with a qualifier that narrows it ("... for EU users").

    Every word, value and force of the rule is there, plus content introduced by a
    relation word or fastened in front of one of the rule's own nouns.
    """
    if not ctx.al.complete or ctx.lost or _force_differs(ctx, None) or _values_differ(ctx, None):
        return None
    matched = set(ctx.al.matches.values())
    tokens = ctx.win.tokens
    for index in _extra_words(ctx, None):
        if _next_step(tokens, index) or _names_the_bound(ctx, index) or _other_one(ctx, index):
            continue
        # A relation word inside a force phrase ("has to pass", "needs to stay") is the
        # infinitive's "to", not a scope; it leads nothing (see `_force_phrase`).
        led = any(
            (tokens[i] in _SCOPING or tokens[i] == "only") and not _force_phrase(ctx, i)
            for i in range(max(0, index - 2), index)
        )
        if led or _modifies_noun(ctx, index, matched):
            # A word fastened to a rule noun ("DEBUG-level logs", "patients taking warfarin")
            # may only describe it: damage seen but not named, unless a scoping word leads.
            evidence = {"why": "scope narrowed", "found": tokens[index]}
            return ctx.reading(Kind.WEAKENED, "narrowed", explicit=led, evidence=evidence)
    return None


def _names_the_bound(ctx: Context, index: int) -> bool:
    """Tell whether an extra word names the dimension of the bound right after it.

    "called at a rate under 60 requests per minute", "a size below 2 MB": the noun is
    what the bounded value measures, not a scope. "at a peak rate under 60" keeps "peak"
    extra. The tier cannot tell every such noun from a qualifier, so narrowed only
    leaves it unread (never certified: `_extra_content` still holds it).
    """
    if not is_on("dimension_noun") or index + 1 >= len(ctx.win.tokens):
        return False
    mark = ctx.win.mark_at[index + 1]
    if mark < 0 or ctx.win.marks[mark].modality not in (_M.MAX, _M.MIN):
        return False
    end = ctx.win.marks[mark].end
    return any(end <= v.start <= end + 1 for v in ctx.region_values)


def _other_one(ctx: Context, index: int) -> bool:
    """Tell whether an extra "another" says the rule's own "any other" ("to another region")."""
    return (
        is_on("another_for_any_other")
        and ctx.win.tokens[index] == "another"
        and "other" in ctx.part.analysis.tokens
    )


def _force_phrase(ctx: Context, index: int) -> bool:
    """Tell whether a token belongs to a modality phrase ("has to", "need to", "free to")."""
    return is_on("infinitive_to") and ctx.win.mark_at[index] >= 0


def _next_step(tokens: Sequence[str], index: int) -> bool:
    """Tell whether a word stands in a clause about what happens next.

    "no more than three retries before being parked in the dead-letter queue": a sequence
    word with a gerund or "being" opens the step that follows the rule, not its scope.
    """
    for at in range(max(0, index - _STEP_REACH), index):
        following = tokens[at + 1] if at + 1 < len(tokens) else ""
        if tokens[at] in _SEQUENCE and (following == "being" or following.endswith("ing")):
            return True
    return False


_SEQUENCE = frozenset({"before", "after", "then", "until"})
_STEP_REACH = 6


# Relations that scope what follows them ("for EU users"); a conjunction ("stored and
# processed") adds to the rule rather than narrowing it.
_SCOPING = RELATIONS - {"and", "or", "nor", "not", "no", "before", "after", "until", "since"}


def _modifies_noun(ctx: Context, index: int, matched: set[int]) -> bool:
    """Tell whether an extra word sits in front of a rule noun as its modifier.

    "all EU customers", "premium customer data": a matched content word right after it.
    After a subject pronoun it is a verb before its object ("I left numpy pinned").
    """
    win = ctx.win
    after = index + 1
    if after not in matched or win.keys[after] is None or win.keys[after].startswith("~"):  # type: ignore[union-attr]
        return False
    if win.clauses[after] != win.clauses[index]:
        return False
    return index == 0 or win.tokens[index - 1] not in _SUBJECTS


_SUBJECTS = frozenset({"i", "we", "you", "they", "he", "she", "it", "who", "that", "which"})


def _qualifier_follows(ctx: Context, span: tuple[int, int] | None) -> str | None:
    """Name a relation word right after a copy in its clause: it narrows ("... for X")."""
    if not span or span[1] >= len(ctx.win.tokens) or ctx.win.tokens[span[1]] not in RELATIONS:
        return None
    same_clause = ctx.win.clauses[span[1]] == ctx.win.clauses[span[1] - 1]
    return "a qualifier follows" if same_clause else None


def _label_qualifier(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a word the rule lacks fastened before a rule word in the window's leading label.

    "Median API response time: keep API responses under 2 seconds", "Enterprise customer
    data: never copy ...": the label says which of the rule's things the copy under it is
    about, so it qualifies the copy. A label's own head noun ("API response time:") or a
    label with no rule word ("Git:") only names the topic.
    """
    lead = _LABEL.match(ctx.win.text)
    if lead is None:
        return None
    width = len(tokenize(lead.group()))
    win, family = ctx.win, ctx.part.family
    for index in range(min(width, len(win.tokens)) - 1):
        key, following = win.keys[index], win.keys[index + 1]
        if key is None or key.startswith("~") or key in family or key in GENERIC:
            continue
        if following in family and not is_name(win.tokens[index]):
            return f"the label's {win.tokens[index]!r} qualifies the rule's words"
    return label_scope(ctx.part, win, width)


# A leading label: a short stretch before the first ": " with no sentence break in it, or
# before the first dash standing between spaces ("Staging env - never push ..."): a dash
# closes a label as a colon does. A hyphen inside a word ("Mon-Fri") closes nothing.
_LABEL = re.compile(r"^(?:[^:.;!?()\[\]]{1,80}:|[^:.;!?()\[\]]{1,80}?\s[-\u2013\u2014]{1,2})(?=\s)")


def _past_framed(ctx: Context, span: tuple[int, int] | None) -> str | None:
    """Name a past marker inside the copy's clauses or in a short clause closing it.

    "Customer data used to be limited to eu-west-1", "... need approval, at first" and
    "were formerly confined to" state that the rule held once; the lead before a copy is
    read by `suspending_attribution`; this guard reads the restatement from its first
    matched word on.
    """
    matched = list(ctx.al.matches.values())
    if not span and not matched:
        return None
    span = span or (min(matched), max(matched) + 1)
    win = ctx.win
    clauses = {win.clauses[i] for i in range(span[0], min(span[1], len(win.tokens)))}
    after = [i for i in range(span[1], len(win.tokens)) if win.clauses[i] not in clauses]
    if after and len([i for i in after if win.clauses[i] == win.clauses[after[0]]]) <= _CLOSING:
        clauses.add(win.clauses[after[0]])
    first = min(matched, default=span[0])  # the lead before the copy is framing's to read
    positions = [i for i, clause in enumerate(win.clauses) if clause in clauses and i > first]
    words = [win.tokens[i] for i in positions]
    rule = _words_of(ctx.part)
    own = rule.tokens
    pairs = set(itertools.pairwise(words)) - rule.pairs
    if not _PAST_WORDS.isdisjoint(words) or not pairs.isdisjoint(_PAST_PAIRS):
        return "a past marker frames the copy"
    deferred = not (_DEFERRING - own).isdisjoint(words)
    if deferred or not pairs.isdisjoint(_DEFERRING_PAIRS):
        return "a time word defers the copy"
    past = not (_PAST_AUXILIARIES - own).isdisjoint(words) or _irregular_past(words, own, pairs)
    if past or _past_of_own_verb(ctx, [first, *positions]):
        return "the copy is told in the past tense"
    return None


def _irregular_past(
    words: Sequence[str], own: frozenset[str], pairs: set[tuple[str, str]]
) -> bool:
    """Tell whether the copy's verb is a past form with no -ed ("alerts went to #oncall").

    "went", "have gone", "got posted" report what happened, as "were posted" does;
    "have got to" is an obligation and is not read.
    """
    if not (_PAST_FORMS - own).isdisjoint(words):
        return True
    return any(
        (a in _HAVE and b == "gone") or (a == "got" and b.endswith("ed") and "got" not in own)
        for a, b in pairs
    )


_PAST_FORMS = frozenset({"went"})
_HAVE = frozenset({"has", "have", "had", "'ve"})


def _past_of_own_verb(ctx: Context, positions: Sequence[int]) -> bool:
    """Tell whether a word of the copy is the simple past of a rule word that has no -ed.

    "Invoices required a second signature" for "... require ...": the rule's own verb in
    the past says the rule held once. After an auxiliary ("approval is required", "must be
    rotated"), or with no object after it ("logging enabled", "pinned at"), the -ed form
    is a participle and restates the rule.
    """
    rule, win = ctx.part.analysis.tokens, ctx.win.tokens
    own = set(rule)
    for position in positions:
        word = win[position]
        if not word.endswith("ed") or word in rule:
            continue
        if not {word[:-1], word[:-2], word[:-3]} & own:
            continue
        after = win[position + 1] if position + 1 < len(win) else None
        if after is None or after in RELATIONS or after in _APPEND_WORDS:
            continue  # "logging enabled", "pinned at 2.1.4": a participle with no object
        if position == 0 or win[position - 1] not in _PARTICIPLE_AUXILIARIES:
            return True
    return False


def _every_other(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name "every other" or "every second" where the rule says "every" alone.

    "backed up every other night" is half of "every night": the word after "every" is
    a function word, so the alignment never sees it thin the frequency.
    """
    rule = set(itertools.pairwise(ctx.part.analysis.tokens))
    for pair in itertools.pairwise(ctx.win.tokens):
        if pair[0] == "every" and pair[1] in _THINNING and pair not in rule:
            return f"'every {pair[1]}' thins the rule's 'every'"
    return None


_THINNING = frozenset({"other", "second", "third", "few", "couple", "alternate", "several"})


def _value_relation(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Name a relation word before a rule's time or date that the rule has not there.

    "after 04:00" or "by 04:00" for "at 04:00": the value is the rule's, but the word
    before it makes it a start or a deadline instead of the appointed time.
    """
    rule, win = ctx.part.analysis, ctx.win
    for wanted in rule.values:
        if wanted.kind not in _POINTS:
            continue  # a count after "before" ("two reviews before merging") is no point
        own = rule.tokens[wanted.start - 1] if wanted.start > 0 else ""
        for found in ctx.region_values:
            if found.start == 0 or not values_equal(wanted, found):
                continue
            word = win.tokens[found.start - 1]
            if word in _VALUE_RELATIONS and word != own:
                return "a relation word before the value changes it"
    return None


_POINTS = frozenset({"time", "date"})  # values that name a point in time
_VALUE_RELATIONS = frozenset({"after", "before", "by", "until", "till", "since", "past"})
_CLOSING = 3  # "..., at first": a clause this short after the copy still frames it
_PAST_WORDS = frozenset({"formerly", "previously", "initially", "originally"})
_PAST_PAIRS = frozenset({("used", "to"), ("at", "first"), ("back", "then"), ("the", "past")})
# Time words that move the rule's act, or its start, later: "afterwards", ", starting next month".
_DEFERRING = frozenset({"afterwards", "afterward", "later", "eventually", "retroactively"})
_DEFERRING_PAIRS = frozenset(
    {("starting", "next"), ("from", "next"), ("beginning", "next"), ("starting", "tomorrow")},
)
_PAST_AUXILIARIES = frozenset({"was", "were", "had"})
_APPEND_WORDS = frozenset({"and", "or", "but", "nor"})
# Words after which an -ed form is a participle ("is required", "must be rotated").
_PARTICIPLE_AUXILIARIES = frozenset({
    "is", "are", "be", "been", "being", "am", "get", "gets", "getting", "has", "have",
    "must", "should", "will", "shall", "can", "may", "not", "never", "always", "only",
})  # fmt: skip


def _bounded_permission(ctx: Context, modality: Modality) -> bool:
    """`may` inside a kept bound ("no more than 4 may run") does not loosen the rule.

    A ceiling on the permitted act is the rule's own limit: "may spend at most $500",
    "no more than 4 jobs may run". A floor never is ("may be at least 12 characters"),
    and a bound before the permission on a measure of the thing acted on only picks what
    the act applies to: "uploads below 1 KB may be rejected" is not "reject uploads
    below 1 KB".
    """
    if modality is not _M.ALLOW:
        return False
    if ctx.part.classes[_M.ONLY] and ctx.w_classes[_M.ONLY]:
        return True
    if not (ctx.part.classes[_M.MAX] and ctx.w_classes[_M.MAX]):
        return False
    win = ctx.win
    region = ctx.al.region
    marks = [m for m in win.marks if win.clauses[m.start] in region]
    ceilings = [m for m in marks if m.modality is _M.MAX]
    for permission in (m for m in marks if m.modality is _M.ALLOW):
        clause = win.clauses[permission.start]
        for ceiling in ceilings:
            if win.clauses[ceiling.start] != clause:
                continue
            if ceiling.start > permission.start:
                return True  # "may spend at most $500"
            bounded = [v for v in ctx.region_values if v.start >= ceiling.end]
            if bounded and bounded[0].start < permission.start and bounded[0].kind == "number":
                return True  # "no more than 4 jobs may run"
    return False


def _attributions(ctx: Context) -> set[int]:
    """Return the tokens that say who stated the rule ("the team lead said that ...").

    That is a clause up to a reporting verb placed before the clause's first matched word.
    """
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


def _order_kept(ctx: Context) -> bool:
    """Directional words keep their arguments: `from A to B` never certifies `from B to A`."""
    part = ctx.part.analysis
    for index, position in ctx.al.matches.items():
        before = {t for t in part.tokens[max(0, index - 2) : index] if t in _DIRECTIONS}
        if not before:
            continue
        seen = _governing(ctx.win, position)
        if seen and not before & _directions(seen):
            return False
    return True


_DIRECTIONS = frozenset({"from", "to", "into", "onto", "than", "toward", "towards"})


def _governing(win: Analysis, position: int) -> set[str]:
    """Return the directional words within three words before `position` that govern it.

    A content word between them and the word ends their reach: in "allowed to hit is
    X", "to" leads the verb "hit", not X.
    """
    found: set[str] = set()
    for at in range(max(0, position - 3), position):
        if win.tokens[at] in _DIRECTIONS and all(
            win.keys[i] is None for i in range(at + 1, position)
        ):
            found.add(win.tokens[at])
    return found


def _directions(words: set[str]) -> set[str]:
    grouped = set(words)
    if words & {"to", "into", "onto", "toward", "towards"}:
        grouped |= {"to", "into", "onto", "toward", "towards"}
    return grouped


def _absence(ctx: Context) -> Reading:
    """Something the part binds is missing: a value, an identifier, or its force.

    Each reading here leaves its evidence for later (`Context.reading`, `later`), so none
    is kept as a constraint sentence's reading (`context.Copy`): this reads the sentences
    after the window (`_continued`) and its site (`_hint`).
    """
    ids = _missing_identifiers(ctx)
    strong = ctx.al.coverage >= STRONG_COVERAGE and ctx.topical
    # The missing values are read on first need: a weak trace that lacks a name of the
    # rule shows signs without them, and its evidence may never be read.
    missing: list[str] | None = None

    def lacking() -> list[str]:
        nonlocal missing
        if missing is None:
            # "each nurse ... two night shifts per week" for "2 ... per nurse per week"
            missing = [
                v.surface
                for v in missing_values(ctx)
                if not any(distributed_rate(ctx, v, f) for f in ctx.region_values)
            ]
        return missing

    def evidence(**more: str) -> Callable[[], dict[str, Any]]:
        # What was missing and whether it was replaced is read only where it is shown.
        def found() -> dict[str, Any]:
            lost = ctx.lost
            replaced = _replaced(ctx) or (bool(lost) and _copy_without_force(ctx))
            return {"missing": [*lacking(), *ids], "lost": lost, "replaced": replaced, **more}

        return found

    if strong and lacking() and not _unread_numeral(ctx) and not _kept_elsewhere(ctx, lacking()):
        return ctx.reading(Kind.MUTATED, "anchor_diff", later=evidence(why="value vanished"))
    if ids and _rest_coverage(ctx, ids) >= STRONG_COVERAGE and ctx.al.matched_keys >= 2:  # noqa: PLR2004
        return ctx.reading(Kind.MUTATED, "anchor_diff", later=evidence(why="identifier vanished"))
    if strong and not lacking() and ctx.lost and not ctx.guarded:
        return ctx.reading(Kind.WEAKENED, "modality_loss", later=evidence(why="force lost"))
    signs = bool(ids or lacking() or ctx.lost) or (ctx.topical and _clean(ctx, None) is not None)
    rule = "suspect" if ctx.topical else "trace"
    hint = _hint(ctx)
    if hint is None:
        return ctx.reading(None, rule, signs=signs, later=evidence())
    return ctx.reading(None, rule, signs=True, later=evidence(hint=hint.value), hint=hint)


def _kept_elsewhere(ctx: Context, missing: Sequence[str]) -> bool:
    """Tell whether the values a window lacks are there after all, read another way.

    A value the next sentence holds is continued there, unless the window restates every
    other value and puts another of its kind in its place ("02:00-04:00 CET on weekdays"
    for "... UTC on weekdays", with "UTC" in a later sentence about something else).
    "$900 monthly" for "$900 this month": the amount is there, read with the period the
    rule names; not a vanished value (nor the same one: it never certifies).
    """
    one_swapped = len(missing) == 1 and len(ctx.part.analysis.values) > 1 and _replaced_value(ctx)
    if _continued(ctx) and not one_swapped:
        return True
    return all(
        any(found.per and rated_period(ctx, v, found) for found in ctx.region_values)
        for v in missing_values(ctx)
    )


def _replaced_value(ctx: Context) -> bool:
    """Tell whether an extra value of the region is comparable to a missing one.

    The extra values are some of the region's values, so when no region value at all is
    comparable to a missing one, none of them is: that is read first, and the extra values
    (each region value equalled against every rule value) are worked out only past it.
    """
    lost = missing_values(ctx)
    if not any(comparable(v, f) for v in lost for f in ctx.region_values):
        return False
    return any(comparable(v, f) for v in lost for f in extra_values(ctx))


def _replaced(ctx: Context) -> bool:
    """Tell whether another anchor stands where a missing one was ("AES-128" for "AES-256").

    A value of the same kind the rule does not have, or a name it does not have: the
    missing anchor was replaced, not merely written in a form the tier cannot read.
    """
    if _replaced_value(ctx):
        return True
    if not _missing_identifiers(ctx):
        return False
    # The region's names are the window's names (`Sentences.names`) in the region's clauses.
    own = _words_of(ctx.part).tokens
    clauses, region = ctx.win.clauses, ctx.al.region
    return any(token not in own and clauses[i] in region for i, token in ctx.facts.names)


def _copy_without_force(ctx: Context) -> bool:
    """Tell whether the window is the rule's own words in order, minus its force words.

    "Use the eu-west-1 region for storage" for "Use only the eu-west-1 region for
    storage": the force was cut out of a copy, not said in other words.
    """
    rule = _words_of(ctx.part)
    wanted = rule.unforced
    if not wanted or not _names_held(ctx, rule.unforced_names):
        return False
    words = ctx.facts.canonical_words
    starts = ctx.facts.canonical_starts.get(wanted[0], ())
    return any(_subsequence(words, wanted, start) is not None for start in starts)


def _names_held(ctx: Context, names: frozenset[str]) -> bool:
    """Tell whether every name among a part's canonical words is a token of the window.

    A rule's words in order (`_near_verbatim`, `_copy_without_force`) are looked for among
    the window's canonical words, which are its tokens with contractions expanded into
    plain words and values read as meanings (`text.canonical`): a name there is one of
    its tokens. A window without one of the rule's names holds no such copy, and its
    canonical words need not be worked out.
    """
    return names <= ctx.facts.once(_token_set)


def _token_set(analysis: Analysis) -> frozenset[str]:
    return frozenset(analysis.tokens)


@dataclass(frozen=True, slots=True)
class _PartWords:
    """The words of a part the copy rules compare, worked out once per part."""

    significant: list[str]  # its significant canonical words (`_near_verbatim`)
    unforced: list[str]  # those outside its force words (`_copy_without_force`)
    names: frozenset[str]  # the names among its significant words (`_names_held`)
    unforced_names: frozenset[str]  # the names among its unforced ones
    tokens: frozenset[str]  # its tokens (`_replaced`, `_past_framed`)
    pairs: frozenset[tuple[str, str]]  # its pairs of adjacent tokens (`_past_framed`)
    keys: Counter[str]  # how often it says each content key (`_repeated_modifier`)


def _words_of(part: Part) -> _PartWords:
    return _PART_WORDS.get(part, _part_words)


def _part_words(part: Part) -> _PartWords:
    analysis = part.analysis
    found = [(w, start) for w, start, _ in canonical(analysis) if _significant(w)]
    unforced = [w for w, start in found if analysis.mark_at[start] < 0]
    return _PartWords(
        significant=[w for w, _ in found],
        unforced=unforced,
        names=frozenset(w for w, _ in found if _plain_name(w)),
        unforced_names=frozenset(w for w in unforced if _plain_name(w)),
        tokens=frozenset(analysis.tokens),
        pairs=frozenset(itertools.pairwise(analysis.tokens)),
        keys=Counter(key for key in analysis.keys if key is not None),
    )


_PART_WORDS: IdentityMemo[Part, _PartWords] = IdentityMemo(4096)


def _plain_name(word: str) -> bool:
    """Tell whether a canonical word is a name as written (not a value's `<...>` meaning)."""
    return not word.startswith("<") and is_name(word)


def _continued(ctx: Context) -> bool:
    """Tell whether the next sentences hold every value this window lacks.

    "The job stops after three failures in a row. It also stops at the two-hour mark.":
    the rule goes on in the next sentence; nothing vanished.
    """
    following, _ = ctx.facts.surroundings()
    return all(
        any(values_equal(wanted, found) for after in following for found in after.values)
        for wanted in missing_values(ctx)
    )


def _unread_numeral(ctx: Context) -> bool:
    """Tell whether the region holds a number the value reader could not place.

    "The 2h30 mark", "a couple of failures": the value may be there in a form not read,
    so its absence is not stated damage.
    """
    win = ctx.win
    inside = {i for v in ctx.region_values for i in range(v.start, v.end)}
    return any(
        i not in inside
        and (any(ch.isdigit() for ch in win.tokens[i]) or win.tokens[i] in _NUMERALS)
        for i in ctx.region_tokens
        if not is_identifier(win.tokens[i])
    )


_NUMERALS = frozenset({"couple", "few", "several", "dozen", "half", "quarter", "first", "second"})


def _hint(ctx: Context) -> Kind | None:
    """Read the force words of a loose summary mention of the rule's most specific word.

    "numpy can be upgraded freely now" for "Pin numpy to 1.26.4": not aligned enough to
    decide, but the summary then speaks about the rule with another force.
    """
    if ctx.window.site is not Site.SUMMARY or ctx.window.tool or not names_core(ctx):
        return None
    part, w = ctx.part.classes, ctx.w_classes
    strong = ctx.part.strong
    if w[_M.LIFT] > part[_M.LIFT] or (w[_M.OPTIONAL] > part[_M.OPTIONAL] and strong):
        return Kind.CONTRADICTED
    if part[_M.ONLY] and w[_M.EXTEND] > part[_M.EXTEND]:
        return Kind.CONTRADICTED
    if w[_M.ALLOW] > part[_M.ALLOW]:
        return Kind.CONTRADICTED if ctx.part.parity == 1 != ctx.w_parity else Kind.WEAKENED
    if any(w[m] > part[m] for m in (_M.HEDGE, _M.SOFT_FORBID, _M.CONDITION, _M.APPROX)):
        return Kind.WEAKENED
    return None


def _missing_identifiers(ctx: Context) -> tuple[str, ...]:
    found = ctx.__dict__.get("_missing_identifiers")  # asked twice per absence: kept once
    if found is None:
        tokens = ctx.part.analysis.tokens
        matches = ctx.al.matches
        found = ctx.__dict__["_missing_identifiers"] = tuple(
            tokens[i] for i in ctx.part.identifiers if i not in matches
        )
    return found


def _rest_coverage(ctx: Context, ids: Sequence[str]) -> float:
    lost = 3.0 * len(ids)
    return (ctx.al.coverage * ctx.part.total) / max(ctx.part.total - lost, 1.0)


# Every rule and check with its switch name; here, after all of them are defined.
_DAMAGE_RULES = _switched(lifted, polarity, anchor_diff, hedge, modality_loss)
_CERTIFYING_RULES = _switched(_verbatim, _near_verbatim, _paraphrase)
_CLEAN_CHECKS = _switched(
    _force_differs,
    negations_dropped,
    _values_differ,
    _unit_dropped,
    _relation_changed,
    _slots_swapped,
    modifiers_moved,
    roles_exchanged,
    _scope_moved,
    _prefix_negated,
    _keyword_swapped,
    _reader_motion,
    _compound_pieces,
    _repeated_modifier,
    _extra_identifier,
    _generic_lost,
    _light_noun_lost,
    _extra_content,
    _qualifier_follows,
    _label_qualifier,
    _past_framed,
    _value_relation,
    _value_transition,
    _every_other,
)
