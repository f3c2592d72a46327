"""The judge layer: a caller-supplied model classifies, and its cited span is re-verified.

The package ships no HTTP client: a judge is any `JudgeFn` (prompt in, raw text out);
`compaction_guard.judges` builds one over the LLM client you already hold. A verdict
stands only with a span that occurs in the view and, for a paraphrase, binds every value
and identifier of the rule in its role. See docs/DESIGN.md, "Detector chain".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from compaction_guard.detectors._judge_span import span_defect
from compaction_guard.detectors.base import ALLOWED_KINDS, Abstain, Detector, LayerVerdict
from compaction_guard.taxonomy import Kind, Site

if TYPE_CHECKING:
    from collections.abc import Sequence

    from compaction_guard.invariant import Invariant
    from compaction_guard.view import Passage, SummaryView

__all__ = ["JudgeDetector", "JudgeFn", "build_batch_prompt", "build_prompt", "span_defect"]

JudgeFn = Callable[[str], str]
"""A judge: takes the prompt built by `build_prompt` or `build_batch_prompt`, returns the reply."""

_KIND_HELP = {
    Kind.PARAPHRASED: "the rule survives in other words with its values and force intact",
    Kind.WEAKENED: "the topic survives but the obligation is softened or its scope narrowed",
    Kind.MUTATED: "a value or identifier of the rule changed or vanished",
    Kind.CONTRADICTED: "the context asserts the opposite, permits what the rule forbids, "
    "or says the rule no longer applies",
    Kind.DROPPED: "nothing of the rule remains",
}
_REPLY_CHARS = 400
_CACHE_ENTRIES = 4096


def build_prompt(invariant: Invariant, view: SummaryView) -> str:
    """Return the prompt a JudgeFn receives: the rule, the context, the JSON answer form."""
    return (
        "An AI agent's context was compacted. Decide what the compaction did to one rule.\n\n"
        f"Rule:\n<<<\n{invariant.text}\n>>>\n\n"
        f"{_context_section(view)}"
        f"Answer with exactly one of these kinds:\n{_kinds_help()}\n\n"
        'Reply with one JSON object and nothing else: {"kind": "<kind>", "span": "<quote>"}. '
        "The span must be copied character for character from the context and show the "
        'evidence; use "" only for "dropped".'
    )


def build_batch_prompt(invariants: Sequence[Invariant], view: SummaryView) -> str:
    """Return the prompt for several rules against one context (`JudgeDetector(batch=True)`).

    The reply form is one JSON object with one entry per rule id:
    `{"verdicts": [{"id": "<rule id>", "kind": "<kind>", "span": "<quote>"}, ...]}`.
    """
    rules = "\n\n".join(f"Rule {inv.id}:\n<<<\n{inv.text}\n>>>" for inv in invariants)
    return (
        "An AI agent's context was compacted. Decide what the compaction did to each rule.\n\n"
        f"{rules}\n\n"
        f"{_context_section(view)}"
        f"For each rule answer with exactly one of these kinds:\n{_kinds_help()}\n\n"
        "Reply with one JSON object and nothing else: "
        '{"verdicts": [{"id": "<rule id>", "kind": "<kind>", "span": "<quote>"}, ...]}, '
        "with one entry for every rule id above. Each span must be copied character for "
        'character from the context and show the evidence; use "" only for "dropped".'
    )


def _context_section(view: SummaryView) -> str:
    context = "\n\n".join(f"[{p.site.value}]\n{p.text}" for p in view.passages)
    return f"Context after compaction:\n<<<\n{context}\n>>>\n\n"


def _kinds_help() -> str:
    return "\n".join(f'- "{kind.value}": {help_}' for kind, help_ in _KIND_HELP.items())


class JudgeDetector(Detector):
    """Ask `judge` for a verdict and let it stand only when its cited span re-verifies.

    Abstains on a reply with no JSON answer (or two different ones), an unknown or
    disallowed kind (a judge never certifies PRESERVED), a span that does not occur in one
    passage of the view (whitespace folded), a paraphrase span that does not bind the
    rule's values and identifiers in their roles, or a judge that raises. With
    `batch=True` the constraints of one compaction go to the judge in one call
    (`build_batch_prompt`). Verified answers are cached per (constraint, context digest)
    for the life of the detector; a failed call is not cached.
    """

    layer = "judge"

    def __init__(self, judge: JudgeFn, *, batch: bool = False) -> None:
        if not callable(judge):
            raise TypeError(
                f"judge must be a callable taking a prompt str and returning the reply str, "
                f"got {type(judge).__name__}",
            )
        self.judge = judge
        self.batch = batch
        self.calls = 0
        self._cache: dict[tuple[str, str, str], LayerVerdict | Abstain] = {}

    def detect(self, invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
        """Return the judge's verdict when it re-verifies against `view`, else Abstain."""
        return self.detect_many([invariant], view)[0]

    def detect_many(
        self, invariants: Sequence[Invariant], view: SummaryView,
    ) -> list[LayerVerdict | Abstain]:
        """Classify `invariants` against `view`, asking the judge only about uncached ones."""
        digest = context_digest(view)
        keys = [(inv.id, inv.text, digest) for inv in invariants]
        pending = [inv for inv, key in zip(invariants, keys, strict=True) if key not in self._cache]
        fresh = dict(self._answer(pending, view)) if pending else {}
        return [
            self._cache[key] if key in self._cache else fresh[inv.id]
            for inv, key in zip(invariants, keys, strict=True)
        ]

    def _answer(
        self, pending: Sequence[Invariant], view: SummaryView,
    ) -> list[tuple[str, LayerVerdict | Abstain]]:
        if self.batch:
            replies = self._ask_batch(pending, view)
        else:
            replies = [self._ask(build_prompt(inv, view)) for inv in pending]
        answered: list[tuple[str, LayerVerdict | Abstain]] = []
        for inv, reply in zip(pending, replies, strict=True):
            if isinstance(reply, Abstain):
                answered.append((inv.id, reply))  # a failed call is asked again next time
                continue
            outcome = _verified(reply, inv, view)
            self._remember((inv.id, inv.text, context_digest(view)), outcome)
            answered.append((inv.id, outcome))
        return answered

    def _ask(self, prompt: str) -> dict[str, Any] | Abstain:
        reply = self._call(prompt)
        if isinstance(reply, Abstain):
            return reply
        answers = _json_values(reply, dict)
        answers = [a for a in answers if "kind" in a] or answers[:1]
        return _one_answer(answers, reply)

    def _ask_batch(
        self, pending: Sequence[Invariant], view: SummaryView,
    ) -> list[dict[str, Any] | Abstain]:
        reply = self._call(build_batch_prompt(pending, view))
        if isinstance(reply, Abstain):
            return [reply] * len(pending)
        entries = _batch_entries(reply)
        if isinstance(entries, Abstain):
            return [entries] * len(pending)
        out: list[dict[str, Any] | Abstain] = []
        for inv in pending:
            mine = [e for e in entries if isinstance(e, dict) and e.get("id") == inv.id]
            if not mine:
                out.append(Abstain(reason=f"the judge's batched reply has no entry for {inv.id}"))
                continue
            out.append(_one_answer(mine, reply))
        return out

    def _call(self, prompt: str) -> str | Abstain:
        self.calls += 1
        try:
            reply: object = self.judge(prompt)
        except Exception as exc:  # noqa: BLE001 - a failing judge must not stop the chain
            return Abstain(reason=f"the judge raised {type(exc).__name__}: {exc}")
        if not isinstance(reply, str):
            return Abstain(reason=f"the judge returned {type(reply).__name__}, not str")
        return reply

    def _remember(self, key: tuple[str, str, str], outcome: LayerVerdict | Abstain) -> None:
        if len(self._cache) >= _CACHE_ENTRIES:
            del self._cache[next(iter(self._cache))]
        self._cache[key] = outcome


def context_digest(view: SummaryView) -> str:
    """Return the sha256 of what the judge reads of `view` (each passage's site and text)."""
    payload = json.dumps([[p.site.value, p.tool, p.text] for p in view.passages])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _one_answer(answers: list[dict[str, Any]], reply: str) -> dict[str, Any] | Abstain:
    """Return the one answer in `answers`, or Abstain when there is none or they disagree."""
    if not answers:
        return Abstain(reason="the judge's reply holds no JSON object", evidence=_raw(reply))
    distinct = {(str(a.get("kind")), str(a.get("span"))) for a in answers}
    if len(distinct) > 1:
        return Abstain(
            reason=f"the judge's reply holds {len(distinct)} different answers",
            evidence=_raw(reply),
        )
    return answers[0]


def _batch_entries(reply: str) -> list[object] | Abstain:
    for value in _json_values(reply, (dict, list)):
        if isinstance(value, dict) and isinstance(value.get("verdicts"), list):
            return list(value["verdicts"])
        if isinstance(value, list):
            return list(value)
    return Abstain(
        reason='the judge\'s reply holds no {"verdicts": [...]} object', evidence=_raw(reply),
    )


def _verified(
    answer: dict[str, Any], invariant: Invariant, view: SummaryView,
) -> LayerVerdict | Abstain:
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
        defect = span_defect(invariant.text, span)
        if defect is not None:
            return Abstain(reason=f"the judge's paraphrase span {defect}", evidence={"span": span})
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


def _json_values(reply: str, types: type | tuple[type, ...]) -> list[Any]:
    """Return the top-level JSON values of `types` in `reply` (prose and fences ignored)."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    index = 0
    while True:
        starts = [i for i in (reply.find("{", index), reply.find("[", index)) if i != -1]
        if not starts:
            return found
        start = min(starts)
        try:
            value, end = decoder.raw_decode(reply, start)
        except json.JSONDecodeError:
            index = start + 1
            continue
        if isinstance(value, types):
            found.append(value)
        index = end


def _fold(text: str) -> str:
    return " ".join(text.split())


def _raw(reply: str) -> dict[str, str]:
    return {"reply": reply[:_REPLY_CHARS]}
