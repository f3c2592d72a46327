"""One authority in the context: the current block, once, and no other guard-format text.

Private to `guard`. The hot path is the codec's marker probe plus one string compare with
the block the registry renders now; spans are parsed only when that compare fails, to
name the defect and its place. See docs/DESIGN.md, "The sentinel block" (promises 5-7).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from compaction_guard._wire.formats import is_provider_item
from compaction_guard._wire.sdk_blocks import part_type, part_view
from compaction_guard.block import GuardSpan, guard_spans, has_guard_format, is_only_blocks
from compaction_guard.errors import BlockIntegrityError
from compaction_guard.report import BlockPlace

if TYPE_CHECKING:
    from compaction_guard.codec import ContextCodec
    from compaction_guard.view import Segment

__all__ = [
    "FOREIGN_BLOCK_MODES",
    "Authority",
    "find_authority",
    "is_current_fast",
    "is_editable",
    "place_of",
    "raise_unless_one_authority",
    "stripped_places",
    "verify_written_block",
    "warn_foreign",
]

FOREIGN_BLOCK_MODES = ("raise", "report")
_LOG = logging.getLogger("compaction_guard")


def is_editable(segment: Segment) -> bool:
    """Whether the guard may remove text from this segment (not tool, thinking or an item)."""
    return not (segment.tool or is_provider_item(segment.role))


def is_current_fast(segments: Sequence[Segment], block: str) -> bool:
    """Return True when the only marked segment is the current block (the hot path).

    The segment is the block itself (its own message or part) or ends with it, and the
    text before it holds no guard format.
    """
    if len(segments) != 1:
        return False
    segment = segments[0]
    if not is_editable(segment):
        return False
    text = segment.text
    if text is block or text == block:
        return True
    return text.endswith(block) and not has_guard_format(text[: len(text) - len(block)])


@dataclass(frozen=True, slots=True)
class _Found:
    segment: Segment
    span: GuardSpan


@dataclass(frozen=True, slots=True)
class Authority:
    """What the context holds: the current block (if any) and every other guard-format text."""

    current: Segment | None
    foreign: tuple[tuple[Segment, str], ...]  # (segment, what it is)
    stale: Segment | None = None
    edited: tuple[Segment, str] | None = None


def find_authority(segments: Sequence[Segment], checksum: str) -> Authority:
    """Sort every guard-format span into the one current block and the rest.

    The current block is an intact block with the registry's checksum in text the guard
    may edit; with several, the newest counts and the others are second copies.
    """
    current: list[_Found] = []
    foreign: list[tuple[Segment, str]] = []
    stale = edited = None
    for segment in segments:
        for span in guard_spans(segment.text):
            parsed = span.block
            intact = parsed is not None and parsed.intact
            if intact and parsed is not None and parsed.header_checksum == checksum:
                if is_editable(segment):
                    current.append(_Found(segment, span))
                    continue
                foreign.append((segment, "a copy of the current block"))
                continue
            if intact and stale is None and is_editable(segment):
                stale = segment
            if parsed is not None and not intact and edited is None and is_editable(segment):
                edited = (segment, parsed.failure or "checksum mismatch")
            foreign.append((segment, span.what))
    foreign.extend((found.segment, "a second copy of the current block") for found in current[:-1])
    foreign.sort(key=lambda item: item[0].message)
    return Authority(
        current=current[-1].segment if current else None,
        foreign=tuple(foreign),
        stale=stale,
        edited=edited,
    )


def raise_unless_one_authority(
    authority: Authority, context: object, *, allow_foreign: bool, repin: str
) -> None:
    """Raise BlockIntegrityError unless the current block is present and (unless allowed) alone."""
    places = tuple(place_of(segment, what, context) for segment, what in authority.foreign)
    if authority.current is None:
        raise _absent(authority, places, context, repin)
    if places and not allow_foreign:
        listed = "; ".join(f"{p.where}: {p.what}" for p in places)
        raise BlockIntegrityError(
            f"the context holds guard-format text besides the current block ({listed}). "
            "Only the block the registry renders may speak for the constraints: remove that "
            "text, re-pin with guard.compact(context, compactor=lambda c: c), or build the "
            "guard with foreign_blocks='report' and act on report.foreign_blocks yourself",
            places=places,
        )


def verify_written_block(codec: ContextCodec, output: object, block: str, checksum: str) -> None:
    """Check the block the guard just wrote reads back as the one current block.

    Text the guard may not edit is allowed beside it (it is reported, not a failed write).
    Raises BlockIntegrityError when the codec wrote a block it cannot read back.
    """
    try:
        segments = codec.marked_segments(output)
        if is_current_fast(segments, block):
            return
        raise_unless_one_authority(
            find_authority(segments, checksum), output, allow_foreign=True, repin=""
        )
    except BlockIntegrityError as exc:
        raise BlockIntegrityError(
            f"repair did not take: {exc}. The codec wrote a block it cannot read back; "
            "report this context shape as a bug",
        ) from exc


def _absent(
    authority: Authority, places: tuple[BlockPlace, ...], context: object, repin: str
) -> BlockIntegrityError:
    if authority.edited is not None:
        segment, failure = authority.edited
        where = place_of(segment, "", context).where
        return BlockIntegrityError(
            f"the guard block in {where} does not verify ({failure}); it was edited, split "
            f"or forged; {repin}",
            places=places,
        )
    if authority.stale is not None:
        where = place_of(authority.stale, "", context).where
        return BlockIntegrityError(
            f"the guard block in {where} is intact but stale: the registry changed since it "
            f"was issued; {repin}",
            places=places,
        )
    inside = " (guard-format text appears only where it does not count: " + "; ".join(
        f"{p.where}: {p.what}" for p in places
    ) + ")" if places else ""
    return BlockIntegrityError(
        f"the guard block is missing from the context{inside}; {repin}", places=places,
    )


def place_of(segment: Segment, what: str, context: object) -> BlockPlace:
    """Name where `segment` sits: its message and, in a content list, its part and type."""
    part, kind = _part_of(segment, context)
    where = f"message {segment.message}"
    if part is not None:
        where += f", part {part}"
    label = kind or (
        "tool result" if segment.tool else None if segment.role == "text" else segment.role
    )
    if label:
        where += f" ({label})"
    return BlockPlace(message=segment.message, part=part, where=where, what=what)


def _part_of(segment: Segment, context: object) -> tuple[int | None, str | None]:
    if not isinstance(context, Sequence) or isinstance(context, str):
        return None, None
    if not 0 <= segment.message < len(context):
        return None, None
    item = context[segment.message]
    content = item.get("content") if isinstance(item, Mapping) else getattr(item, "content", None)
    if not isinstance(content, list):
        return None, None
    for number, part in enumerate(content):
        if segment.text in _part_texts(part):
            kind = part_type(part)
            return number, kind if isinstance(kind, str) else None
    return None, None


def _part_texts(part: object) -> list[str]:
    view: Any = part if isinstance(part, Mapping) else part_view(part, "a content part")
    if isinstance(part, str):
        return [part]
    if not isinstance(view, Mapping):
        return []
    texts = [view[k] for k in ("text", "thinking", "refusal") if isinstance(view.get(k), str)]
    inner = view.get("content")
    if isinstance(inner, str):
        texts.append(inner)
    elif isinstance(inner, list):
        blocks = [b for b in inner if isinstance(b, Mapping)]
        texts.extend(b["text"] for b in blocks if isinstance(b.get("text"), str))
    return texts


def stripped_places(
    segments: Sequence[Segment], kept: frozenset[int], remaining: frozenset[str], context: object
) -> tuple[BlockPlace, ...]:
    """Name the guard-format text removed from what the compactor wrote.

    `segments` are the compactor output's marked segments, `kept` its messages kept
    verbatim, `remaining` the texts still holding foreign guard format after repair.
    """
    places: list[BlockPlace] = []
    for segment in segments:
        if segment.text in remaining or not is_editable(segment):
            continue
        if segment.message in kept and not is_only_blocks(segment.text):
            continue
        places.extend(place_of(segment, span.what, context) for span in guard_spans(segment.text))
    return tuple(places)


def warn_foreign(places: Sequence[BlockPlace]) -> None:
    """Log one WARNING naming where guard-format text the guard may not edit sits."""
    if places:
        _LOG.warning(
            "guard-format text the guard may not edit remains in the context: %s",
            "; ".join(f"{p.where}: {p.what}" for p in places),
        )
