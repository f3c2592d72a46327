"""The force rules, each reading one Context and returning a Reading or None.

lifted and polarity decide contradicted; hedge and modality_loss decide weakened. The
anchor_diff rule (mutated) lives in `mutation`.
"""

from __future__ import annotations

import collections
import itertools
from typing import TYPE_CHECKING

from compaction_guard.detectors.lexical.acts import act_on_object
from compaction_guard.detectors.lexical.afterthought import POINTED, SCOPED
from compaction_guard.detectors.lexical.context import (
    STRONG_COVERAGE,
    TOPIC_COVERAGE,
    Context,
    Reading,
    modality_evidence,
    names_core,
    read_only_kept,
)
from compaction_guard.detectors.lexical.lexicon import LIGHT, STOPWORDS, WRITE_VERBS
from compaction_guard.detectors.lexical.modality import NEGATIVE, STRONG, Modality
from compaction_guard.detectors.lexical.mutation import anchor_diff, restates
from compaction_guard.detectors.lexical.slot import (
    condition_met,
    lifted_to_value,
    reading_left_open,
)
from compaction_guard.detectors.lexical.switches import is_on
from compaction_guard.detectors.lexical.world import conditioned
from compaction_guard.normalize import stem
from compaction_guard.taxonomy import Kind

if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Callable, Sequence

    from compaction_guard.detectors.lexical.align import Part
    from compaction_guard.detectors.lexical.modality import Mark
    from compaction_guard.detectors.lexical.text import Analysis

__all__ = [
    "UNSURE",
    "hedge",
    "lifted",
    "modality_loss",
    "negations_dropped",
    "polarity",
    "reports_world",
    "unsure_extension",
]

_LOOSE_COVERAGE = 0.34
_M = Modality
_EXPLICIT = frozenset(
    {_M.FORBID, _M.OBLIGE, _M.ALLOW, _M.OPTIONAL, _M.SOFT_FORBID, _M.NEGATION, _M.HEDGE},
)
_SOFTENERS = (_M.HEDGE, _M.SOFT_FORBID, _M.CONDITION, _M.APPROX)
_LIMITERS = (_M.HEDGE, _M.CONDITION, _M.PARTIAL, _M.ONLY, _M.APPROX)
# The rule of a reading that abstains where a damage rule would have read damage the
# tier cannot tell from a faithful wording; a strong one keeps every copy from certifying.
UNSURE = "unsure"


def lifted(ctx: Context) -> Reading | None:
    """Find a statement that the rule was lifted, waived or no longer applies."""
    c_lift = ctx.part.classes[_M.LIFT] + ctx.part.classes[_M.LIFT_VERB]
    if ctx.al.coverage < TOPIC_COVERAGE:
        # "The customer limit no longer applies": a plain lifting phrase naming the
        # rule's most specific word decides even when the sentence names little else.
        if ctx.w_classes[_M.LIFT] > ctx.part.classes[_M.LIFT] and _loosely_named(ctx):
            return ctx.reading(
                Kind.CONTRADICTED,
                "lifted",
                explicit=True,
                strong=True,
                evidence={
                    "why": "a lifting phrase names the rule",
                    "modality": modality_evidence(ctx),
                },
            )
        return None
    if ctx.w_classes[_M.LIFT] + ctx.w_classes[_M.LIFT_VERB] - _acting_lifts(ctx) > c_lift:
        return _contradicted(ctx, "lifted", "the window says the rule was lifted")
    if c_lift or not ctx.topical:
        return None
    for classes, where in ctx.afterthoughts:
        if (classes[_M.LIFT] or classes[_M.LIFT_VERB]) and not classes[SCOPED]:
            return _contradicted(ctx, "lifted", f"a lifting statement follows in the {where}")
    return None


def _acting_lifts(ctx: Context) -> int:
    """Count the window's lifting verbs that are the rule's act on its object (`act_on_object`).

    "Customer uploads can only be removed after 3 days": "removed" deletes the uploads,
    it lifts no rule; what the window says of the rule is read by the other rules.
    """
    if not ctx.w_classes[_M.LIFT_VERB]:
        return 0
    win, region = ctx.win, ctx.al.region
    acting = is_on("act_not_lift")
    return sum(
        1
        for mark in win.marks
        if mark.modality is _M.LIFT_VERB
        and win.clauses[mark.start] in region
        and (
            (acting and act_on_object(ctx.part.analysis, ctx.part.family, win, mark.start))
            or lifted_to_value(win.tokens, win.values, mark.start)
        )
    )


def polarity(ctx: Context) -> Reading | None:
    """Find negation inserted or removed, or an incompatible bound or permission."""
    if not ctx.topical:
        return None
    for check in (_bound_reversed, _made_writable, _opened_up, _afterthought_permits, _negated):
        why = check(ctx)
        if why is not None and reports_world(ctx):
            # A report may still carry another value of the rule: that is read as usual.
            changed = anchor_diff(ctx) if is_on("anchor_diff") else None
            return changed or _unsure(ctx, "world_report", f"a report of the world ({why})")
        if why is None:
            continue
        unsure = _unsure_polarity(ctx, check)
        if unsure is not None:
            return _unsure(ctx, unsure, f"{why}, in a wording the tier cannot tell ({unsure})")
        return _contradicted(ctx, "polarity", why)
    return None


def _unsure_polarity(ctx: Context, check: Callable[[Context], str | None]) -> str | None:
    """Name the abstention that explains a polarity reading away, or None."""
    if check is _made_writable:
        return "only_writable" if _only_writable(ctx) else None
    if check is not _negated or ctx.bound_swap:
        return None  # a bound turned as well is a reversal in any wording
    if _requirement_wording(ctx):
        return "requirement_wording"
    if _split_prohibition(ctx):
        return "split_prohibition"
    if _property_sides(ctx):
        return "property_sides"
    return None


# Relations that order two things ("A before B", "A above B"): swapping their sides turns them.
_ORDERING = frozenset(
    stem(w)
    for w in (
        *("before", "earlier", "after", "later", "above", "below", "more", "greater"),
        *("higher", "less", "fewer", "lower", "earliest", "latest", "inside", "within"),
        *("outside", "beyond"),
    )
)
_SIDES = ": its two sides swapped"


def _property_sides(ctx: Context) -> bool:
    """Tell whether the only turn read is a property word with its neighbours reordered.

    "All data at rest must be encrypted with AES-256" and "every data store must use
    AES-256 encryption at rest": "encrypted" names a property, not an order between the
    words around it, so its sides changing places reverses nothing. It may still have
    moved to another noun ("private exports in the encrypted bucket"), which the tier
    cannot tell: polarity abstains (`lexical.property_sides`) and no copy certifies.
    """
    if not is_on("property_sides") or ctx.act_swaps or ctx.bound_swap or _opened(ctx):
        return False
    swapped = ctx.relation_swaps
    if not swapped or not all(s.endswith(_SIDES) for s in swapped):
        return False
    if any(stem(s.removesuffix(_SIDES)) in _ORDERING for s in swapped):
        return False
    # Without the reordered words, the window's polarity must be the rule's.
    return ctx.part.parity == ctx.w_parity


# A permission, a lift or a softener beside a reading keeps it damage, whatever its wording.
_OPENERS = (_M.ALLOW, _M.OPTIONAL, _M.LIFT, _M.LIFT_VERB, _M.EXTEND, _M.HEDGE, _M.SOFT_FORBID)
_REQUIRING = frozenset({"unless", "until", "without", "before"})


def _opened(ctx: Context) -> bool:
    """Tell whether the window, anywhere in it, has an opener the rule lacks.

    A permission word absorbed by a negation before it counts as one unless it is a modal:
    "no data may be collected" forbids, "emailing without consent is acceptable" permits.
    """
    part = ctx.part.classes
    win = ctx.win
    found = collections.Counter(m.modality for m in win.marks)
    found[_M.ALLOW] += sum(
        1
        for m in win.marks
        if m.modality is _M.ABSORBED and win.tokens[m.start] not in _MODALS
    )
    return any(found[m] > part[m] for m in _OPENERS)


_MODALS = frozenset({"may", "can", "could", "might", "shall", "must", "will"})


def _requirement_wording(ctx: Context) -> bool:
    """Tell whether rule and window both say "no X without C", in wordings counted apart.

    "Do not merge unless coverage is 85%" and "coverage has to be 85% for a PR to be
    merged"; "do not collect data without verified consent" and "no data may be collected
    until consent is verified": a prohibition with a condition is a requirement, and
    "without" counts as a negation where "unless" and "until" do not, so the polarity
    count differs between faithful wordings. The tier cannot tell them from a reversal
    that keeps the same words, so it abstains (`lexical.requirement_wording`). A
    permission, lift or softener beside it, or a bound turned, stays damage.
    """
    if not is_on("requirement_wording") or _opened(ctx):
        return False
    part, w = ctx.part.classes, ctx.w_classes
    if not (part[_M.FORBID] and (part[_M.CONDITION] or part[_M.NEGATION])):
        return False
    words = {ctx.win.tokens[i] for i in ctx.region_tokens}
    if w[_M.FORBID] and (w[_M.CONDITION] or words & _REQUIRING):
        return True
    negatives = sum(w[m] for m in NEGATIVE)
    if negatives or not w[_M.OBLIGE]:
        return False
    # "C has to hold for X" obliges the condition; "X must be done even when ..." the act.
    acts = _act_keys(ctx.part)
    win = ctx.win
    region = set(ctx.al.region)
    return not any(
        _object_key(win, m.end) in acts
        for m in win.marks
        if m.modality is _M.OBLIGE and win.clauses[m.start] in region
    )


def _act_keys(part: Part) -> frozenset[str]:
    """Return the content keys the rule's ban governs, before its condition ("deploy a service")."""
    analysis = part.analysis
    bans = [m for m in analysis.marks if m.modality is _M.FORBID]
    if not bans:
        return frozenset()
    start = bans[0].end
    limits = [m.start for m in analysis.marks if m.start >= start and m.modality in _LIMITS]
    stop = min(limits, default=len(analysis.tokens))
    return frozenset(k for k in analysis.keys[start:stop] if k is not None)


_LIMITS = (_M.CONDITION, _M.NEGATION)


def _split_prohibition(ctx: Context) -> bool:
    """Tell whether the window states the prohibition twice, once in each of its clauses.

    "Customer lists never leave for outside tools: no exporting them to any third-party
    service": two bans in two clauses restate the rule twice; counted together their
    negations cancel. Each clause with a ban must hold an odd number of negations. The
    tier abstains (`lexical.split_prohibition`); a permission or lift beside it stays
    damage.
    """
    if not is_on("split_prohibition") or ctx.part.parity != 1 or _opened(ctx):
        return False
    win = ctx.win
    region = set(ctx.al.region)
    counts: Counter[int] = collections.Counter()
    for mark in win.marks:
        clause = win.clauses[mark.start]
        if mark.modality in NEGATIVE and clause in region:
            counts[clause] += 1
    return len(counts) >= 2 and all(n % 2 == 1 for n in counts.values())  # noqa: PLR2004


def _only_writable(ctx: Context) -> bool:
    """Tell whether the window's write word is the exclusive rule's one writable place.

    "Only write under /srv/data; everything else is read-only" and "the only writable
    location is /srv/data": "only" holds the write word, which restates the exclusive
    half. The tier abstains (`lexical.only_writable`); a write word not held by "only"
    makes the read-only rule writable.
    """
    if not is_on("only_writable") or not ctx.part.classes[_M.ONLY] or _opened(ctx):
        return False
    win = ctx.win
    onlies = [m for m in win.marks if m.modality is _M.ONLY]
    writes = [m for m in win.marks if m.modality is _M.WRITE]
    return bool(writes) and all(any(_held_write(win, w, o) for o in onlies) for w in writes)


def _held_write(win: Analysis, write: Mark, only: Mark) -> bool:
    """Tell whether "only" holds the write word: right before it, in its clause."""
    return 0 <= write.start - only.end <= 1 and win.clauses[write.start] == win.clauses[only.start]


def negations_dropped(ctx: Context, _span: tuple[int, int] | None) -> str | None:
    """Return why a window without negation cannot certify a doubly negated rule.

    "Do not collect data without verified consent" counts two negations, as "data must
    be collected before consent is verified" counts none: the polarity count agrees,
    the meaning does not (a prohibition became an obligation to act). Only an obligation
    whose object is the rule's condition restates it ("every DELETE must include a WHERE
    clause", "collection requires verified consent"); any other such window never
    certifies.
    """
    part = ctx.part.classes
    if sum(part[m] for m in NEGATIVE) < 2 or not part[_M.FORBID]:  # noqa: PLR2004
        return None
    if any(ctx.w_classes[m] for m in NEGATIVE):
        return None
    wanted = _condition_keys(ctx.part)
    win = ctx.win
    region = set(ctx.al.region)
    obliges = [m for m in win.marks if m.modality is _M.OBLIGE and win.clauses[m.start] in region]
    if obliges and all(_object_key(win, m.end) in wanted for m in obliges):
        return None
    return "a doubly negated rule restated without negation"


# Words between an obligation and its object: "must include a WHERE clause".
_CARRIERS = frozenset(
    {"a", "an", "the", "have", "has", "carry", "carries", "include", "includes", "contain"},
)


def _condition_keys(part: Part) -> frozenset[str]:
    """Return the content keys after the rule's last negation: its condition ("without X")."""
    analysis = part.analysis
    negations = [m for m in analysis.marks if m.modality in NEGATIVE]
    start = negations[-1].end if negations else len(analysis.tokens)
    return frozenset(k for k in analysis.keys[start:] if k is not None)


def _object_key(win: Analysis, position: int) -> str | None:
    """Return the first content key after `position`, past carriers and function words."""
    stop = min(len(win.tokens), position + _OBJECT_REACH)
    while position < stop and (win.tokens[position] in _CARRIERS or win.keys[position] is None):
        position += 1
    return win.keys[position] if position < stop else None


_OBJECT_REACH = 4


def unsure_extension(ctx: Context) -> Reading | None:
    """Return a reading that forbids certifying when "too" may widen an exclusive rule."""
    if ctx.topical and any(_adds_users(ctx.part, classes) for classes, _ in ctx.afterthoughts):
        evidence = {"why": "an afterthought may widen the exclusive rule"}
        return ctx.reading(None, "suspect", signs=True, evidence=evidence)
    return None


def _bound_reversed(ctx: Context) -> str | None:
    if not ctx.bound_swap:
        return None  # read first: the bound's value is looked up only for a swapped bound
    if ctx.guarded or not ctx.bound_on_value:
        return None
    acts = len(ctx.act_swaps)
    if (ctx.part.parity + acts) % 2 == ctx.w_parity:
        return "an upper bound became a lower bound or back"
    return None


def _made_writable(ctx: Context) -> str | None:
    if _read_only(ctx.part) and not read_only_kept(ctx) and _w_writable(ctx):
        if condition_met(ctx.part, ctx.win.tokens):
            return None  # "can be deleted after 14 days" past a floor: the side left open
        return "read-only became writable"
    return None


def _opened_up(ctx: Context) -> str | None:
    part, w = ctx.part.classes, ctx.w_classes
    if not part[_M.ONLY] or w[_M.ONLY]:
        return None
    if w[_M.EXTEND] > part[_M.EXTEND]:
        return "an exclusive rule was opened up"
    if w[_M.ALLOW] and _alternative_added(ctx):
        return "an exclusive rule now permits an alternative"
    return None


def _afterthought_permits(ctx: Context) -> str | None:
    for classes, where in ctx.afterthoughts:
        if _reverses(ctx.part, classes) and not _adds_users(ctx.part, classes):
            return f"the {where} permits what the rule limits"
    return None


def _adds_users(part: Part, classes: Counter[Modality]) -> bool:
    """Tell whether "too" after an exclusive rule may add users of its one choice.

    "Port 8443 is the only port; health checks go through it too": an afterthought with
    content of its own that points back by anaphor, and no permission word, may add to
    what uses the one choice rather than to the choices. The tier cannot tell which, so
    `polarity` reports it unsure (never certified) instead of reversed.
    """
    return bool(
        part.classes[_M.ONLY]
        and classes[_M.EXTEND]
        and classes[SCOPED]
        and classes[POINTED]
        and not classes[_M.ALLOW]
        and not classes[_M.CONDITION]
        and not any(classes[m] for m in NEGATIVE)
    )


def _negated(ctx: Context) -> str | None:
    if not _flipped(ctx) or ctx.gated or ctx.guarded:
        return None  # the polarity is read first: gate and guard only matter once it turned
    if not _limited_permission(ctx) and not _hedged_negation(ctx):
        if condition_met(ctx.part, ctx.win.tokens):
            return None  # "releases may ship once QA signs off": the side left open
        swaps = ctx.relation_swaps + ctx.act_swaps
        return f"opposite words {swaps}" if swaps else "negation or permission reversed"
    return None


def _flipped(ctx: Context) -> bool:
    swaps = ctx.relation_swaps
    turns = len(swaps) + len(ctx.act_swaps) + ctx.bound_swap
    if (ctx.part.parity + turns) % 2 == ctx.w_parity:
        return False  # the polarity agrees: whatever else holds, nothing flipped
    explicit = swaps or any(ctx.w_classes[m] for m in _EXPLICIT)
    return bool(explicit and _predicate_kept(ctx))


def _hedged_negation(ctx: Context) -> bool:
    """Tell whether an extra negation belongs to a hedge around the rule's own force.

    "Never exceed 5 replicas where it does not hurt latency": the rule keeps its force
    and gains a softened condition, so it is weakened, not reversed.
    """
    part, w = ctx.part.classes, ctx.w_classes
    force = [m for m in (*STRONG, _M.NEGATION) if part[m]]
    kept = bool(force) and all(w[m] >= part[m] for m in force)
    return kept and any(w[m] > part[m] for m in _SOFTENERS)


def _limited_permission(ctx: Context) -> bool:
    """Tell whether a permission is hemmed in ("allowed occasionally", "only if approved").

    Such an exception weakens the rule rather than reversing it.
    """
    w = ctx.w_classes
    return bool(w[_M.ALLOW]) and any(w[m] for m in _LIMITERS)


def _loosely_named(ctx: Context) -> bool:
    return ctx.al.coverage >= _LOOSE_COVERAGE and names_core(ctx)


def _alternative_added(ctx: Context) -> bool:
    """`or` in the window but not in the rule: "from X or from spreadsheets"."""
    in_part = "or" in ctx.part.analysis.tokens
    return not in_part and any(ctx.win.tokens[i] == "or" for i in ctx.region_tokens)


def _reverses(part: Part, classes: Counter[Modality]) -> bool:
    """Tell whether an afterthought opens, permits or makes optional what the rule binds."""
    parity = sum(n for m, n in classes.items() if m in NEGATIVE) % 2
    if part.classes[_M.ONLY] and classes[_M.EXTEND] and (classes[_M.ALLOW] or parity == 0):
        return True
    if part.parity == 1 and classes[_M.ALLOW] and parity == 0:
        return True
    return bool(any(part.classes[m] for m in STRONG) and classes[_M.OPTIONAL])


def _predicate_kept(ctx: Context) -> bool:
    """Tell whether the words the rule's negations govern are in the window too.

    A reversal must be about the same act: "must not ship" and "may ship", not "wait".
    A light verb right after the negation ("do not ask", "never use") carries no key
    but is the act all the same: the window must say it too ("must steer clear of" is
    another act, not "ask").
    """
    tokens = ctx.part.analysis.tokens
    said: frozenset[str] | None = None
    for mark in ctx.part.analysis.marks:
        if mark.modality not in NEGATIVE:
            continue
        governed = next((i for i in ctx.part.content if i >= mark.end), None)
        if governed is not None and governed not in ctx.al.matches:
            return False
        verb = next((i for i in range(mark.end, len(tokens)) if tokens[i] not in STOPWORDS), None)
        if verb is not None and verb != governed and stem(tokens[verb]) in LIGHT:
            said = said if said is not None else frozenset(stem(t) for t in ctx.win.tokens)
            if stem(tokens[verb]) not in said:
                return False
    return True


def _contradicted(ctx: Context, rule: str, why: str) -> Reading:
    # A reversal or a lift about the rule outweighs a copy elsewhere whenever it speaks
    # about the rule squarely, restated or not; the cost of missing one is a false pass.
    strong = ctx.al.coverage >= STRONG_COVERAGE or restates(ctx)
    return ctx.reading(
        Kind.CONTRADICTED,
        rule,
        explicit=True,
        strong=strong,
        evidence={"why": why, "modality": modality_evidence(ctx)},
    )


def _read_only(part: Part) -> bool:
    return bool(part.classes[_M.READONLY]) or (
        part.parity == 1 and not WRITE_VERBS.isdisjoint(part.stems)
    )


def _w_writable(ctx: Context) -> bool:
    if ctx.w_classes[_M.WRITE]:
        return True
    permits = ctx.w_classes[_M.ALLOW] or ctx.w_classes[_M.OBLIGE]
    return bool(permits and ctx.w_parity == 0 and ctx.region_stems & WRITE_VERBS)


def hedge(ctx: Context) -> Reading | None:
    """Find a hedge, condition or approximation wrapped around the rule."""
    if not ctx.topical or ctx.complement or ctx.gated or ctx.guarded:
        return None
    for check in (_softened, _afterthought_softens):
        why = check(ctx)
        if why == _HELD:
            return _unsure(ctx, "held_permission", "a permission held by 'only' to a condition")
        if why == _ENFORCED:
            return _unsure(ctx, "enforcement", "a condition on how the rule is enforced")
        if why is not None and reports_world(ctx):
            return _unsure(ctx, "world_report", f"a report of the world ({why})")
        if why is not None:
            return _weakened(ctx, "hedge", why)
    return None


def _softened(ctx: Context) -> str | None:
    part, w = ctx.part.classes, ctx.w_classes
    if _flipped(ctx) and _limited_permission(ctx):
        return _HELD if _held_permission(ctx) else "an exception to the rule was allowed"
    if _flipped(ctx) and _hedged_negation(ctx):
        return "the rule was wrapped in a negated hedge"
    added = next((m for m in _SOFTENERS if w[m] > part[m]), None)
    if added is not None:
        enforced = added is _M.CONDITION and _enforces([ctx.win], frozenset())
        return _ENFORCED if enforced else f"{added.value} added"
    if part[_M.UNIVERSAL] and w[_M.PARTIAL] > part[_M.PARTIAL]:
        return "all became some"
    if ctx.part.parity == 1 == ctx.w_parity and w[_M.ALLOW] > part[_M.ALLOW]:
        return _HELD if _held_permission(ctx) else "an exception was added to a prohibition"
    return None


def _afterthought_softens(ctx: Context) -> str | None:
    for classes, where in ctx.afterthoughts:
        if classes[SCOPED] and (classes[_M.LIFT] or classes[_M.LIFT_VERB]):
            return f"the {where} lifts the rule for some cases"
        if where == "next sentence" and not classes[POINTED]:
            continue  # a condition in the next sentence must point back to soften this rule
        for modality in _SOFTENERS:
            if classes[modality] > ctx.part.classes[modality]:
                if modality is _M.CONDITION and _enforcing(ctx, where):
                    return _ENFORCED
                return f"{modality.value} added in the {where}"
    return None


_ENFORCED = "enforced"
# A system turning the act away: "the API rejects such calls unless a token is attached".
_REFUSALS = frozenset(stem(w) for w in ("reject", "refuse", "block", "deny", "fail", "bounce"))
# Force words a statement about the rule's enforcement or about the world does not have.
_DEONTIC = frozenset(
    {
        _M.FORBID,
        _M.OBLIGE,
        _M.ALLOW,
        _M.OPTIONAL,
        _M.HEDGE,
        _M.SOFT_FORBID,
        _M.LIFT,
        _M.LIFT_VERB,
        _M.EXTEND,
    },
)


def _enforcing(ctx: Context, where: str) -> bool:
    """Tell whether the afterthought's conditions say how the rule is enforced.

    "Never call the admin API without a token. The API rejects such calls unless a token
    is attached.": the condition says when the system turns the act away, which restates
    the rule's own condition; it adds no exception to it. Each condition must follow a
    refusal verb in its clause ("skip the token unless the API rejects it" is a
    condition on the act), with no force word beside it. The tier cannot tell an
    enforcement that leaves a gap ("rejects them unless it is a GET") from one that
    restates the rule, so the reading abstains (`lexical.enforcement`), never certifies.
    """
    if where == "same sentence":
        return _enforces([ctx.win], frozenset(ctx.al.region))
    if where == "next sentence":
        return _enforces(ctx.facts.surroundings()[0], frozenset())
    return False


def _enforces(sentences: Sequence[Analysis], region: frozenset[int]) -> bool:
    """Tell whether every condition outside `region` follows a refusal verb in its clause."""
    if not is_on("enforcement"):
        return False
    seen = False
    for analysis in sentences:
        for mark in analysis.marks:
            clause = analysis.clauses[mark.start]
            if clause in region:
                continue
            if mark.modality in _DEONTIC:
                return False
            if mark.modality is not _M.CONDITION:
                continue
            before = [i for i in range(mark.start) if analysis.clauses[i] == clause]
            if not any(stem(analysis.tokens[i]) in _REFUSALS for i in before):
                return False
            seen = True
    return seen


# Words that date a statement to now or the past: it reports, it does not rule.
_REPORT_WORDS = frozenset({"today", "yesterday", "yet", "still", "already", "tonight"})
_PAST_VERBS = frozenset(
    {"went", "sent", "ran", "took", "made", "got", "saw", "found", "did", "had", "was", "were"},
)
_PRONOUNS = frozenset({"we", "i", "they", "he", "she"})
_HAVING = frozenset({"has", "have", "had", "is", "are", "was", "were", "with"})


def reports_world(ctx: Context) -> bool:
    """Tell whether the window reports the state of the world, not the rule's force.

    "Processed 61 refunds under $500 today; 4 larger ones are waiting for a manager",
    "the staging cluster still has no lifecycle policy, so nothing is deleted there
    yet": a dated or past statement with no force word ("has no" states an absence,
    not a ban) says what happened or what is, which says nothing about whether the rule
    still binds. Read as a reversal or a hedge it would be a false alarm; read as
    nothing it could hide a change, so the reading abstains (`lexical.world_report`)
    and never certifies.
    """
    if not is_on("world_report"):
        return False
    win = ctx.win
    for mark in win.marks:
        if mark.modality not in _DEONTIC:
            continue
        existential = (
            mark.modality is _M.FORBID
            and win.tokens[mark.start : mark.end] == ("no",)
            and mark.start > 0
            and win.tokens[mark.start - 1] in _HAVING
        )
        if not existential:
            return False
    return _dated(win.tokens)


def _dated(tokens: Sequence[str]) -> bool:
    """Tell whether a dating word, or a past verb with its actor or object, is there.

    "we reproduced", "they sent"; "Processed 61 refunds", "Deleted the old rows" (a
    report's opening verb, with its object right after it). A participle in a clause
    ("rounded to one decimal", "Encrypted backups ...") dates nothing.
    """
    if any(pair == ("so", "far") for pair in itertools.pairwise(tokens)):
        return True
    for i, token in enumerate(tokens):
        if token in _REPORT_WORDS:
            return True
        past = token in _PAST_VERBS or (token.endswith("ed") and len(token) > 4)  # noqa: PLR2004
        if not past or not token.isalpha():
            continue
        if i > 0 and tokens[i - 1] in _PRONOUNS:
            return True
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if i == 0 and (after in _DETERMINERS or any(ch.isdigit() for ch in after)):
            return True
    return False


_DETERMINERS = frozenset({"the", "a", "an", "all", "every", "two", "three", "four", "five"})


def modality_loss(ctx: Context) -> Reading | None:
    """Obligation turned into permission, or `or` and `and` swapped between terms."""
    if not ctx.topical or ctx.complement or ctx.guarded:
        return None
    part, w = ctx.part.classes, ctx.w_classes
    has_strong = any(part[m] for m in STRONG)
    if has_strong and not any(w[m] for m in STRONG) and w[_M.ALLOW] > part[_M.ALLOW]:
        tokens = ctx.win.tokens
        if condition_met(ctx.part, tokens) or reading_left_open(ctx.part, tokens):
            return None  # the side the rule leaves open: no force lost
        if _held_permission(ctx):
            return _unsure(ctx, "held_permission", "a permission held by 'only' to a condition")
        return _weakened(ctx, "modality_loss", "must became may")
    swap = _connective_swap(ctx)
    if swap:
        return _weakened(ctx, "modality_loss", f"connective changed: {swap}")
    return None


def _connective_swap(ctx: Context) -> str | None:
    """`or` and `and` swapped between two aligned terms of the rule.

    Under a negation written after both terms ("A and B must never ...") the swap is De
    Morgan's restatement of "never A or B", not a change.
    """
    tokens = ctx.part.analysis.tokens
    if "and" not in tokens and "or" not in tokens:
        return None  # no connective of the rule's own to swap
    matched = sorted(ctx.al.matches.items())
    negations = [m.start for m in ctx.win.marks if m.modality in NEGATIVE]
    for (c_left, w_left), (c_right, w_right) in itertools.pairwise(matched):
        if w_right <= w_left:
            continue
        c_between = {t for t in tokens[c_left + 1 : c_right] if t in {"and", "or"}}
        w_between = {t for t in ctx.win.tokens[w_left + 1 : w_right] if t in {"and", "or"}}
        if len(c_between) == 1 and len(w_between) == 1 and c_between != w_between:
            if ctx.part.parity == 1 and not any(n < w_left for n in negations):
                continue
            return f"{c_between.pop()}->{w_between.pop()}"
    return None


_HELD = "held permission"
# "can only be merged if", "may only go through with": "only" right after the permission.
# "only after that may they be purged": "only" and a relation word before it.
_HOLDING = frozenset({"after", "if", "when", "once", "with", "upon", "on", "before", "until", "in"})
_HELD_REACH = 4
# Marks that weaken the rule whatever holds the permission ("can usually only ...").
_LOOSENERS = (
    _M.HEDGE,
    _M.SOFT_FORBID,
    _M.APPROX,
    _M.PARTIAL,
    _M.OPTIONAL,
    _M.LIFT,
    _M.LIFT_VERB,
    _M.EXTEND,
)


def _held_permission(ctx: Context) -> bool:
    """Tell whether every permission in the region is held by "only" to a condition.

    "A pull request can only be merged if coverage is at least 85%", "refunds over $500
    can only go through with a manager's approval", "only after that may they be
    purged": the permission grants nothing beyond the condition, so it states what the
    rule requires, not an exception to it. The tier cannot tell that condition from an
    exception of another kind, so the reading abstains (`lexical.held_permission`) and
    never certifies. "Only admins may skip it" (a subject after "only") is not held.
    """
    if not is_on("held_permission") or not conditioned(ctx.part):
        return False
    part, w = ctx.part.classes, ctx.w_classes
    if any(w[m] > part[m] for m in _LOOSENERS):
        return False
    region = set(ctx.al.region)
    marks = [m for m in ctx.win.marks if ctx.win.clauses[m.start] in region]
    allows = [m for m in marks if m.modality is _M.ALLOW]
    onlies = [m for m in ctx.win.marks if m.modality is _M.ONLY]
    return bool(allows) and all(any(_holds(ctx, a, o) for o in onlies) for a in allows)


def _holds(ctx: Context, allow: Mark, only: Mark) -> bool:
    tokens = ctx.win.tokens
    if only.start >= allow.end:
        # "can only", "is fine, but only on ...": nothing but a conjunction between.
        return all(t in {"but", "and"} for t in tokens[allow.end : only.start])
    gap = allow.start - only.end
    return 0 < gap <= _HELD_REACH and tokens[only.end] in _HOLDING


def _unsure(ctx: Context, name: str, why: str) -> Reading:
    strong = ctx.al.coverage >= STRONG_COVERAGE or restates(ctx)
    evidence = {"why": why, "abstained": f"lexical.{name}", "modality": modality_evidence(ctx)}
    return ctx.reading(None, UNSURE, signs=True, strong=strong, evidence=evidence)


def _weakened(ctx: Context, rule: str, why: str) -> Reading:
    strong = ctx.al.coverage >= STRONG_COVERAGE or restates(ctx)
    evidence = {"why": why, "modality": modality_evidence(ctx)}
    return ctx.reading(Kind.WEAKENED, rule, explicit=True, strong=strong, evidence=evidence)
