"""The judge layer: a caller-supplied model classifies, and its cited span is re-verified.

The package ships no HTTP client: a judge is any `JudgeFn` (prompt in, raw text out). A
verdict stands only with a span that occurs in the view's text. See docs/DESIGN.md,
"Detector chain" (promises 1 and 2).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from compaction_guard.detectors.base import ALLOWED_KINDS, Abstain, Detector, LayerVerdict
from compaction_guard.taxonomy import Kind, Site

if TYPE_CHECKING:
    from compaction_guard.invariant import Invariant
    from compaction_guard.view import Passage, SummaryView

__all__ = ["JudgeDetector", "JudgeFn", "build_prompt"]

JudgeFn = Callable[[str], str]
"""A judge: takes the prompt built by `build_prompt`, returns the model's raw reply."""

_KIND_HELP = {
    Kind.PARAPHRASED: "the rule survives in other words with its values and force intact",
    Kind.WEAKENED: "the topic survives but the obligation is softened or its scope narrowed",
    Kind.MUTATED: "a value or identifier of the rule changed or vanished",
    Kind.CONTRADICTED: "the context asserts the opposite, permits what the rule forbids, "
    "or says the rule no longer applies",
    Kind.DROPPED: "nothing of the rule remains",
}
_REPLY_CHARS = 400
# Values and identifiers a cited paraphrase must carry verbatim ($500, orders_prod, v2.3.1).
_VALUE_TOKEN = re.compile(r"[$€£¥]?\d[\w.,:/%-]*\w%?|[$€£¥]?\d|\w+(?:[_.@/-]\w+)+")


def build_prompt(invariant: Invariant, view: SummaryView) -> str:
    """Return the prompt a JudgeFn receives: the rule, the context, the JSON answer form."""
    kinds = "\n".join(f'- "{kind.value}": {help_}' for kind, help_ in _KIND_HELP.items())
    context = "\n\n".join(f"[{p.site.value}]\n{p.text}" for p in view.passages)
    return (
        "An AI agent's context was compacted. Decide what the compaction did to one rule.\n\n"
        f"Rule:\n<<<\n{invariant.text}\n>>>\n\n"
        f"Context after compaction:\n<<<\n{context}\n>>>\n\n"
        f"Answer with exactly one of these kinds:\n{kinds}\n\n"
        'Reply with one JSON object and nothing else: {"kind": "<kind>", "span": "<quote>"}. '
        "The span must be copied character for character from the context and show the "
        'evidence; use "" only for "dropped".'
    )


class JudgeDetector(Detector):
    """Ask `judge` for a verdict and let it stand only when its cited span re-verifies.

    Abstains on a reply with no JSON object, an unknown or disallowed kind (a judge never
    certifies PRESERVED), a span that does not occur in the view (whitespace folded), a
    paraphrase span missing a value of the rule, or a judge that raises.
    """

    layer = "judge"

    def __init__(self, judge: JudgeFn) -> None:
        if not callable(judge):
            raise TypeError(
                f"judge must be a callable taking a prompt str and returning the reply str, "
                f"got {type(judge).__name__}",
            )
        self.judge = judge

    def detect(self, invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
        """Return the judge's verdict when it re-verifies against `view`, else Abstain."""
        try:
            reply: object = self.judge(build_prompt(invariant, view))
        except Exception as exc:  # noqa: BLE001 - a failing judge must not stop the chain
            return Abstain(reason=f"the judge raised {type(exc).__name__}: {exc}")
        if not isinstance(reply, str):
            return Abstain(reason=f"the judge returned {type(reply).__name__}, not str")
        answer = _first_json_object(reply)
        if answer is None:
            return Abstain(reason="the judge's reply holds no JSON object", evidence=_raw(reply))
        kind = _allowed_kind(answer.get("kind"))
        if isinstance(kind, Abstain):
            return kind
        span = answer.get("span")
        span = span.strip().strip("\"'`“”‘’") if isinstance(span, str) else ""  # noqa: RUF001
        if kind is Kind.DROPPED:
            return _dropped(invariant, view)
        return _cited(kind, span, invariant, view)


def _allowed_kind(value: object) -> Kind | Abstain:
    if not isinstance(value, str):
        return Abstain(reason=f"the judge's kind {value!r} is not a string")
    try:
        kind = Kind(value.strip().casefold())
    except ValueError:
        return Abstain(reason=f"the judge answered an unknown kind {value!r}")
    if kind not in ALLOWED_KINDS["judge"]:
        return Abstain(reason=f"a judge may not issue {kind.value!r}; the question escalates")
    return kind


def _dropped(invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
    rule = _fold(invariant.text).casefold()
    if any(rule in _fold(p.text).casefold() for p in view.passages):
        return Abstain(reason="the judge said dropped, but the rule's text is in the view")
    return LayerVerdict(kind=Kind.DROPPED, rule="absence", evidence={"span": None})


def _cited(
    kind: Kind,
    span: str,
    invariant: Invariant,
    view: SummaryView,
) -> LayerVerdict | Abstain:
    """Let `kind` stand only when `span` occurs in one passage of the view."""
    if not any(ch.isalnum() for ch in span):
        return Abstain(reason=f"the judge said {kind.value} without citing a span")
    passage = _locate(span, view.passages)
    if passage is None:
        return Abstain(
            reason=f"the judge's span for {kind.value} does not occur in the view",
            evidence={"span": span},
        )
    if kind is Kind.PARAPHRASED:
        missing = sorted(_values(invariant.text) - _values(span))
        if missing:
            return Abstain(
                reason=f"the judge's paraphrase span lacks {', '.join(missing)} verbatim",
                evidence={"span": span},
            )
    survived = kind in {Kind.PARAPHRASED, Kind.WEAKENED}
    return LayerVerdict(
        kind=kind,
        rule="cited_span",
        evidence={"span": span, "site": passage.site.value, "message": passage.message},
        survived_in=(passage.site,) if survived else (),
        at_risk=survived and passage.site is Site.RETAINED,
    )


def _locate(span: str, passages: tuple[Passage, ...]) -> Passage | None:
    needle = _fold(span)
    return next((p for p in passages if needle in _fold(p.text)), None)


def _first_json_object(reply: str) -> dict[str, Any] | None:
    """Return the first JSON object in `reply` (prose and code fences around it ignored)."""
    decoder = json.JSONDecoder()
    start = reply.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(reply, start)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return value
        start = reply.find("{", start + 1)
    return None


def _values(text: str) -> set[str]:
    return {token.casefold() for token in _VALUE_TOKEN.findall(text)}


def _fold(text: str) -> str:
    return " ".join(text.split())


def _raw(reply: str) -> dict[str, str]:
    return {"reply": reply[:_REPLY_CHARS]}
