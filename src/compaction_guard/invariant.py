"""Invariant: one registered constraint, its id and its block-budget cost.

See docs/DESIGN.md, "Registry and ids".
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import NewType

from compaction_guard.errors import RegistryError
from compaction_guard.taxonomy import Severity

__all__ = [
    "Invariant",
    "InvariantId",
    "estimate_block_tokens",
    "id_form",
    "invariant_id",
    "validate_text",
]

InvariantId = NewType("InvariantId", str)

# Punctuation that carries meaning inside a token ($500, v2.3.1, a@b.c, 1,200, /etc) is
# kept; `_` and `-` fold to spaces and every other mark is dropped at token edges.
_FOLD_TO_SPACE = re.compile(r"[_\-\s]+")
_TOKEN = re.compile(r"[^\W_]+(?:[.,/:@][^\W_]+)*|[$€£¥%]")


def id_form(text: str) -> str:
    """Return the normal form ids are derived from: case, width, spacing and edges folded.

    Two registrations whose id forms are equal are the same constraint.
    """
    folded = _FOLD_TO_SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold())
    words: list[str] = []
    for raw in folded.split(" "):
        tokens = _TOKEN.findall(raw)
        # Glue a currency symbol to the number after it and a % to the number before it.
        words.append("".join(tokens))
    return " ".join(word for word in words if word)


def invariant_id(text: str) -> InvariantId:
    """Return the 12-hex-digit id of a constraint text (sha256 of its id form)."""
    return InvariantId(hashlib.sha256(id_form(text).encode("utf-8")).hexdigest()[:12])


def estimate_block_tokens(text: str) -> int:
    """Return the default block-budget cost of one block line: ceil(characters / 4).

    Named apart from `group_trim.estimate_tokens`, which measures whole messages as JSON.
    """
    return max(1, math.ceil(len(text) / 4))


def validate_text(text: object) -> str:
    """Return `text` if it can be registered; raise TypeError or RegistryError otherwise."""
    if not isinstance(text, str):
        raise TypeError(
            f"a constraint must be a str, got {type(text).__name__}; pass the rule's text",
        )
    if not text.strip():
        raise RegistryError(
            "a constraint must contain text; empty or blank strings protect nothing",
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RegistryError(
            f"the constraint contains a lone surrogate at index {exc.start} "
            f"({text[exc.start : exc.end]!r}); decode your input with errors='replace' "
            "or fix the source text",
        ) from exc
    return text


@dataclass(frozen=True, slots=True)
class Invariant:
    """A registered constraint: its text exactly as registered, id, severity and cost."""

    id: InvariantId
    text: str
    severity: Severity = Severity.BLOCK
    source: str | None = None
    tokens: int = 0

    @property
    def canonical_text(self) -> str:
        """The text shown to the model, exactly as registered."""
        return self.text
