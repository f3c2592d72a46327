"""Anthropic server-side compaction and Claude Code's `SessionStart` hook.

Strings in, strings out: SDK objects are read by shape, so unlike the other integrations
this module imports without the `[anthropic]` extra. Modes and limits:
docs/integrations.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from compaction_guard._extras import require_version
from compaction_guard.errors import CodecError

if TYPE_CHECKING:
    from compaction_guard.guard import Guard
    from compaction_guard.report import CompactionReport

__all__ = [
    "CompactionBlock",
    "PausedMessage",
    "reassert_in_tool_runner",
    "session_start_hook_output",
    "verify_and_reassert",
]


# Checked only when the SDK is installed (this module needs none): the lowest release the
# tests pass on; pyproject's [anthropic] extra states the same bound.
MINIMUM_VERSION = "2.2"
require_version(
    "anthropic", MINIMUM_VERSION, extra="anthropic",
    feature="compaction_guard.integrations.anthropic",
)


def __dir__() -> list[str]:
    return list(__all__)


class CompactionBlock(Protocol):
    """The shape of the SDK's `BetaCompactionBlock`; its `...Param` dict works too."""

    @property
    def type(self) -> str:
        """Always "compaction"."""
        ...

    @property
    def content(self) -> str | None:
        """The summary, or None when the server's compaction produced none."""
        ...


class PausedMessage(Protocol):
    """The shape of the SDK's `BetaMessage` paused with `stop_reason == "compaction"`."""

    @property
    def content(self) -> Sequence[Any]:
        """The content blocks; a paused response holds the compaction block."""
        ...


_MISSING = object()
_NO_SUMMARY = (
    "the compaction block's content is None: the server's compaction produced no summary "
    "and treats the block as a no-op, so nothing could be checked; send continuation_text "
    "so the constraints are in context"
)
_HOOK_NOTE = (
    "Claude Code compacted the session out of sight of its hooks; the block is offered as "
    "SessionStart additionalContext and its use is not verified"
)


def verify_and_reassert(
    guard: Guard,
    compaction: str | CompactionBlock | PausedMessage | Mapping[str, Any],
) -> tuple[CompactionReport, str]:
    """Check a paused server-side summary and return the block to send in the continuation.

    `compaction` is the summary text, the SDK's compaction block (object or dict), or the
    whole paused response. Returns `(report, continuation_text)`: the report has mode
    `reasserted` (`unobserved`, every finding `unverifiable`, when the block's content is
    None) and `continuation_text` is `guard.reassertion_block()`, which you send as the next
    user turn. Raises CodecError for anything else, naming what it accepts.

    ```python
    if response.stop_reason == "compaction":
        report, text = verify_and_reassert(guard, response)
        messages += [{"role": "assistant", "content": response.content},
                     {"role": "user", "content": text}]
    ```
    """
    summary = _summary_of(compaction)
    report = guard.report_unobserved(_NO_SUMMARY) if summary is None else guard.check(summary)
    return report, guard.reassertion_block()


def reassert_in_tool_runner(
    runner: object,
    guard: Guard,
    message: PausedMessage,
) -> CompactionReport:
    """Check a `BetaToolRunner` compaction and put the block in the turn that follows it.

    Call it in the loop when the runner yields a message with `stop_reason ==
    "compaction"` (after `runner.compact_before_next_turn()`). While that message is
    being handled the runner refuses `append_messages()` with ValueError, because the
    compaction response is about to replace the history; messages staged on the runner's
    thread are kept and follow the response. So the block goes there, as a user turn,
    and the runner's next request carries it after the compaction block. Works for the
    sync and async runners. Returns the report (mode `reasserted`, or `unobserved` when
    the compaction produced no summary).

    ```python
    for message in runner:
        if message.stop_reason == "compaction":
            reassert_in_tool_runner(runner, guard, message)
    ```

    Raises CodecError when `message` holds no compaction block, TypeError when `runner`
    has no message thread to stage on (an SDK older than the runner's compaction helper).
    """
    thread = getattr(runner, "_thread", None)
    append = getattr(thread, "append", None)
    if not callable(append):
        raise TypeError(
            f"reassert_in_tool_runner takes an anthropic BetaToolRunner (or its async or "
            f"streaming form) from client.beta.messages.tool_runner(...), got "
            f"{type(runner).__name__}; upgrade anthropic to a version with "
            "runner.compact_before_next_turn()",
        )
    report, text = verify_and_reassert(guard, message)
    if text:
        append({"role": "user", "content": [{"type": "text", "text": text}]})
    return report


def session_start_hook_output(guard: Guard) -> str:
    """Return the JSON a Claude Code `SessionStart` hook (matcher `compact`) prints.

    `{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": <block>}}`.
    Records a report with mode `unobserved` and `repaired=False`: handing text to the
    harness offers a repair, it does not prove one.
    """
    guard.report_unobserved(_HOOK_NOTE)
    payload = {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": guard.reassertion_block(),
        },
    }
    return json.dumps(payload)


def _summary_of(compaction: object) -> str | None:
    if isinstance(compaction, str):
        return compaction
    block = _compaction_block(compaction)
    content = _field(block, "content")
    if content is _MISSING or content is None:
        return None
    if isinstance(content, str):
        return content
    raise CodecError(
        f"the compaction block's content is a {type(content).__name__}; "
        "expected the summary text or None",
    )


def _compaction_block(value: object) -> object:
    if _field(value, "type") == "compaction":
        return value
    content = _field(value, "content")
    if isinstance(content, Sequence) and not isinstance(content, str):
        blocks = [item for item in content if _field(item, "type") == "compaction"]
        if blocks:
            # The newest compaction is the one that was just paused on.
            return blocks[-1]
        raise CodecError(
            "this message holds no compaction block; pass the response that stopped with "
            "stop_reason 'compaction' (request it with pause_after_compaction=True)",
        )
    raise CodecError(
        f"verify_and_reassert takes the summary text, the SDK's compaction block or the "
        f"paused response; got {type(value).__name__}",
    )


def _field(value: object, name: str) -> object:
    if isinstance(value, Mapping):
        return value.get(name, _MISSING)
    return getattr(value, name, _MISSING)
