"""The final budget of `Guard.compact`: the compacted context fitted to `max_tokens`.

Trimmed group-safely with group_trim, keeping the block, the leading system messages and
the newest user turn. See docs/DESIGN.md, "The composition in Guard.compact".
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from compaction_guard import group_trim
from compaction_guard.codec import without_guard_blocks
from compaction_guard.errors import CodecError

if TYPE_CHECKING:
    from compaction_guard.report import CompactionReport

__all__ = ["fit_to_budget"]

_HEAD_ROLES = frozenset({"system", "developer"})


def _holds_block(message: Any, block_text: str) -> bool:
    if not isinstance(message, dict):
        return False
    content = message.get("content")
    if isinstance(content, str):
        return block_text in content
    if isinstance(content, list):
        return any(isinstance(p, dict) and p.get("text") == block_text for p in content)
    return False


def _is_turn_start(message: Any) -> bool:
    """Tell whether a message opens a user turn (not the guard's block, not tool results)."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return False
    content = message.get("content")
    if without_guard_blocks(content) is None:
        return False
    if isinstance(content, list) and content:
        first = content[0]
        return not (isinstance(first, dict) and first.get("type") == "tool_result")
    return True


def fit_to_budget(
    output: Any,
    report: CompactionReport,
    max_tokens: float,
    block_text: str,
    *,
    count_tokens: group_trim.CountTokens | None = None,
) -> tuple[Any, CompactionReport]:
    """Trim `output` group-safely to `max_tokens`, never dropping the block, head or newest turn.

    `count_tokens` is the guard's counter (None: group_trim's estimate).

    Returns the trimmed context and the report with `fits`, `tokens_before`, `tokens_after`.
    """
    if not isinstance(output, (list, tuple)) or not all(isinstance(m, dict) for m in output):
        raise CodecError(
            "max_tokens trimming works on lists of provider messages (dicts); "
            f"this context is {report.shape or type(output).__name__}. Trim it yourself "
            "or drop max_tokens",
        )
    messages = list(output)
    head = 0
    while head < len(messages) and messages[head].get("role") in _HEAD_ROLES:
        head += 1
    turn = max(
        (i for i, m in enumerate(messages) if _is_turn_start(m)),
        default=len(messages) - 1,
    )
    tail = max(1, len(messages) - max(turn, head))
    try:
        result = group_trim.compact(
            messages, max_tokens=max_tokens, keep_head=head, keep_tail=tail,
            protect=lambda m: _holds_block(m, block_text), count_tokens=count_tokens,
        )
    except ValueError as exc:
        raise CodecError(f"max_tokens trimming could not group this context: {exc}") from exc
    trimmed: Any = tuple(result.messages) if isinstance(output, tuple) else result.messages
    report = dataclasses.replace(
        report, fits=result.fits, tokens_before=result.tokens_before,
        tokens_after=result.tokens_after,
    )
    return trimmed, report
