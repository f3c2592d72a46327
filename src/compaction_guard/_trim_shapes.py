"""Wire-format detection and tool-call grouping for `group_trim` (docs/DESIGN.md, "group_trim").

One reader per shape (OpenAI chat, OpenAI Responses items, Anthropic messages) turns a
list into group starts plus the provider-rejected shapes it saw, as (index, kind, text).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from compaction_guard._anthropic_parts import COMPACTION, compaction_cut, part_view
from compaction_guard.errors import CodecError

__all__ = [
    "ANTHROPIC",
    "CALL_WITHOUT_RESULT",
    "CHAT",
    "DUPLICATE_CALL_ID",
    "ORPHAN_RESULT",
    "REASONING_WITHOUT_ITEM",
    "RESPONSES",
    "RESULT_NOT_FIRST",
    "Walk",
    "detect_shape",
    "read_groups",
    "summary_roles",
]

CHAT: Final = "OpenAI chat"
RESPONSES: Final = "OpenAI Responses"
ANTHROPIC: Final = "Anthropic"

ORPHAN_RESULT: Final = "orphan_result"
CALL_WITHOUT_RESULT: Final = "call_without_result"
REASONING_WITHOUT_ITEM: Final = "reasoning_without_item"
RESULT_NOT_FIRST: Final = "result_not_first"
DUPLICATE_CALL_ID: Final = "duplicate_call_id"

_C: Final = 1
_R: Final = 2
_A: Final = 4
_ANY: Final = _C | _R | _A
_SHAPE_BITS: Final = ((_C, CHAT), (_R, RESPONSES), (_A, ANTHROPIC))

_ROLE_MASK: Final = {
    "system": _C | _R,
    "developer": _C | _R,
    "user": _ANY,
    "assistant": _ANY,
    "tool": _C,
    "function": _C,
}
# Content part types that only some shapes accept; unknown types constrain nothing.
_PART_MASK: Final = {
    "text": _C | _A,
    "image_url": _C,
    "file": _C,
    "input_audio": _C | _R,
    "refusal": _C | _R,
    "input_text": _R,
    "output_text": _R,
    "input_image": _R,
    "input_file": _R,
    "image": _A,
    "document": _A,
    "search_result": _A,
    "container_upload": _A,
    "thinking": _A,
    "redacted_thinking": _A,
    "tool_use": _A,
    "server_tool_use": _A,
    "mcp_tool_use": _A,
    "tool_result": _A,
    COMPACTION: _A,
    "mcp_tool_listing": _A,
}
_TEXT_PARTS: Final = frozenset({"text", "input_text", "output_text"})

# Responses call items and the output item that answers each, paired by call_id.
_OUTPUT_OF: Final = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "computer_call": "computer_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "tool_search_call": "tool_search_output",
}
_CALL_OF: Final = {output: call for call, output in _OUTPUT_OF.items()}
_INPUT_SIDE_ITEMS: Final = frozenset({*_CALL_OF, "mcp_approval_response", "compaction"})
_ANTHROPIC_USES: Final = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})

Problem = tuple[int, str, str]


@dataclass(frozen=True, slots=True)
class Walk:
    """Group starts (ascending, first is 0), problems found (unsorted), indices never dropped."""

    starts: list[int]
    problems: list[Problem]
    pinned: tuple[int, ...] = ()


def detect_shape(messages: Sequence[Any]) -> str:
    """Return the one wire format every message fits; raise naming the first index that breaks it.

    Raises TypeError for a non-mapping message or malformed content, ValueError for a missing
    or unknown role and for lists that mix formats. Lists that fit several formats carry no
    format-specific pairing, so the first fitting name is returned.
    """
    seen = _ANY
    role_mask = _ROLE_MASK.get
    for index, message in enumerate(messages):
        # Fast path for the common plain message; anything else takes _message_mask.
        mask = 0
        if message.__class__ is dict and "type" not in message:
            content = message.get("content")
            if content is None or content.__class__ is str:
                role = message.get("role")
                mask = role_mask(role, 0) if role.__class__ is str else 0
                if "tool_calls" in message or "tool_call_id" in message:
                    mask &= _C
        if not mask or "function_call" in message:
            mask = _message_mask(message, index)
        if not mask & seen:
            raise ValueError(_mix_error(index, seen, mask))
        seen &= mask
    return next(name for bit, name in _SHAPE_BITS if seen & bit)


def read_groups(messages: Sequence[Any], shape: str) -> Walk:
    """Split `messages` (already accepted by `detect_shape` as `shape`) into groups."""
    if shape == RESPONSES:
        return _walk_responses(messages)
    if shape == ANTHROPIC:
        return _walk_anthropic(messages)
    return _walk_chat(messages)


def summary_roles(shape: str) -> frozenset[str]:
    """Roles a plain `{"role", "content"}` summary message may take in this shape."""
    if shape == ANTHROPIC:
        return frozenset({"user", "assistant"})
    return frozenset({"system", "developer", "user", "assistant"})


def _message_mask(message: Any, index: int) -> int:
    if message.__class__ is not dict and not isinstance(message, Mapping):
        raise TypeError(
            f"message at index {index} is a {type(message).__name__}; each message must be a "
            "mapping such as {'role': 'user', 'content': '...'}"
        )
    item_type = message.get("type")
    role = message.get("role")
    if item_type is not None and item_type != "message":
        if item_type.__class__ is not str:
            raise TypeError(f"message at index {index} has a non-string 'type': {item_type!r}")
        return _R
    if role is None:
        raise ValueError(
            f"message at index {index} has no 'role'; give it one of system, developer, "
            "user, assistant, tool, function (or a Responses 'type')"
        )
    if role.__class__ is not str:
        raise TypeError(f"message at index {index} has a non-string 'role': {role!r}")
    mask = _ROLE_MASK.get(role, 0)
    if item_type is not None:
        mask &= _R
    elif "tool_calls" in message or "tool_call_id" in message or "function_call" in message:
        mask &= _C
    if not mask:
        raise ValueError(
            f"message at index {index} has role {role!r}, which no supported shape accepts "
            "here; use system, developer, user, assistant, tool or function"
        )
    content = message.get("content")
    if content is not None and content.__class__ is not str:
        mask &= _content_mask(content, index)
    return mask


def _content_mask(content: Any, index: int) -> int:
    if not isinstance(content, list):
        raise TypeError(
            f"message at index {index} has content of type {type(content).__name__}; content "
            "must be a string, a list of content parts, or None"
        )
    mask = _ANY
    for part_index, part in enumerate(content):
        where = f"content part {part_index} of message {index}"
        part = _sdk_view(part, where)  # noqa: PLW2901 - an SDK block reads as its param
        if not isinstance(part, Mapping):
            raise TypeError(
                f"{where} is a {type(part).__name__}; content parts must be mappings such as "
                "{'type': 'text', 'text': '...'}"
            )
        part_type = part.get("type")
        if part_type.__class__ is not str:
            raise TypeError(f"{where} has no string 'type'; add one such as 'text'")
        if part_type in _TEXT_PARTS and part.get("text").__class__ is not str:
            raise TypeError(f"{where} is a {part_type!r} part whose 'text' is not a string")
        part_mask = _PART_MASK.get(part_type)
        if part_mask is None:
            part_mask = _A if part_type.endswith("_tool_result") else _ANY
        mask &= part_mask
    return mask


def _names(mask: int) -> str:
    return " or ".join(name for bit, name in _SHAPE_BITS if mask & bit)


def _mix_error(index: int, seen: int, mask: int) -> str:
    if not mask:
        return (
            f"message at index {index} matches no supported shape ({CHAT}, {RESPONSES}, "
            f"{ANTHROPIC}): it mixes fields of different wire formats; convert it to one format"
        )
    return (
        f"messages mix wire formats: message at index {index} reads as {_names(mask)}, but "
        f"the messages before it read as {_names(seen)}; trim one provider's list at a time"
    )


def _walk_chat(messages: Sequence[Any]) -> Walk:
    """Assistant `tool_calls` + the contiguous `tool` messages answering them; legacy pairs."""
    starts: list[int] = []
    add_start = starts.append
    problems: list[Problem] = []
    open_ids: dict[Any, bool] = {}  # call id -> answered, for the group being read
    opener = -1
    legacy_name: Any = None
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool" and open_ids and message.get("tool_call_id") in open_ids:
            call_id = message["tool_call_id"]
            if open_ids[call_id]:
                problems.append(_dup(index, call_id, "is answered a second time"))
            open_ids[call_id] = True
            continue
        if role == "function" and opener == index - 1 and _answers_legacy(legacy_name, message):
            legacy_name = None
            continue
        if open_ids or legacy_name is not None:
            _close_chat_group(open_ids, opener, legacy_name, problems)
            open_ids, legacy_name = {}, None
        add_start(index)
        opener = index
        if role == "assistant":
            if "tool_calls" in message:
                open_ids = _chat_call_ids(message, index, problems)
            if "function_call" in message:
                legacy_name = _legacy_call_name(message)
        elif role in {"tool", "function"}:
            reply_to = message.get("tool_call_id", message.get("name"))
            problems.append((index, ORPHAN_RESULT, _orphan_text(index, role, reply_to)))
    _close_chat_group(open_ids, opener, legacy_name, problems)
    return Walk(starts, problems)


def _chat_call_ids(
    message: Mapping[str, Any], index: int, problems: list[Problem]
) -> dict[Any, bool]:
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return {}
    ids: dict[Any, bool] = {}
    for call_index, call in enumerate(calls):
        call_id = call.get("id") if isinstance(call, Mapping) else None
        if call_id.__class__ is not str:
            raise ValueError(
                f"tool call {call_index} of message {index} has no string 'id'; every entry "
                "of 'tool_calls' needs the id its tool message answers"
            )
        if call_id in ids:
            problems.append(_dup(index, call_id, "appears twice in one 'tool_calls' list"))
        ids[call_id] = False
    return ids


def _legacy_call_name(message: Mapping[str, Any]) -> Any:
    call = message.get("function_call")
    if not isinstance(call, Mapping):
        return None
    name = call.get("name")
    return True if name is None else name


def _answers_legacy(legacy_name: Any, message: Mapping[str, Any]) -> bool:
    return legacy_name is not None and legacy_name in (True, message.get("name"))


def _close_chat_group(
    open_ids: dict[Any, bool], opener: int, legacy_name: Any, problems: list[Problem]
) -> None:
    for call_id, answered in open_ids.items():
        if not answered:
            text = f"tool call {call_id!r} at index {opener} has no tool message right after it"
            problems.append((opener, CALL_WITHOUT_RESULT, text))
    if legacy_name is not None:
        text = f"function_call at index {opener} is not followed by its role 'function' message"
        problems.append((opener, CALL_WITHOUT_RESULT, text))


def _walk_responses(items: Sequence[Any]) -> Walk:
    """Pair calls and outputs by call_id, approvals by request id, reasoning with what follows."""
    reader = _ResponsesReader(items)
    for index, item in enumerate(items):
        reader.read(index, item)
    return reader.finish()


class _ResponsesReader:
    """State of one pass over Responses items; `reach[i]` is the last index kept with item i."""

    def __init__(self, items: Sequence[Any]) -> None:
        self.items = items
        self.reach = list(range(len(items)))
        self.problems: list[Problem] = []
        self.calls: dict[tuple[str, Any], int] = {}
        self.answered: set[tuple[str, Any]] = set()
        self.requests: dict[Any, int] = {}
        self.latest_compaction = -1

    def read(self, index: int, item: Mapping[str, Any]) -> None:
        item_type = item.get("type")
        if item_type is None or item_type == "message":
            return
        if item_type in _OUTPUT_OF:
            self.open_call(index, item_type, item.get("call_id"))
        elif item_type in _CALL_OF:
            self.answer(index, (_CALL_OF[item_type], _output_call_id(item, item_type)))
        elif item_type == "reasoning":
            self.attach_reasoning(index)
        elif item_type == "mcp_approval_request":
            self.requests[item.get("id")] = index
        elif item_type == "mcp_approval_response":
            request_id = item.get("approval_request_id")
            self.join(self.requests.pop(request_id, None), index, (item_type, request_id))
        elif item_type == "compaction":
            self.latest_compaction = index

    def open_call(self, index: int, item_type: str, call_id: Any) -> None:
        if call_id is None:  # a server-run tool search has no call_id and no output item
            return
        key = (item_type, call_id)
        if key in self.calls or key in self.answered:
            self.problems.append(_dup(index, call_id, f"is used by a second {item_type}"))
        else:
            self.calls[key] = index

    def answer(self, index: int, key: tuple[str, Any]) -> None:
        if key in self.answered:
            self.problems.append(_dup(index, key[1], "is answered a second time"))
            return
        opener = self.calls.pop(key, None)
        if opener is not None:
            self.answered.add(key)
        self.join(opener, index, (_OUTPUT_OF[key[0]], key[1]))

    def join(self, opener: int | None, index: int, what: tuple[str, Any]) -> None:
        if opener is None:
            self.problems.append((index, ORPHAN_RESULT, _orphan_text(index, *what)))
        else:
            self.reach[opener] = index

    def attach_reasoning(self, index: int) -> None:
        if index + 1 < len(self.items):
            self.reach[index] = index + 1
            following = self.items[index + 1]
            kind = following.get("type")
            is_input = kind in {None, "message"} and following.get("role") != "assistant"
            if not is_input and kind not in _INPUT_SIDE_ITEMS:
                return
        text = f"reasoning item at index {index} is not followed by the output item it belongs to"
        self.problems.append((index, REASONING_WITHOUT_ITEM, text))

    def finish(self) -> Walk:
        for (call_type, call_id), index in self.calls.items():
            if call_type != "tool_search_call" or self.items[index].get("execution") == "client":
                output = _OUTPUT_OF[call_type]
                text = f"{call_type} {call_id!r} at index {index} has no {output} after it"
                self.problems.append((index, CALL_WITHOUT_RESULT, text))
        pinned = (self.latest_compaction,) if self.latest_compaction >= 0 else ()
        return Walk(_merge_reach(self.reach), self.problems, pinned)


def _output_call_id(item: Mapping[str, Any], item_type: str) -> Any:
    call_id = item.get("call_id")
    if call_id is None and item_type == "local_shell_call_output":
        return item.get("id")  # this output names its call in 'id'
    return call_id


def _merge_reach(reach: list[int]) -> list[int]:
    starts: list[int] = []
    furthest = -1
    for index, last in enumerate(reach):
        if index > furthest:
            starts.append(index)
        furthest = max(furthest, last)
    return starts


def _walk_anthropic(messages: Sequence[Any]) -> Walk:
    """Group an assistant turn that uses tools with the next user turn holding the results."""
    starts: list[int] = []
    problems: list[Problem] = []
    uses: dict[Any, str] = {}  # tool uses of the previous assistant turn awaiting results
    for index, message in enumerate(messages):
        content = message.get("content")
        blocks = _views(content, index) if isinstance(content, list) else ()
        is_user = message.get("role") == "user"
        answered = _read_results(blocks, index, uses, problems) if is_user else set()
        _report_unanswered(uses, answered, index - 1, problems)
        uses = {}
        if answered:
            continue
        starts.append(index)
        if not is_user:
            uses = _read_uses(blocks, index, problems)
    _report_unanswered(uses, set(), len(messages) - 1, problems)
    # The newest compaction block holds the server's summary of all that came before it.
    cut = compaction_cut(messages)
    return Walk(starts, problems, () if cut is None else (cut[0],))


def _sdk_view(part: Any, where: str) -> Any:
    try:
        view = part_view(part, where)
    except CodecError as exc:
        raise TypeError(str(exc)) from None
    return part if view is None else view


def _views(content: list[Any], index: int) -> list[Any]:
    return [
        _sdk_view(part, f"content part {number} of message {index}")
        for number, part in enumerate(content)
    ]


def _read_uses(blocks: Sequence[Any], index: int, problems: list[Problem]) -> dict[Any, str]:
    uses: dict[Any, str] = {}
    for block in blocks:
        block_type = block.get("type")
        if block_type in _ANTHROPIC_USES:
            use_id = block.get("id")
            if use_id in uses:
                problems.append(_dup(index, use_id, "appears twice in one assistant turn"))
            uses[use_id] = block_type
        elif "tool_use_id" in block:  # a server tool's result sits in the same turn
            uses.pop(block["tool_use_id"], None)
    return uses


def _read_results(
    blocks: Sequence[Any], index: int, uses: Mapping[Any, str], problems: list[Problem]
) -> set[Any]:
    answered: set[Any] = set()
    other_seen = False
    for block in blocks:
        if block.get("type") != "tool_result":
            other_seen = True
            continue
        use_id = block.get("tool_use_id")
        if other_seen:
            text = f"tool_result {use_id!r} in message {index} follows other content"
            problems.append((index, RESULT_NOT_FIRST, f"{text}; tool results must lead the turn"))
        if use_id in answered:
            problems.append(_dup(index, use_id, "is answered twice in one turn"))
        elif use_id in uses:
            answered.add(use_id)
        else:
            problems.append((index, ORPHAN_RESULT, _orphan_text(index, "tool_result", use_id)))
    return answered


def _report_unanswered(
    uses: Mapping[Any, str], answered: set[Any], opener: int, problems: list[Problem]
) -> None:
    for use_id, block_type in uses.items():
        if block_type == "tool_use" and use_id not in answered:
            text = f"tool_use {use_id!r} at index {opener} has no tool_result in the next user turn"
            problems.append((opener, CALL_WITHOUT_RESULT, text))


def _orphan_text(index: int, what: str, call_id: Any) -> str:
    return f"{what} {call_id!r} at index {index} has no call it can pair with before it"


def _dup(index: int, call_id: Any, what: str) -> Problem:
    return (index, DUPLICATE_CALL_ID, f"tool-call id {call_id!r} at index {index} {what}")
