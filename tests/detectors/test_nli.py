"""The NLI layer, run end to end on a tiny ONNX cross-encoder built in the test.

The model sums per-token label votes over premise tokens only (attention mask times
1 - token_type_ids), so a correct feed of all three inputs is what makes it classify:
"confirmed" votes entailment, "lifted" votes contradiction, the hypothesis-only word
"cap" would vote contradiction if token types were lost, and [PAD] would vote entailment
if the attention mask were lost.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from compaction_guard.detectors.base import (
    ALLOWED_KINDS,
    Abstain,
    Detector,
    DetectorChain,
    LayerVerdict,
)
from compaction_guard.detectors.nli import NLIDetector
from compaction_guard.invariant import Invariant
from compaction_guard.taxonomy import Kind, Site
from compaction_guard.view import Passage, SummaryView

if TYPE_CHECKING:
    from pathlib import Path

MakeInvariant = Callable[[str], Invariant]

RULE = "The budget cap for this run is $500."
VOTES = {
    "confirmed": "entailment",
    "lifted": "contradiction",
    "cap": "contradiction",
    "[PAD]": "entailment",
}
WORDS = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "confirmed",
    "lifted",
    "cap",
    "budget",
    "the",
    "run",
    "500",
    "$",
]


def _build_model(folder: Path, labels: list[str], *, extra_input: str | None = None) -> None:
    """Write tokenizer.json, model.onnx and config.json for a vote-summing classifier."""
    onnx = pytest.importorskip("onnx", reason="onnx builds the test model (dev extra)")
    np = pytest.importorskip("numpy", reason="the [nli] extra is not installed")
    tokenizers = pytest.importorskip("tokenizers", reason="the [nli] extra is not installed")
    pytest.importorskip("onnxruntime", reason="the [nli] extra is not installed")
    from onnx import TensorProto, helper, numpy_helper

    vocab = {word: index for index, word in enumerate(WORDS)}
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = tokenizers.normalizers.Lowercase()
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer.post_processor = tokenizers.processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tokenizer.save(str(folder / "tokenizer.json"))

    weights = np.zeros((len(WORDS), len(labels)), dtype="float32")
    for word, label in VOTES.items():
        weights[vocab[word], labels.index(label)] = (
            20.0 if word in {"confirmed", "lifted"} else 50.0
        )
    ints = [
        ("input_ids", TensorProto.INT64),
        ("attention_mask", TensorProto.INT64),
        ("token_type_ids", TensorProto.INT64),
    ]
    if extra_input:
        ints.append((extra_input, TensorProto.INT64))
    graph = helper.make_graph(
        nodes=[
            helper.make_node("Gather", ["W", "input_ids"], ["votes"]),
            helper.make_node("Mul", ["attention_mask", "token_type_ids"], ["hyp"]),
            helper.make_node("Sub", ["attention_mask", "hyp"], ["keep"]),
            helper.make_node("Cast", ["keep"], ["keep_f"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["keep_f", "axis2"], ["keep3"]),
            helper.make_node("Mul", ["votes", "keep3"], ["kept"]),
            helper.make_node("ReduceSum", ["kept", "axis1"], ["logits"], keepdims=0),
        ],
        name="vote_nli",
        inputs=[helper.make_tensor_value_info(name, kind, ["batch", "seq"]) for name, kind in ints],
        outputs=[
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", len(labels)])
        ],
        initializer=[
            numpy_helper.from_array(weights, "W"),
            numpy_helper.from_array(np.array([2], dtype="int64"), "axis2"),
            numpy_helper.from_array(np.array([1], dtype="int64"), "axis1"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))
    config = {"id2label": {str(i): label.upper() for i, label in enumerate(labels)}}
    (folder / "config.json").write_text(json.dumps(config))


@pytest.fixture(
    params=[["contradiction", "entailment", "neutral"], ["neutral", "contradiction", "entailment"]],
    ids=["cross-encoder-order", "permuted"],
)
def nli_dir(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    _build_model(tmp_path, request.param)
    return tmp_path


def _view(*texts: str, site: Site = Site.SUMMARY) -> SummaryView:
    return SummaryView(
        passages=tuple(Passage(text=t, site=site, message=i) for i, t in enumerate(texts))
    )


def _detect(
    nli_dir: Path, rule: str, view: SummaryView, make_invariant: MakeInvariant
) -> LayerVerdict | Abstain:
    detector = NLIDetector(nli_dir)
    assert detector.unavailable is None
    return detector.detect(make_invariant(rule), view)


def test_nli_detector_subclasses_the_protocol() -> None:
    assert Detector in NLIDetector.__mro__
    assert NLIDetector.layer == "nli"
    assert Kind.MUTATED not in ALLOWED_KINDS["nli"]


@pytest.fixture
def nli_extras() -> None:
    for module in ("numpy", "onnxruntime", "tokenizers"):
        pytest.importorskip(module, reason="the [nli] extra is not installed")


@pytest.mark.parametrize("module", ["numpy", "onnxruntime", "tokenizers"])
def test_nli_missing_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, module: str
) -> None:
    for other in ("numpy", "onnxruntime", "tokenizers"):
        if other != module:
            pytest.importorskip(other, reason="only the blocked module may be missing here")
    monkeypatch.setitem(sys.modules, module, None)
    reason = NLIDetector(tmp_path).unavailable
    assert reason is not None
    assert f"needs {module};" in reason
    assert "pip install 'compaction-guard[nli]'" in reason


def test_nli_unavailable_names_the_extra_whatever_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    reason = NLIDetector(tmp_path).unavailable
    assert reason is not None
    assert "pip install 'compaction-guard[nli]'" in reason


@pytest.mark.usefixtures("nli_extras")
@pytest.mark.parametrize(
    ("model_dir", "expected"),
    [(None, "none ships with the package"), ("empty", "found no model.onnx or tokenizer.json")],
)
def test_nli_without_model_files_says_what_to_pass(
    tmp_path: Path, model_dir: str | None, expected: str
) -> None:
    reason = NLIDetector(None if model_dir is None else tmp_path).unavailable
    assert reason is not None
    assert expected in reason
    assert "model_dir=" in reason


def test_nli_unavailable_layer_abstains_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, make_invariant: MakeInvariant
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    outcome = NLIDetector(tmp_path).detect(make_invariant(RULE), _view("x"))
    assert isinstance(outcome, Abstain)
    assert "pip install 'compaction-guard[nli]'" in outcome.reason


def test_nli_thresholds_outside_probability_range_raise() -> None:
    with pytest.raises(ValueError, match="entail_threshold"):
        NLIDetector(entail_threshold=0.0)


def test_nli_entailment_with_values_intact_is_paraphrased(
    nli_dir: Path, make_invariant: MakeInvariant
) -> None:
    """Also fails if token types are not fed: the rule's "cap" would vote contradiction."""
    view = _view("Work went fine. Confirmed: the run budget stays at $500.")
    outcome = _detect(nli_dir, RULE, view, make_invariant)
    assert isinstance(outcome, LayerVerdict)
    assert outcome.kind is Kind.PARAPHRASED
    assert outcome.rule == "entailment"
    assert outcome.score is not None
    assert outcome.score > 0.99
    assert outcome.survived_in == (Site.SUMMARY,)
    assert outcome.at_risk is False
    assert outcome.evidence["labels"] == "config.json"


def test_nli_entailment_with_a_changed_value_abstains(
    nli_dir: Path, make_invariant: MakeInvariant
) -> None:
    outcome = _detect(
        nli_dir, RULE, _view("Confirmed: the run budget stays at $5000."), make_invariant
    )
    assert isinstance(outcome, Abstain)
    assert "$500" in outcome.reason


def test_nli_hedged_entailment_abstains(nli_dir: Path, make_invariant: MakeInvariant) -> None:
    view = _view("Where possible, confirmed: keep the run budget at $500.")
    outcome = _detect(nli_dir, RULE, view, make_invariant)
    assert isinstance(outcome, Abstain)
    assert "where possible" in outcome.reason


def test_nli_contradiction_is_contradicted(nli_dir: Path, make_invariant: MakeInvariant) -> None:
    outcome = _detect(nli_dir, RULE, _view("The $500 run budget was lifted."), make_invariant)
    assert isinstance(outcome, LayerVerdict)
    assert outcome.kind is Kind.CONTRADICTED
    assert outcome.evidence["premise"] == "The $500 run budget was lifted."


def test_nli_contradiction_outranks_entailment(
    nli_dir: Path, make_invariant: MakeInvariant
) -> None:
    view = _view(
        "Confirmed: the run budget stays at $500.",
        "Later the $500 budget was lifted.",
        site=Site.RETAINED,
    )
    outcome = _detect(nli_dir, RULE, view, make_invariant)
    assert isinstance(outcome, LayerVerdict)
    assert outcome.kind is Kind.CONTRADICTED


def test_nli_neutral_premises_abstain_and_padding_is_masked(
    nli_dir: Path, make_invariant: MakeInvariant
) -> None:
    """A short premise is padded in the batch; unmasked [PAD] tokens would vote entailment."""
    view = _view(
        "Budget $500 noted.",
        "The run budget of $500 was discussed at length with the finance team today.",
    )
    outcome = _detect(nli_dir, RULE, view, make_invariant)
    assert isinstance(outcome, Abstain)
    assert "no premise entails" in outcome.reason


def test_nli_view_without_topic_words_abstains(
    nli_dir: Path, make_invariant: MakeInvariant
) -> None:
    outcome = _detect(nli_dir, RULE, _view("We fixed a flaky test."), make_invariant)
    assert isinstance(outcome, Abstain)
    assert "content word" in outcome.reason


def test_nli_every_rule_sentence_needs_an_entailing_premise(
    nli_dir: Path, make_invariant: MakeInvariant
) -> None:
    rule = f"{RULE} Production is read-only."
    outcome = _detect(
        nli_dir, rule, _view("Confirmed: the run budget stays at $500."), make_invariant
    )
    assert isinstance(outcome, Abstain)


def test_nli_survival_only_in_the_retained_tail_is_at_risk(
    nli_dir: Path, make_invariant: MakeInvariant
) -> None:
    view = _view("Confirmed: the run budget stays at $500.", site=Site.RETAINED)
    outcome = _detect(nli_dir, RULE, view, make_invariant)
    assert isinstance(outcome, LayerVerdict)
    assert outcome.survived_in == (Site.RETAINED,)
    assert outcome.at_risk is True


class _CleanReader(Detector):
    """Stands in for the lexical tier: a clean closed-world reading it could not prove."""

    layer = "lexical"

    def detect(self, invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
        return Abstain(reason="could not prove the restatement")


def test_nli_decides_in_the_chain_after_a_clean_reading(
    nli_dir: Path, make_invariant: MakeInvariant
) -> None:
    view = _view("Confirmed: the run budget stays at $500.")
    chain = DetectorChain([_CleanReader(), NLIDetector(nli_dir)])
    assert chain.run(make_invariant(RULE), view).decided_by == "nli.entailment"


def test_nli_certification_is_vetoed_without_a_closed_world_reading(
    nli_dir: Path, make_invariant: MakeInvariant
) -> None:
    """Entailment of one sentence cannot vouch for the rest of the context (promise 6a)."""
    view = _view("Confirmed: the run budget stays at $500.")
    result = DetectorChain([NLIDetector(nli_dir)]).run(make_invariant(RULE), view)
    assert result.decided_by == "chain.exhausted"
    assert "vetoed" in result.trail[-1]


def test_nli_model_with_an_unknown_input_is_unavailable(tmp_path: Path) -> None:
    _build_model(tmp_path, ["contradiction", "entailment", "neutral"], extra_input="pixel_values")
    reason = NLIDetector(tmp_path).unavailable
    assert reason is not None
    assert "pixel_values" in reason


def test_nli_labels_without_entailment_are_unavailable(tmp_path: Path) -> None:
    _build_model(tmp_path, ["contradiction", "entailment", "neutral"])
    (tmp_path / "config.json").write_text(json.dumps({"id2label": {"0": "A", "1": "B", "2": "C"}}))
    reason = NLIDetector(tmp_path).unavailable
    assert reason is not None
    assert "id2label" in reason


def test_nli_without_config_assumes_the_cross_encoder_order(
    tmp_path: Path, make_invariant: MakeInvariant
) -> None:
    _build_model(tmp_path, ["contradiction", "entailment", "neutral"])
    (tmp_path / "config.json").unlink()
    outcome = _detect(
        tmp_path, RULE, _view("Confirmed: the run budget stays at $500."), make_invariant
    )
    assert isinstance(outcome, LayerVerdict)
    assert outcome.kind is Kind.PARAPHRASED
    assert str(outcome.evidence["labels"]).startswith("default order")


def test_nli_corrupt_model_file_is_unavailable_with_the_fix(tmp_path: Path) -> None:
    _build_model(tmp_path, ["contradiction", "entailment", "neutral"])
    (tmp_path / "model.onnx").write_bytes(b"not an onnx graph")
    reason = NLIDetector(tmp_path).unavailable
    assert reason is not None
    assert "could not load" in reason


def test_nli_encodes_premises_once_per_view(
    nli_dir: Path, make_invariant: MakeInvariant, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compaction_guard.detectors import nli
    from compaction_guard.normalize import split_sentences as original

    calls: list[str] = []

    def counting(text: str) -> list[str]:
        calls.append(text)
        return original(text)

    monkeypatch.setattr(nli, "split_sentences", counting)
    detector = NLIDetector(nli_dir)
    view = _view("Confirmed: the run budget stays at $500.", "Other work.")
    for _ in range(3):
        detector.detect(make_invariant(RULE), view)
    view_texts = [c for c in calls if c != RULE]
    assert view_texts == ["Confirmed: the run budget stays at $500.", "Other work."]
