"""The stdlib lexical layer: anchors, modality and word order, compared sentence by sentence.

Every site is read (summary and retained tail) and the worst statement wins; the
guard's own block is reported only through the echo rule. See docs/DESIGN.md,
"Lexical layer".
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from compaction_guard.detectors.base import Abstain, Detector, LayerVerdict
from compaction_guard.detectors.lexical.align import Part, parts_of
from compaction_guard.detectors.lexical.context import Sentences, marked
from compaction_guard.detectors.lexical.damage import UNSURE
from compaction_guard.detectors.lexical.index import ViewIndex
from compaction_guard.detectors.lexical.rules import (
    STRONG_COVERAGE,
    Reading,
    Window,
    Words,
    could_trace,
    evaluate,
    switched_off_now,
    words_of,
)
from compaction_guard.detectors.lexical.switches import is_on
from compaction_guard.detectors.lexical.text import join
from compaction_guard.detectors.lexical.world import Departure, closed_world
from compaction_guard.taxonomy import CERTIFYING_KINDS, Kind, Site, severity_rank

if TYPE_CHECKING:
    from compaction_guard.detectors.lexical.context import Glance, Surroundings
    from compaction_guard.detectors.lexical.text import Analysis
    from compaction_guard.invariant import Invariant
    from compaction_guard.view import SummaryView

__all__ = ["LexicalDetector"]

_HINT_RULES = {Kind.CONTRADICTED: "polarity", Kind.WEAKENED: "hedge"}
_AFTER = 2


class LexicalDetector(Detector):
    """Classify a constraint from the words of the compacted context alone.

    Issues every kind but `unverifiable`; abstains when it cannot be sound, and then
    forbids later layers to certify whenever it saw a sign of damage it could not name
    (a value or modality missing from the constraint's topic sentences).
    """

    layer = "lexical"

    def __init__(self) -> None:
        self._last: tuple[SummaryView, ViewIndex] | None = None

    def detect(self, invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
        """Classify `invariant` against `view`; see the module docstring for the rules."""
        index = self._index(view)
        outcomes = [_judge_part(part, index) for part in parts_of(invariant.text)]
        return _conclude(outcomes, index, carried=invariant.id in view.carried)

    def _index(self, view: SummaryView) -> ViewIndex:
        # One index per view: the guard asks about every constraint against the same view.
        last = self._last
        if last is not None and last[0] is view:
            return last[1]
        index = ViewIndex(view)
        self._last = (view, index)
        return index


@dataclass(slots=True)
class _Outcome:
    """What every window says about one part of a constraint."""

    part: Part
    readings: list[Reading] = field(default_factory=list)
    # The readings that certify, picked once: every verdict step asks for them.
    certified: list[Reading] = field(init=False)

    def __post_init__(self) -> None:
        self.certified = [r for r in self.readings if r.kind in CERTIFYING_KINDS]

    @property
    def damage(self) -> Reading | None:
        certs = self.certified
        stated = [r for r in self.readings if r.explicit and _outweighs(r, certs)]
        return _worst(stated)

    @property
    def hinted(self) -> Reading | None:
        """Loose summary damage, when the only certified copies live outside the summary."""
        certs = self.certified
        if any(r.site is Site.SUMMARY and not r.tool for r in certs):
            return None
        hinted = [r for r in self.readings if r.hint is not None]
        if not hinted:
            return None
        worst = min(hinted, key=lambda r: (severity_rank(r.hint), -r.coverage))  # type: ignore[arg-type]
        return dataclasses.replace(worst, kind=worst.hint, rule=_HINT_RULES[worst.hint])  # type: ignore[index]

    @property
    def tail_only(self) -> bool:
        """Certified, but only outside the summary (the kept tail or a tool result)."""
        certs = self.certified
        return bool(certs) and not any(_in_summary(r) for r in certs)

    @property
    def contested(self) -> Reading | None:
        """Damage inferred from the summary against a copy that only the tail keeps."""
        if not self.tail_only:
            return None
        inferred = [r for r in self.readings if _in_summary(r) and r.kind is not None]
        return _worst([r for r in inferred if r.kind not in CERTIFYING_KINDS])

    @property
    def unsettled(self) -> bool:
        """Whether a copy must not certify: a reading abstained where it would read damage.

        Either the summary restates the rule uncertifiably while only the tail keeps it,
        or a window speaks squarely about the rule in a way the tier cannot tell from
        damage (`damage.UNSURE`): where a damage reading would outweigh a copy, its
        abstention must keep the copy from certifying too.
        """
        if any(r.rule == UNSURE and r.strong for r in self.readings):
            return True
        return self.tail_only and any(
            _in_summary(r) and r.rule == "suspect" and r.coverage >= STRONG_COVERAGE
            for r in self.readings
        )

    @property
    def absence(self) -> Reading | None:
        inferred = [r for r in self.readings if r.kind is not None and not r.explicit]
        inferred = [r for r in inferred if r.kind not in CERTIFYING_KINDS]
        return _worst(inferred)

    @property
    def signs(self) -> bool:
        return any(r.signs for r in self.readings)


def _in_summary(reading: Reading) -> bool:
    return reading.site is Site.SUMMARY and not reading.tool


def _outweighs(damage: Reading, certs: list[Reading]) -> bool:
    """Tell whether stated damage beats a certified copy.

    It does when it is aligned, or when only the tail holds the copy and the summary
    states the damage: two authorities in one context.
    """
    if not certs or damage.strong:
        return True
    in_summary = damage.site is Site.SUMMARY and not damage.tool
    return in_summary and all(c.site is Site.RETAINED or c.tool for c in certs)


def _worst(readings: list[Reading]) -> Reading | None:
    if not readings:
        return None
    return min(readings, key=lambda r: (severity_rank(r.kind), -r.coverage))  # type: ignore[arg-type]


def _judge_part(part: Part, index: ViewIndex) -> _Outcome:
    readings: list[Reading] = []
    # A part whose words all share one synonym group can only share one word with anything.
    need = max(1, min(2, part.offered))
    # Every sentence on the topic is read: no cap (closed-world certification).
    chosen = index.chosen(part.lookup, part.probes, need)
    singles = {sid: _read(part, index, (sid,)) for sid in chosen}
    readings.extend(r for r in singles.values() if r is not None)
    for sid, reading in singles.items():
        nxt = index.next_id(sid)
        if nxt is None or not _partial(reading) or not _partial(singles.get(nxt)):
            continue
        # A rule split over two sentences: read them together, but only when neither
        # half speaks for the rule alone (a pair must never borrow a neighbour's words).
        joined = _read(part, index, (sid, nxt))
        if joined is None:
            continue
        best = max(reading.coverage, singles[nxt].coverage)  # type: ignore[union-attr]
        if joined.kind in CERTIFYING_KINDS or joined.coverage > best:
            readings.append(joined)
    return _Outcome(part, readings)


def _partial(reading: Reading | None) -> bool:
    return reading is not None and reading.kind is None


def _read(part: Part, index: ViewIndex, sids: tuple[int, ...]) -> Reading | None:
    memo_key = (part.text, part.family, sids)
    if memo_key in index.memo:
        return index.memo[memo_key]  # type: ignore[return-value]
    window = index.memo.get(("window", sids))
    if window is None and len(sids) == 1 and not could_trace(part, _words(index, sids[0])):
        # No trace, told from the tokens: a sentence no part traces is never analysed
        # here. Once its window is built, the alignment tells as cheaply.
        index.memo[memo_key] = None
        return None
    if not isinstance(window, Window):
        window = index.memo["window", sids] = _window(index, sids)
    reading = evaluate(part, window)
    index.memo[memo_key] = reading
    return reading


def _words(index: ViewIndex, sid: int) -> Words:
    """Read the tokens of sentence `sid` for `could_trace`, once per view."""
    words = index.memo.get(("words", sid))
    if not isinstance(words, Words):
        words = index.memo["words", sid] = words_of(index.sentences[sid].worded().tokens)
    return words


def _marked(index: ViewIndex, sid: int) -> bool:
    """Tell whether sentence `sid` has a force word, once per view (`context.marked`).

    Up to two windows before it ask; its analysis, when some window read it, tells at once.
    """
    found = index.memo.get(("marked", sid))
    if not isinstance(found, bool):
        sentence = index.sentences[sid]
        if sentence.analysis is not None:
            found = bool(sentence.analysis.marks)
        else:
            found = marked(sentence.worded().tokens)
        index.memo["marked", sid] = found
    return found


def _window(index: ViewIndex, sids: tuple[int, ...]) -> Window:
    """Build the window of `sids`, once per view: every part reads the same one."""
    sentences = [index.sentences[sid] for sid in sids]
    # The window is kept in the index's memo: what it reads later reaches the index weakly.
    live = index.weak()

    def nearby() -> tuple[ViewIndex, list[int], Analysis | None]:
        index = live()
        after: list[int] = []
        nxt = index.next_id(sids[-1])
        while nxt is not None and len(after) < _AFTER:
            after.append(nxt)
            nxt = index.next_id(nxt)
        heading = index.heading_of(sids[0])
        return index, after, None if heading is None else index.sentences[heading].analysed()

    def surroundings() -> Surroundings:
        index, after, heading = nearby()
        return tuple(index.sentences[sid].analysed() for sid in after), heading

    def glance() -> Glance:
        index, after, heading = nearby()
        return any(_marked(index, sid) for sid in after), heading

    analysis = (
        sentences[0].analysed()
        if len(sentences) == 1
        else join(tuple(s.analysed() for s in sentences))
    )
    off = index.memo.get("switched off")
    if not isinstance(off, tuple):
        off = index.memo["switched off"] = switched_off_now()  # read once per view
    return Window(
        analysis=analysis,
        site=sentences[0].site,
        tool=any(s.tool for s in sentences),
        facts=Sentences(analysis, surroundings, glance),
        sids=sids,
        switched_off=off,
    )


def _conclude(  # noqa: PLR0911 (one return per verdict of the precedence table)
    outcomes: list[_Outcome], index: ViewIndex, *, carried: bool
) -> LayerVerdict | Abstain:
    # Each property below is worked out from the readings on every read: read once.
    damages = [found for o in outcomes if (found := o.damage) is not None]
    if not damages and (carried or any(o.certified for o in outcomes)):
        # The summary restates the rule loosely with another force while a copy survives
        # in the tail or the carried block: two authorities, and the damage wins.
        damages = [found for o in outcomes if (found := o.hinted) is not None]
    damages = damages or [found for o in outcomes if (found := o.contested) is not None]
    if damages:
        return _damage_verdict(_worst(damages))  # type: ignore[arg-type]
    if all(o.certified for o in outcomes) and not any(o.unsettled for o in outcomes):
        departed = _departure(outcomes, index)
        if departed is None:
            return _certified_verdict(outcomes, carried=carried)
        return _departure_verdict(departed)
    inferred = [found for o in outcomes if not o.certified and (found := o.absence) is not None]
    traced = [o for o in outcomes if o.readings]
    signs = any(o.signs for o in outcomes) or (bool(traced) and len(traced) < len(outcomes))
    signs = signs or any(o.unsettled for o in outcomes) or bool(inferred)
    # A later layer (or the echo) may certify only after a clean reading of the topic; a
    # departure the closed world names decides even where a restatement lacks something.
    # With signs already seen, a departure it cannot name changes nothing below.
    named_only = bool(inferred) or signs
    departed = _departure(outcomes, index, named_only=named_only) if traced else None
    if departed is not None and departed.kind is not None:
        return _departure_verdict(departed)
    if inferred:
        return _inferred_verdict(_worst(inferred))  # type: ignore[arg-type]
    if departed is not None and not signs:
        return _departure_verdict(departed)
    if carried and not signs and is_on("block_echo"):
        return LayerVerdict(
            kind=Kind.PRESERVED,
            rule="block_echo",
            evidence={"site": Site.BLOCK.value},
            survived_in=(Site.BLOCK,),
        )
    if not traced and is_on("miss"):
        return LayerVerdict(
            kind=Kind.DROPPED,
            rule="miss",
            evidence={
                "searched": "summary and retained text",
                "parts": [o.part.text for o in outcomes],
            },
        )
    forbid = CERTIFYING_KINDS if signs else frozenset()
    reason = "the topic survives but not every value and modality could be matched"
    evidence = {
        "traces": [r.evidence for o in outcomes for r in o.readings[:3]],
        "closed_world": "departure" if signs else "clean",
        "rule": "unaligned",
    }
    return Abstain(reason, forbid=forbid, evidence=evidence)


def _departure(
    outcomes: list[_Outcome], index: ViewIndex, *, named_only: bool = False
) -> Departure | None:
    """Return the first departure from any part in the closed world, or None.

    With `named_only` (a restatement already lacks something, and only a departure the
    tier names outranks that) the last part's departure matters only if it is named: its
    closed world is spared the search for one it cannot name. An earlier part's unnamed
    departure still ends the search, as it always has.
    """
    last = len(outcomes) - 1
    for number, outcome in enumerate(outcomes):
        named = named_only and number == last
        found = closed_world(outcome.part, index, outcome.certified, named_only=named)
        if found is not None:
            return found
    return None


def _departure_verdict(found: Departure) -> LayerVerdict | Abstain:
    evidence = {"why": found.why, "sentence": found.sentence, "closed_world": "departure"}
    if found.kind is None:
        reason = f"a statement on the topic could not be accounted for: {found.why}"
        return Abstain(reason, forbid=CERTIFYING_KINDS, evidence=evidence | {"rule": found.rule})
    return LayerVerdict(kind=found.kind, rule=found.rule, evidence=evidence)


def _inferred_verdict(reading: Reading) -> LayerVerdict | Abstain:
    """Damage inferred from something missing in a restatement.

    A value or force that a reworded restatement lacks may be there in words the tier
    cannot read ("2-4 AM", "confined to"): that is damage seen but not named, so the
    tier abstains and forbids certification, unless another anchor replaced it.
    """
    if reading.explicit or reading.evidence.get("replaced"):
        return _damage_verdict(reading)
    evidence = {**reading.evidence, "closed_world": "departure", "rule": reading.rule}
    reason = f"a restatement lacks part of the rule ({reading.evidence.get('why', reading.rule)})"
    return Abstain(reason, forbid=CERTIFYING_KINDS, evidence=evidence)


def _damage_verdict(reading: Reading) -> LayerVerdict:
    return LayerVerdict(kind=reading.kind, rule=reading.rule, evidence=reading.evidence)  # type: ignore[arg-type]


def _certified_verdict(outcomes: list[_Outcome], *, carried: bool) -> LayerVerdict:
    best = [min(o.certified, key=_certificate_rank) for o in outcomes]
    kind = Kind.PRESERVED if all(r.kind is Kind.PRESERVED for r in best) else Kind.PARAPHRASED
    rules = {r.rule for r in best}
    rule = next(r for r in ("paraphrase", "near_verbatim", "verbatim") if r in rules)
    sites: set[Site] = set()
    at_risk = False
    for outcome in outcomes:
        held = {Site.RETAINED if r.tool else r.site for r in outcome.certified}
        sites |= held
        at_risk = at_risk or held == {Site.RETAINED}
    if carried:
        sites.add(Site.BLOCK)
        at_risk = False
    order = (Site.SUMMARY, Site.RETAINED, Site.BLOCK)
    evidence = best[0].evidence if len(best) == 1 else {"parts": [r.evidence for r in best]}
    return LayerVerdict(
        kind=kind,
        rule=rule,
        evidence=evidence,
        survived_in=tuple(s for s in order if s in sites),
        at_risk=at_risk,
    )


def _certificate_rank(reading: Reading) -> tuple[int, int]:
    kind_rank = 0 if reading.kind is Kind.PRESERVED else 1
    site_rank = 0 if reading.site is Site.SUMMARY and not reading.tool else 1
    return kind_rank, site_rank
