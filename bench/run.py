"""`make bench`: every benchmark of the project, one after another.

Prints each table and writes them all to bench/results.md, which docs/benchmarks.md includes.
Usage: python bench/run.py [guard check group_trim receipt]   (a subset does not write)
"""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = ["bench_guard.py", "bench_check.py", "bench_group_trim.py", "bench_receipt.py"]


def main() -> None:
    only = set(sys.argv[1:])
    parts = [f"Python {platform.python_version()} on {platform.machine()}"]
    for name in BENCHES:
        if only and name.removeprefix("bench_").removesuffix(".py") not in only:
            continue
        path = HERE / name
        if not path.exists():
            print(f"== {name}: not present")
            continue
        print(f"== {name}", flush=True)
        result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                                check=False)
        print(result.stdout, end="")
        print(result.stderr, end="", file=sys.stderr)
        status = "" if result.returncode == 0 else f" (exited {result.returncode})"
        parts.append(f"== {name}{status}\n{result.stdout.rstrip()}")
    if not only:
        text = "```\n" + "\n\n".join(parts) + "\n```\n"
        (HERE / "results.md").write_text(text, encoding="utf-8")
        print("wrote bench/results.md")


if __name__ == "__main__":
    main()
