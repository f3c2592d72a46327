"""The evidence corpus, its recompute and the judge agreement script (evidence/README.md)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from types import ModuleType

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


@cache
def _prose() -> tuple[dict[str, Any], ...]:
    lines = (EVIDENCE / "prose.jsonl").read_text(encoding="ascii").splitlines()
    return tuple(json.loads(line) for line in lines if line)


SECTION_CASES = {"generated": _cases, "prose": _prose}


def _results() -> dict[str, Any]:
    results: dict[str, Any] = json.loads((EVIDENCE / "results.json").read_text(encoding="ascii"))
    return results


def _section(name: str) -> dict[str, Any]:
    section: dict[str, Any] = _results()["sections"][name]
    return section


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


# -- the prose corpus -------------------------------------------------------------------


def test_make_prose_matches_committed_digest() -> None:
    make = _script("make_prose.py")
    data = make.corpus_bytes()
    assert data == make.corpus_bytes()
    committed = (EVIDENCE / "prose.sha256").read_text(encoding="ascii").split()[0]
    assert hashlib.sha256(data).hexdigest() == committed
    assert (EVIDENCE / "prose.jsonl").read_bytes() == data


def test_make_prose_check_reports_drift(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make = _script("make_prose.py")
    for name in ("prose.jsonl", "prose.sha256"):
        (tmp_path / name).write_bytes((EVIDENCE / name).read_bytes())
    monkeypatch.setattr(make, "CORPUS", tmp_path / "prose.jsonl")
    monkeypatch.setattr(make, "DIGEST", tmp_path / "prose.sha256")
    assert make.main(["--check"]) == 0
    drifted = (tmp_path / "prose.jsonl").read_bytes().replace(b"$1,200", b"$1,300", 1)
    (tmp_path / "prose.jsonl").write_bytes(drifted)
    assert make.main(["--check"]) == 1


def test_make_prose_refuses_a_case_without_a_label_or_a_why() -> None:
    make = _script("make_prose.py")
    rule = "@rule r | test\ntext: Keep it short.\ntask: Write.\n"
    assert len(make.build_corpus(rule + "@case preserved copy\nwhy: exact\nKeep it short.\n")) == 1
    with pytest.raises(make.SourceError, match="kind one of"):
        make.build_corpus(rule + "@case unverifiable copy\nwhy: x\nKeep it short.\n")
    with pytest.raises(make.SourceError, match="why"):
        make.build_corpus(rule + "@case preserved copy\nKeep it short.\n")
    with pytest.raises(make.SourceError, match="unknown rules"):
        make.build_corpus(rule + "@case dropped gone others=nope\nwhy: gone\nNothing.\n")
    with pytest.raises(make.SourceError, match="not defined above"):
        make.build_corpus(rule + "@on nope\n@case dropped gone\nwhy: gone\nNothing.\n")
    two = rule + "@rule s | test\ntext: Be brief.\ntask: Talk.\n@on r\n@case preserved copy\nwhy: exact\nKeep it short.\n"
    assert make.build_corpus(two)[0]["constraint"] == "Keep it short."


def test_prose_corpus_has_the_documented_breadth() -> None:
    cases = _prose()
    assert len(cases) >= 200
    support = {kind: sum(case["ground_truth"] == kind for case in cases) for kind in KINDS}
    minimum = {"preserved": 45, "paraphrased": 55, "weakened": 35, "mutated": 40, "contradicted": 40, "dropped": 30}
    assert all(support[kind] >= minimum[kind] for kind in KINDS), support
    assert len({case["id"] for case in cases}) == len(cases)
    assert len({case["constraint"] for case in cases}) >= 40
    assert len({case["domain"] for case in cases}) >= 25
    for case in cases:
        assert case["why"], case["id"]
        assert "\n" not in case["why"], case["id"]
        assert case["mechanism"], case["id"]
        assert case["id"].split("-")[-2] == case["ground_truth"], case["id"]
        assert any(case["constraint"] in text for text in _strings(case["before"])), case["id"]


def test_prose_corpus_has_the_shapes_its_readme_names() -> None:
    """Block-format damage, split and assistant summaries, kept tails and long contexts all occur."""
    from compaction_guard.block import parse_blocks

    cases = _prose()

    def after_text(case: dict[str, Any]) -> str:
        return "\n".join(_strings(case["after"]))

    stray = [c for c in cases if "[block] " in after_text(c) and c["ground_truth"] in DAMAGED]
    assert stray
    assert all(
        block.intact for c in cases for text in _strings(c["after"]) for block in parse_blocks(text)
    )
    summaries = [[m for m in c["after"] if m["role"] != "system" and m not in c["before"]] for c in cases]
    assert any(len(written) >= 2 for written in summaries)
    assert any(c["after"][1]["role"] == "assistant" for c in cases)
    kept = [c for c in cases if c["after"][-1] == c["before"][-1] and c["after"][-1]["role"] != "system"]
    assert {c["ground_truth"] for c in kept} >= {"preserved", "weakened", "mutated", "contradicted"}
    long_cases = [c for c in cases if len(after_text(c)) > 20_000]
    assert {c["ground_truth"] for c in long_cases} >= {"preserved", "mutated", "contradicted"}
    mechanisms = {c["mechanism"] for c in cases}
    assert len(mechanisms) >= 150


def test_prose_summaries_are_not_templated() -> None:
    """Hand-written, not templated: no two cases share the same summary text."""
    summaries = [
        "\n".join(text for message in case["after"][1:] if message["role"] != "tool" for text in _strings(message))
        for case in _prose()
    ]
    assert len(set(summaries)) == len(summaries)


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


def test_recompute_refuses_a_drifted_prose_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recompute = _script("recompute.py")
    drifted = tmp_path / "prose.jsonl"
    drifted.write_bytes((EVIDENCE / "prose.jsonl").read_bytes().replace(b"orders_prod", b"orders_prof", 1))
    code = recompute.main([
        "--prose", str(drifted), "--prose-digest", str(EVIDENCE / "prose.sha256"), "--tiers", "core",
        "--results", str(tmp_path / "results.json"), "--table", str(tmp_path / "table.md"),
    ])
    assert code == 2
    err = capsys.readouterr().err
    assert "drifted" in err
    assert "make_prose.py" in err
    assert not (tmp_path / "results.json").exists()


def _gate_input(section: str, count: int) -> dict[str, Any]:
    cases = [{"id": f"00{n}-mutated-x", "verdict": "preserved"} for n in range(count)]
    return {"sections": {section: {"tiers": {"core": {"ran": True, "false_certify": {"count": count, "cases": cases}}}}}}


def test_recompute_gate_names_false_certified_cases() -> None:
    recompute = _script("recompute.py")
    problems = recompute._gate(_gate_input("generated", 1))
    assert len(problems) == 1
    assert "000-mutated-x" in problems[0]
    assert recompute._gate(_gate_input("generated", 0)) == []


def test_recompute_prose_gate_is_the_same_gate_once_closed() -> None:
    recompute = _script("recompute.py")
    closed = {"prose": None}
    assert "000-mutated-x" in recompute._gate(_gate_input("prose", 1), closed)[0]
    assert recompute._gate(_gate_input("prose", 0), closed) == []


def test_recompute_open_prose_gate_fails_once_nothing_is_left_to_excuse() -> None:
    """Like a strict xfail: an exemption with no false certification behind it is an error."""
    recompute = _script("recompute.py")
    opened = {"prose": "issue 9"}
    assert recompute._gate(_gate_input("prose", 2), opened) == []
    problems = recompute._gate(_gate_input("prose", 0), opened)
    assert len(problems) == 1
    assert "PROSE_GATE_OPEN" in problems[0]
    assert recompute._gate(_gate_input("generated", 1), opened) != []


def test_results_match_the_committed_corpora() -> None:
    assert set(_results()["sections"]) == {"generated", "prose"}
    for name, digest_file in (("generated", "corpus.sha256"), ("prose", "prose.sha256")):
        digest = (EVIDENCE / digest_file).read_text(encoding="ascii").split()[0]
        corpus = _section(name)["corpus"]
        assert corpus["sha256"] == digest, name
        assert corpus["cases"] == len(SECTION_CASES[name]()), name


@pytest.mark.parametrize("section", ["generated", "prose"])
def test_results_have_the_documented_structure(section: str) -> None:
    cases = SECTION_CASES[section]()
    tiers = _section(section)["tiers"]
    assert set(tiers) == {"core", "embeddings", "nli"}
    assert tiers["core"]["ran"]
    support = {kind: sum(c["ground_truth"] == kind for c in cases) for kind in KINDS}
    for name, tier in tiers.items():
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
        assert tier["false_alarm"]["count"] == len(tier["false_alarm"]["cases"])
        prevention = tier["prevention"]
        assert prevention["cases"] == len(cases)
        assert {"canonical_present", "assert_present_passed", "failures"} <= set(prevention)
        assert len(tier["verdicts"]) == len(cases)


def test_results_false_certify_count_is_zero() -> None:
    """The release gate: no tier certified a damaged constraint on the generated corpus."""
    for name, tier in _section("generated")["tiers"].items():
        if tier["ran"]:
            assert tier["false_certify"]["count"] == 0, (name, tier["false_certify"]["cases"])


def test_results_prose_false_certify_count_is_zero() -> None:
    """The same release gate on the hand-written corpus."""
    for name, tier in _section("prose")["tiers"].items():
        if tier["ran"]:
            assert tier["false_certify"]["count"] == 0, (name, tier["false_certify"]["cases"])


@pytest.mark.parametrize("section", ["generated", "prose"])
def test_results_false_certify_and_false_alarm_agree_with_the_verdicts(section: str) -> None:
    truth = {case["id"]: case["ground_truth"] for case in SECTION_CASES[section]()}
    for tier in _section(section)["tiers"].values():
        if not tier["ran"]:
            continue
        certified = sorted(
            case_id for case_id, got in tier["verdicts"].items()
            if truth[case_id] in DAMAGED and got["verdict"] in {"preserved", "paraphrased"}
        )
        assert certified == sorted(case["id"] for case in tier["false_certify"]["cases"])
        alarmed = sorted(
            case_id for case_id, got in tier["verdicts"].items()
            if truth[case_id] in {"preserved", "paraphrased"} and got["verdict"] in DAMAGED
        )
        assert alarmed == sorted(case["id"] for case in tier["false_alarm"]["cases"])


def test_recompute_counts_a_false_alarm_and_a_false_certification() -> None:
    """An intact case reported damaged is a false alarm; unverifiable is neither."""
    recompute = _script("recompute.py")
    cases = [
        {"id": f"c{n}", "ground_truth": truth, "mechanism": "m"}
        for n, truth in enumerate(("preserved", "paraphrased", "mutated", "dropped"))
    ]
    verdicts = ("weakened", "unverifiable", "paraphrased", "dropped")
    outcomes = {f"c{n}": recompute.Outcome(v, "x", canonical_present=True, assert_present_passed=True) for n, v in enumerate(verdicts)}
    section = recompute._tier_section(recompute.Tier("core"), cases, outcomes, {})
    assert [c["id"] for c in section["false_alarm"]["cases"]] == ["c0"]
    assert [c["id"] for c in section["false_certify"]["cases"]] == ["c2"]
    assert section["false_alarm"]["cases"][0]["mechanism"] == "m"


def test_table_is_rendered_from_results() -> None:
    recompute = _script("recompute.py")
    assert (EVIDENCE / "table.md").read_text(encoding="utf-8") == recompute.render_table(_results())


def test_table_shows_both_sections_with_both_counts() -> None:
    table = (EVIDENCE / "table.md").read_text(encoding="utf-8")
    assert table.index("**Generated corpus**") < table.index("**Prose corpus")
    for name in ("generated", "prose"):
        core = _section(name)["tiers"]["core"]
        assert f"| **false certifications** | **{core['false_certify']['count']}** |" in table
        assert f"| false alarms | {core['false_alarm']['count']} |" in table
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert table.rstrip("\n") in readme


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


def test_evidence_readme_states_the_prose_corpus_as_committed() -> None:
    """The counts evidence/README.md gives for the prose section are the corpus's own."""
    text = (EVIDENCE / "README.md").read_text(encoding="utf-8")
    cases = _prose()
    flat = " ".join(text.split())
    match = re.search(r"`prose.jsonl` holds (\d+) summaries written by hand, one case each, over (\d+) constraints in (\d+) domains", flat)
    assert match is not None
    assert [int(n) for n in match.groups()] == [
        len(cases), len({c["constraint"] for c in cases}), len({c["domain"] for c in cases}),
    ]
    for kind in KINDS:
        row = re.search(rf"^\| {kind} \| .* \| (\d+) \|$", text, re.MULTILINE)
        assert row is not None, kind
        assert int(row.group(1)) == sum(c["ground_truth"] == kind for c in cases), kind


# -- the adversarial judge row (issue 13) ---------------------------------------------


@pytest.mark.parametrize("section", ["generated", "prose"])
def test_adversarial_judge_certifies_no_case_the_lexical_tier_flagged(section: str) -> None:
    row = _results()["adversarial_judge"][section]
    verdicts = _section(section)["tiers"]["core"]["verdicts"]
    flagged = [v for v in verdicts.values() if v["verdict"] in {"weakened", "mutated", "contradicted", "dropped"}]
    assert row["flagged_certified"] == []
    assert row["damaged_flagged"] > 0
    assert row["damaged_flagged"] <= len(flagged)
    for entry in row["unverifiable_certified"] + row["intact_certified"]:
        assert verdicts[entry["id"]]["verdict"] == "unverifiable"
        assert entry["decided_by"].startswith("judge.")


def test_adversarial_judge_gate_names_a_certified_flagged_case() -> None:
    recompute = _script("recompute.py")
    row = {"damaged_flagged": 1, "flagged_certified": [{"id": "x-mutated", "ground_truth": "mutated",
           "decided_by": "judge.cited_span"}], "damaged_unverifiable": 0, "unverifiable_certified": [],
           "intact_unverifiable": 0, "intact_certified": []}
    problems = recompute._judge_gate({"adversarial_judge": {"prose": row}})
    assert len(problems) == 1
    assert "x-mutated" in problems[0]


def test_adversarial_judge_row_is_in_the_table() -> None:
    table = (EVIDENCE / "table.md").read_text(encoding="utf-8")
    for section in ("generated", "prose"):
        row = _results()["adversarial_judge"][section]
        cell = f"**{len(row['flagged_certified'])}** of {row['damaged_flagged']}"
        assert cell in table
        assert f"{len(row['unverifiable_certified'])} of {row['damaged_unverifiable']}" in table
