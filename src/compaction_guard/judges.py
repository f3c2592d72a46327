"""Judges over the LLM clients you already hold: OpenAI chat and Responses, Anthropic, LangChain.

Each function returns a `JudgeFn` for `JudgeDetector`; the SDK is imported only when the
function is called. Replies follow the form `build_prompt` states; retries stay with
your client. See docs/DESIGN.md, "Judges".
"""

from __future__ import annotations

import inspect
import threading
from typing import TYPE_CHECKING, Any

from compaction_guard._extras import require

if TYPE_CHECKING:
    from collections.abc import Callable

    from compaction_guard.detectors.judge import JudgeFn

__all__ = [
    "DEFAULT_TIMEOUT",
    "anthropic_messages",
    "langchain_chat",
    "openai_chat",
    "openai_responses",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds a judge call may take before it fails (and the judge layer abstains)."""

_ANTHROPIC_MAX_TOKENS = 1024


def __dir__() -> list[str]:
    return list(__all__)


def openai_chat(
    client: Any, *, model: str, timeout: float = DEFAULT_TIMEOUT, **create_kwargs: Any,
) -> JudgeFn:
    """Return a judge over `client.chat.completions.create` (`openai.OpenAI` or compatible).

    Works with any OpenAI-compatible server (vLLM, Ollama) through `base_url` on the
    client. `temperature=0` is sent when the SDK's `create` accepts it; `create_kwargs`
    override it (pass `temperature=openai.omit` for models that reject it). Raises
    MissingExtraError without the SDK and TypeError for an async client.

    ```python
    judge = judges.openai_chat(openai.OpenAI(), model="gpt-4o-mini")
    guard = Guard(rules, detectors=[LexicalDetector(), JudgeDetector(judge)])
    ```
    """
    require("openai", extra="openai", feature="compaction_guard.judges.openai_chat")
    create = client.chat.completions.create
    params = _call_params(create, "openai_chat", timeout, create_kwargs)

    def judge(prompt: str) -> str:
        completion = create(model=model, messages=[{"role": "user", "content": prompt}], **params)
        choices = getattr(completion, "choices", None) or []
        if not choices:
            raise ValueError("the chat completion has no choices; check the model name")
        return _text(choices[0].message.content, f"finish_reason={choices[0].finish_reason!r}")

    return judge


def openai_responses(
    client: Any, *, model: str, timeout: float = DEFAULT_TIMEOUT, **kwargs: Any,
) -> JudgeFn:
    """Return a judge over `client.responses.create` (the OpenAI Responses API).

    `temperature=0` is sent when the SDK's `create` accepts it; `kwargs` override it
    (pass `temperature=openai.omit` for reasoning models). Raises MissingExtraError
    without the SDK and TypeError for an async client.
    """
    require("openai", extra="openai", feature="compaction_guard.judges.openai_responses")
    create = client.responses.create
    params = _call_params(create, "openai_responses", timeout, kwargs)

    def judge(prompt: str) -> str:
        response = create(model=model, input=prompt, **params)
        status = f"status={getattr(response, 'status', None)!r}"
        return _text(getattr(response, "output_text", None), status)

    return judge


def anthropic_messages(
    client: Any,
    *,
    model: str,
    max_tokens: int = _ANTHROPIC_MAX_TOKENS,
    timeout: float = DEFAULT_TIMEOUT,
    **kwargs: Any,
) -> JudgeFn:
    """Return a judge over `client.messages.create` (`anthropic.Anthropic` and its cloud variants).

    `temperature=0` is sent only when the SDK's `create` accepts it (recent SDKs do
    not); `kwargs` override it. Raises MissingExtraError without the SDK and TypeError
    for an async client.
    """
    require("anthropic", extra="anthropic", feature="compaction_guard.judges.anthropic_messages")
    create = client.messages.create
    params = _call_params(create, "anthropic_messages", timeout, kwargs)

    def judge(prompt: str) -> str:
        message = create(
            model=model,
            max_tokens=max_tokens,
            messages=[{"role": "user", "content": prompt}],
            **params,
        )
        parts = [b.text for b in message.content if getattr(b, "type", None) == "text"]
        return _text("".join(parts), f"stop_reason={getattr(message, 'stop_reason', None)!r}")

    return judge


def langchain_chat(chat_model: Any, *, timeout: float = DEFAULT_TIMEOUT) -> JudgeFn:
    """Return a judge over a LangChain chat model's `invoke` (any `BaseChatModel` or runnable).

    Settings such as temperature belong to the model you built (`ChatOpenAI(temperature=0)`).
    A call that passes `timeout` seconds fails, and the judge layer abstains; LangChain
    cannot cancel it, so it finishes in the background. Raises MissingExtraError without
    `langchain-core` and TypeError for an object that is not a LangChain runnable.
    """
    feature = "compaction_guard.judges.langchain_chat"
    runnables = require("langchain_core.runnables", extra="langchain", feature=feature)
    messages = require("langchain_core.messages", extra="langchain", feature=feature)
    if not isinstance(chat_model, runnables.Runnable):
        raise TypeError(
            f"langchain_chat takes a LangChain chat model (BaseChatModel), got "
            f"{type(chat_model).__name__}; for an SDK client use openai_chat or anthropic_messages",
        )

    def judge(prompt: str) -> str:
        reply = _within(timeout, lambda: chat_model.invoke([messages.HumanMessage(content=prompt)]))
        return _text(_content_text(getattr(reply, "content", reply)), type(reply).__name__)

    return judge


def _call_params(
    create: Callable[..., Any], factory: str, timeout: float, overrides: dict[str, Any],
) -> dict[str, Any]:
    """Return the keyword arguments sent on every call: deterministic defaults, then yours."""
    if inspect.iscoroutinefunction(inspect.unwrap(create)):
        raise TypeError(
            f"{factory} needs a synchronous client (openai.OpenAI, anthropic.Anthropic): "
            "the detector chain runs synchronously inside Guard.compact and Guard.check",
        )
    defaults: dict[str, Any] = {"timeout": timeout}
    if "temperature" in _parameters(create):
        defaults["temperature"] = 0
    return {**defaults, **overrides}


def _parameters(create: Callable[..., Any]) -> frozenset[str]:
    try:
        return frozenset(inspect.signature(create).parameters)
    except (TypeError, ValueError):  # a C or proxied callable: send no optional setting
        return frozenset()


def _text(value: object, detail: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"the model returned no text ({detail}); the judge layer abstains")
    return value


def _content_text(content: object) -> str:
    """Return the text of a LangChain message content: a str or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            part if isinstance(part, str) else part.get("text", "")
            for part in content
            if isinstance(part, str) or (isinstance(part, dict) and part.get("type") == "text")
        ]
        return "".join(texts)
    return ""


def _within(timeout: float, call: Callable[[], Any]) -> Any:
    """Run `call` in a daemon thread; raise TimeoutError when it takes over `timeout` seconds."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="compaction-guard-judge", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise TimeoutError(f"the chat model did not answer within {timeout} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
