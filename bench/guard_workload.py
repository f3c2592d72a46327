"""Guard timings on generated contexts; runs under any venv whose `compaction_guard`
has the seed API (ours or the earlier 0.1.0), and prints one JSON object.

Usage: python guard_workload.py CELL [CELL ...]   (cells: see CELLS below)
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from typing import Any

import compaction_guard as cg

WORDS = ["the", "agent", "ran", "a", "query", "against", "the", "warehouse", "and", "summarised", "the", "result", "for", "the", "user", "who", "asked", "about", "revenue", "by", "region", "last", "quarter", "then", "checked", "logs", "and", "reported", "anomalies", "in", "the", "nightly", "batch", "job"]


def constraints(n: int) -> list[str]:
    return [
        f"Rule {i}: the table orders_{i}_prod is read-only and the budget cap "
        f"for task {i} is ${100 + i * 7}."
        for i in range(n)
    ]


def context(messages: int, size: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a data agent."}]
    for i in range(messages - 1):
        words = []
        length = 0
        while length < size:
            word = rng.choice(WORDS)
            words.append(word)
            length += len(word) + 1
        role = "user" if i % 2 == 0 else "assistant"
        out.append({"role": role, "content": f"Turn {i}. " + " ".join(words) + "."})
    return out


def summary_compactor(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [messages[0], {"role": "user", "content": "Summary: the agent analysed revenue "
                          "data; orders_3_prod was queried. Budget discussions happened."},
            *messages[-4:]]


def keep_newest_tenth(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    keep = max(1, len(messages) // 10)
    return [messages[0], {"role": "user", "content": "Summary of older turns."},
            *messages[-keep:]]


def identity(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return messages


def median_ms(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def run_cell(cell: str) -> dict[str, Any]:
    kind, *params = cell.split(":")
    if kind == "register":
        n = int(params[0])
        texts = constraints(n)
        return {"ms": median_ms(lambda: cg.Guard(texts, max_block_tokens=10**7), 3)}
    messages, size, n = int(params[0]), int(params[1]), int(params[2])
    ctx = context(messages, size)
    compactor = {"compact": summary_compactor, "tenth": keep_newest_tenth,
                 "repin": identity}[kind]
    guard = cg.Guard(constraints(n), max_block_tokens=10**7)
    repeat = 5 if messages >= 2000 else 15
    compactor_ms = median_ms(lambda: compactor(ctx), repeat)
    out: dict[str, Any] = {}
    holder: dict[str, Any] = {}

    def do_compact() -> None:
        holder["out"] = guard.compact(ctx, compactor=compactor)

    out["compact_ms"] = max(0.0, median_ms(do_compact, repeat) - compactor_ms)
    result = holder["out"]
    out["assert_ms"] = median_ms(lambda: guard.assert_present(result), repeat * 4)
    out["bytes"] = sum(len(m["content"]) for m in ctx)
    return out


def main() -> None:
    print(json.dumps({cell: run_cell(cell) for cell in sys.argv[1:]}))


if __name__ == "__main__":
    main()
