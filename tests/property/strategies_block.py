"""Hypothesis strategies for the sentinel block: constraint texts, entries, transport edits.

Texts mix arbitrary Unicode (no lone surrogates: registration refuses them) with the
characters the block format cares about: whitespace of every folded kind, backslashes,
brackets, colons and markup.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import strategies as st

from compaction_guard.block import transport_form, unembeddable_reason

# The whitespace the transport normal form folds (the documented set).
TRANSPORT_WHITESPACE = " \t\n\r\v\f\x85\u00a0\u2007\u202f\u2028\u2029"
TRANSPORT_RUN = re.compile(f"[{re.escape(TRANSPORT_WHITESPACE)}]+")
INVISIBLE = [
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u200e",
    "\u200f",
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
]
ASCII_VISIBLE = [chr(c) for c in range(0x21, 0x7F)]

_special = st.sampled_from(
    [*" \t\n\r\u00a0\u2007\u202f", *"\\$%.,:;!?-_[]<>'\"/()", "::", "[block]", "<<", ">>"]
)
_words = st.sampled_from(
    ["orders_prod", "Read-only", "$500", "never", "must", "C:\\Windows", "v2.3.1", "10%", "é"]
)
_raw_texts = st.lists(
    st.one_of(_special, _words, st.characters(codec="utf-8")), min_size=1, max_size=24
).map("".join)

constraint_texts = _raw_texts.filter(
    lambda text: bool(transport_form(text)) and unembeddable_reason(text) is None
)
"""Any text a Guard could register and carry in a block."""

entry_ids = st.one_of(
    st.text("0123456789abcdef", min_size=12, max_size=12),
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,20}", fullmatch=True),
)

entries = st.lists(
    st.tuples(entry_ids, constraint_texts), min_size=1, max_size=4, unique_by=lambda e: e[0]
)
"""(id, text) lists with unique ids, as a registry hands them to format_block."""

whitespace_runs = st.text(st.sampled_from(TRANSPORT_WHITESPACE), min_size=1, max_size=4)


@st.composite
def transported(draw: st.DrawFn, block: str) -> str:
    """Return `block` as transport may deliver it: re-flowed, re-indented, CRLF, NFC/NFD."""
    block = TRANSPORT_RUN.sub(lambda _: draw(whitespace_runs), block)
    if draw(st.booleans()):
        indent = draw(st.sampled_from(["  ", "\t", "    ", "\u00a0 "]))
        block = "\n".join(indent + line for line in block.split("\n"))
    if draw(st.booleans()):
        block = block.replace("\r\n", "\n").replace("\n", "\r\n")
    form = draw(st.sampled_from(["NFC", "NFD", ""]))
    if form == "NFC":
        return unicodedata.normalize("NFC", block)
    return unicodedata.normalize("NFD", block) if form == "NFD" else block
