"""assert_present at scale: any edit that transport cannot make fails, every transport passes.

The ci profile (`make property`) runs the issue's counts: 10,000 single-character edits and
1,000 transport variants. The default profile runs a fast sample of each.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import compaction_guard as cg
from compaction_guard.block import transport_form
from compaction_guard.detectors.lexical import LexicalDetector
from tests.property.strategies_block import (
    ASCII_VISIBLE,
    INVISIBLE,
    TRANSPORT_WHITESPACE,
    transported,
)

pytestmark = pytest.mark.property

# The ci profile runs 300 examples per test elsewhere; these two run the counts.
_PROFILE = settings.default
_FULL = _PROFILE is not None and _PROFILE.max_examples >= 300
EDITS = 10_000 if _FULL else 300
TRANSPORTS = 1_000 if _FULL else 100

GUARDS = [
    cg.Guard(texts, detectors=[LexicalDetector()])
    for texts in (
        ["The budget cap for this run is $500."],
        [
            "The database orders_prod is production. Read-only queries only.",
            "Never write to C:\\Windows\\System32; version v2.3.1 is pinned.",
            "Résumé files stay in the EU: at most 10% may be cached.",
        ],
    )
]
BLOCKS = [guard.reassertion_block() for guard in GUARDS]
LOOKALIKES = ["\u0430", "\u0435", "\u043e", "\u2010", "\u2011", "\u2212", "\uff04", "\u0131"]
_chars = st.sampled_from([*ASCII_VISIBLE, *INVISIBLE, *TRANSPORT_WHITESPACE, *LOOKALIKES, "é"])


@st.composite
def single_edits(draw: st.DrawFn, block: str) -> str:
    """Insert, delete or replace one character of `block` (inserts fall inside it)."""
    operation = draw(st.sampled_from(["insert", "delete", "replace"]))
    if operation == "insert":
        at = draw(st.integers(1, len(block) - 1))
        inserted: str = draw(_chars)
        return block[:at] + inserted + block[at:]
    at = draw(st.integers(0, len(block) - 1))
    if operation == "delete":
        return block[:at] + block[at + 1 :]
    char: str = draw(_chars)
    return block[:at] + char + block[at + 1 :]


def _structure(text: str) -> str:
    """The transport form with the space next to a marker's `<<` or `>>` dropped."""
    return re.sub(r" ?(<<|>>) ?", r"\1", transport_form(text))


@settings(max_examples=EDITS)
@given(data=st.data(), which=st.integers(0, len(GUARDS) - 1))
def test_a_single_character_edit_never_verifies(data: st.DataObject, which: int) -> None:
    block = BLOCKS[which]
    edited = data.draw(single_edits(block))
    # Edits transport itself may make (a space for a tab, a doubled space, a line break
    # removed where a marker meets the text) are variants, not edits.
    assume(_structure(edited) != _structure(block))
    # A character added next to an intact block ("<" + block) is text beside it, not an edit.
    assume(block not in edited)
    with pytest.raises(cg.BlockIntegrityError):
        GUARDS[which].assert_present([{"role": "user", "content": edited}])


@settings(max_examples=TRANSPORTS)
@given(data=st.data(), which=st.integers(0, len(GUARDS) - 1))
def test_every_transport_variant_verifies(data: st.DataObject, which: int) -> None:
    variant = data.draw(transported(BLOCKS[which]))
    GUARDS[which].assert_present([{"role": "user", "content": variant}])


@settings(max_examples=TRANSPORTS)
@given(data=st.data(), which=st.integers(0, len(GUARDS) - 1))
def test_a_fresh_guard_verifies_transport_variants_too(data: st.DataObject, which: int) -> None:
    """Verification is against the registry's rendering, not against what was issued."""
    texts = [invariant.text for invariant in GUARDS[which].invariants()]
    fresh = cg.Guard(texts, detectors=[LexicalDetector()])
    fresh.assert_present([{"role": "user", "content": data.draw(transported(BLOCKS[which]))}])
