"""compaction-guard: keep registered constraints in context across compaction."""

__version__ = "0.2.0"

from compaction_guard import group_trim, receipt  # noqa: F401 - public submodules
from compaction_guard.block import format_block, parse_blocks, strip_blocks
from compaction_guard.codec import AutoCodec, ContextCodec, Rendering
from compaction_guard.detectors.base import (
    ALLOWED_KINDS,
    Abstain,
    Detector,
    DetectorChain,
    LayerVerdict,
)
from compaction_guard.detectors.judge import JudgeFn
from compaction_guard.errors import (
    BlockIntegrityError,
    BudgetExceeded,
    CanonicalJSONError,
    CodecError,
    CompactionGuardError,
    DetectorContractError,
    DuplicateInvariantId,
    InvariantViolation,
    MissingExtraError,
    ReceiptError,
    ReceiptIntegrityError,
    ReceiptKeyError,
    ReceiptLockError,
    ReceiptSealError,
    RegistryError,
    UnknownInvariantError,
)
from compaction_guard.guard import Guard, check, default_detectors
from compaction_guard.invariant import Invariant, InvariantId, invariant_id
from compaction_guard.report import BlockBudget, CompactionReport, Finding, Removal, Report
from compaction_guard.taxonomy import (
    GATING_KINDS,
    SEVERITY_ORDER,
    Kind,
    Mode,
    Policy,
    Severity,
    Site,
)
from compaction_guard.view import Passage, Segment, SummaryView

__all__ = [
    "ALLOWED_KINDS",
    "GATING_KINDS",
    "SEVERITY_ORDER",
    "Abstain",
    "AutoCodec",
    "BlockBudget",
    "BlockIntegrityError",
    "BudgetExceeded",
    "CanonicalJSONError",
    "CodecError",
    "CompactionGuardError",
    "CompactionReport",
    "ContextCodec",
    "Detector",
    "DetectorChain",
    "DetectorContractError",
    "DuplicateInvariantId",
    "Finding",
    "Guard",
    "Invariant",
    "InvariantId",
    "InvariantViolation",
    "JudgeFn",
    "Kind",
    "LayerVerdict",
    "MissingExtraError",
    "Mode",
    "Passage",
    "Policy",
    "ReceiptError",
    "ReceiptIntegrityError",
    "ReceiptKeyError",
    "ReceiptLockError",
    "ReceiptSealError",
    "RegistryError",
    "Removal",
    "Rendering",
    "Report",
    "Segment",
    "Severity",
    "Site",
    "SummaryView",
    "UnknownInvariantError",
    "check",
    "default_detectors",
    "format_block",
    "invariant_id",
    "parse_blocks",
    "strip_blocks",
]
