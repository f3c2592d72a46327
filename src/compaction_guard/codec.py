"""ContextCodec and AutoCodec: context shapes rendered to text, and the block written back.

Shapes that are not recognised are refused with CodecError, never guessed at. See
docs/DESIGN.md, "Codecs" (promise 10).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

from compaction_guard._codec_shapes import (
    ACCEPTED,
    USER_ROLES,
    Tally,
    dict_item,
    hidden_pieces,
    object_item,
    unrecognised,
)
from compaction_guard._wire.formats import (
    ANTHROPIC,
    ANY,
    CALL_FIELDS,
    CHAT,
    RESPONSES,
    ROLE_FORMATS,
    TEXT_PARTS,
    TOOL_ROLES,
    compaction_cut,
    first_format,
    members,
)
from compaction_guard._wire.pairing import chat_position, dict_turn, object_turn, responses_position
from compaction_guard._wire.sdk_blocks import is_sdk_block, part_type
from compaction_guard.block import (
    ENTRY_TAG,
    MARKER,
    has_guard_format,
    is_only_blocks,
    is_standalone_block,
    strip_blocks,
)
from compaction_guard.errors import CodecError
from compaction_guard.view import Segment

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Sequence

__all__ = ["SHAPES", "AutoCodec", "ContextCodec", "Rendering", "try_render", "without_guard_blocks"]

SHAPES: Final = (
    "str",
    "list[str]",
    CHAT.name,
    RESPONSES.name,
    ANTHROPIC.name,
    "content-objects",
    "empty",
)
"""Every value `Rendering.shape` takes."""


@dataclass(frozen=True, slots=True)
class Rendering:
    """A context rendered to text.

    `segments` are in context order, possibly several per message. `keys` hold one
    fingerprint per message, equal exactly when two messages render the same role, texts
    and tool-ness. `notes` say what was not rendered (e.g. '2 thinking blocks not rendered').
    """

    shape: str
    segments: tuple[Segment, ...]
    keys: tuple[Hashable, ...]
    notes: tuple[str, ...] = ()


@runtime_checkable
class ContextCodec(Protocol):
    """Turns one kind of context into text and writes a guard block back into it."""

    def render(self, context: object) -> Rendering:
        """Return the context's text; raise CodecError naming the first unreadable message."""
        ...

    def inject(self, context: object, block: str, *, keep: Collection[int] = ()) -> object:
        """Return a new context holding exactly one standalone `block`; never mutate `context`.

        Guard blocks outside tool text are removed first: whole-block messages and parts
        everywhere, and blocks opening or closing a message's text except in the messages
        listed in `keep` (the caller's own, kept verbatim, which may quote a block). Raises
        CodecError when the block cannot be written without breaking the provider's format.
        """
        ...

    def marked_segments(self, context: object) -> list[Segment]:
        """Return only the segments whose text contains the block marker, cheaply."""
        ...


# A dict with a string role and string content and none of these keys is a plain message,
# the bulk of most contexts: it is read in place, without the per-format rules.
_PLAIN = frozenset({"type", *CALL_FIELDS})


def _sequence(context: object) -> Sequence[Any]:
    if isinstance(context, list | tuple):
        return context
    if _is_content_object(context):
        return (context,)
    raise CodecError(f"the context is a {type(context).__name__}; {ACCEPTED}")


def _is_content_object(item: object) -> bool:
    return not isinstance(item, str | bytes | dict | list | tuple) and hasattr(item, "content")


def _mismatch(index: int, item: object, first: str) -> CodecError:
    return CodecError(
        f"message {index} is a {type(item).__name__} but message 0 is {first}; a context "
        f"must use one message format throughout; {ACCEPTED}",
    )


class AutoCodec(ContextCodec):
    """The default codec: detects the context's shape on every call.

    >>> AutoCodec().render([{"role": "user", "content": "hi"}]).shape
    'openai-chat'
    """

    def render(self, context: object) -> Rendering:
        """Return the context's text; raise CodecError naming the first unreadable message.

        One object with `.content` renders as a list of one.
        """
        if isinstance(context, str):
            return Rendering("str", (Segment(context, 0, "text"),), (("text", context, False),))
        seq = _sequence(context)
        if not seq:
            return Rendering("empty", (), ())
        first = seq[0]
        if isinstance(first, str):
            return _render_strings(seq)
        if isinstance(first, dict):
            return _render_dicts(seq)
        if _is_content_object(first):
            return _render_objects(seq)
        raise CodecError(f"message 0 is a {type(first).__name__}; {ACCEPTED}")

    def inject(self, context: object, block: str, *, keep: Collection[int] = ()) -> object:
        """Return a new context holding exactly one standalone `block`; never mutate `context`.

        `keep` lists messages whose text is the caller's own: only whole-block messages
        and parts are removed from them, never a block quoted at their edge.

        Raises ValueError when `block` is not one block, CodecError when it cannot be
        written without breaking the provider's format.
        """
        if not is_standalone_block(block):
            raise ValueError("inject needs exactly one block, as written by format_block")
        if isinstance(context, str):
            return _inject_str(context, block)
        if _is_content_object(context):
            return _inject_single_object(context, block)
        shape = self.render(context).shape
        seq = _sequence(context)
        out: list[Any]
        if shape == "empty":
            out = [{"role": "user", "content": block}]
        elif shape == "list[str]":
            out = [
                cleaned
                for index, item in enumerate(seq)
                if (cleaned := _clean_text(item, kept=index in keep)) or not item
            ]
            out.append(block)
        elif shape == "content-objects":
            out = _inject_objects(seq, block, keep)
        else:
            out = _without_blocks(seq, keep)
            _PLACERS[shape](out, block)
        return tuple(out) if isinstance(context, tuple) else out

    def marked_segments(self, context: object) -> list[Segment]:
        """Return the segments that may hold the guard's format (marker or entry tag).

        Everything the model reads is probed, thinking blocks and reasoning content
        included (as tool text: no one may edit them). Runs before every model call, so
        plain string messages are probed in place and only structured content is rendered.
        """
        if isinstance(context, str):
            return [Segment(context, 0, "text")] if has_guard_format(context) else []
        seq = _sequence(context)
        found, structured = _probe(enumerate(seq))
        # Only structured content can hold an Anthropic compaction block; after one, only
        # what follows it is model-visible, so probe that part again.
        if structured and compaction_cut(seq) is not None:
            found, _ = _probe(_model_visible(seq))
        return found


def _probe(items: Iterable[tuple[int, Any]]) -> tuple[list[Segment], bool]:
    """Return the marked segments of `items` and whether any item was structured.

    The loop is the hot path of `assert_present`: a plain {"role", "content": str} message
    costs a class check and two single-character scans ("<" and "[") of its text.
    """
    found: list[Segment] = []
    structured = False
    for index, item in items:
        if item.__class__ is dict:
            content = item.get("content")
            if content.__class__ is str:
                role = item.get("role")
                if role.__class__ is str and (len(item) == 2 or _PLAIN.isdisjoint(item)):  # noqa: PLR2004
                    if ("<" in content and MARKER in content) or (
                        "[" in content and ENTRY_TAG in content
                    ):
                        found.append(Segment(content, index, role, role in TOOL_ROLES))
                    continue
        structured = True
        found.extend(_probe_structured(index, item))
    return found, structured


def _probe_structured(index: int, item: object) -> list[Segment]:
    """Return the marked segments of one message that is not a plain string message."""
    if isinstance(item, dict):
        role, pieces, _ = dict_item(item, index, None)
        pieces.extend(hidden_pieces(item.get("content"), item))
    elif isinstance(item, str):
        role, pieces = "text", [(item, False)]
    elif _is_content_object(item):
        role, pieces = object_item(item, index, None)
        pieces.extend(hidden_pieces(getattr(item, "content", None)))
    else:
        raise CodecError(f"message {index} is a {type(item).__name__}; {ACCEPTED}")
    return [Segment(text, index, role, tool) for text, tool in pieces if has_guard_format(text)]


def _model_visible(seq: Sequence[Any]) -> Iterator[tuple[int, Any]]:
    """Yield (index, message) for what the model sees.

    That is all of it, or only what follows the newest Anthropic compaction block: the API
    drops everything before it, in its own message too.
    """
    cut = compaction_cut(seq)
    if cut is None:
        yield from enumerate(seq)
        return
    first, part = cut
    item = seq[first]
    yield first, {**item, "content": item["content"][part + 1 :]}
    yield from enumerate(seq[first + 1 :], start=first + 1)


def _render_strings(seq: Sequence[Any]) -> Rendering:
    segments, keys = [], []
    for index, item in enumerate(seq):
        if not isinstance(item, str):
            raise _mismatch(index, item, "a str")
        segments.append(Segment(item, index, "text"))
        keys.append(("text", item, False))
    return Rendering("list[str]", tuple(segments), tuple(keys))


def _render_dicts(seq: Sequence[Any]) -> Rendering:
    families, tally = ANY, Tally()
    segments: list[Segment] = []
    keys: list[Hashable] = []
    for index, item in enumerate(seq):
        if not isinstance(item, dict):
            raise _mismatch(index, item, "a dict")
        content, role = item.get("content"), item.get("role")
        if content.__class__ is str and role.__class__ is str and _PLAIN.isdisjoint(item):
            fits = ROLE_FORMATS.get(role, 0)
            tool = role in TOOL_ROLES
            segments.append(Segment(content, index, role, tool))
            keys.append((role, content, tool))
        else:
            role, pieces, fits = dict_item(item, index, tally)
            segments.extend(Segment(text, index, role, tool) for text, tool in pieces)
            keys.append((role, *chain.from_iterable(pieces)))
        if not fits:
            raise CodecError(unrecognised(item, index))
        if not families & fits:
            raise CodecError(
                f"message {index} fits only {_names(fits)} but the messages before it fit "
                f"only {_names(families)}; a context must use one provider's message format",
            )
        families &= fits
    shape = first_format(families).name
    return Rendering(shape, tuple(segments), tuple(keys), tally.notes())


def _names(mask: int) -> str:
    return ", ".join(sorted(fmt.name for fmt in members(mask)))


def _render_objects(seq: Sequence[Any]) -> Rendering:
    tally = Tally()
    segments: list[Segment] = []
    keys: list[Hashable] = []
    for index, item in enumerate(seq):
        if not _is_content_object(item):
            raise _mismatch(index, item, "an object with .content")
        role, pieces = object_item(item, index, tally)
        segments.extend(Segment(text, index, role, tool) for text, tool in pieces)
        keys.append((role, *chain.from_iterable(pieces)))
    return Rendering("content-objects", tuple(segments), tuple(keys), tally.notes())


def _inject_str(text: str, block: str) -> str:
    """Remove the guard's format from the text, then append `block` after a blank line.

    A plain string is all compactor output, so every block and entry line goes; trailing
    whitespace is trimmed, so injecting again changes nothing.
    """
    text = strip_blocks(text).rstrip()
    return f"{text}\n\n{block}" if text.strip() else block


def _clean_text(text: str, *, kept: bool) -> str:
    """Return `text` without the guard's format; "" when nothing else was in it.

    Text the compactor wrote loses every block, fragment and bare entry line: the format
    is reserved for the one block the guard injects. In a kept message (the caller's own
    text) only a text that is nothing but blocks is removed. Same object when unchanged.
    """
    if kept:
        return "" if is_only_blocks(text) else text
    cleaned = strip_blocks(text)
    return text if cleaned is text else cleaned.strip()


def _clean_part(part: object, *, kept: bool) -> object | None:
    """Return the part without the guard's blocks, None when nothing else was in it."""
    if is_sdk_block(part) and part_type(part) == "text":
        return _clean_sdk_text(part, kept=kept)
    if isinstance(part, str):
        cleaned = _clean_text(part, kept=kept)
        return part if cleaned is part else cleaned or None
    if isinstance(part, dict) and part.get("type") in TEXT_PARTS:
        text = part.get("text")
        if isinstance(text, str):
            cleaned = _clean_text(text, kept=kept)
            if cleaned is text:
                return part
            return {**part, "text": cleaned} if cleaned else None
    return part


def _clean_sdk_text(part: object, *, kept: bool) -> object | None:
    """Clean an SDK TextBlock; one that loses a block becomes the text param it sends as."""
    text = getattr(part, "text", None)
    cleaned = _clean_text(text, kept=kept) if isinstance(text, str) else text
    if cleaned is text:
        return part
    return {"type": "text", "text": cleaned} if cleaned else None


def without_guard_blocks(content: object, *, kept: bool = False) -> object | None:
    """Return message content (a str or a list of parts) without the guard's blocks.

    Returns the same object when there was nothing to remove and None when nothing else
    was in it. With `kept`, only text that is nothing but blocks is removed. Codecs for
    other message types (integrations) use this to remove blocks the way AutoCodec does.
    """
    if isinstance(content, str):
        cleaned = _clean_text(content, kept=kept)
        return content if cleaned is content else cleaned or None
    if isinstance(content, list):
        parts = [_clean_part(part, kept=kept) for part in content]
        if all(a is b for a, b in zip(parts, content, strict=True)):
            return content
        return [part for part in parts if part is not None] or None
    return content


def _without_blocks(seq: Sequence[Any], keep: Collection[int]) -> list[Any]:
    """Return the dict messages without the guard's blocks; tool text is never touched."""
    out: list[Any] = []
    for index, item in enumerate(seq):
        content = item.get("content")
        if item.get("role") in TOOL_ROLES or item.get("type", "message") != "message":
            out.append(item)
            continue
        cleaned = without_guard_blocks(content, kept=index in keep)
        if cleaned is content:
            out.append(item)
        elif cleaned is not None:
            out.append({**item, "content": cleaned})
        elif not CALL_FIELDS.isdisjoint(item):
            out.append({**item, "content": None})
    return out


def _place_chat(out: list[Any], block: str) -> None:
    out.insert(chat_position(out, dict_turn), {"role": "user", "content": block})


def _place_responses(out: list[Any], block: str) -> None:
    part = {"type": "input_text", "text": block}
    message = {"type": "message", "role": "user", "content": [part]}
    out.insert(responses_position(out), message)


def _place_anthropic(out: list[Any], block: str) -> None:
    """Append the block to the last user turn (after any tool_result), or as a new turn."""
    part = {"type": "text", "text": block}
    last = out[-1] if out else None
    content = last.get("content") if last is not None else None
    if last is not None and last.get("role") == "user":
        # A blank turn is left alone (Anthropic rejects blank text blocks); the block
        # then gets its own turn, which the next inject removes whole.
        if isinstance(content, str) and content.strip():
            out[-1] = {**last, "content": [{"type": "text", "text": content}, part]}
            return
        if isinstance(content, list) and content:
            out[-1] = {**last, "content": [*content, part]}
            return
    elif isinstance(content, list) and any(part_type(p) == "tool_use" for p in content):
        raise CodecError(
            "the last assistant message has a tool_use without its tool_result, and a block "
            "placed after it would split that pair; append the tool_result turn before "
            "compacting, or compact before the assistant turn",
        )
    out.append({"role": "user", "content": [part]})


_PLACERS: dict[str, Callable[[list[Any], str], None]] = {
    CHAT.name: _place_chat,
    RESPONSES.name: _place_responses,
    ANTHROPIC.name: _place_anthropic,
}


def _with_content(item: object, content: object) -> object:
    """Return a shallow copy of a message object with `.content` replaced."""
    new = copy.copy(item)
    try:
        new.content = content  # type: ignore[attr-defined]
        if getattr(new, "id", None) is not None:
            # Frameworks merge messages by id (LangGraph's add_messages); a copy is a new one.
            new.id = None  # type: ignore[attr-defined]
    except (AttributeError, TypeError, ValueError) as exc:
        raise CodecError(
            f"cannot set .content on a copy of {type(item).__name__} ({exc}); use message "
            "objects whose .content can be assigned, or pass message dicts",
        ) from exc
    return new


def _inject_single_object(item: object, block: str) -> object:
    """Return a copy of one `.content` object with the block appended to its text."""
    content = getattr(item, "content", None)
    if isinstance(content, str):
        return _with_content(item, _inject_str(strip_blocks(content).strip(), block))
    if isinstance(content, list):
        cleaned = without_guard_blocks(content)
        parts = cleaned if isinstance(cleaned, list) else []
        return _with_content(item, [*parts, {"type": "text", "text": block}])
    raise CodecError(
        f"cannot write the block into a {type(item).__name__} whose .content is "
        f"{type(content).__name__}; pass a list of messages",
    )


def _inject_objects(seq: Sequence[Any], block: str, keep: Collection[int]) -> list[Any]:
    """Remove standalone blocks from message objects and append a copied user object."""
    out: list[Any] = []
    template = None
    for index, item in enumerate(seq):
        role = object_turn(item)[0]
        template = item if role in USER_ROLES else template
        content = item.content
        kept = index in keep
        cleaned = content if role in TOOL_ROLES else without_guard_blocks(content, kept=kept)
        if cleaned is content:
            out.append(item)
        elif cleaned is not None:
            out.append(_with_content(item, cleaned))
    if template is None:
        raise CodecError(
            "the context has no user message object to copy for the block; include one "
            "whose .role or .type is 'user' or 'human', or pass message dicts",
        )
    out.insert(chat_position(out, object_turn), _with_content(template, block))
    return out


def try_render(codec: ContextCodec, context: object) -> tuple[Rendering | None, str | None]:
    """Render `context`, or say why this codec cannot read it: (rendering, None) or (None, why).

    `Guard.compact` renders both sides this way: an unreadable side makes findings
    `unverifiable` (promise 10) rather than stopping a compaction WARN would let through.
    """
    try:
        return codec.render(context), None
    except CodecError as exc:
        return None, str(exc)
