"""The registry behind `Guard`: ids, duplicates, the block budget and the block text.

See docs/DESIGN.md, "Registry and ids".
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from compaction_guard import block as _block
from compaction_guard.errors import (
    BudgetExceeded,
    DuplicateInvariantId,
    RegistryError,
    UnknownInvariantError,
)
from compaction_guard.invariant import (
    Invariant,
    InvariantId,
    id_form,
    invariant_id,
    validate_text,
)
from compaction_guard.taxonomy import Severity

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["BLOCK_FRAME_TOKENS", "Registry"]

_CUSTOM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")
# Header and footer lines plus a little slack; counted once per block, not per line.
BLOCK_FRAME_TOKENS = 40


def _has_visible_character(text: str) -> bool:
    """Whether `text` holds a character that is not whitespace, a control or a format one."""
    return any(
        not char.isspace() and unicodedata.category(char) not in {"Cf", "Cc", "Zs", "Mn"}
        for char in text
    )


def _quote(text: str, words: int = 8) -> str:
    """Return the first words of a constraint, quoted, to name it in a message."""
    head = text.split()
    shown = " ".join(head[:words])
    return repr(shown + (" ..." if len(head) > words else ""))


class Registry:
    """Registered constraints in order, with a running block-token total.

    `add` and `remove` are O(1) apart from formatting the one new line, so registering
    n constraints is linear. The block checksum is computed lazily and cached.
    """

    def __init__(self, *, max_block_tokens: int, estimate: Callable[[str], int]) -> None:
        self.max_block_tokens = max_block_tokens
        self._estimate = estimate
        self._items: dict[InvariantId, Invariant] = {}
        self._forms: dict[str, InvariantId] = {}
        self._used = 0
        self._checksum: str | None = None
        self._block: str | None = None

    def __len__(self) -> int:
        return len(self._items)

    def add(
        self, text: object, *, custom_id: object, severity: Severity, source: str | None,
    ) -> Invariant:
        """Register `text`; see `Guard.add` for what it raises."""
        text = validate_text(text)
        if not _has_visible_character(text):
            raise RegistryError(
                f"the constraint {text!r} holds only invisible characters (spaces, zero-width "
                "or format characters); pass the rule's words",
            )
        reason = _block.unembeddable_reason(text)
        if reason is not None:
            raise RegistryError(reason)
        new_id = self._new_id(text, custom_id)
        form = id_form(text)
        if form in self._forms:
            earlier = self._items[self._forms[form]]
            raise DuplicateInvariantId(
                f"this constraint is already registered as {earlier.id!r} "
                f"({_quote(earlier.text)}); texts that differ only in case, spacing or "
                "punctuation are one constraint, so it needs no second registration",
                invariant_id=earlier.id,
            )
        line = _block.format_block([(new_id, text)]).splitlines()
        cost = sum(self._estimate(entry) for entry in line[1:-1])
        needed = BLOCK_FRAME_TOKENS + self._used + cost
        if needed > self.max_block_tokens:
            raise BudgetExceeded(
                f"adding this constraint needs {needed} block tokens, over max_block_tokens="
                f"{self.max_block_tokens}; shorten it, remove() another, or raise the limit",
                needed=needed,
                limit=self.max_block_tokens,
            )
        invariant = Invariant(
            id=new_id, text=text, severity=Severity(severity), source=source, tokens=cost,
        )
        self._items[new_id] = invariant
        self._forms[form] = new_id
        self._used += cost
        self._checksum = self._block = None
        return invariant

    def _new_id(self, text: str, custom: object) -> InvariantId:
        if custom is None:
            new_id = invariant_id(text)
        elif not isinstance(custom, str) or not _CUSTOM_ID.fullmatch(custom):
            raise RegistryError(
                f"invariant id {custom!r} is not usable in a block; use 1-64 characters "
                "from letters, digits, '_', '.', ':' and '-', starting with a letter or digit",
            )
        else:
            new_id = InvariantId(custom)
        if new_id in self._items:
            earlier = self._items[new_id]
            raise DuplicateInvariantId(
                f"the id {new_id!r} is already registered for {_quote(earlier.text)}; to "
                f"replace that rule, remove({new_id!r}, reason=...) first",
                invariant_id=new_id,
            )
        return new_id

    def remove(self, invariant_id_: str) -> Invariant:
        """Unregister and return the constraint; UnknownInvariantError names what exists."""
        invariant = self._items.pop(InvariantId(invariant_id_), None)
        if invariant is None:
            known = ", ".join(sorted(self._items)) or "none"
            raise UnknownInvariantError(
                f"no invariant with id {invariant_id_!r} is registered (registered: {known})",
                invariant_id=invariant_id_,
            )
        del self._forms[id_form(invariant.text)]
        self._used -= invariant.tokens
        self._checksum = self._block = None
        return invariant

    def invariants(self) -> tuple[Invariant, ...]:
        """Return the constraints in registration order."""
        return tuple(self._items.values())

    @property
    def used_tokens(self) -> int:
        """Block tokens the current registry renders to (0 when empty)."""
        return BLOCK_FRAME_TOKENS + self._used if self._items else 0

    def entries(self) -> list[tuple[str, str]]:
        """Return (id, text) pairs in registration order, as the block lists them."""
        return [(inv.id, inv.text) for inv in self._items.values()]

    def texts(self) -> dict[str, str]:
        """Return the registered text by id."""
        return {inv.id: inv.text for inv in self._items.values()}

    @property
    def checksum(self) -> str | None:
        """The checksum of the current block (None when empty), cached until a change."""
        if not self._items:
            return None
        if self._checksum is None:
            self._checksum = _block.block_checksum(self.entries())
        return self._checksum

    def block_text(self) -> str:
        """Return the current block, or "" when nothing is registered (cached until a change)."""
        if self._block is None:
            self._block = _block.format_block(self.entries()) if self._items else ""
        return self._block
