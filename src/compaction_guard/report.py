"""Finding, CompactionReport and BlockBudget: what one compaction did, as data and JSON.

See docs/DESIGN.md, "Reports".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from compaction_guard.taxonomy import (
    GATING_KINDS,
    Kind,
    Mode,
    Policy,
    Severity,
    Site,
    severity_rank,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "BlockBudget",
    "BlockPlace",
    "CompactionReport",
    "Finding",
    "PairingProblem",
    "Removal",
    "Report",
    "excerpt",
]

_REPORT_FORMAT = 1
_EXCERPT_WORDS = 6
_EXCERPT_CHARS = 40
_SUMMARY_COLUMNS = ("id", "constraint", "kind", "decided_by", "survived_in")


def excerpt(text: str) -> str:
    """Return the first words of a constraint: enough to recognise it in a table, not to leak it.

    At most six whole words and 40 characters, with "..." when anything was cut (a first
    word longer than that is itself cut).
    """
    words = text.split()
    whole = " ".join(words)
    if len(words) <= _EXCERPT_WORDS and len(whole) <= _EXCERPT_CHARS:
        return whole
    kept: list[str] = []
    for word in words[:_EXCERPT_WORDS]:
        if len(" ".join([*kept, word])) > _EXCERPT_CHARS - 3:
            break
        kept.append(word)
    short = " ".join(kept) or words[0][: _EXCERPT_CHARS - 3]
    return f"{short}..."


@dataclass(frozen=True, slots=True)
class Finding:
    """The verdict on one constraint for one compaction.

    `decided_by` names the one rule that decided it (`<layer>.<rule>`); `evidence` is
    JSON-able and enough to recompute the decision; `survived_in` lists the sites where
    the constraint survived and `at_risk` is True when survival depends only on the kept
    tail, which the next compaction may evict. `excerpt` holds the constraint's first
    words (`excerpt()`), set by the guard, so a report can be read without the registry.
    """

    invariant_id: str
    kind: Kind
    severity: Severity
    decided_by: str
    evidence: Mapping[str, Any] = field(default_factory=dict)
    score: float | None = None
    survived_in: tuple[Site, ...] = ()
    at_risk: bool = False
    excerpt: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict; `Finding.from_dict` reverses it."""
        return {
            "invariant_id": self.invariant_id,
            "kind": self.kind.value,
            "severity": self.severity.value,
            "decided_by": self.decided_by,
            "evidence": dict(self.evidence),
            "score": self.score,
            "survived_in": [site.value for site in self.survived_in],
            "at_risk": self.at_risk,
            "excerpt": self.excerpt,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        """Rebuild a Finding from `to_dict` output."""
        return cls(
            invariant_id=str(data["invariant_id"]),
            kind=Kind(data["kind"]),
            severity=Severity(data["severity"]),
            decided_by=str(data["decided_by"]),
            evidence=dict(data.get("evidence") or {}),
            score=None if data.get("score") is None else float(data["score"]),
            survived_in=tuple(Site(site) for site in data.get("survived_in", ())),
            at_risk=bool(data.get("at_risk", False)),
            excerpt=None if data.get("excerpt") is None else str(data["excerpt"]),
        )


@dataclass(frozen=True, slots=True)
class Removal:
    """A constraint removed from the registry since the previous report, and why."""

    invariant_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class BlockPlace:
    """Where guard-format text sits in a context, and what it is.

    `message` is the message index, `part` the content-part index (None for a whole
    message), `where` reads like "message 3, part 1 (tool_result)", `what` names the text
    ("a bare '[block] <id> ::' entry line", "an edited block", ...).
    """

    message: int
    part: int | None
    where: str
    what: str

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict."""
        return {"message": self.message, "part": self.part, "where": self.where, "what": self.what}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BlockPlace:
        """Rebuild from `to_dict` output."""
        part = data.get("part")
        return cls(
            message=int(data["message"]), part=None if part is None else int(part),
            where=str(data["where"]), what=str(data["what"]),
        )


@dataclass(frozen=True, slots=True)
class PairingProblem:
    """A tool call or result the compactor left unpaired (from `group_trim.validate`)."""

    message: int
    kind: str
    detail: str

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict."""
        return {"message": self.message, "kind": self.kind, "detail": self.detail}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PairingProblem:
        """Rebuild from `to_dict` output."""
        return cls(message=int(data["message"]), kind=str(data["kind"]), detail=str(data["detail"]))


@dataclass(frozen=True, slots=True)
class BlockBudget:
    """How many block tokens the registry uses out of `limit`."""

    used: int
    limit: int

    @property
    def remaining(self) -> int:
        """Tokens left before `add()` refuses with BudgetExceeded."""
        return self.limit - self.used


@dataclass(frozen=True, slots=True)
class CompactionReport:
    """Everything the guard concluded about one compaction (or one `check`).

    `worst` is the most severe finding kind (None with no findings); `gating` lists the
    BLOCK findings that Policy.RAISE refuses on. `fits`, `tokens_before` and
    `tokens_after` are set when `compact(..., max_tokens=...)` trimmed to a budget, and
    `receipt` holds the digest of the receipt row sealed for this compaction.
    `foreign_blocks` lists guard-format text the guard may not edit (tool results,
    thinking, the host's own kept messages) in the returned context; `stripped_blocks`
    what it removed from the compactor's text; `pairing` the tool calls or results the
    compactor left unpaired. Each of the three gates under Policy.RAISE.
    """

    mode: Mode
    findings: tuple[Finding, ...] = ()
    policy: Policy = Policy.REPAIR
    repaired: bool = False
    block_checksum: str | None = None
    removed: tuple[Removal, ...] = ()
    note: str | None = None
    duration_ms: float = 0.0
    fail_closed: bool = False
    shape: str | None = None
    fits: bool | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    receipt: str | None = None
    foreign_blocks: tuple[BlockPlace, ...] = ()
    stripped_blocks: tuple[BlockPlace, ...] = ()
    pairing: tuple[PairingProblem, ...] = ()

    @property
    def worst(self) -> Kind | None:
        """The most severe kind among the findings, by SEVERITY_ORDER."""
        if not self.findings:
            return None
        return min((finding.kind for finding in self.findings), key=severity_rank)

    @property
    def gating(self) -> tuple[Finding, ...]:
        """BLOCK findings that gate under RAISE (unverifiable too when fail_closed)."""
        kinds = GATING_KINDS | {Kind.UNVERIFIABLE} if self.fail_closed else GATING_KINDS
        return tuple(
            finding
            for finding in self.findings
            if finding.severity is Severity.BLOCK and finding.kind in kinds
        )

    def summary(self) -> str:
        """Return a short table for people: one line about the compaction, one row per finding.

        Columns: id, the constraint's first words, kind, decided_by, survived_in (`*` marks
        survival only in the kept tail, at risk at the next compaction). `str(report)` is this.
        """
        worst = "none" if self.worst is None else self.worst.value
        head = (
            f"{self.mode.value} compaction, policy {self.policy.value}: worst {worst}, "
            f"repaired {'yes' if self.repaired else 'no'}, {len(self.gating)} gating"
        )
        lines = [head if self.note is None else f"{head} ({self.note})"]
        if not self.findings:
            return lines[0]
        rows = [_SUMMARY_COLUMNS, *(_summary_row(finding) for finding in self.findings)]
        widths = [max(len(row[col]) for row in rows) for col in range(len(_SUMMARY_COLUMNS))]
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
                  for row in rows]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def finding(self, invariant_id: str) -> Finding | None:
        """Return the finding for `invariant_id`, or None."""
        return next((f for f in self.findings if f.invariant_id == invariant_id), None)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict; derived fields (`worst`, `gating`) are included."""
        worst = self.worst
        return {
            "format": _REPORT_FORMAT,
            "mode": self.mode.value,
            "policy": self.policy.value,
            "findings": [finding.to_dict() for finding in self.findings],
            "worst": None if worst is None else worst.value,
            "gating": [finding.invariant_id for finding in self.gating],
            "repaired": self.repaired,
            "block_checksum": self.block_checksum,
            "removed": [
                {"invariant_id": r.invariant_id, "reason": r.reason} for r in self.removed
            ],
            "note": self.note,
            "duration_ms": self.duration_ms,
            "fail_closed": self.fail_closed,
            "shape": self.shape,
            "fits": self.fits,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "receipt": self.receipt,
            "foreign_blocks": [place.to_dict() for place in self.foreign_blocks],
            "stripped_blocks": [place.to_dict() for place in self.stripped_blocks],
            "pairing": [problem.to_dict() for problem in self.pairing],
        }

    def to_json(self, *, indent: int | None = None) -> str:
        """Serialise to JSON; `CompactionReport.from_json` reverses it exactly."""
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CompactionReport:
        """Rebuild a report from `to_dict` output; derived fields are recomputed.

        Raises ValueError naming the problem for anything that is not such output.
        """
        fmt = data.get("format", _REPORT_FORMAT)
        if fmt != _REPORT_FORMAT:
            msg = f"report format {fmt!r} is not supported; this version reads {_REPORT_FORMAT}"
            raise ValueError(msg)
        try:
            return cls._from_fields(data)
        except (KeyError, TypeError, ValueError) as exc:
            msg = (
                f"not a CompactionReport dict ({type(exc).__name__}: {exc}); "
                "pass to_dict() output"
            )
            raise ValueError(msg) from exc

    @classmethod
    def _from_fields(cls, data: Mapping[str, Any]) -> CompactionReport:
        return cls(
            mode=Mode(data["mode"]),
            policy=Policy(data.get("policy", Policy.REPAIR.value)),
            findings=tuple(Finding.from_dict(f) for f in data.get("findings", ())),
            repaired=bool(data.get("repaired", False)),
            block_checksum=data.get("block_checksum"),
            removed=tuple(
                Removal(invariant_id=r["invariant_id"], reason=r["reason"])
                for r in data.get("removed", ())
            ),
            note=data.get("note"),
            duration_ms=float(data.get("duration_ms", 0.0)),
            fail_closed=bool(data.get("fail_closed", False)),
            shape=data.get("shape"),
            fits=data.get("fits"),
            tokens_before=data.get("tokens_before"),
            tokens_after=data.get("tokens_after"),
            receipt=data.get("receipt"),
            foreign_blocks=tuple(BlockPlace.from_dict(p) for p in data.get("foreign_blocks", ())),
            stripped_blocks=tuple(
                BlockPlace.from_dict(p) for p in data.get("stripped_blocks", ())
            ),
            pairing=tuple(PairingProblem.from_dict(p) for p in data.get("pairing", ())),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> CompactionReport:
        """Parse `to_json` output."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            msg = f"a report is JSON from CompactionReport.to_json(); this is not JSON ({exc})"
            raise ValueError(msg) from exc
        if not isinstance(data, dict):
            msg = "a report is a JSON object; pass the output of CompactionReport.to_json()"
            raise TypeError(msg)
        return cls.from_dict(data)


def _summary_row(finding: Finding) -> tuple[str, str, str, str, str]:
    survived = ",".join(site.value for site in finding.survived_in) or "-"
    return (
        finding.invariant_id,
        finding.excerpt or "",
        finding.kind.value,
        finding.decided_by,
        f"{survived}*" if finding.at_risk else survived,
    )


# The seed's README calls it `Report` in one place (`Report.to_json()`); both names work.
Report = CompactionReport
