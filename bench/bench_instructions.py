"""Lexical tier work in instructions: the 50-constraint, 20 KB case of bench_check.py, counted.

The project's machine is shared and its CPU time for one workload varies by a third from
one minute to the next, so a change of a few percent cannot be told from noise by a
timer. Valgrind's instruction count of the same run is the same every time: this counts
the instructions of `bench_check`'s views (same seed, same texts) with and without the
detection work and prints the difference per view. It is a measure to compare commits
by, not the goal itself, which is stated in milliseconds (bench_check.py).

Needs `valgrind` on the PATH (Debian: `apt-get install valgrind`); without it the
benchmark says so and counts nothing. Run: `python bench/bench_instructions.py`, or
`python bench/run.py instructions` to rewrite its section of bench/results.md.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys

import bench_check

from compaction_guard.detectors.lexical import LexicalDetector

# Two runs differ only in their views: the first few views' one-time costs (the caches a
# guard fills on its first compactions) cancel out of the difference.
FEW, MANY = 2, 8
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def _workload(views: int, *, detect: bool) -> None:
    """Build `views` fresh 20 KB views as bench_check does and, with `detect`, read them."""
    rng = random.Random(bench_check.SEED)
    invariants = bench_check.constraints(50, rng)
    detector = LexicalDetector()
    bench_check.median_ms(detector, invariants, [bench_check.summary_view(2_000, rng, invariants)])
    built = [bench_check.summary_view(20_000, rng, invariants) for _ in range(views)]
    if detect:
        for view in built:
            for invariant in invariants:
                detector.detect(invariant, view)


def _count(valgrind: str, views: int, *, detect: bool) -> int:
    """Return the instructions valgrind counts for one run of `_workload`."""
    command = [
        valgrind,
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--child",
        str(views),
        "detect" if detect else "build",
    ]
    # One hash seed for every run: set iteration orders, and so the work done, repeat.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    result = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    found = _REFS.search(result.stderr)
    if found is None:
        msg = f"valgrind printed no instruction count:\n{result.stderr[-2000:]}"
        raise RuntimeError(msg)
    return int(found.group(1).replace(",", ""))


def main() -> None:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("valgrind is not on the PATH: no instruction count (apt-get install valgrind)")
        return
    per_view = {}
    for detect in (False, True):
        few = _count(valgrind, FEW, detect=detect)
        many = _count(valgrind, MANY, detect=detect)
        per_view[detect] = (many - few) / (MANY - FEW)
    work = per_view[True] - per_view[False]
    print("lexical tier, 50 constraints, one fresh 20 KB view, counted by valgrind")
    print(f"  detection:  {work / 1e6:8.1f} M instructions per view")
    print(f"  (building the view, not timed by bench_check: {per_view[False] / 1e6:.1f} M)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _workload(int(sys.argv[2]), detect=sys.argv[3] == "detect")
    else:
        main()
