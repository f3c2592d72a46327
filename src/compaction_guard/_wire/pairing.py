"""Tool-call pairing: how each wire format groups a call with its results.

One reader per format turns a list into group starts, the items the provider keeps
(pinned), the calls that may still wait for a result (open), and the provider-rejected
shapes it saw, as (index, kind, text), for group_trim and the session adapters. The codec
places a new message by the same groups, so it never splits a call from its result. See
docs/DESIGN.md, "Wire formats".
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from compaction_guard._wire.formats import (
    ANTHROPIC,
    CALL_OF,
    CALL_SUFFIX,
    COMPACTION,
    INPUT_SIDE_ITEMS,
    OUTPUT_OF,
    OUTPUT_SUFFIX,
    RESPONSES,
    TOOL_ROLES,
    TOOL_USE_PARTS,
    WireFormat,
    compaction_cut,
)
from compaction_guard._wire.sdk_blocks import as_param

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "CALL_WITHOUT_RESULT",
    "DUPLICATE_CALL_ID",
    "ORPHAN_RESULT",
    "REASONING_WITHOUT_ITEM",
    "RESULT_NOT_FIRST",
    "Problem",
    "Turn",
    "Walk",
    "chat_position",
    "dict_turn",
    "object_turn",
    "read_groups",
    "responses_position",
]

ORPHAN_RESULT: Final = "orphan_result"
CALL_WITHOUT_RESULT: Final = "call_without_result"
REASONING_WITHOUT_ITEM: Final = "reasoning_without_item"
RESULT_NOT_FIRST: Final = "result_not_first"
DUPLICATE_CALL_ID: Final = "duplicate_call_id"

Problem = tuple[int, str, str]


@dataclass(frozen=True, slots=True)
class Walk:
    """Group starts (ascending, first is 0), problems found (unsorted), indices never dropped.

    `open` (ascending) holds the first index of each Responses call group that may still
    wait for a result: a call or approval request not yet answered, and a run of calls of
    a type the table does not know that expects one (see `_ResponsesReader.unknown_call`).
    """

    starts: list[int]
    problems: list[Problem]
    pinned: tuple[int, ...] = ()
    open: tuple[int, ...] = ()


def read_groups(messages: Sequence[Any], fmt: WireFormat) -> Walk:
    """Split `messages` (already accepted by `detect_format` as `fmt`) into groups."""
    if fmt is RESPONSES:
        return _walk_responses(messages)
    if fmt is ANTHROPIC:
        return _walk_anthropic(messages)
    return _walk_chat(messages)


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
        elif role in TOOL_ROLES:
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
    """State of one pass over Responses items; `reach[i]` is the last index kept with item i.

    `run` is the first call of the current run of calls of a type the table does not know
    (-1 when there is none); `run_waits` whether that run expects an output.
    """

    def __init__(self, items: Sequence[Any]) -> None:
        self.items = items
        self.reach = list(range(len(items)))
        self.problems: list[Problem] = []
        self.calls: dict[tuple[str, Any], int] = {}
        self.answered: set[tuple[str, Any]] = set()
        self.requests: dict[Any, int] = {}
        self.latest_compaction = -1
        self.run = -1
        self.run_waits = False
        self.run_answered = False
        self.waiting_runs: list[int] = []  # runs read to their end that wait for a result

    def read(self, index: int, item: Mapping[str, Any]) -> None:
        item_type = item.get("type")
        if item_type is None or item_type == "message":
            self.end_run()
            return
        if item_type in OUTPUT_OF:
            self.open_call(index, item_type, item.get("call_id"))
        elif item_type in CALL_OF:
            self.answer(index, (CALL_OF[item_type], _output_call_id(item, item_type)))
        elif item_type == "reasoning":
            self.attach_reasoning(index)
        elif item_type == "mcp_approval_request":
            self.requests[item.get("id")] = index
        elif item_type == "mcp_approval_response":
            request_id = item.get("approval_request_id")
            self.join(self.requests.pop(request_id, None), index, (item_type, request_id))
        elif item_type == COMPACTION:
            self.latest_compaction = index
        elif item_type.endswith(CALL_SUFFIX):
            self.unknown_call(index, item)
        elif item_type.endswith(OUTPUT_SUFFIX) and self.run >= 0:
            self.reach[self.run] = index
            self.run_answered = self.run_waits = True

    def unknown_call(self, index: int, item: Mapping[str, Any]) -> None:
        """Open or extend a run of calls of a type newer than the table.

        How its outputs name their call is not known (local_shell_call_output uses 'id'),
        so the run's first call reaches to every unknown output after it, up to the next
        message or the next such call after an output (the model had every earlier output
        before calling again). The run waits for a result when a call carries a call_id or
        an output has come: it is treated as open, never as answered. A call with neither
        (a server-side item such as web_search_call) is a group of its own.
        """
        if self.run_answered:
            self.end_run()
        if self.run < 0:
            self.run = index
        self.run_waits = self.run_waits or "call_id" in item

    def end_run(self) -> None:
        if self.run_waits:
            self.waiting_runs.append(self.run)
        self.run, self.run_waits, self.run_answered = -1, False, False

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
        self.join(opener, index, (OUTPUT_OF[key[0]], key[1]))

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
            if not is_input and kind not in INPUT_SIDE_ITEMS:
                return
        text = f"reasoning item at index {index} is not followed by the output item it belongs to"
        self.problems.append((index, REASONING_WITHOUT_ITEM, text))

    def finish(self) -> Walk:
        for (call_type, call_id), index in self.calls.items():
            if call_type != "tool_search_call" or self.items[index].get("execution") == "client":
                output = OUTPUT_OF[call_type]
                text = f"{call_type} {call_id!r} at index {index} has no {output} after it"
                self.problems.append((index, CALL_WITHOUT_RESULT, text))
        pinned = (self.latest_compaction,) if self.latest_compaction >= 0 else ()
        self.end_run()
        waiting = sorted([*self.waiting_runs, *self.calls.values(), *self.requests.values()])
        return Walk(_merge_reach(self.reach), self.problems, pinned, tuple(waiting))


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


def _views(content: list[Any], index: int) -> list[Any]:
    return [
        as_param(part, f"content part {number} of message {index}")
        for number, part in enumerate(content)
    ]


def _read_uses(blocks: Sequence[Any], index: int, problems: list[Problem]) -> dict[Any, str]:
    uses: dict[Any, str] = {}
    for block in blocks:
        block_type = block.get("type")
        if block_type in TOOL_USE_PARTS:
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


# --- where a new message may go: never between a call and its result ----------------

Turn = tuple[object, tuple[str, ...], str]
"""A message's role, the ids of the calls it makes, and the id of the call it answers."""


def dict_turn(item: Any) -> Turn:
    """Return (role, ids of the calls it makes, id of the call it answers) for a chat dict."""
    role = item.get("role")
    calls = tuple(
        str(call.get("id")) for call in item.get("tool_calls") or () if isinstance(call, dict)
    )
    legacy = item.get("function_call")
    if isinstance(legacy, dict):
        calls = (*calls, str(legacy.get("name")))
    answer = item.get("tool_call_id") if role == "tool" else item.get("name")
    return role, calls, str(answer)


def object_turn(item: Any) -> Turn:
    """Return (role, call ids, answered id) for a message object such as LangChain's."""
    role = getattr(item, "role", None)
    if not isinstance(role, str):
        role = getattr(item, "type", None)
    raw_calls = getattr(item, "tool_calls", None)
    calls = tuple(
        str(call.get("id") if isinstance(call, dict) else getattr(call, "id", None))
        for call in (raw_calls if isinstance(raw_calls, list) else ())
    )
    return role, calls, str(getattr(item, "tool_call_id", None))


def chat_position(items: Sequence[Any], turn: Callable[[Any], Turn]) -> int:
    """Return where a new user message goes: the end, or before an unanswered call group."""
    start, answered = len(items), set()
    while start > 0:
        role, _, answer = turn(items[start - 1])
        if role not in TOOL_ROLES:
            break
        answered.add(answer)
        start -= 1
    if start > 0:
        _, calls, _ = turn(items[start - 1])
        if calls and not answered.issuperset(calls):
            return start - 1
    return len(items)


def responses_position(items: Sequence[Any]) -> int:
    """Return where a new message goes: never inside a call group, never after reasoning.

    The groups are group_trim's (`read_groups`). When a call after the last message may
    still wait for its result, the message goes before the items after the last message
    (at the start of the group holding the first of them), so the result the client sends
    next still follows its call; otherwise at the end, before any trailing reasoning item.
    """
    walk = read_groups(items, RESPONSES)
    start = len(items)
    while start > 0 and items[start - 1].get("type", "message") != "message":
        start -= 1
    if walk.open and walk.open[-1] >= start:
        return walk.starts[bisect_right(walk.starts, start) - 1]
    end = len(items)
    while end > start and items[end - 1]["type"] == "reasoning":
        end -= 1
    return end
