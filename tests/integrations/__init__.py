"""Helpers shared by the integration tests (import as tests.integrations)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from compaction_guard.block import ParsedBlock, parse_blocks
from compaction_guard.taxonomy import Kind, Mode

if TYPE_CHECKING:
    from collections.abc import Iterable

    from compaction_guard.guard import Guard

CAP = "The budget cap for this run is $500."
READ_ONLY = "The database orders_prod is production. Read-only queries only."
CONSTRAINTS = (CAP, READ_ONLY)


def blocks_in(texts: Iterable[str]) -> list[ParsedBlock]:
    """Every guard block (or fragment) found in `texts`."""
    return [parsed for text in texts for parsed in parse_blocks(text)]


def assert_one_current_block(texts: Iterable[str], guard: Guard) -> None:
    """Exactly one block, intact, with the guard's checksum and every registered id."""
    found = blocks_in(texts)
    assert len(found) == 1, f"expected one block, found {len(found)}"
    (block,) = found
    assert block.intact, block.problem
    assert block.header_checksum == guard.block_checksum
    assert set(block.ids) == {invariant.id for invariant in guard.invariants()}


def assert_cap_reported_mutated(guard: Guard, *, owned_repair: bool = True) -> None:
    """The last report calls the $500 cap mutated (and is owned and repaired, by default).

    The integration tests' summarisers all turn $500 into $5000.
    """
    report = guard.last_report
    assert report is not None
    if owned_repair:
        assert report.mode is Mode.OWNED
        assert report.repaired
    cap = next(inv.id for inv in guard.invariants() if inv.text == CAP)
    finding = report.finding(cap)
    assert finding is not None
    assert finding.kind is Kind.MUTATED


ROOT = Path(__file__).resolve().parents[2]


def recipe(name: str) -> str:
    """The recipe block of examples/integrations_<name>.py, as docs/integrations.md shows it."""
    source = (ROOT / "examples" / f"integrations_{name}.py").read_text(encoding="utf-8")
    start = source.index(f"# --- recipe: {name} ---\n")
    return source[start : source.index("# --- end recipe ---")].split("\n", 1)[1]
