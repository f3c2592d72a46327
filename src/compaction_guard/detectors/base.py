"""The Detector protocol, the verdict records, the kind whitelist and the chain runner.

See docs/DESIGN.md, "Detector chain" (promises 1 and 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from compaction_guard.errors import DetectorContractError
from compaction_guard.taxonomy import Kind, Site

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from compaction_guard.invariant import Invariant
    from compaction_guard.view import SummaryView

__all__ = ["ALLOWED_KINDS", "Abstain", "ChainResult", "Detector", "DetectorChain", "LayerVerdict"]

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
    the layer is sound about it, and Abstain otherwise. `unavailable` is a reason
    (with the install command) when the layer cannot run here; the chain then skips it.
    """

    layer: str

    def detect(self, invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
        """Classify one constraint against one compaction."""
        ...

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


class DetectorChain:
    """Run detectors in order and stop at the first sound, allowed verdict.

    Exhaustion yields UNVERIFIABLE decided by `chain.exhausted`; the trail records why
    each layer abstained or was skipped, so a missing extra shows its install command.
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
        trail: list[Mapping[str, Any]] = []
        forbidden: set[Kind] = set()
        for detector in self.detectors:
            reason = detector.unavailable
            if reason is not None:
                trail.append({"layer": detector.layer, "skipped": reason})
                continue
            outcome = detector.detect(invariant, view)
            if isinstance(outcome, Abstain):
                forbidden |= outcome.forbid
                trail.append({"layer": detector.layer, "abstained": outcome.reason})
                continue
            _check_allowed(detector.layer, outcome)
            if outcome.kind in forbidden:
                trail.append(
                    {"layer": detector.layer, "vetoed": f"{outcome.kind.value} was forbidden"},
                )
                continue
            decided_by = f"{detector.layer}.{outcome.rule}"
            return ChainResult(verdict=outcome, decided_by=decided_by, trail=tuple(trail))
        exhausted = LayerVerdict(kind=Kind.UNVERIFIABLE, rule="exhausted")
        return ChainResult(verdict=exhausted, decided_by="chain.exhausted", trail=tuple(trail))


def _check_allowed(layer: str, verdict: LayerVerdict) -> None:
    if verdict.kind not in ALLOWED_KINDS[layer]:
        raise DetectorContractError(
            f"the {layer} layer issued {verdict.kind.value!r}, which ALLOWED_KINDS forbids "
            "for that layer; return Abstain instead",
        )
