"""compaction-guard: keep registered constraints in context across compaction."""

from compaction_guard.errors import (
    BlockIntegrityError,
    BudgetExceeded,
    CodecError,
    CompactionGuardError,
    DetectorContractError,
    DuplicateInvariantId,
    InvariantViolation,
    MissingExtraError,
    ReceiptError,
    ReceiptIntegrityError,
    ReceiptSealError,
    RegistryError,
    UnknownInvariantError,
)
from compaction_guard.taxonomy import (
    GATING_KINDS,
    SEVERITY_ORDER,
    Kind,
    Mode,
    Policy,
    Severity,
    Site,
)

__all__ = [
    "GATING_KINDS",
    "SEVERITY_ORDER",
    "BlockIntegrityError",
    "BudgetExceeded",
    "CodecError",
    "CompactionGuardError",
    "DetectorContractError",
    "DuplicateInvariantId",
    "InvariantViolation",
    "Kind",
    "MissingExtraError",
    "Mode",
    "Policy",
    "ReceiptError",
    "ReceiptIntegrityError",
    "ReceiptSealError",
    "RegistryError",
    "Severity",
    "Site",
    "UnknownInvariantError",
]
