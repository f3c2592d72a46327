"""Measure one candidate role for embeddings: upgrading a lexical `unverifiable` to `paraphrased`.

`python evidence/embedding_upgrade.py [FILE ...]` (default: corpus.jsonl and prose.jsonl)
reads each case the lexical tier leaves undecided, takes the sentences of the context that
pass the judge's span checks (`detectors.judge.span_defect`: values and identifiers in their
roles, force, polarity, list items, names), and scores the best one by cosine to the rule
with the bundled model. It prints, per threshold, how many intact and damaged cases would be
certified when the lexical reading was clean (the candidate rule) and when any lexical
abstention were let through (how much the similarity itself separates). It changes no
verdict; docs/detection.md records the decision it informed. Reads the committed corpus
format and the `{"invariant", "summary", "label"}` format.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

HERE = Path(__file__).resolve().parent
DEFAULT_FILES = (HERE / "corpus.jsonl", HERE / "prose.jsonl")
DAMAGED = frozenset({"weakened", "mutated", "contradicted", "dropped"})
THRESHOLDS = (0.7, 0.8, 0.85, 0.9, 0.95)


def probe_rows(cases: Sequence[dict[str, Any]]) -> list[tuple[bool, bool, float | None]]:
    """Return (damaged, clean lexical reading, best cosine or None) per undecided case."""
    import numpy as np
    from model2vec import StaticModel

    import compaction_guard as cg
    from compaction_guard.detectors.base import Abstain, Detector
    from compaction_guard.detectors.embedding import BUNDLED_MODEL
    from compaction_guard.detectors.judge import span_defect
    from compaction_guard.detectors.lexical import LexicalDetector
    from compaction_guard.normalize import split_sentences
    from compaction_guard.taxonomy import CERTIFYING_KINDS

    model = StaticModel.from_pretrained(BUNDLED_MODEL)

    def encode(texts: list[str]) -> Any:
        vectors = np.asarray(model.encode(texts, show_progress_bar=False), dtype="float32")
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)

    class Probe(Detector):
        """Sits where the embedding tier would, records what it sees, and abstains."""

        layer = "embedding"

        def __init__(self, rule: str) -> None:
            self.rule = rule
            self.seen: tuple[bool, float | None] | None = None

        def detect(self, invariant: Any, view: Any) -> Any:
            if invariant.text != self.rule:
                return Abstain(reason="not the case's constraint")
            lexical = LexicalDetector().detect(invariant, view)
            clean = isinstance(lexical, Abstain) and not lexical.forbid & CERTIFYING_KINDS
            clean = clean and lexical.evidence.get("closed_world", "clean") == "clean"
            passing = [
                s for p in view.passages for s in split_sentences(p.text)
                if span_defect(invariant.text, s) is None
            ]
            score = float((encode([invariant.text]) @ encode(passing).T).max()) if passing else None
            self.seen = (clean, score)
            return Abstain(reason="probe")

    rows = []
    for case in cases:
        rule = case.get("invariant") or case["constraint"]
        probe = Probe(rule)
        if "summary" in case:
            cg.Guard([rule], detectors=[LexicalDetector(), probe]).check(case["summary"])
        else:
            guard = cg.Guard([rule, *case["others"]], detectors=[LexicalDetector(), probe], policy=cg.Policy.WARN)
            guard.compact(copy.deepcopy(case["before"]), compactor=_replay(case["after"]))
        if probe.seen is not None:
            truth = case.get("label") or case["ground_truth"]
            rows.append((truth in DAMAGED, *probe.seen))
    return rows


def _replay(after: Any) -> Any:
    return lambda _context: copy.deepcopy(after)


def report(name: str, rows: Sequence[tuple[bool, bool, float | None]]) -> list[str]:
    lines = [
        (f"{name}: {len(rows)} cases left undecided by the lexical tier, {sum(r[1] for r in rows)} "
        f"with a clean reading, {sum(r[2] is not None for r in rows)} with a sentence passing the span checks"),
    ]
    for threshold in THRESHOLDS:
        cells = []
        for label, need_clean in (("clean reading", True), ("any abstention", False)):
            chosen = [r for r in rows if r[2] is not None and r[2] >= threshold and (r[1] or not need_clean)]
            cells.append(f"{label}: intact {sum(not r[0] for r in chosen)}, damaged {sum(r[0] for r in chosen)}")
        lines.append(f"  cosine >= {threshold}: " + "; ".join(cells))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=list(DEFAULT_FILES))
    args = parser.parse_args(argv)
    for path in args.files:
        cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        print("\n".join(report(path.name, probe_rows(cases))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
