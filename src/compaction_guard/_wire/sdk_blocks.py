"""Anthropic SDK content-block objects read as the dict params they serialise to.

`response.content` is a list of SDK objects (`TextBlock`, `ToolUseBlock`,
`BetaCompactionBlock`, ...), and the documented way to keep history is to append it as
is, so every reader of Anthropic content (codec, group_trim, presence) meets them. Only the
block types the 2.x SDK defines are read; any other object is refused by name rather than
guessed at. The SDK is never imported: objects are recognised by their module. See
docs/DESIGN.md, "Wire formats" (promise 10).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from compaction_guard.errors import CodecError

__all__ = [
    "SDK_BLOCK_TYPES",
    "as_param",
    "is_sdk_block",
    "part_type",
    "part_view",
]

SDK_BLOCK_TYPES: Final = frozenset(
    {
        # anthropic.types.ContentBlock
        "text",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "container_upload",
        # anthropic.types.beta.BetaContentBlock adds these
        "advisor_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "compaction",
        "fallback",
        "mcp_tool_listing",
    },
)
"""Every `type` of a content block in anthropic 2.x, `ContentBlock` and `BetaContentBlock`."""

def is_sdk_block(part: object) -> bool:
    """Whether `part` is an object from the `anthropic` package (not a dict param)."""
    return type(part).__module__.startswith("anthropic.") and hasattr(part, "model_dump")


def part_view(part: object, where: str) -> Mapping[str, Any] | None:
    """Return an SDK block as its JSON param dict; None for anything not from the SDK.

    Raises CodecError naming the class and type of an SDK object whose type this
    version does not know: its meaning (tool text? model-visible?) cannot be guessed.
    """
    if not is_sdk_block(part):
        return None
    kind = getattr(part, "type", None)
    if kind not in SDK_BLOCK_TYPES:
        raise CodecError(
            f"{where} is an anthropic {type(part).__name__} with type {kind!r}, which "
            "compaction-guard does not know; known block types: "
            f"{', '.join(sorted(SDK_BLOCK_TYPES))}. Upgrade compaction-guard, or pass the "
            "message without that block",
        )
    dump: Any = part.model_dump  # type: ignore[attr-defined]
    view: dict[str, Any] = dump(mode="json", exclude_none=True)
    return view


def part_type(part: object) -> object:
    """Return the `type` of a content part, whether a dict param or an SDK object."""
    if isinstance(part, Mapping):
        return part.get("type")
    return getattr(part, "type", None) if is_sdk_block(part) else None


def as_param(part: object, where: str) -> Any:
    """Return an SDK block as its param dict and anything else as it is.

    For readers whose contract is TypeError/ValueError (group_trim): an SDK block of an
    unknown type is a TypeError there, with the same text.
    """
    try:
        view = part_view(part, where)
    except CodecError as exc:
        raise TypeError(str(exc)) from None
    return part if view is None else view
