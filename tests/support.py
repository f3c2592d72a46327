"""Helpers shared by the tests (import as tests.support)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from compaction_guard.receipt import CompactionReceipt

if TYPE_CHECKING:
    from pathlib import Path

CAP = "The budget cap for this run is $500."
READ_ONLY = "The database orders_prod is production. Read-only queries only."


def chat(*contents: str, system: str = "You are a data analysis agent.") -> list[dict[str, Any]]:
    """A chat list: a system message, then alternating user/assistant messages."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for index, content in enumerate(contents):
        messages.append({"role": "user" if index % 2 == 0 else "assistant", "content": content})
    return messages


def block_messages(messages: list[Any]) -> list[Any]:
    """Messages whose content holds a guard block header."""
    found = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else message
        if "<<COMPACTION-GUARD:" in str(content):
            found.append(message)
    return found


def seal_one(log: Path, label: str, **kwargs: Any) -> dict[str, Any]:
    """Seal one receipt row to `log`: compactor `label`, one turn dropped, one summary added."""
    receipt = CompactionReceipt.open([f"turn of {label}", "shared"])
    receipt.record_kept(["shared", f"summary of {label}"])
    return receipt.seal(log, compactor=label, method="test", **kwargs)
