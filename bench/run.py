"""`make bench`: every benchmark of the project, one after another."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = ["bench_guard.py", "bench_check.py", "bench_group_trim.py", "bench_receipt.py"]


def main() -> None:
    only = set(sys.argv[1:])
    for name in BENCHES:
        if only and name.removeprefix("bench_").removesuffix(".py") not in only:
            continue
        path = HERE / name
        if not path.exists():
            print(f"== {name}: not present")
            continue
        print(f"== {name}")
        sys.stdout.flush()
        runpy.run_path(str(path), run_name="__main__")
        print()


if __name__ == "__main__":
    main()
