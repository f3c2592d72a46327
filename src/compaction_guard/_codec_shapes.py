"""Per-message reading for the codec: which provider formats a message fits, and its texts.

Private to `codec`. See docs/DESIGN.md, "Codecs" (promise 10).
"""

from __future__ import annotations

import json
from typing import Any

from compaction_guard._wire.formats import (
    ANY,
    CALL_FIELDS,
    COMPACTION,
    RESPONSES,
    RESPONSES_TEXT_FIELDS,
    ROLE_FORMATS,
    THINKING_PARTS,
    TOOL_ROLES,
    TOOL_USE_PARTS,
    formats_of,
    is_responses_item,
    part_formats,
)
from compaction_guard._wire.sdk_blocks import part_view
from compaction_guard.errors import CodecError

__all__ = [
    "ACCEPTED",
    "USER_ROLES",
    "Piece",
    "Tally",
    "dict_item",
    "hidden_pieces",
    "object_item",
    "unrecognised",
]

ACCEPTED = (
    "accepted shapes: str; list[str]; a list of OpenAI chat message dicts, OpenAI Responses "
    "input items or Anthropic message dicts; a list of objects with a .content attribute"
)

USER_ROLES = frozenset({"user", "human"})
"""The user's role in a message object: dicts say `user`, LangChain objects `human`."""

Piece = tuple[str, bool]
"""One rendered text and whether it is tool text."""

class Tally:
    """Counts of things a rendering skipped, turned into report notes."""

    __slots__ = ("counts",)

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, what: str) -> None:
        """Count one skipped `what` (a singular noun phrase)."""
        self.counts[what] = self.counts.get(what, 0) + 1

    def notes(self) -> tuple[str, ...]:
        """Return one note per skipped kind, e.g. '2 thinking blocks not rendered'."""
        return tuple(
            f"{n} {what}{'' if n == 1 else 's'} not rendered" for what, n in self.counts.items()
        )


# Deeper tool input than this is refused by name; json.dumps would hit the recursion limit.
MAX_TOOL_DEPTH = 200


def _json(value: object, where: str) -> str:
    """Render tool input as JSON; a cycle or extreme depth is a CodecError naming the path."""
    problem = _tool_input_problem(value)
    if problem is not None:
        path, reason = problem
        raise CodecError(
            f"{where}: tool input {reason} at {path}; pass tool input as plain JSON data "
            f"(no value that contains itself, nesting under {MAX_TOOL_DEPTH} levels)",
        )
    return json.dumps(value, ensure_ascii=False, default=str)


def _tool_input_problem(value: object) -> tuple[str, str] | None:
    """Return (JSON path, reason) of the first cycle or over-deep container, or None."""
    if not isinstance(value, dict | list | tuple):
        return None
    stack: list[tuple[object, str, int, frozenset[int]]] = [(value, "$", 0, frozenset())]
    while stack:
        item, path, depth, above = stack.pop()
        if not isinstance(item, dict | list | tuple):
            continue
        if id(item) in above:
            return path, "contains itself (a cycle)"
        if depth >= MAX_TOOL_DEPTH:
            return path, f"is nested deeper than {MAX_TOOL_DEPTH} levels"
        inner = above | {id(item)}
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        for key, child in pairs:
            step = f"{path}.{key}" if isinstance(item, dict) else f"{path}[{key}]"
            stack.append((child, step, depth + 1, inner))
    return None


def hidden_pieces(content: object, item: object = None) -> list[Piece]:
    """Return model-visible text the renderer skips, as text no one may edit (tool text).

    Thinking blocks in a content list and the `content` of a Responses reasoning item: the
    provider signs or encrypts them, so a block there can only be reported, never removed.
    """
    pieces: list[Piece] = []
    if isinstance(item, dict) and item.get("type") == "reasoning":
        parts = [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []
        pieces.extend((p["text"], True) for p in parts if isinstance(p.get("text"), str))
        return pieces
    if not isinstance(content, list):
        return pieces
    for part in content:
        view = part if isinstance(part, dict) else part_view(part, "a content part")
        if view is not None and view.get("type") == "thinking":
            thinking = view.get("thinking")
            if isinstance(thinking, str):
                pieces.append((thinking, True))
    return pieces


def _tool_output(value: object, pieces: list[Piece]) -> None:
    """Render a tool result's content (a string or a list of text blocks) as tool text."""
    if isinstance(value, str):
        pieces.append((value, True))
    elif isinstance(value, list):
        for block in value:
            if isinstance(block, str):
                pieces.append((block, True))
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                pieces.append((block["text"], True))


def _part(
    part: dict[str, Any], pieces: list[Piece], tally: Tally | None, *, tool: bool, where: str
) -> None:
    kind = part.get("type")
    if kind == "refusal":
        if isinstance(part.get("refusal"), str):
            pieces.append((part["refusal"], tool))
    elif kind in TOOL_USE_PARTS:
        pieces.append((_json(part.get("input"), where), True))
    elif isinstance(kind, str) and kind.endswith("tool_result"):
        _tool_output(part.get("content"), pieces)
    elif kind in THINKING_PARTS:
        if tally is not None:
            tally.add("thinking block")
    elif kind == COMPACTION:
        # The server's summary: model-visible text, the one thing left of what it replaced.
        if isinstance(part.get("content"), str):
            pieces.append((part["content"], tool))
    elif isinstance(part.get("text"), str):
        pieces.append((part["text"], tool))


def _parts(
    content: list[Any], index: int, pieces: list[Piece], tally: Tally | None, *, tool: bool
) -> int:
    """Render a content-part list; return the provider formats its part types allow."""
    fits = ANY
    for number, part in enumerate(content):
        if isinstance(part, str):
            pieces.append((part, tool))
            continue
        view = part_view(part, f"message {index}, content part {number}")
        if view is not None:
            part = view  # noqa: PLW2901 - an SDK block is read as the param it sends as
        if not isinstance(part, dict):
            raise CodecError(
                f"message {index}, content part {number} is a {type(part).__name__}; "
                "content parts must be dicts with a 'type', Anthropic SDK content blocks, "
                "or plain strings",
            )
        fits &= part_formats(part.get("type"))
        _part(part, pieces, tally, tool=tool, where=f"message {index}, content part {number}")
    return fits


def _calls(item: dict[str, Any], pieces: list[Piece]) -> None:
    """Render chat `tool_calls` and legacy `function_call` arguments as tool text."""
    calls = item.get("tool_calls") or ()
    legacy = item.get("function_call")
    for call in [*calls, {"function": legacy}] if legacy else calls:
        spec = (call.get("function") or call.get("custom")) if isinstance(call, dict) else None
        if isinstance(spec, dict):
            fields = (spec.get("arguments"), spec.get("input"))
            pieces.extend((text, True) for text in fields if isinstance(text, str))


def _responses_item(
    item: dict[str, Any], kind: str, tally: Tally | None
) -> tuple[str, list[Piece], int]:
    """Render a Responses item other than a message; an unknown item type fits nothing."""
    pieces: list[Piece] = []
    if not is_responses_item(kind):
        return kind, pieces, 0
    if kind == "reasoning":
        summary = [part for part in item.get("summary") or () if isinstance(part, dict)]
        pieces.extend((p["text"], False) for p in summary if isinstance(p.get("text"), str))
        if item.get("content") and tally is not None:
            tally.add("reasoning content")
        return kind, pieces, RESPONSES.bit
    for field in RESPONSES_TEXT_FIELDS:
        _tool_output(item.get(field), pieces)
    if not pieces and tally is not None:
        tally.add(f"{kind} item")
    return kind, pieces, RESPONSES.bit


def dict_item(
    item: dict[str, Any], index: int, tally: Tally | None
) -> tuple[str, list[Piece], int]:
    """Return a dict message's role, its rendered pieces and the formats it fits (a mask).

    A mask of 0 means the message fits no format (see `unrecognised`).
    """
    kind = item.get("type")
    if isinstance(kind, str) and kind != "message":
        return _responses_item(item, kind, tally)
    fits = formats_of(item)
    role = item.get("role")
    role_name = role if isinstance(role, str) else "?"
    tool = role_name in TOOL_ROLES
    pieces: list[Piece] = []
    content = item.get("content")
    if isinstance(content, str):
        pieces.append((content, tool))
    elif isinstance(content, list):
        fits &= _parts(content, index, pieces, tally, tool=tool)
    elif content is not None:
        raise CodecError(
            f"message {index} has content of type {type(content).__name__}; "
            "content must be a string, a list of parts, or None",
        )
    if not CALL_FIELDS.isdisjoint(item):
        _calls(item, pieces)
    return role_name, pieces, fits


def unrecognised(item: dict[str, Any], index: int) -> str:
    """Describe why a dict message fits no supported format, with what is accepted."""
    kind, role = item.get("type"), item.get("role")
    if isinstance(kind, str) and kind != "message":
        what = f"has type {kind!r}, which is not an OpenAI Responses item type"
    elif kind is not None and not isinstance(kind, str):
        what = f"has a non-string 'type' ({kind!r})"
    elif not isinstance(role, str):
        what = "has no string 'role' (and no Responses 'type')"
    elif role not in ROLE_FORMATS:
        what = f"has role {role!r}; roles accepted: {', '.join(ROLE_FORMATS)}"
    else:
        what = "mixes fields from different provider formats"
    return f"message {index} {what}; {ACCEPTED}"


def object_item(item: object, index: int, tally: Tally | None) -> tuple[str, list[Piece]]:
    """Return a content object's role (from .role or .type) and its rendered pieces."""
    role = getattr(item, "role", None)
    if not isinstance(role, str):
        role = getattr(item, "type", None)
    role_name = role if isinstance(role, str) else "?"
    tool = role_name in TOOL_ROLES
    content = getattr(item, "content", None)
    pieces: list[Piece] = []
    if isinstance(content, str):
        pieces.append((content, tool))
    elif isinstance(content, list):
        _parts(content, index, pieces, tally, tool=tool)
    elif content is not None:
        raise CodecError(
            f"message {index} ({type(item).__name__}) has .content of type "
            f"{type(content).__name__}; .content must be a string or a list of parts",
        )
    return role_name, pieces
