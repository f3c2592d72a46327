"""Helpers shared by the integration tests (import as tests.integrations)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from compaction_guard.block import ParsedBlock, parse_blocks

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
