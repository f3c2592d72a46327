"""Test doubles for code that uses compaction-guard: compactors and a judge.

The same doubles this project's own tests use; no network, no model.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = ["FakeJudge", "ScriptedCompactor", "summary_compactor"]


def __dir__() -> list[str]:
    return list(__all__)


class ScriptedCompactor:
    """A compactor that returns prepared outputs in order and records what it was given.

    Each output is deep-copied on the way out, so a test can reuse it. Raises
    RuntimeError when called more often than outputs were scripted; an output that is
    an exception instance is raised instead of returned.
    """

    def __init__(self, *outputs: Any) -> None:
        self.outputs = list(outputs)
        self.calls: list[Any] = []

    def __call__(self, context: Any) -> Any:
        """Record `context` and return (or raise) the next scripted output."""
        self.calls.append(context)
        if len(self.calls) > len(self.outputs):
            raise RuntimeError(
                f"ScriptedCompactor was called {len(self.calls)} times but scripted "
                f"{len(self.outputs)} outputs; script one more",
            )
        output = self.outputs[len(self.calls) - 1]
        if isinstance(output, BaseException):
            raise output
        return copy.deepcopy(output)


def summary_compactor(
    summary: str,
    *,
    keep_head: int = 1,
    keep_tail: int = 0,
    role: str = "user",
) -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
    """Return a compactor for chat message lists: head + one summary message + tail."""

    def compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        head = list(messages[:keep_head])
        tail = list(messages[len(messages) - keep_tail :]) if keep_tail else []
        return [*head, {"role": role, "content": summary}, *tail]

    return compact


class FakeJudge:
    """A JudgeFn double: answers from a fixed reply, a mapping, or a function of the prompt.

    With a mapping, the first key found in the prompt selects the reply; `default`
    answers otherwise. Every prompt is kept in `prompts`.
    """

    def __init__(
        self,
        reply: str | Mapping[str, str] | Callable[[str], str],
        *,
        default: str = '{"kind": "unverifiable"}',
    ) -> None:
        self.reply = reply
        self.default = default
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        """Record `prompt` and return the scripted reply."""
        self.prompts.append(prompt)
        if isinstance(self.reply, str):
            return self.reply
        if callable(self.reply):
            return self.reply(prompt)
        for needle, answer in self.reply.items():
            if needle in prompt:
                return answer
        return self.default
