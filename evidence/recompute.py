"""Recompute evidence/results.json and evidence/table.md from the committed corpora, per tier.

Two sections, reported separately: `generated` (corpus.jsonl, built from templates by
make_corpus.py) and `prose` (prose.jsonl, hand-written summaries assembled by make_prose.py).
`python evidence/recompute.py` runs every detection tier that can run here; `--check`
recomputes in memory and exits 1 when the committed files are stale or a tier certified a
damaged constraint. Each corpus is refused unless it matches its sha256 file. See README.md.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import importlib
import json
import os
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPUS = HERE / "corpus.jsonl"
DIGEST = HERE / "corpus.sha256"
PROSE = HERE / "prose.jsonl"
PROSE_DIGEST = HERE / "prose.sha256"
RESULTS = HERE / "results.json"
TABLE = HERE / "table.md"
# The model the package bundles (and the embedding floor was calibrated on).
DEFAULT_EMBEDDING_MODEL = REPO / "src" / "compaction_guard" / "models" / "minilm-m2v-int8"
EMBEDDING_MODEL_ENV = "COMPACTION_GUARD_EMBEDDING_MODEL"

KINDS = ("preserved", "paraphrased", "weakened", "mutated", "contradicted", "dropped")
VERDICTS = (*KINDS, "unverifiable")
DAMAGED = frozenset({"weakened", "mutated", "contradicted", "dropped"})
CERTIFYING = frozenset({"preserved", "paraphrased"})
INTACT = CERTIFYING
SECTIONS = ("generated", "prose")
SECTION_LABELS = {"generated": "Generated corpus", "prose": "Prose corpus (hand-written)"}
REGENERATE = {"generated": "python evidence/make_corpus.py", "prose": "python evidence/make_prose.py"}
# The prose section's release gate is known to fail on the current lexical tier. While
# this names the reason, `--check` reports the prose section's false certifications
# without failing, and fails instead once there are none (the exemption must then be
# removed, like a strict xfail). The counts are always recorded and shown in table.md.
PROSE_GATE_OPEN: str | None = None
TIERS = ("core", "embeddings", "nli")
TIER_LABELS = {"core": "core (stdlib)", "embeddings": "+embeddings", "nli": "+nli"}
ERROR = "error"


class CorpusDriftError(Exception):
    """corpus.jsonl does not match corpus.sha256."""


# --------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------


def verified_corpus(
    corpus: Path, digest: Path, regenerate: str = REGENERATE["generated"],
) -> tuple[str, list[dict[str, Any]]]:
    """Return (sha256, cases) once the corpus bytes match the committed digest."""
    if not corpus.exists():
        raise CorpusDriftError(f"{corpus} is missing; run `{regenerate}`")
    if not digest.exists():
        raise CorpusDriftError(f"{digest} is missing; run `{regenerate}`")
    data = corpus.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    recorded = digest.read_text(encoding="ascii").split()
    expected = recorded[0] if recorded else ""
    if actual != expected:
        raise CorpusDriftError(
            f"{corpus.name} has sha256 {actual} but {digest.name} says {expected or '(empty)'}; "
            "the corpus drifted from its committed digest. Regenerate it with "
            f"`{regenerate}` (and commit both files) instead of editing it by hand",
        )
    cases = [json.loads(line) for line in data.decode("ascii").splitlines() if line]
    return actual, cases


# --------------------------------------------------------------------------------------
# Tiers
# --------------------------------------------------------------------------------------


@dataclass
class Tier:
    name: str
    detectors: list[Any] = field(default_factory=list)
    why_not: str | None = None
    models: dict[str, Any] = field(default_factory=dict)


def _files_sha256(directory: Path) -> dict[str, str]:
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.iterdir())
        if path.is_file()
    }


def _import_failure(module: str, exc: ImportError) -> str:
    return f"{module} is not importable here ({type(exc).__name__}: {exc})"


def _lexical() -> tuple[Any | None, str | None]:
    try:
        from compaction_guard.detectors.lexical import LexicalDetector
    except ImportError as exc:
        return None, _import_failure("compaction_guard.detectors.lexical", exc)
    return LexicalDetector(), None


def _model_layer(
    layer: str, class_name: str, keyword: str, path: Path | None, missing: str,
) -> tuple[Any | None, str | None, dict[str, Any]]:
    """Construct a model-backed layer from a local directory, or say why it cannot run."""
    if path is None or not path.is_dir():
        return None, missing, {}
    module = f"compaction_guard.detectors.{layer}"
    try:
        factory = getattr(importlib.import_module(module), class_name)
    except ImportError as exc:
        return None, _import_failure(module, exc), {}
    detector = factory(**{keyword: path})
    reason = detector.unavailable
    if reason is not None:
        return None, f"the {layer} layer cannot run: {reason}", {}
    return detector, None, {layer: {"name": path.name, "files_sha256": _files_sha256(path)}}


def _embedding(model: Path | None) -> tuple[Any | None, str | None, dict[str, Any]]:
    where = "no path given" if model is None else f"{model.name} is not a directory here"
    missing = (
        f"the embedding model is not available ({where}); pass --embedding-model PATH "
        f"or set {EMBEDDING_MODEL_ENV}"
    )
    return _model_layer("embedding", "EmbeddingDetector", "model_path", model, missing)


def _nli(model_dir: Path | None) -> tuple[Any | None, str | None, dict[str, Any]]:
    if model_dir is None:
        missing = (
            "no local NLI model directory was given; pass --nli-model DIR (model.onnx, "
            "tokenizer.json and config.json) to run this tier"
        )
    else:
        missing = f"the NLI model directory {model_dir.name} does not exist here"
    return _model_layer("nli", "NLIDetector", "model_dir", model_dir, missing)


def build_tiers(names: Sequence[str], embedding_model: Path | None, nli_model: Path | None) -> list[Tier]:
    """Construct each requested tier's detectors once, or the reason it cannot run here."""
    lexical, lexical_why = _lexical()
    tiers: list[Tier] = []
    embedding: tuple[Any | None, str | None, dict[str, Any]] | None = None
    for name in names:
        if lexical is None:
            tiers.append(Tier(name, why_not=lexical_why))
            continue
        if name == "core":
            tiers.append(Tier(name, [lexical]))
            continue
        embedding = embedding or _embedding(embedding_model)
        embed_detector, embed_why, embed_models = embedding
        if embed_detector is None:
            tiers.append(Tier(name, why_not=embed_why))
            continue
        if name == "embeddings":
            tiers.append(Tier(name, [lexical, embed_detector], models=dict(embed_models)))
            continue
        nli_detector, nli_why, nli_models = _nli(nli_model)
        if nli_detector is None:
            tiers.append(Tier(name, why_not=nli_why))
            continue
        tiers.append(Tier(name, [lexical, embed_detector, nli_detector], models={**embed_models, **nli_models}))
    return tiers


# --------------------------------------------------------------------------------------
# Running one case
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    verdict: str
    decided_by: str
    canonical_present: bool
    assert_present_passed: bool


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def compact_case(case: dict[str, Any], detectors: Sequence[Any], policy: str = "repair") -> tuple[Any, Any, Any]:
    """Compact one case through a fresh Guard; return (guard, output, the case's finding)."""
    from compaction_guard import Guard, Policy

    guard = Guard([case["constraint"], *case["others"]], policy=Policy(policy), detectors=detectors)
    after = case["after"]
    out = guard.compact(copy.deepcopy(case["before"]), compactor=lambda _: copy.deepcopy(after))
    ids = {inv.text: inv.id for inv in guard.invariants()}
    findings = guard.last_report.findings if guard.last_report is not None else ()
    finding = next(f for f in findings if f.invariant_id == ids[case["constraint"]])
    return guard, out, finding


def run_case(case: dict[str, Any], detectors: Sequence[Any]) -> Outcome:
    """Compact one case under REPAIR, read its finding and run the prevention check."""
    from compaction_guard.errors import BlockIntegrityError

    guard, out, finding = compact_case(case, detectors)
    try:
        guard.assert_present(out)
    except BlockIntegrityError:
        asserted = False
    else:
        asserted = True
    present = any(case["constraint"] in text for text in _strings(out))
    return Outcome(finding.kind.value, finding.decided_by, present, asserted)


def run_tier(tier: Tier, cases: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Return one tier's section of results.json.

    A case whose REPAIR run raises is a prevention failure with the exception recorded;
    its verdict is then read from a WARN run, which detects without repairing.
    """
    if tier.why_not is not None:
        return {"ran": False, "why": tier.why_not}
    outcomes: dict[str, Outcome] = {}
    errors: dict[str, str] = {}
    for case in cases:
        try:
            outcomes[case["id"]] = run_case(case, tier.detectors)
        except Exception as exc:  # noqa: BLE001 - one failing case is recorded, not fatal
            errors[case["id"]] = f"{type(exc).__name__}: {exc}"
            try:
                _, _, finding = compact_case(case, tier.detectors, policy="warn")
            except Exception:  # noqa: BLE001 - detection itself failed: no verdict
                verdict, decided_by = ERROR, ERROR
            else:
                verdict, decided_by = finding.kind.value, finding.decided_by
            outcomes[case["id"]] = Outcome(verdict, decided_by, canonical_present=False, assert_present_passed=False)
    return _tier_section(tier, cases, outcomes, errors)


def _tier_section(
    tier: Tier,
    cases: Sequence[dict[str, Any]],
    outcomes: dict[str, Outcome],
    errors: dict[str, str],
) -> dict[str, Any]:
    columns = (*VERDICTS, ERROR) if any(o.verdict == ERROR for o in outcomes.values()) else VERDICTS
    confusion = {kind: dict.fromkeys(columns, 0) for kind in KINDS}
    false_certified, false_alarms = [], []
    for case in cases:
        truth, got = case["ground_truth"], outcomes[case["id"]]
        confusion[truth][got.verdict] += 1
        entry = {
            "id": case["id"], "ground_truth": truth, "verdict": got.verdict, "decided_by": got.decided_by,
            **({"operator": case["operator"]} if "operator" in case else {"mechanism": case["mechanism"]}),
        }
        if truth in DAMAGED and got.verdict in CERTIFYING:
            false_certified.append(entry)
        if truth in INTACT and got.verdict in DAMAGED:
            false_alarms.append(entry)
    support = Counter(case["ground_truth"] for case in cases)
    prevention_failures = [
        case["id"] for case in cases
        if not (outcomes[case["id"]].canonical_present and outcomes[case["id"]].assert_present_passed)
    ]
    return {
        "ran": True,
        "detectors": [detector.layer for detector in tier.detectors],
        "models": tier.models,
        "per_kind": {kind: {"correct": confusion[kind][kind], "support": support[kind]} for kind in KINDS},
        "confusion": confusion,
        "false_certify": {"count": len(false_certified), "cases": false_certified},
        "false_alarm": {"count": len(false_alarms), "cases": false_alarms},
        "prevention": {
            "cases": len(cases),
            "canonical_present": sum(o.canonical_present for o in outcomes.values()),
            "assert_present_passed": sum(o.assert_present_passed for o in outcomes.values()),
            "failures": prevention_failures,
        },
        "errors": errors,
        "verdicts": {
            case["id"]: {"verdict": outcomes[case["id"]].verdict, "decided_by": outcomes[case["id"]].decided_by}
            for case in cases
        },
    }


# --------------------------------------------------------------------------------------
# The price of trusting a judge (issue 13)
# --------------------------------------------------------------------------------------


def adversarial_judge_row(cases: Sequence[dict[str, Any]], lexical_verdicts: dict[str, Any]) -> dict[str, Any]:
    """Run lexical -> a judge that calls every rule `paraphrased`, citing the closest sentence.

    `lexical_verdicts` are the core tier's verdicts by case id. Damaged cases the lexical
    tier flagged must stay uncertified (a release gate); the damaged cases it left
    `unverifiable` that this judge gets certified are the price of trusting any judge.
    """
    from compaction_guard.detectors.judge import JudgeDetector
    from compaction_guard.detectors.lexical import LexicalDetector
    from compaction_guard.testing import AdversarialJudge

    counts: Counter[str] = Counter()
    flagged_certified: list[dict[str, str]] = []
    priced: list[dict[str, str]] = []
    gained: list[dict[str, str]] = []
    for case in cases:
        truth, lexical = case["ground_truth"], lexical_verdicts[case["id"]]["verdict"]
        if truth in DAMAGED and lexical in DAMAGED:
            counts["damaged_flagged"] += 1
        elif lexical == "unverifiable":
            counts["damaged_unverifiable" if truth in DAMAGED else "intact_unverifiable"] += 1
        else:
            continue
        _, _, finding = compact_case(case, [LexicalDetector(), JudgeDetector(AdversarialJudge())], policy="warn")
        if finding.kind.value not in CERTIFYING:
            continue
        entry = {"id": case["id"], "ground_truth": truth, "decided_by": finding.decided_by}
        if truth not in DAMAGED:
            gained.append(entry)
        elif lexical in DAMAGED:
            flagged_certified.append(entry)
        else:
            priced.append(entry)
    return {
        "damaged_flagged": counts["damaged_flagged"],
        "flagged_certified": flagged_certified,
        "damaged_unverifiable": counts["damaged_unverifiable"],
        "unverifiable_certified": priced,
        "intact_unverifiable": counts["intact_unverifiable"],
        "intact_certified": gained,
    }


def _judge_table(results: dict[str, Any]) -> list[str]:
    rows = results.get("adversarial_judge", {})
    if not rows:
        return []
    lines = [
        "",
        ("**Behind an adversarial judge** (lexical, then a judge that answers `paraphrased` for every "
        "rule, citing the closest sentence):"),
        "",
        ("| Section | damaged, flagged by lexical: certified | damaged, lexical `unverifiable`: certified "
        "| intact, lexical `unverifiable`: certified |"),
        "|---|---|---|---|",
    ]
    for name in SECTIONS:
        row = rows.get(name)
        if row is None:
            continue
        lines.append(
            f"| {SECTION_LABELS[name]} | **{len(row['flagged_certified'])}** of {row['damaged_flagged']} "
            f"| {len(row['unverifiable_certified'])} of {row['damaged_unverifiable']} "
            f"| {len(row['intact_certified'])} of {row['intact_unverifiable']} |",
        )
    return lines


def _judge_gate(results: dict[str, Any]) -> list[str]:
    return [
        f"{name} section: the adversarial judge certified damaged cases the lexical tier flagged: "
        + ", ".join(entry["id"] for entry in row["flagged_certified"])
        for name, row in results.get("adversarial_judge", {}).items()
        if row["flagged_certified"]
    ]


# --------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """One section's corpus file and the sha256 file it must match."""

    section: str
    corpus: Path
    digest: Path


def default_sources() -> tuple[Source, ...]:
    return (Source("generated", CORPUS, DIGEST), Source("prose", PROSE, PROSE_DIGEST))


def compute(
    names: Sequence[str],
    sources: Sequence[Source],
    embedding_model: Path | None,
    nli_model: Path | None,
) -> dict[str, Any]:
    """Verify every corpus against its digest, then run each tier over each section."""
    loaded = [(source, *verified_corpus(source.corpus, source.digest, REGENERATE[source.section])) for source in sources]
    tiers = build_tiers(names, embedding_model, nli_model)
    sections: dict[str, dict[str, Any]] = {}
    for source, sha, cases in loaded:
        support = Counter(case["ground_truth"] for case in cases)
        sections[source.section] = {
            "corpus": {
                "file": source.corpus.name,
                "sha256": sha,
                "cases": len(cases),
                "constraints": len({case["constraint"] for case in cases}),
                "support": {kind: support[kind] for kind in KINDS},
            },
            "tiers": {tier.name: run_tier(tier, cases) for tier in tiers},
        }
    judged = {}
    for source, _, cases in loaded:
        core: dict[str, Any] = sections[source.section]["tiers"].get("core", {})
        if core.get("ran"):
            judged[source.section] = adversarial_judge_row(cases, core["verdicts"])
    return {"sections": sections, **({"adversarial_judge": judged} if judged else {})}


def results_bytes(results: dict[str, Any]) -> bytes:
    return (json.dumps(results, indent=2, sort_keys=True, ensure_ascii=True) + "\n").encode("ascii")


def _kind_table(section: dict[str, Any]) -> list[str]:
    tiers = section["tiers"]
    names = [name for name in TIERS if name in tiers]
    header = "| Ground truth | " + " | ".join(TIER_LABELS[name] for name in names) + " |"
    lines = [header, "|---|" + "---|" * len(names)]
    for kind in KINDS:
        cells = []
        for name in names:
            tier = tiers[name]
            if tier["ran"]:
                cell = tier["per_kind"][kind]
                cells.append(f"{cell['correct']}/{cell['support']}")
            else:
                cells.append("not run")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    for label, key, bold in (("false certifications", "false_certify", True), ("false alarms", "false_alarm", False)):
        cells = []
        for name in names:
            tier = tiers[name]
            if not tier["ran"]:
                cells.append("not run")
                continue
            count = tier[key]["count"]
            cells.append(f"**{count}**" if bold else str(count))
        lines.append(f"| {f'**{label}**' if bold else label} | " + " | ".join(cells) + " |")
    return lines


def _tier_notes(section: dict[str, Any]) -> list[str]:
    notes = []
    tiers = section["tiers"]
    for name in [name for name in TIERS if name in tiers]:
        tier = tiers[name]
        if not tier["ran"]:
            notes.append(f"- {TIER_LABELS[name]}: not run: {tier['why']}")
            continue
        prevention = tier["prevention"]
        models = ", ".join(f"{info['name']}" for info in tier["models"].values())
        notes.append(
            f"- {TIER_LABELS[name]}: detectors {' -> '.join(tier['detectors'])}"
            + (f" (models: {models})" if models else "")
            + f"; prevention after REPAIR: canonical text present in {prevention['canonical_present']}"
            f"/{prevention['cases']}, `assert_present` passed in {prevention['assert_present_passed']}"
            f"/{prevention['cases']}"
            + (f"; {len(tier['errors'])} cases raised" if tier["errors"] else "")
            + ".",
        )
    return notes


def _gate_note(section_name: str, section: dict[str, Any]) -> list[str]:
    if section_name != "prose" or PROSE_GATE_OPEN is None:
        return []
    counts = [
        f"{TIER_LABELS[name]} {tier['false_certify']['count']}"
        for name, tier in section["tiers"].items() if tier["ran"] and tier["false_certify"]["count"]
    ]
    if not counts:
        return []
    return [(
        f"- Release gate open on this section ({PROSE_GATE_OPEN}): false certifications "
        f"{', '.join(counts)}, listed by case id in `evidence/results.json`. `make evidence-check` "
        "records them without failing and fails once they reach zero, so the exemption is removed then."
    )]


def render_table(results: dict[str, Any]) -> str:
    """The README tier tables, one per section: correct/support per ground-truth kind, per tier."""
    out: list[str] = []
    for section_name in SECTIONS:
        section = results["sections"].get(section_name)
        if section is None:
            continue
        corpus = section["corpus"]
        if section_name == "generated":
            about = (f"{corpus['cases']} cases generated from templates over {corpus['constraints']} "
                     "seed constraints")
        else:
            about = (f"{corpus['cases']} hand-written summaries over {corpus['constraints']} "
                     "constraints")
        if out:
            out.append("")
        out.append(f"**{SECTION_LABELS[section_name]}**: {about}, sha256 `{corpus['sha256'][:16]}...`.")
        out.append("")
        out.extend(_kind_table(section))
        out.append("")
        out.extend(_tier_notes(section))
        out.extend(_gate_note(section_name, section))
    out.extend(_judge_table(results))
    out.extend([
        "",
        ("Cells are correct verdicts over ground-truth support. A false certification is a weakened, "
         "mutated, contradicted or dropped constraint reported preserved or paraphrased; a false "
         "alarm is a preserved or paraphrased constraint reported weakened, mutated, contradicted "
         "or dropped (`unverifiable` is neither)."),
    ])
    return "\n".join(out) + "\n"


def _write(path: Path, data: bytes) -> None:
    """Write temp-then-rename, so a reader never sees half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(tmp).chmod(0o644)  # mkstemp creates 0600; these files are committed and shared
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _complete(results: dict[str, Any]) -> bool:
    """Every section is present and carries every tier (run or recorded as not run)."""
    sections = results.get("sections", {})
    return set(sections) == set(SECTIONS) and all(set(s["tiers"]) == set(TIERS) for s in sections.values())


def _merged(results: dict[str, Any], path: Path) -> dict[str, Any]:
    """Keep committed tiers and sections left out of this run, when their corpus is the same."""
    if _complete(results) or not path.exists():
        return results
    committed = json.loads(path.read_text(encoding="ascii")).get("sections", {})
    sections = {}
    for name in SECTIONS:
        fresh, old = results["sections"].get(name), committed.get(name)
        if fresh is None:
            if old is not None:
                sections[name] = old
            continue
        if old is None or old.get("corpus") != fresh["corpus"]:
            sections[name] = fresh
            continue
        tiers = {**old.get("tiers", {}), **fresh["tiers"]}
        sections[name] = {**fresh, "tiers": {tier: tiers[tier] for tier in TIERS if tier in tiers}}
    committed_judge = json.loads(path.read_text(encoding="ascii")).get("adversarial_judge", {})
    judged = {**committed_judge, **results.get("adversarial_judge", {})}
    judged = {name: row for name, row in judged.items() if name in sections}
    return {"sections": sections, **({"adversarial_judge": judged} if judged else {})}


def _gate(results: dict[str, Any], open_gates: dict[str, str | None] | None = None) -> list[str]:
    """Release-gate problems: false certifications, or an open gate with nothing left to excuse."""
    if open_gates is None:
        open_gates = {"prose": PROSE_GATE_OPEN}
    problems = []
    for section_name, section in results["sections"].items():
        reason = open_gates.get(section_name)
        certified = 0
        for name, tier in section["tiers"].items():
            if not (tier["ran"] and tier["false_certify"]["count"]):
                continue
            certified += tier["false_certify"]["count"]
            if reason is None:
                ids = ", ".join(case["id"] for case in tier["false_certify"]["cases"])
                problems.append(
                    f"{section_name} section, tier {name} certified "
                    f"{tier['false_certify']['count']} damaged constraints: {ids}",
                )
        ran = any(tier["ran"] for tier in section["tiers"].values())
        if reason is not None and ran and not certified:
            problems.append(
                f"the {section_name} section's release gate is marked open ({reason}) but no tier "
                "certifies a damaged case any more: set PROSE_GATE_OPEN = None in evidence/recompute.py",
            )
    return problems


# CI sets this so a tier that cannot run (a missing model) fails the check instead of
# being skipped with a notice, as it is on a machine without the local weights.
STRICT_ENV = "COMPACTION_GUARD_EVIDENCE_STRICT"


def _check(results: dict[str, Any], results_path: Path, table_path: Path) -> list[str]:
    results = json.loads(results_bytes(results))
    problems = _gate(results) + _judge_gate(results)
    committed = json.loads(results_path.read_text(encoding="ascii")) if results_path.exists() else None
    if committed is None:
        problems.append(f"{results_path.name} is missing; run `make evidence` and commit it")
        return problems
    committed_sections = committed.get("sections", {})
    for section_name, fresh in results["sections"].items():
        old = committed_sections.get(section_name)
        if old is None:
            problems.append(f"{results_path.name} has no {section_name} section; run `make evidence` and commit it")
            continue
        changed = ["corpus"] if old.get("corpus") != fresh["corpus"] else []
        for name, tier in fresh["tiers"].items():
            before = old.get("tiers", {}).get(name)
            if before is not None and before.get("ran") and not tier["ran"]:
                message = (
                    f"tier {name} ran in the committed results but cannot run here ({tier['why']}); "
                    "install what it needs or leave it out with --tiers"
                )
                if os.environ.get(STRICT_ENV):
                    problems.append(message)
                else:
                    print(f"notice: {message}; not rechecked (set {STRICT_ENV}=1 to fail)", file=sys.stderr)
                continue
            if before != tier:
                changed.append(name)
        if changed:
            problems.append(
                f"{results_path.name} is stale in the {section_name} section ({', '.join(changed)} differ "
                "from a fresh recompute); run `make evidence` and commit the result",
            )
    for section_name, row in results.get("adversarial_judge", {}).items():
        if committed.get("adversarial_judge", {}).get(section_name) != row:
            problems.append(
                f"{results_path.name} is stale in the adversarial judge row of the {section_name} "
                "section; run `make evidence` and commit the result",
            )
    if _complete(results):
        table = render_table(results)
        if not table_path.exists() or table_path.read_text(encoding="utf-8") != table:
            problems.append(f"{table_path.name} is stale; run `make evidence` and commit it")
    return problems


def _print_summary(results: dict[str, Any]) -> None:
    for section_name, section in results["sections"].items():
        for name, tier in section["tiers"].items():
            if not tier["ran"]:
                print(f"{section_name} {name}: not run: {tier['why']}")
                continue
            cells = ", ".join(f"{kind} {c['correct']}/{c['support']}" for kind, c in tier["per_kind"].items())
            print(
                f"{section_name} {name}: {cells}; false certifications {tier['false_certify']['count']}; "
                f"false alarms {tier['false_alarm']['count']}",
            )
            for case_id, error in sorted(tier["errors"].items()):
                print(f"  {case_id} raised {error}", file=sys.stderr)
    for section_name, row in results.get("adversarial_judge", {}).items():
        print(
            f"{section_name} adversarial judge: certified {len(row['flagged_certified'])} of "
            f"{row['damaged_flagged']} damaged cases lexical flagged, {len(row['unverifiable_certified'])} "
            f"of {row['damaged_unverifiable']} it left unverifiable",
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="recompute in memory; exit 1 if the committed results are stale or a tier false-certifies")
    parser.add_argument("--tiers", default=",".join(TIERS), help=f"comma-separated subset of {', '.join(TIERS)}")
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated subset of {', '.join(SECTIONS)}")
    parser.add_argument("--embedding-model", type=Path, default=None, help=f"model2vec model directory (default: ${EMBEDDING_MODEL_ENV} or the bundled src/compaction_guard/models/minilm-m2v-int8)")
    parser.add_argument("--nli-model", type=Path, default=None, help="local NLI model directory; without it the nli tier is recorded as not run")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--digest", type=Path, default=DIGEST)
    parser.add_argument("--prose", type=Path, default=PROSE, help="the hand-written corpus (default evidence/prose.jsonl)")
    parser.add_argument("--prose-digest", type=Path, default=PROSE_DIGEST)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--table", type=Path, default=TABLE)
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.tiers.split(",") if name.strip()]
    unknown = sorted(set(names) - set(TIERS))
    if unknown:
        parser.error(f"unknown tier(s) {', '.join(unknown)}; choose from {', '.join(TIERS)}")
    wanted = [name.strip() for name in args.sections.split(",") if name.strip()]
    unknown = sorted(set(wanted) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    sources = [
        source for source in (Source("generated", args.corpus, args.digest), Source("prose", args.prose, args.prose_digest))
        if source.section in wanted
    ]
    embedding_model = args.embedding_model or Path(os.environ.get(EMBEDDING_MODEL_ENV) or DEFAULT_EMBEDDING_MODEL)
    try:
        results = compute([n for n in TIERS if n in names], sources, embedding_model, args.nli_model)
    except CorpusDriftError as exc:
        print(f"refusing to recompute: {exc}", file=sys.stderr)
        return 2
    _print_summary(results)
    if args.check:
        problems = _check(results, args.results, args.table)
        for problem in problems:
            print(f"check failed: {problem}", file=sys.stderr)
        return 1 if problems else 0
    results = _merged(results, args.results)
    _write(args.results, results_bytes(results))
    if _complete(results):
        _write(args.table, render_table(results).encode("utf-8"))
    problems = _gate(results) + _judge_gate(results)
    for problem in problems:
        print(f"release gate: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
