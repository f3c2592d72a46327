"""The detector chain: layers that classify what a compaction did to each constraint.

Layers run cheap to expensive and stop at the first sound verdict. See docs/DESIGN.md,
"Detector chain".
"""

from compaction_guard.detectors.base import (
    ALLOWED_KINDS,
    Abstain,
    Detector,
    DetectorChain,
    LayerVerdict,
)

__all__ = ["ALLOWED_KINDS", "Abstain", "Detector", "DetectorChain", "LayerVerdict"]


def __dir__() -> list[str]:
    return list(__all__)
