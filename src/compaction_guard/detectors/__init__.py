"""The detector chain: layers that classify what a compaction did to each constraint.

Layers run cheap to expensive and stop at the first sound verdict. See docs/DESIGN.md,
"Detector chain". The model layers import their extras only when first used.
"""

from compaction_guard.detectors.base import (
    ALLOWED_KINDS,
    Abstain,
    ChainResult,
    Detector,
    DetectorChain,
    LayerVerdict,
)
from compaction_guard.detectors.embedding import EmbeddingDetector
from compaction_guard.detectors.judge import JudgeDetector, JudgeFn
from compaction_guard.detectors.lexical import LexicalDetector
from compaction_guard.detectors.nli import NLIDetector

__all__ = [
    "ALLOWED_KINDS",
    "Abstain",
    "ChainResult",
    "Detector",
    "DetectorChain",
    "EmbeddingDetector",
    "JudgeDetector",
    "JudgeFn",
    "LayerVerdict",
    "LexicalDetector",
    "NLIDetector",
]


def __dir__() -> list[str]:
    return list(__all__)
