"""The exception tree of compaction-guard, and nothing else.

    CompactionGuardError                       catch-all for this library
    ├── RegistryError (also ValueError)        a bad registration
    │   ├── DuplicateInvariantId
    │   ├── UnknownInvariantError              remove() of an id that is not registered
    │   └── BudgetExceeded
    ├── DetectorContractError                  a detector issued a kind outside ALLOWED_KINDS
    ├── CodecError                             this context shape cannot be rendered or written
    ├── BlockIntegrityError                    the sentinel block is missing, edited, or stale
    ├── ReceiptError
    │   ├── ReceiptIntegrityError              a digest or chain link fails; .line_number
    │   ├── ReceiptSealError                   a claimed drop set disagrees with the inferred one
    │   ├── ReceiptLockError (also TimeoutError) the log stayed locked; nothing was written
    │   ├── ReceiptKeyError (also ValueError)  the receipt key is empty or its variable unset
    │   └── CanonicalJSONError (also ValueError) a value has no RFC 8785 form; .path
    ├── InvariantViolation                     RAISE policy refused; .report
    └── MissingExtraError (also ImportError)   .extra, .module; message holds the pip command
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BlockIntegrityError",
    "BudgetExceeded",
    "CanonicalJSONError",
    "CodecError",
    "CompactionGuardError",
    "DetectorContractError",
    "DuplicateInvariantId",
    "InvariantViolation",
    "MissingExtraError",
    "ReceiptError",
    "ReceiptIntegrityError",
    "ReceiptKeyError",
    "ReceiptLockError",
    "ReceiptSealError",
    "RegistryError",
    "UnknownInvariantError",
]


class CompactionGuardError(Exception):
    """Base class of every error this library raises on purpose."""


class RegistryError(CompactionGuardError, ValueError):
    """A constraint could not be registered or removed as asked."""


class DuplicateInvariantId(RegistryError):  # noqa: N818 - name fixed by the seed
    """The id (or the normalised text) is already registered."""

    def __init__(self, message: str, *, invariant_id: str) -> None:
        super().__init__(message)
        self.invariant_id = invariant_id


class UnknownInvariantError(RegistryError, KeyError):
    """`remove()` was given an id that is not registered."""

    def __init__(self, message: str, *, invariant_id: str) -> None:
        super().__init__(message)
        self.invariant_id = invariant_id

    def __str__(self) -> str:
        # KeyError would otherwise quote the message.
        return str(self.args[0])


class BudgetExceeded(RegistryError):  # noqa: N818 - name fixed by the seed
    """Adding the constraint would push the rendered block past `max_block_tokens`."""

    def __init__(self, message: str, *, needed: int, limit: int) -> None:
        super().__init__(message)
        self.needed = needed
        self.limit = limit


class DetectorContractError(CompactionGuardError):
    """A detector declared or issued a verdict kind it is not allowed to issue."""


class CodecError(CompactionGuardError):
    """The context shape cannot be rendered to text or written back."""


class BlockIntegrityError(CompactionGuardError):
    """The sentinel block is missing, edited, split, or stale, or has a rival.

    `places` names every piece of guard-format text other than the current block
    (empty when there is none), as `report.BlockPlace` records.
    """

    places: tuple[Any, ...]
    """`report.BlockPlace` records; typed loosely because errors sit below report."""

    def __init__(self, message: str, *, places: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.places = places


class ReceiptError(CompactionGuardError):
    """Base class of receipt failures."""


class ReceiptIntegrityError(ReceiptError):
    """A receipt digest or chain link does not verify; `line_number` is 1-based or None."""

    def __init__(self, message: str, *, line_number: int | None = None) -> None:
        super().__init__(message)
        self.line_number = line_number


class ReceiptSealError(ReceiptError):
    """The receipt refuses to seal: the claimed drop set disagrees with the inferred one."""


class ReceiptLockError(ReceiptError, TimeoutError):
    """The receipt log stayed locked by another writer past the timeout; nothing was written."""


class ReceiptKeyError(ReceiptError, ValueError):
    """The receipt key is empty, or the environment variable naming it is unset or empty."""


class CanonicalJSONError(ReceiptError, ValueError):
    """A value has no RFC 8785 form (or a text is not strict JSON); `.path` names where."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"canonical JSON refuses {path}: {reason}")
        self.path = path
        self.reason = reason


class InvariantViolation(CompactionGuardError):  # noqa: N818 - name fixed by the seed
    """Policy.RAISE refused a compaction; `report` says why, the caller keeps its original."""

    report: Any
    """The refused compaction's `CompactionReport` (typed loosely: errors sit below report)."""

    def __init__(self, message: str, *, report: object) -> None:
        super().__init__(message)
        self.report = report


class MissingExtraError(CompactionGuardError, ImportError):
    """An optional feature needs a package that is not installed."""

    def __init__(self, *, module: str, extra: str, feature: str) -> None:
        super().__init__(
            f"{feature} needs {module}; pip install 'compaction-guard[{extra}]'",
            name=module,
        )
        self.module = module
        self.extra = extra
        self.feature = feature
