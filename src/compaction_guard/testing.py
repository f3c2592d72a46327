"""Test doubles for code that uses compaction-guard: compactors and judges.

The same doubles this project's own tests use; no network, no model.
"""

from __future__ import annotations

import copy
import json
import re
from typing import TYPE_CHECKING, Any

from compaction_guard.normalize import detection_form, split_sentences, tokenize

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = ["AdversarialJudge", "FakeJudge", "ScriptedCompactor", "summary_compactor"]


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


_BLOCKS = re.MULTILINE | re.DOTALL
_RULE = re.compile(r"^Rule(?: (?P<id>\S+))?:\n<<<\n(?P<text>.*?)\n>>>$", _BLOCKS)
_CONTEXT = re.compile(r"^Context after compaction:\n<<<\n(?P<text>.*)\n>>>$", _BLOCKS)
_SITE_LINE = re.compile(r"^\[(?:summary|retained|block)\]$", re.MULTILINE)


class AdversarialJudge:
    """A JudgeFn that calls every rule `paraphrased`, citing the context's closest sentence.

    The closest sentence shares the most words with the rule (the first on a tie). It
    reads the prompts of `build_prompt` and `build_batch_prompt` and answers in the
    matching form. Use it to show that the chain's checks, not the judge, keep a damaged
    constraint from being certified. Every prompt is kept in `prompts`.
    """

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        """Record `prompt` and answer `paraphrased` for each rule in it."""
        self.prompts.append(prompt)
        context = _CONTEXT.search(prompt)
        sentences = [] if context is None else _sentences(context["text"])
        rules = list(_RULE.finditer(prompt.split("Context after compaction:", 1)[0]))
        answers = [
            {"id": rule["id"], "kind": "paraphrased", "span": _closest(rule["text"], sentences)}
            for rule in rules
        ]
        if len(rules) == 1 and rules[0]["id"] is None:
            return json.dumps({"kind": "paraphrased", "span": answers[0]["span"]})
        return json.dumps({"verdicts": answers})


def _sentences(context: str) -> list[str]:
    return [s for piece in _SITE_LINE.split(context) for s in split_sentences(piece)]


def _closest(rule: str, sentences: list[str]) -> str:
    words = set(tokenize(detection_form(rule)))
    best, best_score = "", 0
    for sentence in sentences:
        score = len(words & set(tokenize(detection_form(sentence))))
        if score > best_score:
            best, best_score = sentence, score
    return best
