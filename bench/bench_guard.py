"""Guard.compact and assert_present timings, ours vs compaction-guard 0.1.0 in one run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _venvs import venv_python

HERE = Path(__file__).resolve().parent
WORKLOAD = HERE / "guard_workload.py"
# (messages, characters per message): about 4 KB, 200 KB and 2 MB of text.
SIZES = [(20, 200), (200, 1000), (2000, 1000)]
OLD_TIMEOUT_S = 600


def run(python: str, cells: list[str], timeout: float | None = None) -> dict:
    try:
        out = subprocess.run([python, str(WORKLOAD), *cells], capture_output=True, text=True,
                             check=True, timeout=timeout, cwd="/")
    except subprocess.TimeoutExpired:
        return {cell: {"timeout": timeout} for cell in cells}
    except subprocess.CalledProcessError as exc:
        return {cell: {"error": exc.stderr.strip().splitlines()[-1:]} for cell in cells}
    return json.loads(out.stdout)


def fmt(value: dict, key: str) -> str:
    if "timeout" in value:
        return f">{value['timeout']:.0f}s"
    if "error" in value:
        return "error"
    return f"{value[key]:.2f}"


def main() -> None:
    cells = [f"compact:{m}:{s}:{n}" for m, s in SIZES for n in (5, 50)]
    cells += ["tenth:2000:1000:5", "repin:2000:1000:5", "register:800"]
    ours = {c: run(sys.executable, [c])[c] for c in cells}
    old_python = venv_python("cg010", "compaction-guard==0.1.0")
    old = {}
    if old_python is not None:
        for c in cells:
            old[c] = run(str(old_python), [c], timeout=OLD_TIMEOUT_S)[c]
    print("Guard timings, median ms (compactor time excluded); old = compaction-guard 0.1.0")
    print(f"{'cell':24} {'compact':>10} {'old':>10} {'ratio':>7} {'assert':>9} {'old':>9} {'ratio':>7}")
    for c in cells:
        key = "ms" if c.startswith("register") else "compact_ms"
        mine, theirs = ours[c], old.get(c, {"error": "not installed"})
        ratio = (f"{theirs[key] / mine[key]:.1f}x" if key in theirs and mine.get(key) else "-")
        line = f"{c:24} {fmt(mine, key):>10} {fmt(theirs, key):>10} {ratio:>7}"
        if key == "compact_ms":
            a_ratio = (f"{theirs['assert_ms'] / mine['assert_ms']:.1f}x"
                       if "assert_ms" in theirs and mine["assert_ms"] else "-")
            line += f" {fmt(mine, 'assert_ms'):>9} {fmt(theirs, 'assert_ms'):>9} {a_ratio:>7}"
        print(line)
    small, large = ours["compact:200:1000:5"], ours["compact:2000:1000:5"]
    print(f"growth 200 -> 2000 messages (10x text): compact {large['compact_ms'] / small['compact_ms']:.1f}x, "
          f"assert_present {large['assert_ms'] / small['assert_ms']:.1f}x")


if __name__ == "__main__":
    main()
