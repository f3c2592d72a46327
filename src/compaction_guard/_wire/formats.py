"""The table of wire formats: each provider format's name, roles, part and item types.

A message fits a set of formats, kept as a bit mask: its role, its fields and each
content part's type narrow the set, and a list fits the formats all its messages fit.
The codec renders from these facts and group_trim groups by them. See docs/DESIGN.md,
"Wire formats".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from compaction_guard._wire.sdk_blocks import as_param, part_type

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "ANTHROPIC",
    "ANY",
    "CALL_FIELDS",
    "CALL_OF",
    "CALL_SUFFIX",
    "CHAT",
    "COMPACTION",
    "FORMATS",
    "INPUT_SIDE_ITEMS",
    "OUTPUT_OF",
    "OUTPUT_SUFFIX",
    "RESPONSES",
    "RESPONSES_TEXT_FIELDS",
    "ROLE_FORMATS",
    "TEXT_PARTS",
    "THINKING_PARTS",
    "TOOL_ROLES",
    "TOOL_USE_PARTS",
    "WireFormat",
    "compaction_cut",
    "detect_format",
    "first_format",
    "formats_of",
    "is_provider_item",
    "is_responses_item",
    "members",
    "part_formats",
]


@dataclass(frozen=True, slots=True)
class WireFormat:
    """One provider's message format.

    `name` is how `Rendering.shape` and the codec's errors spell it (stored, so stable),
    `label` how prose and group_trim's errors do; `bit` is its place in a mask.
    `summary_roles` are the roles a plain `{"role", "content"}` message may take in it.
    """

    name: str
    label: str
    bit: int
    summary_roles: frozenset[str]


_CHAT_ROLES: Final = frozenset({"system", "developer", "user", "assistant"})
CHAT: Final = WireFormat("openai-chat", "OpenAI chat", 1, _CHAT_ROLES)
RESPONSES: Final = WireFormat("openai-responses", "OpenAI Responses", 2, _CHAT_ROLES)
ANTHROPIC: Final = WireFormat("anthropic", "Anthropic", 4, frozenset({"user", "assistant"}))
FORMATS: Final = (CHAT, RESPONSES, ANTHROPIC)
"""In order of preference: a list that fits several formats reads as the first."""
ANY: Final = CHAT.bit | RESPONSES.bit | ANTHROPIC.bit
_C, _R, _A = CHAT.bit, RESPONSES.bit, ANTHROPIC.bit

ROLE_FORMATS: Final = {
    "system": _C | _R,
    "developer": _C | _R,
    "user": ANY,
    "assistant": ANY,
    "tool": _C,
    "function": _C,
}
TOOL_ROLES: Final = frozenset({"tool", "function"})
CALL_FIELDS: Final = frozenset({"tool_calls", "function_call"})
"""Fields only an OpenAI chat message carries: the calls an assistant message makes."""

# --- content parts -------------------------------------------------------------------------

COMPACTION: Final = "compaction"
TEXT_PARTS: Final = frozenset({"text", "input_text", "output_text"})
TOOL_USE_PARTS: Final = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
THINKING_PARTS: Final = frozenset({"thinking", "redacted_thinking"})
"""Signed by the provider: model-visible, but no one may edit them."""

# Content-part types that only some formats use; unknown types narrow nothing, except that
# a `*_tool_result` block is Anthropic's.
_PART_FORMATS: Final = {
    "text": _C | _A,
    "refusal": _C | _R,
    "input_audio": _C | _R,
    "image_url": _C,
    "file": _C,
    "input_text": _R,
    "output_text": _R,
    "input_image": _R,
    "input_file": _R,
    **dict.fromkeys(
        (
            *TOOL_USE_PARTS,
            *THINKING_PARTS,
            "tool_result",
            "image",
            "document",
            "search_result",
            "container_upload",
            COMPACTION,
            "mcp_tool_listing",
        ),
        _A,
    ),
}

# --- Responses items -----------------------------------------------------------------------

_RESPONSES_ITEM_TYPES: Final = frozenset(
    {
        "message",
        "reasoning",
        "item_reference",
        COMPACTION,
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
    },
)
RESPONSES_TEXT_FIELDS: Final = ("arguments", "input", "output")
"""Where a Responses call or output item keeps its text."""

OUTPUT_OF: Final = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "computer_call": "computer_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "tool_search_call": "tool_search_output",
}
"""Responses call items and the output item that answers each, paired by call_id."""
CALL_OF: Final = {output: call for call, output in OUTPUT_OF.items()}
CALL_SUFFIX: Final = "_call"
OUTPUT_SUFFIX: Final = "_output"
"""How call and output item types end, those newer than OUTPUT_OF included."""
INPUT_SIDE_ITEMS: Final = frozenset({*CALL_OF, "mcp_approval_response", COMPACTION})
"""Items the client sends; a reasoning item must be followed by one the model wrote."""


def is_responses_item(kind: str) -> bool:
    """Whether `kind` is a Responses item type (a known one, or any `*_call`/`*_output`)."""
    return kind in _RESPONSES_ITEM_TYPES or kind.endswith((CALL_SUFFIX, OUTPUT_SUFFIX))


def is_provider_item(kind: str) -> bool:
    """Whether `kind` is a Responses item other than a message: the provider's, never edited.

    Reasoning, compaction and item references, MCP listings and approvals, every call and
    every output: the guard may report a block inside one, but never remove it.
    """
    return kind != "message" and is_responses_item(kind)


def part_formats(kind: object) -> int:
    """Return the formats a content part of type `kind` may appear in."""
    if kind.__class__ is not str:
        return ANY
    fits = _PART_FORMATS.get(kind)
    if fits is None:
        return _A if kind.endswith("_tool_result") else ANY
    return fits


def formats_of(message: Mapping[str, Any]) -> int:
    """Return the formats a dict message's own fields allow, its content parts aside.

    A string `type` other than "message" makes it a Responses item (whether a reader knows
    that item type is the reader's question); 0 means it fits no format.
    """
    kind = message.get("type")
    if kind is not None:
        if kind.__class__ is not str:
            return 0
        if kind != "message":
            return _R
    role = message.get("role")
    fits = ROLE_FORMATS.get(role, 0) if role.__class__ is str else 0
    if kind is not None:
        fits &= _R
    if not CALL_FIELDS.isdisjoint(message):
        fits &= _C
    if message.get("content") is None:
        fits &= _C  # the others always carry content
    return fits


def compaction_cut(messages: Sequence[Any]) -> tuple[int, int] | None:
    """Return (message, part) of the newest Anthropic compaction block, None when there is none.

    The API drops everything before the newest compaction block, in its own message too,
    so only what follows it is model-visible, and the message holding it is never trimmed.
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.__class__ is dict:  # the common case, without the ABC check
            content = message.get("content")
        else:
            content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, list):
            for number in range(len(content) - 1, -1, -1):
                if part_type(content[number]) == COMPACTION:
                    return index, number
    return None


def members(mask: int) -> tuple[WireFormat, ...]:
    """Return the formats in `mask`, in order of preference."""
    return tuple(fmt for fmt in FORMATS if mask & fmt.bit)


def first_format(mask: int) -> WireFormat:
    """Return the preferred format of a non-empty mask."""
    return members(mask)[0]


def detect_format(messages: Sequence[Any]) -> WireFormat:
    """Return the one wire format every message fits; raise naming the first index that breaks it.

    For group_trim and the adapters. Raises TypeError for a non-mapping message or malformed
    content, ValueError for a missing or unknown role and for lists that mix formats.
    """
    seen = ANY
    for index, message in enumerate(messages):
        fits = 0
        if message.__class__ is dict:  # the common case: content needs no part checks
            content = message.get("content")
            if content is None or content.__class__ is str:
                fits = formats_of(message)
        if not fits:
            fits = _checked_formats(message, index)
        if not fits & seen:
            raise ValueError(_mix_error(index, seen, fits))
        seen &= fits
    return first_format(seen)


def _checked_formats(message: Any, index: int) -> int:
    """Return a message's formats, its content parts included; raise on what fits none."""
    if message.__class__ is not dict and not isinstance(message, Mapping):
        raise TypeError(
            f"message at index {index} is a {type(message).__name__}; each message must be a "
            "mapping such as {'role': 'user', 'content': '...'}"
        )
    kind = message.get("type")
    if kind is not None and kind.__class__ is not str:
        raise TypeError(f"message at index {index} has a non-string 'type': {kind!r}")
    fits = formats_of(message)
    if not fits:
        _refuse_role(message.get("role"), index)
    content = message.get("content")
    if content is not None and content.__class__ is not str:
        fits &= _content_formats(content, index)
    return fits


def _refuse_role(role: object, index: int) -> None:
    if role is None:
        raise ValueError(
            f"message at index {index} has no 'role'; give it one of system, developer, "
            "user, assistant, tool, function (or a Responses 'type')"
        )
    if role.__class__ is not str:
        raise TypeError(f"message at index {index} has a non-string 'role': {role!r}")
    raise ValueError(
        f"message at index {index} has role {role!r}, which no supported shape accepts "
        "here; use system, developer, user, assistant, tool or function"
    )


def _content_formats(content: Any, index: int) -> int:
    if not isinstance(content, list):
        raise TypeError(
            f"message at index {index} has content of type {type(content).__name__}; content "
            "must be a string, a list of content parts, or None"
        )
    fits = ANY
    for part_index, part in enumerate(content):
        where = f"content part {part_index} of message {index}"
        part = as_param(part, where)  # noqa: PLW2901 - an SDK block reads as its param
        if not isinstance(part, Mapping):
            raise TypeError(
                f"{where} is a {type(part).__name__}; content parts must be mappings such as "
                "{'type': 'text', 'text': '...'}"
            )
        kind = part.get("type")
        if kind.__class__ is not str:
            raise TypeError(f"{where} has no string 'type'; add one such as 'text'")
        if kind in TEXT_PARTS and part.get("text").__class__ is not str:
            raise TypeError(f"{where} is a {kind!r} part whose 'text' is not a string")
        fits &= part_formats(kind)
    return fits


def _labels(mask: int) -> str:
    return " or ".join(fmt.label for fmt in members(mask))


def _mix_error(index: int, seen: int, fits: int) -> str:
    if not fits:
        listed = ", ".join(fmt.label for fmt in FORMATS)
        return (
            f"message at index {index} matches no supported shape ({listed}): it mixes "
            "fields of different wire formats; convert it to one format"
        )
    return (
        f"messages mix wire formats: message at index {index} reads as {_labels(fits)}, but "
        f"the messages before it read as {_labels(seen)}; trim one provider's list at a time"
    )
