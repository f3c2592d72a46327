"""Names shared by every layer: verdict kinds, severities, policies, modes, sites.

Values are lowercase strings that stay stable in JSON. See docs/DESIGN.md, "Taxonomy".
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "CERTIFYING_KINDS",
    "GATING_KINDS",
    "SEVERITY_ORDER",
    "Kind",
    "Mode",
    "Policy",
    "Severity",
    "Site",
    "severity_rank",
]


class Kind(StrEnum):
    """What a compaction did to one constraint."""

    PRESERVED = "preserved"
    PARAPHRASED = "paraphrased"
    WEAKENED = "weakened"
    MUTATED = "mutated"
    CONTRADICTED = "contradicted"
    DROPPED = "dropped"
    UNVERIFIABLE = "unverifiable"


class Severity(StrEnum):
    """How much a constraint matters: BLOCK constraints gate under Policy.RAISE."""

    BLOCK = "block"
    WARN = "warn"


class Policy(StrEnum):
    """What `Guard.compact` does with the findings."""

    REPAIR = "repair"
    RAISE = "raise"
    WARN = "warn"


class Mode(StrEnum):
    """How much of the compaction the guard could see."""

    OWNED = "owned"
    REASSERTED = "reasserted"
    UNOBSERVED = "unobserved"


class Site(StrEnum):
    """Where surviving constraint text was found."""

    SUMMARY = "summary"
    RETAINED = "retained"
    BLOCK = "block"


# Worst first. `mutated` outranks `dropped`: a wrong live value drives confident
# wrong action, absence at least invites a question.
SEVERITY_ORDER: tuple[Kind, ...] = (
    Kind.CONTRADICTED,
    Kind.MUTATED,
    Kind.DROPPED,
    Kind.WEAKENED,
    Kind.UNVERIFIABLE,
    Kind.PARAPHRASED,
    Kind.PRESERVED,
)

GATING_KINDS: frozenset[Kind] = frozenset(
    {Kind.CONTRADICTED, Kind.MUTATED, Kind.DROPPED, Kind.WEAKENED},
)

# Verdicts that vouch for a constraint; a damaged constraint must never get one.
CERTIFYING_KINDS: frozenset[Kind] = frozenset({Kind.PRESERVED, Kind.PARAPHRASED})

_RANK = {kind: rank for rank, kind in enumerate(SEVERITY_ORDER)}


def severity_rank(kind: Kind) -> int:
    """Return the position of `kind` in SEVERITY_ORDER (0 is the worst)."""
    return _RANK[kind]
