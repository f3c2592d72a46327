"""Benchmark compaction_guard.receipt: seal, verify and verify_chain, and arcaeon-compact beside it.

Run: python bench/bench_receipt.py   (or call main()).
Items are strings of about 200 bytes; the compactor keeps the newest 10% and adds one
summary, so about 90% of the items land in the drop manifest. Peak memory is measured with
tracemalloc in a subprocess (allocations made by the receipt calls, inputs excluded).
arcaeon-compact is installed into bench/.cache/venv-arcaeon and timed in a subprocess of that
virtualenv, running this file in --worker mode (stdlib + arcaeon_compact only, its documented
API: CompactionReceipt.open / record_kept / seal and verify_receipt).
"""

from __future__ import annotations

import gc
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = (10, 1_000, 100_000, 1_000_000)
CHAIN_ROWS = (10_000, 100_000)
SIDE_BY_SIDE = 100_000
CACHE = Path(__file__).resolve().parent / ".cache"
BASELINE = "arcaeon-compact"
PHASES = ("open", "kept", "seal", "self", "content")


def make_items(count: int, seed: int = 11) -> list[str]:
    """`count` distinct strings of about 200 bytes."""
    rnd = random.Random(seed)
    words = ["refund", "window", "order", "ticket", "account", "region", "status", "owner"]
    text = " ".join(rnd.choice(words) for _ in range(200))
    return [f"{index:09d} {text[index % 400 : index % 400 + 190]}" for index in range(count)]


def compaction(count: int) -> tuple[list[str], list[str]]:
    pre = make_items(count)
    keep = max(1, count // 10)
    return pre, [*pre[-keep:], "summary: the earlier turns covered refunds and tickets. " * 3]


def _samples(count: int) -> int:
    return 3 if count >= 1_000_000 else 5


def _repeat(count: int) -> int:
    """Calls per sample, so that small sizes are measurable."""
    return max(1, 2_000 // count)


def time_phases(api: object, count: int, directory: Path) -> dict[str, float]:
    """Median seconds per call of each phase, for the given receipt API (a module)."""
    pre, post = compaction(count)
    receipt_type = api.CompactionReceipt  # type: ignore[attr-defined]
    verify = api.verify_receipt  # type: ignore[attr-defined]
    results: dict[str, list[float]] = {phase: [] for phase in PHASES}
    repeat = _repeat(count)
    for sample in range(_samples(count)):
        totals = dict.fromkeys(PHASES, 0.0)
        for call in range(repeat):
            path = directory / f"r-{count}-{sample}-{call}.jsonl"
            gc.collect()
            t0 = time.perf_counter()
            receipt = receipt_type.open(pre)
            t1 = time.perf_counter()
            receipt.record_kept(post)
            t2 = time.perf_counter()
            row = receipt.seal(str(path), compactor="bench", method="keep-newest")
            t3 = time.perf_counter()
            self_check = verify(row)
            t4 = time.perf_counter()
            content = verify(row, pre, post)
            t5 = time.perf_counter()
            assert self_check["ok"], self_check
            assert content["ok"], content
            for phase, seconds in zip(PHASES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
                totals[phase] += seconds
            del receipt, row
            path.unlink()
        for phase in PHASES:
            results[phase].append(totals[phase] / repeat)
    return {phase: statistics.median(values) for phase, values in results.items()}


def memory_of_seal_and_verify(count: int) -> dict[str, float]:
    """Peak traced bytes of open+record_kept+seal, and of both verifications; row size."""
    import tracemalloc

    from compaction_guard import receipt as api

    pre, post = compaction(count)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "r.jsonl"
        gc.collect()
        tracemalloc.start()
        sealed = api.CompactionReceipt.open(pre)
        sealed.record_kept(post)
        row = sealed.seal(path, compactor="bench", method="keep-newest")
        seal_peak = tracemalloc.get_traced_memory()[1]
        del sealed
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        assert api.verify_receipt(row)["ok"]
        assert api.verify_receipt(row, pre, post)["ok"]
        verify_peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        row_bytes = path.stat().st_size
    return {"seal_peak": seal_peak, "verify_peak": verify_peak, "row_bytes": row_bytes}


def build_chain(path: Path, rows: int) -> None:
    """A log of `rows` small receipts: one sealed for real, then re-chained without fsync.

    Sealing 100,000 rows one by one costs a lock and an fsync each; the bench measures
    verification, so the rows are linked here with the same private encoders seal uses.
    """
    from compaction_guard.receipt import CompactionReceipt, _digests, _row
    from compaction_guard.receipt import _canonical_json as _jcs

    sealed = CompactionReceipt.open(make_items(4))
    sealed.record_kept([*make_items(4)[2:], "summary"])
    first = sealed.seal(path, compactor="bench", method="keep-newest")
    body = {k: v for k, v in first.items() if k not in _row.CHAIN_FIELDS}
    members = {key: [_jcs.dumps(value)] for key, value in body.items()}
    prev, ts = first["chain"], first["ts"]
    with path.open("ab") as handle:
        for seq in range(1, rows):
            row_members = dict(members)
            row_members.update(seq=[_jcs.dumps(seq)], prev=[_jcs.dumps(prev)], ts=[_jcs.dumps(ts)])
            prev = _digests.chain_digest(row_members)
            row_members["chain"] = [_jcs.dumps(prev)]
            handle.write(b"".join(_jcs.object_chunks(row_members)) + b"\n")


def chain_numbers(rows: int, directory: Path) -> dict[str, float]:
    from compaction_guard.receipt import verify_chain

    path = directory / f"chain-{rows}.jsonl"
    build_chain(path, rows)
    times = []
    for _ in range(3):
        gc.collect()
        start = time.perf_counter()
        report = verify_chain(path)
        times.append(time.perf_counter() - start)
        assert report.ok, report.problems
        assert report.rows == rows
    memory = json.loads(_run_self(sys.executable, "--chain-memory", str(path)))
    return {"median": statistics.median(times), "peak": memory["peak"], "bytes": path.stat().st_size}


def chain_memory(path: str) -> dict[str, float]:
    import tracemalloc

    from compaction_guard.receipt import verify_chain

    tracemalloc.start()
    assert verify_chain(path).ok
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"peak": peak}


def _run_self(python: str, *args: str) -> str:
    done = subprocess.run([python, __file__, *args], capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def arcaeon_numbers(count: int) -> dict[str, float] | None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _venvs import venv_python

    python = venv_python("arcaeon", BASELINE)
    if python is None:
        return None
    try:
        output = _run_self(str(python), "--worker-arcaeon", str(count))
    except subprocess.CalledProcessError as exc:
        print(f"arcaeon worker failed: {exc.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    numbers: dict[str, float] = json.loads(output)
    return numbers


def _worker_arcaeon(count: int) -> None:
    import arcaeon_compact  # type: ignore[import-not-found]  # only in bench/.cache/venv-arcaeon

    with tempfile.TemporaryDirectory() as directory:
        print(json.dumps(time_phases(arcaeon_compact, count, Path(directory))))


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:10.2f}"


def main() -> None:
    from compaction_guard import receipt as api

    print("receipt bench: items of ~200 bytes; the compactor keeps the newest 10% + 1 summary")
    print("median ms per call (open = CompactionReceipt.open, kept = record_kept, seal incl. lock+fsync,")
    print("self = verify_receipt(row), content = verify_receipt(row, pre, post)); peak = tracemalloc")
    header = f"{'items':>9} {'open':>10} {'kept':>10} {'seal':>10} {'self':>10} {'content':>10}"
    print(header + f" {'row MB':>8} {'seal peak MB':>13} {'x row':>6} {'verify peak MB':>15} {'x row':>6}")
    ours: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as directory:
        for count in SIZES:
            ours[count] = time_phases(api, count, Path(directory))
            memory = json.loads(_run_self(sys.executable, "--memory", str(count)))
            row_mb = memory["row_bytes"] / 1e6
            line = f"{count:>9}" + "".join(f" {_ms(ours[count][phase])}" for phase in PHASES)
            print(
                line + f" {row_mb:8.2f} {memory['seal_peak'] / 1e6:13.2f}"
                f" {memory['seal_peak'] / memory['row_bytes']:6.2f}"
                f" {memory['verify_peak'] / 1e6:15.2f} {memory['verify_peak'] / memory['row_bytes']:6.2f}"
            )
            sys.stdout.flush()
        print("\nmicroseconds per item (flat = linear):")
        for count in SIZES[1:]:
            per = "  ".join(f"{phase} {ours[count][phase] / count * 1e6:6.3f}" for phase in PHASES)
            print(f"{count:>9}  {per}")
        big = ours[SIZES[-1]]
        sealed, verified = big["open"] + big["kept"] + big["seal"], big["self"] + big["content"]
        print(f"\n{SIZES[-1]:,} items: sealed (open+kept+seal) in {sealed:.2f} s, "
              f"verified (self+content) in {verified:.2f} s; goal < 5 s each")
        print("\nverify_chain (streaming):")
        for rows in CHAIN_ROWS:
            numbers = chain_numbers(rows, Path(directory))
            print(f"{rows:>9} rows  {numbers['bytes'] / 1e6:7.1f} MB  median {numbers['median']:.2f} s"
                  f"  ({numbers['median'] / rows * 1e6:.1f} us/row)  peak {numbers['peak'] / 1e6:.2f} MB")
    print(f"\nside by side at {SIDE_BY_SIDE:,} items with {BASELINE} (same items, same run):")
    theirs = arcaeon_numbers(SIDE_BY_SIDE)
    if theirs is None:
        print(f"{BASELINE} could not be installed or run; ours alone is shown above")
        return
    mine = ours[SIDE_BY_SIDE]
    print(f"{'phase':>9} {'arcaeon ms':>11} {'ours ms':>10} {'speed-up':>9}")
    for phase in PHASES:
        ratio = theirs[phase] / mine[phase] if mine[phase] else float("inf")
        print(f"{phase:>9} {_ms(theirs[phase]):>11} {_ms(mine[phase])} {ratio:8.1f}x")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker-arcaeon":
        _worker_arcaeon(int(sys.argv[2]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--memory":
        print(json.dumps(memory_of_seal_and_verify(int(sys.argv[2]))))
    elif len(sys.argv) > 1 and sys.argv[1] == "--chain-memory":
        print(json.dumps(chain_memory(sys.argv[2])))
    else:
        main()
