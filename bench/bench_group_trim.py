"""Benchmark group_trim.compact against ctx-compact 0.1.0 on the same generated input.

Run: python bench/bench_group_trim.py   (or call main()).
ctx-compact is installed into bench/.cache/venv-ctx-compact and timed in a subprocess of
that virtualenv; this file is executed there too, in --worker mode, which needs only the
standard library and ctx_compact.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

SIZES = (100, 1_000, 10_000, 100_000)
SAMPLES = 5
CALLS_PER_SAMPLE = 10_000  # messages processed per sample at least, so small sizes are measurable
CACHE = Path(__file__).resolve().parent / ".cache"
VENV = CACHE / "venv-ctx-compact"
BASELINE = "ctx-compact==0.1.0"

_WORDS = "alpha beta gamma delta order ticket refund account region status owner due".split()


def make_messages(count: int, seed: int = 7) -> list[dict]:
    """A chat transcript with tool groups (1-2 parallel calls each), about 300 bytes a message."""
    rnd = random.Random(seed)
    messages: list[dict] = [{"role": "system", "content": "You are a support agent with tools."}]

    def words(low: int, high: int) -> str:
        return " ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(low, high)))

    turn = 0
    while len(messages) < count:
        turn += 1
        messages.append({"role": "user", "content": f"Turn {turn}: {words(30, 50)}?"})
        calls = [
            {
                "id": f"call_{turn}_{k}",
                "type": "function",
                "function": {"name": "lookup", "arguments": json.dumps({"q": words(3, 8)})},
            }
            for k in range(rnd.randint(1, 2))
        ]
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        messages.extend(
            {"role": "tool", "tool_call_id": call["id"], "content": json.dumps({"r": words(25, 45)})}
            for call in calls
        )
        messages.append({"role": "assistant", "content": f"Answer {turn}: {words(30, 50)}."})
    del messages[count:]
    # The cut may split a tool group: end on a plain message instead.
    while messages[-1]["role"] == "tool" or messages[-1].get("tool_calls"):
        messages.pop()
    return messages


def time_compact(compact, messages: list[dict], budget: int) -> tuple[float, int]:
    """Median seconds per call over SAMPLES samples, and how many messages were kept."""
    loops = max(1, CALLS_PER_SAMPLE // len(messages))
    times = []
    kept = 0
    for _ in range(SAMPLES):
        start = time.perf_counter()
        for _ in range(loops):
            kept = len(compact(messages, max_tokens=budget, keep_head=1, keep_tail=4).messages)
        times.append((time.perf_counter() - start) / loops)
    return statistics.median(times), kept


def worker(plan: dict) -> None:
    """Time ctx_compact on the plan's sizes and budgets; print JSON results on stdout."""
    from ctx_compact import compact

    results = {}
    for size, budget in plan["budgets"].items():
        messages = make_messages(int(size))
        results[size] = time_compact(compact, messages, budget)
    print(json.dumps(results))


def ensure_baseline() -> Path | None:
    """Return the baseline venv's python, installing ctx-compact on first use; None on failure."""
    python = VENV / "bin" / "python"
    probe = [str(python), "-c", "import ctx_compact"]
    if python.exists() and subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        return python
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, capture_output=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", BASELINE],
            check=True,
            capture_output=True,
            text=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        print(f"could not install {BASELINE} into {VENV}: {detail.strip()[-300:]}")
        return None
    return python


def run_baseline(budgets: dict[str, int]) -> dict[str, tuple[float, int]] | None:
    python = ensure_baseline()
    if python is None:
        return None
    command = [str(python), __file__, "--worker", json.dumps({"budgets": budgets})]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"{BASELINE} worker failed: {done.stderr.strip()[-300:]}")
        return None
    return {size: tuple(value) for size, value in json.loads(done.stdout).items()}


def _growth(times: list[float], index: int) -> str:
    return "" if index == 0 else f"x{times[index] / times[index - 1]:.1f}"


def main() -> None:
    from compaction_guard.group_trim import compact, estimate_tokens

    inputs = {size: make_messages(size) for size in SIZES}
    # Budget: half of the estimated total, so about half of the middle groups are dropped.
    budgets = {str(size): sum(map(estimate_tokens, msgs)) // 2 for size, msgs in inputs.items()}
    ours = {str(size): time_compact(compact, inputs[size], budgets[str(size)]) for size in SIZES}
    theirs = run_baseline(budgets)

    avg_bytes = statistics.mean(
        len(json.dumps(m, separators=(",", ":"))) for m in inputs[SIZES[-1]]
    )
    print(f"group_trim.compact vs {BASELINE}: median of {SAMPLES} samples, chat transcript")
    print(f"with tool groups, {avg_bytes:.0f} bytes a message, budget = half the estimate\n")
    header = f"{'messages':>9} {'ours ms':>10} {'growth':>7}"
    if theirs is not None:
        header += f" {'ctx-compact ms':>15} {'growth':>7} {'speedup':>8} {'same kept':>10}"
    print(header)
    our_times = [ours[str(size)][0] for size in SIZES]
    their_times = [theirs[str(size)][0] for size in SIZES] if theirs else []
    for index, size in enumerate(SIZES):
        line = f"{size:>9,} {our_times[index] * 1e3:>10.3f} {_growth(our_times, index):>7}"
        if theirs is not None:
            same = "yes" if theirs[str(size)][1] == ours[str(size)][1] else "NO"
            speedup = their_times[index] / our_times[index]
            line += f" {their_times[index] * 1e3:>15.3f} {_growth(their_times, index):>7}"
            line += f" {speedup:>7.2f}x {same:>10}"
        print(line)
    if theirs is None:
        print(f"\n{BASELINE} unavailable: only our numbers are shown")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        worker(json.loads(sys.argv[2]))
    else:
        main()
