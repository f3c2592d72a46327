"""The Detector protocol, the verdict records, the kind whitelist and the chain runner.

See docs/DESIGN.md, "Detector chain" (promises 1 and 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from compaction_guard.errors import DetectorContractError
from compaction_guard.taxonomy import CERTIFYING_KINDS, Kind, Site

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from compaction_guard.invariant import Invariant
    from compaction_guard.view import SummaryView

__all__ = [
    "ALLOWED_KINDS",
    "CLOSED_WORLD_READERS",
    "NEEDS_CLEAN_READING",
    "Abstain",
    "ChainResult",
    "Detector",
    "DetectorChain",
    "LayerVerdict",
]

# Which kinds each layer may issue. Embeddings are blind to negation and to $500 vs $5000,
# so they may only confirm absence; NLI may never issue `mutated`; a judge verdict stands
# only with a cited span that re-verifies (enforced inside the judge layer).
ALLOWED_KINDS: Mapping[str, frozenset[Kind]] = {
    "lexical": frozenset(Kind) - {Kind.UNVERIFIABLE},
    "embedding": frozenset({Kind.DROPPED}),
    "nli": frozenset(
        {Kind.PRESERVED, Kind.PARAPHRASED, Kind.WEAKENED, Kind.CONTRADICTED, Kind.DROPPED},
    ),
    "judge": frozenset(
        {Kind.PARAPHRASED, Kind.WEAKENED, Kind.MUTATED, Kind.CONTRADICTED, Kind.DROPPED},
    ),
}

# Layers whose certifications stand only after a closed-world reading of the whole context
# found nothing departing from the rule (promise 6a): NLI scores one sentence and a judge
# cites one span, and neither can vouch for what the rest of the context says.
NEEDS_CLEAN_READING: Mapping[str, frozenset[Kind]] = {
    "nli": CERTIFYING_KINDS,
    "judge": CERTIFYING_KINDS,
}

# Layers that read the whole context closed-world. Their Abstain is clean when it forbids
# no certification and its evidence does not say `closed_world: "departure"`.
CLOSED_WORLD_READERS: frozenset[str] = frozenset({"lexical"})


@dataclass(frozen=True, slots=True)
class LayerVerdict:
    """A sound verdict from one layer, with the rule that decided it and its evidence."""

    kind: Kind
    rule: str
    evidence: Mapping[str, Any] = field(default_factory=dict)
    score: float | None = None
    survived_in: tuple[Site, ...] = ()
    at_risk: bool = False


@dataclass(frozen=True, slots=True)
class Abstain:
    """No sound verdict from this layer.

    `forbid` lists kinds that later layers may not issue for this constraint: a lexical
    layer that saw a value missing from the topic window forbids certification even
    though it could not name the damage.
    """

    reason: str
    forbid: frozenset[Kind] = frozenset()
    evidence: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class Detector(Protocol):
    """One layer of the chain.

    `layer` names a row of ALLOWED_KINDS. `detect` returns a LayerVerdict only when
    the layer is sound about it, and Abstain otherwise. `detect_many` answers several
    constraints against one view at once (a judge batches them into one call); its
    default asks `detect` for each. `unavailable` is a reason (with the install command)
    when the layer cannot run here; the chain then skips it.
    """

    layer: str

    def detect(self, invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
        """Classify one constraint against one compaction."""
        ...

    def detect_many(
        self, invariants: Sequence[Invariant], view: SummaryView,
    ) -> Sequence[LayerVerdict | Abstain]:
        """Classify each of `invariants` against `view`; one outcome per constraint, in order."""
        return [self.detect(invariant, view) for invariant in invariants]

    @property
    def unavailable(self) -> str | None:
        """Why this layer cannot run here, or None when it can."""
        return None


@dataclass(frozen=True, slots=True)
class ChainResult:
    """What the chain concluded for one constraint."""

    verdict: LayerVerdict
    decided_by: str
    trail: tuple[Mapping[str, Any], ...]


@dataclass(slots=True)
class _Open:
    """One constraint on its way down the chain: what earlier layers ruled out and saw."""

    trail: list[Mapping[str, Any]] = field(default_factory=list)
    forbidden: set[Kind] = field(default_factory=set)
    clean_reading: bool = False
    result: ChainResult | None = None

    def take(self, layer: str, outcome: LayerVerdict | Abstain) -> None:
        if isinstance(outcome, Abstain):
            self.forbidden |= outcome.forbid
            if layer in CLOSED_WORLD_READERS:
                self.clean_reading = _is_clean(outcome)
            self.trail.append({"layer": layer, "abstained": outcome.reason})
            return
        _check_allowed(layer, outcome)
        veto = self._veto(layer, outcome.kind)
        if veto is not None:
            self.trail.append({"layer": layer, "vetoed": veto})
            return
        decided_by = f"{layer}.{outcome.rule}"
        self.result = ChainResult(verdict=outcome, decided_by=decided_by, trail=tuple(self.trail))

    def _veto(self, layer: str, kind: Kind) -> str | None:
        if kind in self.forbidden:
            return f"{kind.value} was forbidden"
        if kind in NEEDS_CLEAN_READING.get(layer, frozenset()) and not self.clean_reading:
            readers = ", ".join(sorted(CLOSED_WORLD_READERS))
            return (
                f"{kind.value} needs a clean closed-world reading of the context by an "
                f"earlier layer ({readers}), and none was recorded"
            )
        return None


def _is_clean(outcome: Abstain) -> bool:
    """Whether a closed-world reader's abstention leaves certification open."""
    if outcome.forbid & CERTIFYING_KINDS:
        return False
    return bool(outcome.evidence.get("closed_world", "clean") == "clean")


class DetectorChain:
    """Run detectors in order and stop, per constraint, at the first sound, allowed verdict.

    A later layer sees only the constraints every earlier layer left undecided. A layer
    in NEEDS_CLEAN_READING may certify only after a CLOSED_WORLD_READERS layer abstained
    without forbidding certification. Exhaustion yields UNVERIFIABLE decided by
    `chain.exhausted`; the trail records why each layer abstained, was vetoed or was
    skipped, so a missing extra shows its install command.
    """

    def __init__(self, detectors: Sequence[Detector]) -> None:
        for detector in detectors:
            layer = getattr(detector, "layer", None)
            if layer not in ALLOWED_KINDS or not callable(getattr(detector, "detect", None)):
                known = ", ".join(sorted(ALLOWED_KINDS))
                raise DetectorContractError(
                    f"detector {detector!r} declares layer {layer!r} or has no detect(); "
                    f"subclass Detector with a layer from: {known}",
                )
        self.detectors = tuple(detectors)

    def run(self, invariant: Invariant, view: SummaryView) -> ChainResult:
        """Classify `invariant` against `view`."""
        return self.run_all([invariant], view)[0]

    def run_all(self, invariants: Sequence[Invariant], view: SummaryView) -> list[ChainResult]:
        """Classify every constraint against one view, layer by layer; results in order."""
        states = [_Open() for _ in invariants]
        for detector in self.detectors:
            waiting = [i for i, state in enumerate(states) if state.result is None]
            if not waiting:
                break
            reason = detector.unavailable
            if reason is not None:
                for i in waiting:
                    states[i].trail.append({"layer": detector.layer, "skipped": reason})
                continue
            outcomes = _ask(detector, [invariants[i] for i in waiting], view)
            for i, outcome in zip(waiting, outcomes, strict=True):
                states[i].take(detector.layer, outcome)
        return [state.result or _exhausted(state) for state in states]


def _exhausted(state: _Open) -> ChainResult:
    verdict = LayerVerdict(kind=Kind.UNVERIFIABLE, rule="exhausted")
    return ChainResult(verdict=verdict, decided_by="chain.exhausted", trail=tuple(state.trail))


def _ask(
    detector: Detector, invariants: Sequence[Invariant], view: SummaryView,
) -> Sequence[LayerVerdict | Abstain]:
    # Detectors that do not subclass the protocol have no detect_many; ask one by one.
    many = getattr(detector, "detect_many", None)
    if not callable(many):
        return [detector.detect(invariant, view) for invariant in invariants]
    outcomes: Sequence[LayerVerdict | Abstain] = many(invariants, view)
    if len(outcomes) != len(invariants):
        raise DetectorContractError(
            f"the {detector.layer} layer's detect_many returned {len(outcomes)} outcomes for "
            f"{len(invariants)} constraints; return exactly one per constraint, in order",
        )
    return outcomes


def _check_allowed(layer: str, verdict: LayerVerdict) -> None:
    if verdict.kind not in ALLOWED_KINDS[layer]:
        raise DetectorContractError(
            f"the {layer} layer issued {verdict.kind.value!r}, which ALLOWED_KINDS forbids "
            "for that layer; return Abstain instead",
        )
