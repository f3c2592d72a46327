"""Judge functions through the real SDKs, with each SDK's HTTP layer on a mock transport."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

import compaction_guard as cg
from compaction_guard import judges
from compaction_guard.detectors.base import Abstain, Detector, LayerVerdict
from compaction_guard.detectors.judge import JudgeDetector, JudgeFn
from compaction_guard.detectors.lexical import LexicalDetector
from compaction_guard.errors import MissingExtraError
from compaction_guard.testing import AdversarialJudge

if TYPE_CHECKING:
    from compaction_guard.invariant import Invariant
    from compaction_guard.view import SummaryView

pytestmark = pytest.mark.extras

httpx2 = pytest.importorskip("httpx2", reason="the SDK extras are not installed")

CAP = "The budget cap for this run is $500."
EMAIL = "Never email customers directly."
SUMMARY = (
    "Progress: supplier quotes 1-3 collected.\n"
    "Spending for this run may not go above $500.\n"
    "Customers are not to be emailed by the agent directly."
)
Reply = Callable[[str], str]


class CleanReading(Detector):
    """Stands in for the lexical tier's closed-world reading that found no departure."""

    layer = "lexical"

    def detect(self, invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
        return Abstain(reason="topic read, nothing departs, restatement not proven")


class Server:
    """A model behind a mock transport: answers each request's prompt with `reply`."""

    def __init__(self, reply: Reply, *, status: int = 200) -> None:
        self.reply = reply
        self.status = status
        self.requests: list[dict[str, Any]] = []
        self.timeouts: list[object] = []

    def __call__(self, request: Any) -> Any:  # httpx2.Request -> httpx2.Response
        body = json.loads(request.content)
        self.requests.append(body)
        self.timeouts.append(request.extensions.get("timeout"))
        if self.status != 200:
            return httpx2.Response(self.status, json={"error": {"message": "overloaded", "type": "server_error"}})
        prompt = body["input"] if "input" in body else body["messages"][0]["content"]
        return httpx2.Response(200, json=self.payload(request.url.path, self.reply(prompt)))

    @staticmethod
    def payload(path: str, text: str) -> dict[str, Any]:
        if path.endswith("/chat/completions"):
            return {
                "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "judge-model",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
            }
        if path.endswith("/responses"):
            return {
                "id": "resp_1", "object": "response", "created_at": 0, "model": "judge-model",
                "status": "completed", "parallel_tool_calls": False, "tool_choice": "auto", "tools": [],
                "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": text, "annotations": []}]}],
            }
        return {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "judge-model",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
        }


def _openai_chat(server: Server) -> JudgeFn:
    import openai

    client = openai.OpenAI(api_key="test", base_url="http://judge.test/v1", max_retries=0,
                           http_client=httpx2.Client(transport=httpx2.MockTransport(server)))
    return judges.openai_chat(client, model="judge-model", timeout=12.5)


def _openai_responses(server: Server) -> JudgeFn:
    import openai

    client = openai.OpenAI(api_key="test", base_url="http://judge.test/v1", max_retries=0,
                           http_client=httpx2.Client(transport=httpx2.MockTransport(server)))
    return judges.openai_responses(client, model="judge-model", timeout=12.5)


def _anthropic(server: Server) -> JudgeFn:
    import anthropic

    client = anthropic.Anthropic(api_key="test", base_url="http://judge.test", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(server)))
    return judges.anthropic_messages(client, model="judge-model", timeout=12.5)


def _langchain(server: Server) -> JudgeFn:
    return judges.langchain_chat(_chat_model(server), timeout=5)


def _chat_model(server: Server) -> Any:
    """A real LangChain BaseChatModel whose replies come from `server` (no HTTP)."""
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class PromptedChatModel(BaseChatModel):
        server: Any

        @property
        def _llm_type(self) -> str:
            return "prompted-test-model"

        def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:
            prompt = str(messages[-1].content)
            self.server.requests.append({"messages": [{"content": prompt}]})
            if self.server.status != 200:
                raise ConnectionError(f"model endpoint answered {self.server.status}")
            text = self.server.reply(prompt)
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    return PromptedChatModel(server=server)


CLIENTS = [
    pytest.param(_openai_chat, id="openai-chat"),
    pytest.param(_openai_responses, id="openai-responses"),
    pytest.param(_anthropic, id="anthropic"),
    pytest.param(_langchain, id="langchain"),
]
Build = Callable[[Server], JudgeFn]


def _check(judge: JudgeFn, *, constraints: tuple[str, ...] = (CAP,), summary: str = SUMMARY,
           lexical: Detector | None = None, batch: bool = False) -> cg.CompactionReport:
    layers = [lexical or CleanReading(), JudgeDetector(judge, batch=batch)]
    return cg.Guard(list(constraints), detectors=layers).check(summary)


@pytest.mark.parametrize("build", CLIENTS)
def test_judge_paraphrase_comes_back_paraphrased(build: Build) -> None:
    server = Server(AdversarialJudge())
    finding = _check(build(server)).findings[0]
    assert finding.kind is cg.Kind.PARAPHRASED
    assert finding.decided_by.startswith("judge.")
    assert finding.evidence["span"] == "Spending for this run may not go above $500."
    assert len(server.requests) == 1


@pytest.mark.parametrize("build", CLIENTS)
def test_judge_reply_in_a_fence_after_prose_is_parsed(build: Build) -> None:
    answer = json.dumps({"kind": "paraphrased", "span": "Spending for this run may not go above $500."})
    server = Server(lambda _p: f"Looking at the context, the rule survives.\n```json\n{answer}\n```")
    assert _check(build(server)).findings[0].kind is cg.Kind.PARAPHRASED


@pytest.mark.parametrize("build", CLIENTS)
def test_judge_citing_text_not_in_the_context_abstains(build: Build) -> None:
    answer = json.dumps({"kind": "paraphrased", "span": "The $500 cap stays in force for this run."})
    finding = _check(build(Server(lambda _p: answer))).findings[0]
    assert finding.kind is cg.Kind.UNVERIFIABLE
    assert "does not occur" in str(finding.evidence["trail"])


@pytest.mark.parametrize("build", CLIENTS)
def test_judge_mutated_case_stays_mutated(build: Build) -> None:
    server = Server(AdversarialJudge())
    summary = "Progress: quotes collected.\nThe budget cap for this run is $5,000."
    finding = _check(build(server), summary=summary, lexical=LexicalDetector()).findings[0]
    assert finding.kind is cg.Kind.MUTATED
    assert finding.decided_by.startswith("lexical.")
    assert server.requests == []


@pytest.mark.parametrize("build", CLIENTS)
def test_judge_sdk_error_abstains_with_the_reason(build: Build) -> None:
    finding = _check(build(Server(AdversarialJudge(), status=500))).findings[0]
    assert finding.kind is cg.Kind.UNVERIFIABLE
    reason = finding.evidence["trail"][-1]["abstained"]
    assert reason.startswith("the judge raised ")
    assert "Error" in reason


@pytest.mark.parametrize("build", CLIENTS)
def test_judge_batched_and_single_calls_agree(build: Build) -> None:
    rules = (CAP, EMAIL, "Keep audit logs for 400 days.")
    single_server, batch_server = Server(AdversarialJudge()), Server(AdversarialJudge())
    single = _check(build(single_server), constraints=rules)
    batched = _check(build(batch_server), constraints=rules, batch=True)
    assert [(f.kind, f.decided_by, f.evidence.get("span")) for f in single.findings] == [
        (f.kind, f.decided_by, f.evidence.get("span")) for f in batched.findings
    ]
    assert [f.kind for f in single.findings][:2] == [cg.Kind.PARAPHRASED] * 2
    assert len(single_server.requests) == 3
    assert len(batch_server.requests) == 1


@pytest.mark.parametrize("build", CLIENTS)
def test_judge_answers_are_cached_for_the_life_of_the_guard(build: Build) -> None:
    server = Server(AdversarialJudge())
    guard = cg.Guard([CAP], detectors=[CleanReading(), JudgeDetector(build(server))])
    guard.check(SUMMARY)
    guard.check(SUMMARY)
    assert len(server.requests) == 1
    guard.check(SUMMARY + "\nNext: supplier 4.")
    assert len(server.requests) == 2


@pytest.mark.parametrize("build", CLIENTS[:3])
def test_judge_sends_the_timeout_with_each_request(build: Build) -> None:
    server = Server(AdversarialJudge())
    build(server)("prompt")
    timeout = server.timeouts[0]
    assert isinstance(timeout, dict)
    assert set(timeout.values()) == {12.5}


@pytest.mark.parametrize("build", CLIENTS[:2])
def test_openai_judges_send_temperature_zero(build: Build) -> None:
    server = Server(AdversarialJudge())
    build(server)("prompt")
    assert server.requests[0]["temperature"] == 0
    assert server.requests[0]["model"] == "judge-model"


def test_anthropic_judge_sends_max_tokens_and_only_settings_the_sdk_accepts() -> None:
    import inspect

    import anthropic

    server = Server(AdversarialJudge())
    _anthropic(server)("prompt")
    body = server.requests[0]
    assert body["max_tokens"] == 1024
    accepts = "temperature" in inspect.signature(anthropic.Anthropic(api_key="x").messages.create).parameters
    assert ("temperature" in body) is accepts


def test_openai_judge_caller_settings_override_the_defaults() -> None:
    import openai

    server = Server(AdversarialJudge())
    client = openai.OpenAI(api_key="test", base_url="http://judge.test/v1", max_retries=0,
                           http_client=httpx2.Client(transport=httpx2.MockTransport(server)))
    judges.openai_chat(client, model="judge-model", temperature=openai.omit, seed=7)("prompt")
    assert "temperature" not in server.requests[0]
    assert server.requests[0]["seed"] == 7


def test_judge_refuses_an_async_client() -> None:
    import openai

    client = openai.AsyncOpenAI(api_key="test", base_url="http://judge.test/v1")
    with pytest.raises(TypeError, match="synchronous client"):
        judges.openai_chat(client, model="judge-model")


def test_langchain_judge_refuses_what_is_not_a_chat_model() -> None:
    with pytest.raises(TypeError, match="BaseChatModel"):
        judges.langchain_chat(object())


def test_langchain_judge_that_times_out_abstains() -> None:
    release = threading.Event()

    def slow(_prompt: str) -> str:
        release.wait(5)
        return "{}"

    judge = judges.langchain_chat(_chat_model(Server(slow)), timeout=0.05)
    try:
        finding = _check(judge).findings[0]
    finally:
        release.set()
    assert finding.kind is cg.Kind.UNVERIFIABLE
    assert "TimeoutError" in finding.evidence["trail"][-1]["abstained"]


@pytest.mark.parametrize(
    ("factory", "module", "extra"),
    [
        (lambda: judges.openai_chat(object(), model="m"), "openai", "openai"),
        (lambda: judges.openai_responses(object(), model="m"), "openai", "openai"),
        (lambda: judges.anthropic_messages(object(), model="m"), "anthropic", "anthropic"),
        (lambda: judges.langchain_chat(object()), "langchain_core.runnables", "langchain"),
    ],
    ids=["openai-chat", "openai-responses", "anthropic", "langchain"],
)
def test_judge_without_its_sdk_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, factory: Callable[[], object], module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(MissingExtraError, match=rf"pip install 'compaction-guard\[{extra}\]'"):
        factory()


def test_judges_module_imports_no_sdk() -> None:
    import subprocess

    code = (
        "import sys, compaction_guard.judges\n"
        "print(sorted(m for m in ('openai', 'anthropic', 'langchain_core') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.fixture(autouse=True)
def _no_stray_threads() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    for thread in set(threading.enumerate()) - before:
        thread.join(5)


FREEZE = "There is a code freeze from 2026-06-01 to 2026-06-05; merge nothing to release during it."
FREEZE_SUMMARY = "Key decisions:\n- From 2026-06-01 to 2026-06-05 release is frozen: no merges to it at all."


@pytest.mark.parametrize("build", CLIENTS)
def test_judge_certifies_what_the_real_lexical_tier_left_open(build: Build) -> None:
    """The lexical tier reads the context clean but cannot prove the restatement; the judge can."""
    alone = cg.Guard([FREEZE], detectors=[LexicalDetector()]).check(FREEZE_SUMMARY).findings[0]
    assert alone.kind is cg.Kind.UNVERIFIABLE
    server = Server(AdversarialJudge())
    finding = _check(build(server), constraints=(FREEZE,), summary=FREEZE_SUMMARY,
                     lexical=LexicalDetector()).findings[0]
    assert finding.kind is cg.Kind.PARAPHRASED
    assert finding.decided_by == "judge.cited_span"
    assert "release is frozen: no merges to it at all" in finding.evidence["span"]


@pytest.mark.parametrize("build", CLIENTS)
def test_judge_cannot_certify_a_departure_the_real_lexical_tier_saw(build: Build) -> None:
    summary = FREEZE_SUMMARY + "\n- The user has since lifted the freeze for hotfix branches."
    server = Server(AdversarialJudge())
    finding = _check(build(server), constraints=(FREEZE,), summary=summary,
                     lexical=LexicalDetector()).findings[0]
    assert finding.kind not in {cg.Kind.PRESERVED, cg.Kind.PARAPHRASED}
