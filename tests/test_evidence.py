"""The evidence corpus, its recompute and the judge agreement script (evidence/README.md)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType

    import pytest

ROOT = Path(__file__).resolve().parents[1]
EVIDENCE = ROOT / "evidence"
KINDS = ("preserved", "paraphrased", "weakened", "mutated", "contradicted", "dropped")
DAMAGED = {"weakened", "mutated", "contradicted", "dropped"}


@cache
def _script(relative: str) -> ModuleType:
    """Load an evidence script as a module (the scripts are not a package)."""
    path = EVIDENCE / relative
    name = "evidence_" + path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


@cache
def _cases() -> tuple[dict[str, Any], ...]:
    lines = (EVIDENCE / "corpus.jsonl").read_text(encoding="ascii").splitlines()
    return tuple(json.loads(line) for line in lines if line)


def _results() -> dict[str, Any]:
    results: dict[str, Any] = json.loads((EVIDENCE / "results.json").read_text(encoding="ascii"))
    return results


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


# -- the generator ----------------------------------------------------------------------


def test_make_corpus_is_deterministic() -> None:
    make = _script("make_corpus.py")
    assert make.corpus_bytes() == make.corpus_bytes()


def test_make_corpus_matches_committed_digest() -> None:
    make = _script("make_corpus.py")
    data = make.corpus_bytes()
    committed = (EVIDENCE / "corpus.sha256").read_text(encoding="ascii").split()[0]
    assert hashlib.sha256(data).hexdigest() == committed
    assert (EVIDENCE / "corpus.jsonl").read_bytes() == data


def test_make_corpus_check_reports_drift(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make = _script("make_corpus.py")
    drifted = tmp_path / "corpus.jsonl"
    drifted.write_bytes((EVIDENCE / "corpus.jsonl").read_bytes().replace(b"$500", b"$600", 1))
    monkeypatch.setattr(make, "CORPUS", drifted)
    assert make.main(["--check"]) == 1


def test_make_corpus_has_documented_breadth() -> None:
    cases = _cases()
    assert len(cases) >= 300
    assert len({case["constraint"] for case in cases}) >= 40
    assert {case["ground_truth"] for case in cases} == set(KINDS)
    assert {case["scaffold"] for case in cases} == {"plain", "kept_tail", "stale_block", "multi_message"}
    assert {case["style"] for case in cases} == {"bullets", "key_decisions", "first_person", "third_person"}
    assert len({case["id"] for case in cases}) == len(cases)


def test_make_corpus_every_kind_has_several_operators() -> None:
    for kind in KINDS:
        operators = {case["operator"] for case in _cases() if case["ground_truth"] == kind}
        assert len(operators) >= 2, kind


def test_make_corpus_constraint_is_stated_verbatim_before_compaction() -> None:
    for case in _cases():
        assert any(case["constraint"] in text for text in _strings(case["before"])), case["id"]


def test_make_corpus_carried_block_never_holds_the_current_text() -> None:
    for case in _cases():
        if case["scaffold"] != "stale_block":
            continue
        blocks = [text for text in _strings(case["after"]) if "<<COMPACTION-GUARD:" in text]
        assert blocks, case["id"]
        for text in blocks:
            body = text[text.index("<<COMPACTION-GUARD:") : text.index("<<END-COMPACTION-GUARD")]
            assert f":: {case['constraint']}\n" not in body, case["id"]


def test_make_corpus_carried_blocks_verify_with_the_package_parser() -> None:
    from compaction_guard.block import parse_blocks

    for case in _cases():
        for text in _strings(case["after"]):
            for block in parse_blocks(text):
                assert block.intact, (case["id"], block.failure)


def test_make_corpus_kept_tail_only_for_kinds_the_tail_cannot_change() -> None:
    tail_kinds = {case["ground_truth"] for case in _cases() if case["scaffold"] == "kept_tail"}
    assert tail_kinds <= {"preserved", "weakened", "mutated", "contradicted"}


# -- the recompute ----------------------------------------------------------------------


def test_recompute_refuses_a_drifted_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recompute = _script("recompute.py")
    drifted = tmp_path / "corpus.jsonl"
    drifted.write_bytes((EVIDENCE / "corpus.jsonl").read_bytes() + b"\n")
    code = recompute.main([
        "--corpus", str(drifted), "--digest", str(EVIDENCE / "corpus.sha256"),
        "--results", str(tmp_path / "results.json"), "--table", str(tmp_path / "table.md"),
    ])
    assert code == 2
    assert "drifted" in capsys.readouterr().err
    assert not (tmp_path / "results.json").exists()


def test_recompute_gate_names_false_certified_cases() -> None:
    recompute = _script("recompute.py")
    results = {"tiers": {"core": {"ran": True, "false_certify": {
        "count": 1, "cases": [{"id": "007-mutated-x", "verdict": "preserved"}],
    }}}}
    problems = recompute._gate(results)
    assert len(problems) == 1
    assert "007-mutated-x" in problems[0]


def test_results_match_the_committed_corpus() -> None:
    digest = (EVIDENCE / "corpus.sha256").read_text(encoding="ascii").split()[0]
    corpus = _results()["corpus"]
    assert corpus["sha256"] == digest
    assert corpus["cases"] == len(_cases())


def test_results_have_the_documented_structure() -> None:
    results = _results()
    assert set(results["tiers"]) == {"core", "embeddings", "nli"}
    support = {kind: sum(c["ground_truth"] == kind for c in _cases()) for kind in KINDS}
    for name, tier in results["tiers"].items():
        if not tier["ran"]:
            assert tier["why"], name
            continue
        assert set(tier["per_kind"]) == set(KINDS)
        for kind in KINDS:
            assert tier["per_kind"][kind]["support"] == support[kind]
            assert 0 <= tier["per_kind"][kind]["correct"] <= support[kind]
            assert sum(tier["confusion"][kind].values()) == support[kind]
            assert tier["confusion"][kind][kind] == tier["per_kind"][kind]["correct"]
        assert tier["false_certify"]["count"] == len(tier["false_certify"]["cases"])
        prevention = tier["prevention"]
        assert prevention["cases"] == len(_cases())
        assert {"canonical_present", "assert_present_passed", "failures"} <= set(prevention)
        assert len(tier["verdicts"]) == len(_cases())


def test_results_false_certify_count_is_zero() -> None:
    """The release gate: no tier certified a damaged constraint on the committed corpus."""
    for name, tier in _results()["tiers"].items():
        if tier["ran"]:
            assert tier["false_certify"]["count"] == 0, (name, tier["false_certify"]["cases"])


def test_results_false_certify_agrees_with_the_recorded_verdicts() -> None:
    truth = {case["id"]: case["ground_truth"] for case in _cases()}
    for tier in _results()["tiers"].values():
        if not tier["ran"]:
            continue
        certified = sorted(
            case_id for case_id, got in tier["verdicts"].items()
            if truth[case_id] in DAMAGED and got["verdict"] in {"preserved", "paraphrased"}
        )
        assert certified == sorted(case["id"] for case in tier["false_certify"]["cases"])


def test_table_is_rendered_from_results() -> None:
    recompute = _script("recompute.py")
    assert (EVIDENCE / "table.md").read_text(encoding="utf-8") == recompute.render_table(_results())


# -- judge calibration ------------------------------------------------------------------


def _fake_reply(prompt: str) -> str:
    """Answer dropped when the rule's text is absent from the context, else cite it."""
    rule = prompt.split("Rule:\n<<<\n", 1)[1].split("\n>>>", 1)[0]
    context = prompt.split("Context after compaction:\n<<<\n", 1)[1]
    if rule in context:
        return json.dumps({"kind": "paraphrased", "span": rule})
    return json.dumps({"kind": "dropped", "span": ""})


def test_agreement_runs_offline_with_a_fake_judge() -> None:
    from compaction_guard.testing import FakeJudge

    agreement = _script("judge/agreement.py")
    subset = [json.loads(line) for line in (EVIDENCE / "judge" / "subset.jsonl").read_text(encoding="ascii").splitlines()]
    judge = FakeJudge(_fake_reply)
    result = agreement.agreement(judge, subset)
    assert result["cases"] == len(subset)
    assert sum(cell["support"] for cell in result["per_kind"].values()) == len(subset)
    assert judge.prompts


def test_agreement_cli_loads_module_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "calibration_judge.py").write_text(
        "import json\n"
        "def judge(prompt: str) -> str:\n"
        "    return json.dumps({'kind': 'dropped', 'span': ''})\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    agreement = _script("judge/agreement.py")
    assert agreement.main(["calibration_judge:judge", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed["per_kind"]) == set(KINDS)


def test_subset_lines_are_corpus_lines() -> None:
    corpus = {json.dumps(case, sort_keys=True) for case in _cases()}
    lines = (EVIDENCE / "judge" / "subset.jsonl").read_text(encoding="ascii").splitlines()
    assert len(lines) == 6 * 8
    for line in lines:
        assert json.dumps(json.loads(line), sort_keys=True) in corpus
