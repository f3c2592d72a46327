"""Benchmark group_trim.compact against ctx-compact 0.1.0 on the same generated input.

Run: python bench/bench_group_trim.py   (or call main()).
ctx-compact is installed into bench/.cache/venv-ctx-compact (bench/_venvs.py) and timed in
a subprocess of that virtualenv; this file runs there too, in --worker mode, which needs only
the standard library and ctx_compact.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

SIZES = (100, 1_000, 10_000, 100_000)
SAMPLES = 7
CALLS_PER_SAMPLE = 30_000  # small sizes repeat the call so one sample covers 30,000 messages
BASELINE = "ctx-compact==0.1.0"

Message = dict[str, Any]
_WORDS = ["alpha", "beta", "gamma", "delta", "order", "ticket", "refund", "account", "region"]


def make_messages(count: int, seed: int = 7) -> list[Message]:
    """A chat transcript with tool groups (1-2 parallel calls each), about 300 bytes a message."""
    rnd = random.Random(seed)
    messages: list[Message] = [{"role": "system", "content": "You are a support agent with tools."}]

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
            {
                "role": "tool",
                "tool_call_id": call["id"],
                "content": json.dumps({"r": words(25, 45)}),
            }
            for call in calls
        )
        messages.append({"role": "assistant", "content": f"Answer {turn}: {words(30, 50)}."})
    del messages[count:]
    # The cut may split a tool group: end on a plain message instead.
    while messages[-1]["role"] == "tool" or messages[-1].get("tool_calls"):
        messages.pop()
    return messages


Sample = tuple[float, int]  # seconds per call, messages kept


def sample(compact: Callable[..., Any], messages: list[Message], budget: int, loops: int) -> Sample:
    """Seconds per call over `loops` calls, and how many messages the last call kept."""
    kept = 0
    start = time.perf_counter()
    for _ in range(loops):
        kept = len(compact(messages, max_tokens=budget, keep_head=1, keep_tail=4).messages)
    return (time.perf_counter() - start) / loops, kept


def worker() -> None:
    """Answer one timing request per stdin line with ctx_compact: {size, budget, loops}."""
    from ctx_compact import compact  # type: ignore[import-not-found]

    inputs: dict[int, list[Message]] = {}
    for line in sys.stdin:
        request = json.loads(line)
        messages = inputs.setdefault(request["size"], make_messages(request["size"]))
        result = sample(compact, messages, request["budget"], request["loops"])
        print(json.dumps(result), flush=True)


class Baseline:
    """ctx-compact timed in its own virtualenv, one sample per request."""

    def __init__(self) -> None:
        from _venvs import venv_python  # bench/_venvs.py: the shared throwaway-venv helper

        self.process: subprocess.Popen[str] | None = None
        python = venv_python("ctx-compact", BASELINE)
        if python is None:
            print(f"could not install {BASELINE} into bench/.cache/venv-ctx-compact")
            return
        self.process = subprocess.Popen(
            [str(python), __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def sample(self, size: int, budget: int, loops: int) -> Sample | None:
        if self.process is None or self.process.stdin is None or self.process.stdout is None:
            return None
        request = {"size": size, "budget": budget, "loops": loops}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            print(f"{BASELINE} worker stopped; only our numbers are shown")
            self.close()
            return None
        seconds, kept = json.loads(line)
        return seconds, kept

    def close(self) -> None:
        if self.process is not None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            self.process.wait()
            self.process = None


def measure() -> dict[int, tuple[Sample, Sample | None]]:
    """Median (ours, the baseline's) per size, taking samples of the two in turn.

    Alternating puts load from elsewhere on the machine on both sides alike.
    """
    from compaction_guard.group_trim import compact, estimate_tokens

    baseline = Baseline()
    results = {}
    try:
        for size in SIZES:
            messages = make_messages(size)
            # Budget: half the estimated total, so about half the middle groups are dropped.
            budget = sum(map(estimate_tokens, messages)) // 2
            loops = max(1, CALLS_PER_SAMPLE // size)
            ours: list[Sample] = []
            theirs: list[Sample | None] = []
            sample(compact, messages, budget, 1)  # warm-up
            for _ in range(SAMPLES):
                ours.append(sample(compact, messages, budget, loops))
                theirs.append(baseline.sample(size, budget, loops))
            their_samples = [item for item in theirs if item is not None]
            their_median = _median(their_samples) if len(their_samples) == SAMPLES else None
            results[size] = (_median(ours), their_median)
    finally:
        baseline.close()
    return results


def _median(samples: list[Sample]) -> Sample:
    return statistics.median(seconds for seconds, _ in samples), samples[-1][1]


def _growth(seconds: float, previous: float | None) -> str:
    return "" if previous is None else f"x{seconds / previous:.1f}"


def main() -> None:
    results = measure()
    average = statistics.mean(
        len(json.dumps(m, separators=(",", ":"))) for m in make_messages(SIZES[-1])
    )
    print(f"group_trim.compact vs {BASELINE}: median of {SAMPLES} samples each, alternating;")
    print(f"chat transcript with tool groups, {average:.0f} bytes a message, budget = half")
    print("the estimated total; growth = time / time at the previous size\n")
    have_baseline = all(theirs is not None for _, theirs in results.values())
    header = f"{'messages':>9} {'ours ms':>10} {'growth':>7}"
    if have_baseline:
        header += f" {'ctx-compact ms':>15} {'growth':>7} {'speedup':>8} {'same kept':>10}"
    print(header)
    last_ours: float | None = None
    last_theirs: float | None = None
    for size, ((ours, kept), theirs) in results.items():
        line = f"{size:>9,} {ours * 1e3:>10.3f} {_growth(ours, last_ours):>7}"
        if theirs is not None:
            same = "yes" if theirs[1] == kept else "NO"
            line += f" {theirs[0] * 1e3:>15.3f} {_growth(theirs[0], last_theirs):>7}"
            line += f" {theirs[0] / ours:>7.2f}x {same:>10}"
            last_theirs = theirs[0]
        print(line)
        last_ours = ours
    if not have_baseline:
        print(f"\n{BASELINE} unavailable: only our numbers are shown")


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        worker()
    else:
        main()
