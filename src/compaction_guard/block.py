"""The sentinel block: wire format, transport checksum, parse and strip.

The checksum survives re-flow, indentation, CRLF and NFC but no edit. Entries are found by
their `[block] <id> ::` pattern, which registration refuses inside constraint text (with
the marker), so parsing is unambiguous. See docs/DESIGN.md, "The sentinel block" (promise 5).
"""

from __future__ import annotations

import hashlib
import itertools
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

__all__ = [
    "ENTRY_TAG",
    "FOOTER_PREFIX",
    "HEADER_PREFIX",
    "MARKER",
    "VERSION",
    "GuardSpan",
    "ParsedBlock",
    "block_checksum",
    "edge_blocks",
    "format_block",
    "guard_spans",
    "has_guard_format",
    "is_only_blocks",
    "is_standalone_block",
    "parse_blocks",
    "strip_blocks",
    "strip_current_blocks",
    "strip_edge_blocks",
    "transport_form",
    "unembeddable_reason",
]

HEADER_PREFIX = "<<COMPACTION-GUARD:"
FOOTER_PREFIX = "<<END-COMPACTION-GUARD"
MARKER = "COMPACTION-GUARD"
ENTRY_TAG = "[block]"
VERSION = "1"

# What transport may change: spaces, tabs, line breaks and no-break spaces. Zero-width
# and bidi characters are deliberately absent: inserting one must break the checksum.
_WS_CHARS = " \t\n\r\v\f\x85\u00a0\u2007\u202f\u2028\u2029"
_WS = r"[ \t\n\r\v\f\x85\u00a0\u2007\u202f\u2028\u2029]"
_WS_RUN = re.compile(_WS + "+")
_LEADING_WS = re.compile(_WS + "*")
# Derived ids are 12 hex digits; custom ids (Guard.add(id=...)) use the same alphabet as
# here. An id holds no whitespace, so " ::" after it ends it unambiguously.
_ID = r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,63}"
_VALID_ID = re.compile(_ID)

# Entries are found by pattern, not by line: whitespace is folded, so line breaks inside
# a constraint are not structure. Registration refuses any text whose transport form
# contains this pattern or the marker, so every match in a block is an entry start.
_ENTRY_FOLDED = re.compile(rf"\[block\] ({_ID}) ::(?: |$)")
_ENTRY_RAW = re.compile(rf"\[block\]{_WS}+({_ID}){_WS}+::(?:{_WS}|$)")
_STRAY_ENTRY = re.compile(rf"\[block\]{_WS}+{_ID}{_WS}+::[^\n\r]*(?:\r\n|\n|\r)?")

_HEADER = re.compile(rf"<<COMPACTION-GUARD:([^\s<>]*){_WS}+sha256=([0-9a-fA-F]{{64}})>>")
_FOOTER = re.compile(rf"<<END-COMPACTION-GUARD{_WS}+sha256=([0-9a-fA-F]{{64}})>>")
# A damaged marker still delimits: it extends to its closing ">>" on the same line.
_LOOSE_REST = re.compile(r"[^\n\r<>]*>>")


def transport_form(text: str) -> str:
    """Return `text` as the checksum sees it: NFC, whitespace runs -> one space, stripped.

    Case, punctuation, zero-width, bidi and look-alike characters are kept as they are.
    """
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return _WS_RUN.sub(" ", text).strip(_WS_CHARS)


def _digest(folded: str) -> str:
    # surrogatepass: context text may hold lone surrogates; they must hash, not crash.
    return hashlib.sha256(folded.encode("utf-8", "surrogatepass")).hexdigest()


def unembeddable_reason(text: str) -> str | None:
    """Return why `text` cannot be carried in a block, phrased as the fix; None if it can.

    A text is refused when its transport form contains the marker `COMPACTION-GUARD` or a
    `[block] <id> ::` entry pattern, either of which would make the block ambiguous.
    """
    form = transport_form(text)
    if MARKER in form:
        return (
            f"the constraint contains the guard's block marker {MARKER!r}, which would make "
            "its block ambiguous; reword it without that marker"
        )
    if _ENTRY_FOLDED.search(form):
        return (
            "the constraint contains a block entry pattern ('[block] <id> ::'), "
            "which would make its block ambiguous; reword it without that pattern"
        )
    return None


def _body(entries: Sequence[tuple[str, str]]) -> str:
    lines = []
    for entry_id, text in entries:
        if not _VALID_ID.fullmatch(entry_id):
            raise ValueError(
                f"block entry id {entry_id!r} is not usable: use 1-64 letters, digits, '_', "
                "'.', ':' or '-', starting with a letter or digit",
            )
        reason = unembeddable_reason(text)
        if reason is not None:
            raise ValueError(f"entry {entry_id}: {reason}")
        lines.append(f"{ENTRY_TAG} {entry_id} :: {text}")
    return "\n".join(lines)


def block_checksum(entries: Sequence[tuple[str, str]]) -> str:
    """Return the 64-hex checksum `format_block(entries)` writes in its header and footer."""
    return _digest(transport_form(_body(entries)))


def format_block(entries: Sequence[tuple[str, str]]) -> str:
    """Return the block for (id, text) pairs, in order, with no trailing newline.

    Each text appears exactly as given. Raises ValueError for an id outside the id
    alphabet or a text `unembeddable_reason` refuses.

    >>> format_block([("0123456789ab", "Budget cap: $500.")]).splitlines()[1]
    '[block] 0123456789ab :: Budget cap: $500.'
    """
    body = _body(entries)
    digest = _digest(transport_form(body))
    header = f"{HEADER_PREFIX}{VERSION} sha256={digest}>>"
    footer = f"{FOOTER_PREFIX} sha256={digest}>>"
    return f"{header}\n{body}\n{footer}" if body else f"{header}\n{footer}"


@dataclass(frozen=True, slots=True)
class ParsedBlock:
    """A block or block fragment found in a text.

    `start`/`end` are offsets in the parsed text. A checksum is None when its marker is
    missing or malformed. `entries` are (id, text) pairs, the text with its original
    whitespace where recoverable, else in transport form. `problem` names a structural
    defect (missing marker, text outside entries, unsupported version).
    """

    start: int
    end: int
    header_checksum: str | None
    footer_checksum: str | None
    computed_checksum: str
    entries: tuple[tuple[str, str], ...]
    problem: str | None = None

    @property
    def intact(self) -> bool:
        """True when header, footer and computed checksums agree and nothing is malformed."""
        return self.problem is None and (
            self.header_checksum == self.footer_checksum == self.computed_checksum
        )

    @property
    def ids(self) -> tuple[str, ...]:
        """The entry ids in block order."""
        return tuple(entry_id for entry_id, _ in self.entries)

    @property
    def failure(self) -> str | None:
        """Why the block does not verify, phrased with the fix; None when intact."""
        if self.problem is not None:
            return self.problem
        if self.header_checksum != self.footer_checksum:
            return (
                "the block's header and footer checksums differ (an edited marker or two "
                "blocks spliced together); re-inject the block from the registry"
            )
        if self.header_checksum != self.computed_checksum:
            return (
                "the block's text does not match its checksum (an entry's words, case, "
                "punctuation, id, value or invisible characters changed); re-inject the "
                "block from the registry"
            )
        return None


@dataclass(frozen=True, slots=True)
class _Marker:
    start: int
    end: int
    footer: bool
    checksum: str | None
    problem: str | None


def _marker_starts(text: str) -> Iterator[tuple[int, int, bool]]:
    """Yield (start, end, is_footer) of every "<<COMPACTION-GUARD" / "<<END-..." prefix."""
    # str.find is several times faster than a regex scan over megabytes of context.
    found = text.find(MARKER)
    while found != -1:
        end = found + len(MARKER)
        header_start, footer_start = found - len("<<"), found - len("<<END-")
        if header_start >= 0 and text.startswith("<<", header_start):
            yield header_start, end, False
        elif footer_start >= 0 and text.startswith("<<END-", footer_start):
            yield footer_start, end, True
        found = text.find(MARKER, end)


def _scan_markers(text: str) -> Iterator[_Marker]:
    for start, prefix_end, footer in _marker_starts(text):
        strict = (_FOOTER if footer else _HEADER).match(text, start)
        if strict is None:
            rest = _LOOSE_REST.match(text, prefix_end)
            end = rest.end() if rest else prefix_end
            kind = "footer" if footer else "header"
            problem = f"a malformed block {kind} ({text[start:end]!r}); re-inject the block"
            yield _Marker(start, end, footer, None, problem)
        elif footer:
            yield _Marker(start, strict.end(), footer, strict.group(1), None)
        else:
            problem = None
            if strict.group(1) != VERSION:
                problem = (
                    f"block version {strict.group(1)!r} is not supported (expected "
                    f"{VERSION!r}); re-inject the block with this version of the library"
                )
            yield _Marker(start, strict.end(), footer, strict.group(2), problem)


def _entries(raw: str, folded: str) -> tuple[tuple[tuple[str, str], ...], str | None]:
    """Parse entries from a block interior: by pattern over the folded form."""
    found = list(_ENTRY_FOLDED.finditer(folded))
    if not folded:
        return (), None
    if not found or found[0].start() != 0:
        return (), "the block holds text outside its [block] entries; re-inject the block"
    ends = [m.start() for m in found[1:]] + [len(folded)]
    entries = tuple(
        (m.group(1), folded[m.end() : end].rstrip(" ")) for m, end in zip(found, ends, strict=True)
    )
    seen: set[str] = set()
    for entry_id, text in entries:
        if not text:
            return entries, f"entry {entry_id} has no text; re-inject the block"
        if entry_id in seen:
            return entries, f"entry {entry_id} appears twice; re-inject the block"
        seen.add(entry_id)
    return _recover_whitespace(raw, entries), None


def _recover_whitespace(
    raw: str, entries: tuple[tuple[str, str], ...]
) -> tuple[tuple[str, str], ...]:
    """Return the entries with the raw text's whitespace when the raw parse agrees."""
    found = list(_ENTRY_RAW.finditer(raw))
    if [m.group(1) for m in found] != [entry_id for entry_id, _ in entries]:
        return entries
    ends = [m.start() for m in found[1:]] + [len(raw)]
    # format_block separates lines with "\n"; after transport the separator is whatever
    # precedes the first entry ("\r\n", "\n  " when indented). Each entry ends with it.
    separator = (raw[: found[0].start()] if found else "") or "\n"
    recovered = []
    for m, end, (entry_id, folded) in zip(found, ends, entries, strict=True):
        text = raw[m.end() : end]
        text = text.removesuffix(separator)
        if transport_form(text) != folded:
            return entries
        recovered.append((entry_id, text))
    return tuple(recovered)


def _region(
    text: str,
    span: tuple[int, int],
    interior: tuple[int, int],
    markers: tuple[_Marker | None, _Marker | None],
    problem: str | None,
) -> ParsedBlock:
    raw = text[interior[0] : interior[1]]
    folded = transport_form(raw)
    entries, entry_problem = _entries(raw, folded)
    header, footer = markers
    for candidate in (header, footer):
        if problem is None and candidate is not None:
            problem = candidate.problem
    return ParsedBlock(
        start=span[0],
        end=span[1],
        header_checksum=header.checksum if header else None,
        footer_checksum=footer.checksum if footer else None,
        computed_checksum=_digest(folded),
        entries=entries,
        problem=problem if problem is not None else entry_problem,
    )


_NO_FOOTER = (
    "a block header without its footer: the block was cut off or split across messages; "
    "keep the block whole in one message or re-inject it"
)
_NO_HEADER = (
    "a block footer without its header: the block was cut off or split across messages; "
    "keep the block whole in one message or re-inject it"
)


def parse_blocks(text: str) -> list[ParsedBlock]:
    """Return every block and block fragment in `text`, in order.

    A header followed by a footer is a block. A header with no footer is a fragment that
    runs to the next marker or the end of the text; a footer with no header is one that
    starts at the first entry before it (or at the footer). Fragments carry a `problem`.
    """
    if MARKER not in text:
        return []
    markers = list(_scan_markers(text))
    blocks: list[ParsedBlock] = []
    cursor = 0
    index = 0
    while index < len(markers):
        mark = markers[index]
        following = markers[index + 1] if index + 1 < len(markers) else None
        if not mark.footer and following is not None and following.footer:
            span = (mark.start, following.end)
            interior = (mark.end, following.start)
            blocks.append(_region(text, span, interior, (mark, following), None))
            cursor, index = following.end, index + 2
            continue
        if not mark.footer:
            stop = following.start if following is not None else len(text)
            stop = mark.end + len(text[mark.end : stop].rstrip(_WS_CHARS))
            span, interior = (mark.start, stop), (mark.end, stop)
            blocks.append(_region(text, span, interior, (mark, None), _NO_FOOTER))
        else:
            entry = _ENTRY_RAW.search(text, cursor, mark.start)
            begin = entry.start() if entry else mark.start
            span, interior = (begin, mark.end), (begin, mark.start)
            blocks.append(_region(text, span, interior, (None, mark), _NO_HEADER))
        cursor, index = span[1], index + 1
    return blocks


def has_guard_format(text: str) -> bool:
    """Return True when `text` may hold the guard's format: a block marker or an entry tag.

    A cheap filter, run on every message before every model call: prose without "<" or
    "[" is passed by two single-character scans. True may still mean no real block or
    entry (`guard_spans` decides); False is certain.
    """
    return ("<" in text and MARKER in text) or ("[" in text and ENTRY_TAG in text)


@dataclass(frozen=True, slots=True)
class GuardSpan:
    """One piece of text in the guard's format: a block or fragment, or a bare entry line.

    `block` is None for a `[block] <id> ::` line outside any block.
    """

    start: int
    end: int
    block: ParsedBlock | None

    @property
    def what(self) -> str:
        """A short name for what this span is, for error messages and reports."""
        if self.block is None:
            return "a bare '[block] <id> ::' entry line"
        if self.block.problem is not None:
            return "a block fragment or malformed block"
        if not self.block.intact:
            return "an edited block (its text does not match its checksum)"
        return f"a block with checksum {str(self.block.header_checksum)[:12]}"


def guard_spans(text: str) -> list[GuardSpan]:
    """Return every block, fragment and bare entry line in `text`, in order."""
    if not has_guard_format(text):
        return []
    spans = [GuardSpan(b.start, b.end, b) for b in parse_blocks(text)] if MARKER in text else []
    if ENTRY_TAG in text:
        blocks = list(spans)
        for match in _STRAY_ENTRY.finditer(text):
            while blocks and blocks[0].end <= match.start():
                blocks.pop(0)
            if blocks and blocks[0].start <= match.start():
                continue  # an entry of a block, not a bare line
            spans.append(GuardSpan(match.start(), match.end(), None))
        spans.sort(key=lambda span: span.start)
    return spans


def strip_current_blocks(text: str, checksum: str | None) -> str:
    """Return `text` without the intact blocks whose checksum is `checksum`.

    Only the current block is invisible to detection; every other block, fragment and
    bare entry line stays, to be read as prose. Same object when nothing was removed.
    """
    if checksum is None or MARKER not in text:
        return text
    current = [b for b in parse_blocks(text) if b.intact and b.header_checksum == checksum]
    if not current:
        return text
    pieces, cursor = [], 0
    for found in current:
        pieces.append(text[cursor : found.start])
        cursor = found.end
    pieces.append(text[cursor:])
    return "\n".join(pieces)


def strip_blocks(text: str) -> str:
    """Return `text` without its blocks, block fragments and stray `[block] <id> ::` lines.

    Each removed block region becomes one line break. Text without the marker or the
    entry tag is returned unchanged (the same object).
    """
    has_marker = MARKER in text
    if not has_marker and ENTRY_TAG not in text:
        return text
    if has_marker:
        pieces, cursor = [], 0
        for block in parse_blocks(text):
            pieces.append(text[cursor : block.start])
            cursor = block.end
        pieces.append(text[cursor:])
        text = "\n".join(pieces)
    return _STRAY_ENTRY.sub("", text) if ENTRY_TAG in text else text


def edge_blocks(text: str) -> list[ParsedBlock]:
    """Return the blocks or fragments that open or close `text`, in order.

    A summariser that carries the guard's block usually keeps it at the start or end of
    its own message; those copies are the guard's to replace and to verify. A block with
    prose on both sides is a quotation and is not returned.
    """
    if MARKER not in text:
        return []
    blocks = parse_blocks(text)
    head, start = 0, 0
    while head < len(blocks) and not text[start : blocks[head].start].strip(_WS_CHARS):
        start = blocks[head].end
        head += 1
    tail, end = len(blocks), len(text)
    while tail > head and not text[blocks[tail - 1].end : end].strip(_WS_CHARS):
        end = blocks[tail - 1].start
        tail -= 1
    return blocks[:head] + blocks[tail:]


def strip_edge_blocks(text: str) -> str:
    """Return `text` without its edge blocks (see `edge_blocks`), surrounding space trimmed.

    Returns "" when the text held only blocks, and the same object when nothing was removed.
    """
    edges = edge_blocks(text)
    if not edges:
        return text
    start, end = 0, len(text)
    for block in edges:
        if not text[start : block.start].strip(_WS_CHARS):
            start = block.end
    for block in reversed(edges):
        if not text[block.end : end].strip(_WS_CHARS):
            end = block.start
    return text[start:end].strip(_WS_CHARS) if start < end else ""


def is_standalone_block(text: str) -> bool:
    """Return True when `text`, without surrounding whitespace, is one block or fragment.

    This tells a block the guard placed (its own message, part or item) from a block
    quoted inside other prose.
    """
    blocks = _leading_blocks(text)
    return blocks is not None and len(blocks) == 1


def is_only_blocks(text: str) -> bool:
    """Return True when `text` holds blocks or fragments and nothing else but whitespace."""
    return _leading_blocks(text) is not None


def _leading_blocks(text: str) -> list[ParsedBlock] | None:
    """Return the blocks of `text` when they cover all of it but whitespace, else None."""
    leading = _LEADING_WS.match(text)
    start = leading.end() if leading else 0
    # Cheap refusal first: this runs on every message during inject.
    if not text.startswith(("<<COMPACTION-GUARD", "<<END-COMPACTION-GUARD", ENTRY_TAG), start):
        return None
    blocks = parse_blocks(text)
    if not blocks or blocks[0].start != start:
        return None
    for before, after in itertools.pairwise(blocks):
        if text[before.end : after.start].strip(_WS_CHARS):
            return None
    if text[blocks[-1].end :].strip(_WS_CHARS):
        return None
    return blocks
