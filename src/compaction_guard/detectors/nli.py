"""The NLI layer: an ONNX cross-encoder judges paraphrase and contradiction.

It may never issue MUTATED (NLI scores $500 and $5000 alike), certifies only with every
value and identifier present verbatim, and never issues PRESERVED. See docs/DESIGN.md,
"Detector chain" (promises 1, 2 and 12).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compaction_guard._extras import require
from compaction_guard.detectors.base import Abstain, Detector, LayerVerdict
from compaction_guard.errors import MissingExtraError
from compaction_guard.normalize import split_sentences, words
from compaction_guard.taxonomy import Kind, Site

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

    from compaction_guard.invariant import Invariant
    from compaction_guard.view import SummaryView

__all__ = ["DEFAULT_CONTRADICT_THRESHOLD", "DEFAULT_ENTAIL_THRESHOLD", "NLIDetector"]

# Not calibrated here: no NLI model is available offline on this machine. Softmax
# probabilities of small cross-encoders are peaked, so 0.9 keeps only confident calls.
DEFAULT_ENTAIL_THRESHOLD = 0.9
DEFAULT_CONTRADICT_THRESHOLD = 0.9

_FEATURE = "the NLI tier"
# Label order of the cross-encoder nli-deberta-v3 exports, used when config.json has none.
_DEFAULT_LABELS = ("contradiction", "entailment", "neutral")
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_MAX_PREMISES = 8
_MAX_TOKENS = 512
_MIN_WORD = 3
# Values and identifiers a paraphrase must carry verbatim: $500, 2,000, 02:00-04:00, 99.9%,
# v2.3.1, orders_prod, replica.db.internal, ops@acme.example, /var/log, read-only, .env.
_ANCHOR = re.compile(
    r"[$€£¥]?\d+(?:[.,:/-]\d+)*%?[^\W\d_]*"
    r"|[./~]?[^\W\d]\w*(?:[_.@/:-]\w+)+"
    r"|(?<!\w)\.\w+",
)
# A premise that hedges or lifts where the constraint does not cannot certify it.
_HEDGES = (
    "where possible",
    "if possible",
    "when possible",
    "ideally",
    "try to",
    "preferably",
    "if feasible",
    "unless",
    "no longer",
)
_STOPWORDS = frozenset(
    {
        "the", "and", "for", "are", "was", "were", "been", "this", "that", "these", "those",
        "with", "from", "into", "than", "then", "any", "all", "each", "every", "its", "our",
        "your", "their", "there", "here", "must", "may", "should", "can", "will", "would",
        "could", "not", "never", "only", "does", "did", "has", "have", "had",
    },
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Premise:
    text: str
    site: Site
    words: frozenset[str]
    anchors: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Model:
    """A loaded cross-encoder: session, tokenizer and where its labels sit."""

    session: Any
    tokenizer: Any
    np: ModuleType
    inputs: tuple[tuple[str, str], ...]  # (input name, numpy dtype)
    entail: int
    contradict: int
    labels_from: str


@dataclass(frozen=True, slots=True)
class _Scored:
    premise: _Premise
    hypothesis: str
    entail: float
    contradict: float


class NLIDetector(Detector):
    """Classify paraphrase and contradiction with a local ONNX cross-encoder NLI model.

    `model_dir` holds `model.onnx` and `tokenizer.json`, plus `config.json` whose
    `id2label` names the classes (without it, the cross-encoder order contradiction,
    entailment, neutral is assumed). Premises are the view sentences that share the most
    content words with each constraint sentence; hypotheses are the constraint sentences.
    """

    layer = "nli"

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        entail_threshold: float = DEFAULT_ENTAIL_THRESHOLD,
        contradict_threshold: float = DEFAULT_CONTRADICT_THRESHOLD,
    ) -> None:
        for name, value in (("entail", entail_threshold), ("contradict", contradict_threshold)):
            if not 0.0 < value <= 1.0:
                raise ValueError(f"{name}_threshold is a probability in (0, 1], got {value!r}")
        self.model_dir = model_dir
        self.entail_threshold = entail_threshold
        self.contradict_threshold = contradict_threshold
        self._model: _Model | None = None
        self._reason: str | None = None
        self._cached: tuple[SummaryView, tuple[_Premise, ...]] | None = None

    @property
    def unavailable(self) -> str | None:
        """Why the layer cannot run (loads the model on first call), or None."""
        self._ensure_loaded()
        return self._reason

    def detect(self, invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
        """Return CONTRADICTED or PARAPHRASED when the model is confident, else Abstain."""
        model = self._ensure_loaded()
        if model is None:
            return Abstain(reason=self._reason or "the NLI tier is unavailable")
        hypotheses = split_sentences(invariant.text) or [invariant.text]
        pairs = [(p, h) for h in hypotheses for p in _candidates(h, self._premises(view))]
        if not pairs:
            return Abstain(reason="no sentence in the view shares a content word with the rule")
        scored = _score(model, pairs)
        contradiction = max(scored, key=lambda s: s.contradict)
        if contradiction.contradict >= self.contradict_threshold:
            return _contradicted(contradiction, model)
        return self._paraphrase(hypotheses, scored, model)

    def _paraphrase(
        self,
        hypotheses: Sequence[str],
        scored: Sequence[_Scored],
        model: _Model,
    ) -> LayerVerdict | Abstain:
        """Certify only when every constraint sentence has a sound entailing premise."""
        chosen: list[_Scored] = []
        for hypothesis in hypotheses:
            entailing = [
                s
                for s in scored
                if s.hypothesis == hypothesis and s.entail >= self.entail_threshold
            ]
            sound = [s for s in entailing if _refusal(s) is None]
            if not sound:
                reason = _refusal(entailing[0]) if entailing else None
                return Abstain(
                    reason=reason
                    or (
                        f"no premise entails {hypothesis!r} at {self.entail_threshold} "
                        f"or contradicts it at {self.contradict_threshold}"
                    ),
                )
            chosen.append(max(sound, key=lambda s: s.entail))
        sites = tuple(dict.fromkeys(s.premise.site for s in chosen))
        return LayerVerdict(
            kind=Kind.PARAPHRASED,
            rule="entailment",
            evidence={
                "premises": [s.premise.text for s in chosen],
                "entailment": [round(s.entail, 4) for s in chosen],
                "labels": model.labels_from,
            },
            score=min(s.entail for s in chosen),
            survived_in=sites,
            at_risk=all(site is Site.RETAINED for site in sites),
        )

    def _premises(self, view: SummaryView) -> tuple[_Premise, ...]:
        if self._cached is not None and (self._cached[0] is view or self._cached[0] == view):
            return self._cached[1]
        premises = tuple(
            _Premise(text=s, site=p.site, words=_content_words(s), anchors=_anchors(s))
            for p in view.passages
            for s in split_sentences(p.text)
        )
        self._cached = (view, premises)
        return premises

    def _ensure_loaded(self) -> _Model | None:
        if self._model is not None or self._reason is not None:
            return self._model
        try:
            self._model = _load(self.model_dir)
        except (MissingExtraError, _NoModelError) as exc:
            self._reason = str(exc)
        except Exception as exc:  # noqa: BLE001 - ONNX and tokenizer errors vary; the layer degrades
            self._reason = (
                f"{_FEATURE} could not load {os.fspath(self.model_dir or '')!r} "
                f"({type(exc).__name__}: {exc}); pass model_dir= a directory holding an ONNX "
                "cross-encoder NLI export (model.onnx, tokenizer.json, config.json)"
            )
        return self._model


class _NoModelError(Exception):
    """No model directory is usable; the message says what to pass."""


def _load(model_dir: str | os.PathLike[str] | None) -> _Model:
    np = require("numpy", extra="nli", feature=_FEATURE)
    ort = require("onnxruntime", extra="nli", feature=_FEATURE)
    tokenizers = require("tokenizers", extra="nli", feature=_FEATURE)
    folder = _model_folder(model_dir)
    session = ort.InferenceSession(
        str(folder / "model.onnx"),
        providers=["CPUExecutionProvider"],
    )
    inputs = tuple(
        (i.name, "int32" if i.type == "tensor(int32)" else "int64") for i in session.get_inputs()
    )
    unknown = [name for name, _ in inputs if name not in _INPUTS]
    if unknown:
        raise _NoModelError(
            f"{_FEATURE} cannot feed model.onnx inputs {unknown}; export the model with "
            f"inputs among {list(_INPUTS)}",
        )
    tokenizer = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    if tokenizer.truncation is None:
        tokenizer.enable_truncation(_MAX_TOKENS)
    labels, labels_from = _labels(folder / "config.json")
    return _Model(
        session=session,
        tokenizer=tokenizer,
        np=np,
        inputs=inputs,
        entail=_label_index(labels, "entail"),
        contradict=_label_index(labels, "contra"),
        labels_from=labels_from,
    )


def _model_folder(model_dir: str | os.PathLike[str] | None) -> Path:
    if model_dir is None:
        raise _NoModelError(
            f"{_FEATURE} has no model: none ships with the package and none is available "
            "offline here; pass model_dir= a local directory holding an ONNX export of a "
            "cross-encoder NLI model (model.onnx, tokenizer.json, config.json with id2label), "
            "such as cross-encoder/nli-deberta-v3-xsmall",
        )
    folder = Path(model_dir).expanduser()
    missing = [n for n in ("model.onnx", "tokenizer.json") if not (folder / n).is_file()]
    if missing:
        raise _NoModelError(
            f"{_FEATURE} found no {' or '.join(missing)} in {os.fspath(folder)!r}; pass "
            "model_dir= the directory of an ONNX cross-encoder NLI export",
        )
    return folder


def _labels(config: Path) -> tuple[list[str], str]:
    """Return the class names by output index, and where they came from."""
    if config.is_file():
        id2label = json.loads(config.read_text(encoding="utf-8")).get("id2label")
        if isinstance(id2label, dict) and id2label:
            by_index = {int(k): str(v) for k, v in id2label.items()}
            return [by_index.get(i, "") for i in range(max(by_index) + 1)], "config.json"
    return list(_DEFAULT_LABELS), "default order (contradiction, entailment, neutral)"


def _label_index(labels: list[str], prefix: str) -> int:
    for index, label in enumerate(labels):
        if label.casefold().startswith(prefix):
            return index
    raise _NoModelError(
        f"{_FEATURE} found no {prefix}* class among the model's labels {labels}; "
        "fix id2label in config.json",
    )


def _score(model: _Model, pairs: Sequence[tuple[_Premise, str]]) -> list[_Scored]:
    """Run the cross-encoder once over every (premise, hypothesis) pair."""
    np = model.np
    encodings = model.tokenizer.encode_batch([(p.text, h) for p, h in pairs])
    width = max(len(e.ids) for e in encodings)
    columns = {
        "input_ids": [e.ids for e in encodings],
        "attention_mask": [e.attention_mask for e in encodings],
        "token_type_ids": [e.type_ids for e in encodings],
    }
    feeds = {}
    for name, dtype in model.inputs:
        # Padding positions are masked out, so their id value does not matter.
        array = np.zeros((len(encodings), width), dtype=dtype)
        for row, values in enumerate(columns[name]):
            array[row, : len(values)] = values
        feeds[name] = array
    logits = np.asarray(model.session.run(None, feeds)[0], dtype="float64")
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs = shifted / shifted.sum(axis=1, keepdims=True)
    return [
        _Scored(
            premise=premise,
            hypothesis=hypothesis,
            entail=float(probs[row, model.entail]),
            contradict=float(probs[row, model.contradict]),
        )
        for row, (premise, hypothesis) in enumerate(pairs)
    ]


def _contradicted(scored: _Scored, model: _Model) -> LayerVerdict:
    return LayerVerdict(
        kind=Kind.CONTRADICTED,
        rule="contradiction",
        evidence={
            "premise": scored.premise.text,
            "hypothesis": scored.hypothesis,
            "contradiction": round(scored.contradict, 4),
            "labels": model.labels_from,
        },
        score=scored.contradict,
    )


def _refusal(scored: _Scored) -> str | None:
    """Why an entailing premise still cannot certify, or None when it can."""
    missing = sorted(_anchors(scored.hypothesis) - scored.premise.anchors)
    if missing:
        return f"the entailing sentence lacks {', '.join(missing)} verbatim"
    premise, hypothesis = scored.premise.text.casefold(), scored.hypothesis.casefold()
    hedges = [h for h in _HEDGES if h in premise and h not in hypothesis]
    if hedges:
        return f"the entailing sentence hedges or lifts the rule ({', '.join(hedges)})"
    return None


def _candidates(hypothesis: str, premises: Sequence[_Premise]) -> list[_Premise]:
    """Return the premises sharing the most content words with `hypothesis`, best first."""
    words = _content_words(hypothesis) | _anchors(hypothesis)
    ranked = [(len(words & (p.words | p.anchors)), i) for i, p in enumerate(premises)]
    ranked = sorted((r for r in ranked if r[0] > 0), key=lambda r: (-r[0], r[1]))
    return [premises[i] for _, i in ranked[:_MAX_PREMISES]]


def _content_words(text: str) -> frozenset[str]:
    found = words(text.casefold())
    return frozenset(w for w in found if len(w) >= _MIN_WORD and w not in _STOPWORDS)


def _anchors(text: str) -> frozenset[str]:
    return frozenset(match.casefold() for match in _ANCHOR.findall(text))
