"""Measure how often a judge agrees with the labelled subset, per ground-truth kind.

`python evidence/judge/agreement.py mypkg.judges:my_judge` imports `my_judge`, a JudgeFn
(prompt str in, raw reply str out), runs it as the only detector over judge/subset.jsonl
through `Guard.compact` (WARN policy, so nothing is repaired), and prints agreement.
See evidence/README.md, "Judge calibration".
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

SUBSET = Path(__file__).resolve().parent / "subset.jsonl"
KINDS = ("preserved", "paraphrased", "weakened", "mutated", "contradicted", "dropped")
DAMAGED = frozenset({"weakened", "mutated", "contradicted", "dropped"})
CERTIFYING = frozenset({"preserved", "paraphrased"})


def load_judge(spec: str) -> Callable[[str], str]:
    """Return the callable named by `module:attribute`; raise ValueError or TypeError with the fix."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"expected MODULE:FUNCTION (e.g. mypkg.judges:my_judge), got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import {module_name!r} ({exc}); is it on PYTHONPATH?") from exc
    judge = getattr(module, attribute, None)
    if not callable(judge):
        raise TypeError(f"{spec} is not a callable; point at a function taking the prompt str")
    return judge  # type: ignore[no-any-return]


def judge_verdict(case: dict[str, Any], judge: Callable[[str], str]) -> str:
    """Run `judge` as the only layer on one case and return the case constraint's kind."""
    from compaction_guard import Guard, Policy
    from compaction_guard.detectors.judge import JudgeDetector

    guard = Guard([case["constraint"], *case["others"]], policy=Policy.WARN, detectors=[JudgeDetector(judge)])
    after = case["after"]
    guard.compact(copy.deepcopy(case["before"]), compactor=lambda _: copy.deepcopy(after))
    invariant = next(inv for inv in guard.invariants() if inv.text == case["constraint"])
    report = guard.last_report
    if report is None:
        raise RuntimeError("Guard.compact left no last_report")
    finding = next(f for f in report.findings if f.invariant_id == invariant.id)
    return str(finding.kind.value)


def agreement(judge: Callable[[str], str], cases: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Return agreement per ground-truth kind, the confusion counts and any false certifications.

    A judge may not issue `preserved`, so preserved cases count as agreed when the judge
    leaves them uncertified-but-undamaged (`paraphrased` or `unverifiable`).
    """
    per_kind: dict[str, dict[str, int]] = {kind: {"agreed": 0, "support": 0} for kind in KINDS}
    confusion: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    false_certified: list[str] = []
    for case in cases:
        truth = case["ground_truth"]
        verdict = judge_verdict(case, judge)
        confusion[truth][verdict] += 1
        per_kind[truth]["support"] += 1
        if verdict == truth or (truth == "preserved" and verdict in {"paraphrased", "unverifiable"}):
            per_kind[truth]["agreed"] += 1
        if truth in DAMAGED and verdict in CERTIFYING:
            false_certified.append(case["id"])
    return {
        "cases": len(cases),
        "per_kind": per_kind,
        "confusion": {kind: dict(sorted(counts.items())) for kind, counts in confusion.items()},
        "false_certified": false_certified,
    }


def format_agreement(result: dict[str, Any]) -> str:
    lines = [f"judge agreement on {result['cases']} labelled cases", f"{'kind':<14}agreed/support"]
    for kind, cell in result["per_kind"].items():
        verdicts = ", ".join(f"{k} {n}" for k, n in result["confusion"][kind].items())
        lines.append(f"{kind:<14}{cell['agreed']}/{cell['support']}    ({verdicts})")
    lines.append("(a judge never certifies preserved: that row counts cases it did not call damaged)")
    certified = result["false_certified"]
    lines.append(f"false certifications: {len(certified)}" + (f" ({', '.join(certified)})" if certified else ""))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("judge", help="MODULE:FUNCTION naming a JudgeFn (prompt str -> reply str)")
    parser.add_argument("--subset", type=Path, default=SUBSET, help="labelled cases, one corpus line each")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    try:
        judge = load_judge(args.judge)
    except (ValueError, TypeError) as exc:
        parser.error(str(exc))
    cases = [json.loads(line) for line in args.subset.read_text(encoding="ascii").splitlines() if line]
    result = agreement(judge, cases)
    print(json.dumps(result, indent=2, sort_keys=True) if args.json else format_agreement(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
