"""`make bench`: every benchmark of the project, one after another.

Prints each table and writes them to bench/results.md, which docs/benchmarks.md includes.
Usage: python bench/run.py [guard check instructions group_trim receipt]
With names, only those benchmarks run and only their sections of bench/results.md are
replaced; the other sections stay as their own last run wrote them. Each section names
the machine's load when it started, because the project's machine is shared.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.md"
BENCHES = [
    "bench_guard.py",
    "bench_check.py",
    "bench_instructions.py",
    "bench_group_trim.py",
    "bench_receipt.py",
]
_SECTION = re.compile(r"^== (bench_\w+\.py)", re.MULTILINE)


def _short(name: str) -> str:
    return name.removeprefix("bench_").removesuffix(".py")


def _processor() -> str:
    """Return the CPU's model name, so sections run on different machines tell apart."""
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return platform.processor() or "an unnamed CPU"
    names = re.findall(r"^model name\s*:\s*(.+)$", info, re.MULTILINE)
    return names[0].strip() if names else platform.processor() or "an unnamed CPU"


def _load() -> str:
    cores = os.cpu_count() or 1
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return f"load average unknown on {cores} cores of {_processor()}"
    return (
        f"load average {one:.1f} (5 min {five:.1f}) on {cores} cores of {_processor()}"
        " at the start"
    )


def _run(name: str) -> str:
    """Run one benchmark, print its output and return its section of results.md."""
    path = HERE / name
    if not path.exists():
        print(f"== {name}: not present")
        return f"== {name}: not present"
    print(f"== {name}", flush=True)
    load = _load()
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                            check=False)
    print(result.stdout, end="")
    print(result.stderr, end="", file=sys.stderr)
    status = "" if result.returncode == 0 else f" (exited {result.returncode})"
    return f"== {name}{status}\n({load}; the machine is shared)\n{result.stdout.rstrip()}"


def _sections(text: str) -> dict[str, str]:
    """Return each benchmark's section of an existing results.md by file name."""
    body = text.strip().removeprefix("```").removesuffix("```").strip("\n")
    starts = [(m.start(), m.group(1)) for m in _SECTION.finditer(body)]
    ends = [start for start, _ in starts[1:]] + [len(body)]
    return {name: body[start:end].rstrip() for (start, name), end in zip(starts, ends, strict=True)}


def main() -> None:
    known = {_short(name) for name in BENCHES}
    only = set(sys.argv[1:])
    if only - known:
        sys.exit(f"unknown benchmark {sorted(only - known)}; choose from {sorted(known)}")
    old = _sections(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    parts = [f"Python {platform.python_version()} on {platform.machine()}"]
    for name in BENCHES:
        if not only or _short(name) in only:
            parts.append(_run(name))
        elif name in old:
            parts.append(old[name])
    RESULTS.write_text("```\n" + "\n\n".join(parts) + "\n```\n", encoding="utf-8")
    print("wrote bench/results.md; run `python docs/readme.py` to refresh docs/benchmarks.md")


if __name__ == "__main__":
    main()
