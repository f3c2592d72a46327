"""Lexical tier speed: 50 constraints against a 20 KB summary and against 2 MB of kept text.

Prints median milliseconds for detecting every constraint against one fresh view (the
work `Guard.check()` and `Guard.compact()` hand to the lexical layer), and how that
time grows with the summary length. The goals (issue 9): 50 constraints against 20 KB
in at most 20 ms, 1 constraint against 2 MB in at most 150 ms, with every statement on
each constraint's topic read. Run: `python bench/bench_check.py`, or
`python bench/run.py check` to rewrite its section of bench/results.md.
"""

from __future__ import annotations

import random
import statistics
import time

from compaction_guard.detectors.lexical import LexicalDetector
from compaction_guard.invariant import Invariant, invariant_id
from compaction_guard.taxonomy import Site
from compaction_guard.view import Passage, SummaryView

SEED = 20260301
RUNS = 15

# Filler is built from word pools large enough that almost no sentence repeats within a
# view or across views (a real 20 KB summary does not repeat its sentences), with the
# figures, paths and ticket numbers progress notes carry; caches keyed by sentence text
# or by token must not flatter the measurement.
_THINGS = [
    "billing service", "staging cluster", "ETL job", "web client", "reporting warehouse",
    "support bot", "audit table", "deploy pipeline", "scraper", "auth service",
    "export bucket", "database migration", "log output", "retry policy", "customer export",
    "request router", "reviewers' checklist", "search index", "session cache", "CI runner",
    "feature flag service", "invoice generator", "metrics dashboard", "mobile app",
    "notification worker", "payment webhook", "rate limiter", "schema registry",
    "token refresher", "upload handler", "queue consumer", "onboarding flow", "budget review",
    "orders_prod replica", "payments-staging deploy",
]
_QUALIFIERS = [
    "new", "old", "nightly", "internal", "public", "shared", "regional", "legacy",
    "main", "backup", "canary", "primary", "secondary", "weekly", "batch", "streaming",
]
_ACTIONS = [
    "was refactored", "now retries transient errors", "passed the integration suite",
    "needs a schema change", "was rolled back once", "reads from the replica",
    "writes structured logs", "was profiled under load", "moved to the new VPC",
    "processed {n:,} rows", "took {s} seconds end to end", "failed {k} times in CI",
    "returned {code} for {k} requests", "dropped its p95 latency to {ms} ms",
    "was split into {k} smaller jobs", "gained a health check", "lost its stale lock",
    "got a regression test in {path}", "was traced to a race in {path}",
    "now logs request ids", "was pinned to version {ver}", "picked up the fix from PR #{pr}",
    "is blocked on ticket OPS-{pr}", "was reviewed by the platform team",
    "emitted {n:,} warnings during the run", "hit a timeout after {s} seconds",
    "was renamed in the config", "now reads its settings from {path}",
    "was benchmarked at {n:,} requests per second", "needed a manual restart",
]
_TAILS = [
    "after the user asked for it", "according to the ticket", "in the last session",
    "before the review", "with no regressions", "as planned", "behind a feature flag",
    "on the second attempt", "during the overnight run", "while the tests ran",
    "once the cache was warm", "after the dependency bump", "on the staging copy",
    "in the {day} run", "for the {day} report", "before lunch", "late on {day}",
    "after a clean rebuild", "with the debug flag on", "in about {s} seconds",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
_MODULES = ["api", "jobs", "core", "billing", "export", "auth", "search", "ui", "infra"]
_FILES = ["client", "worker", "models", "views", "tasks", "schema", "retry", "cache", "sync"]
_OPENERS = ["", "", "", "Then ", "Later, ", "Meanwhile, ", "Next, ", "Separately, "]


def _filler(rng: random.Random) -> str:
    """One progress-note sentence; pools and figures make repeats rare."""
    subject = f"the {rng.choice(_QUALIFIERS)} {rng.choice(_THINGS)}"
    path = f"{rng.choice(_MODULES)}/{rng.choice(_FILES)}_{rng.randint(1, 99)}.py"
    figures = {
        "n": rng.randint(10, 90_000),
        "s": rng.randint(2, 900),
        "k": rng.randint(2, 40),
        "code": rng.choice([400, 404, 409, 429, 500, 503]),
        "ms": rng.randint(20, 2000),
        "path": path,
        "ver": f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 20)}",
        "pr": rng.randint(100, 9999),
        "day": rng.choice(_DAYS),
    }
    action = rng.choice(_ACTIONS).format(**figures)
    tail = rng.choice(_TAILS).format(**figures)
    opener = rng.choice(_OPENERS)
    text = f"{opener}{subject} {action} {tail}."
    return text[0].upper() + text[1:]


_RULES = [
    "Never write to the {name} database.",
    "The budget cap for {name} is ${n}.",
    "Keep requests to {name} under {n} per minute.",
    "Only deploy {name} between 09:00 and 17:00 UTC on weekdays.",
    "Do not delete rows from {name}; flag them instead.",
    "Retry failed calls to {name} at most {k} times with exponential backoff.",
    "Store exports from {name} only in s3://acme-{name}/exports/.",
    "All changes to {name} require sign-off from two reviewers.",
    "Delete raw logs of {name} after {k}0 days.",
    "Never include customer email addresses in {name} log output.",
]


def constraints(count: int, rng: random.Random) -> list[Invariant]:
    found = []
    for number in range(count):
        rule = _RULES[number % len(_RULES)]
        text = rule.format(name=f"svc_{number:02d}", n=rng.randint(50, 5000), k=rng.randint(2, 9))
        found.append(Invariant(id=invariant_id(text), text=text))
    return found


def prose(size: int, rng: random.Random, invariants: list[Invariant], rate: float = 0.05) -> str:
    """Summary-like text of about `size` characters; a share `rate` of its sentences
    restate a constraint (a third of those with one digit changed)."""
    sentences: list[str] = []
    length = 0
    while length < size:
        if rng.random() < rate:
            text = rng.choice(invariants).text
            if rng.random() < 0.3:
                text = text.replace("0", "5", 1)
        else:
            text = _filler(rng)
        sentences.append(text)
        length += len(text) + 1
    return " ".join(sentences)


def summary_view(size: int, rng: random.Random, invariants: list[Invariant]) -> SummaryView:
    return SummaryView.from_summary(prose(size, rng, invariants))


def retained_view(messages: int, rng: random.Random, invariants: list[Invariant]) -> SummaryView:
    """A kept transcript: the first message states every constraint; later messages are
    paragraphs of about 1 KB that restate one now and then (about 2 copies each)."""
    first = Passage(text="\n".join(i.text for i in invariants), site=Site.RETAINED, message=0)
    later = (
        Passage(
            text="\n\n".join(prose(330, rng, invariants, rate=0.003) for _ in range(3)),
            site=Site.RETAINED,
            message=number,
        )
        for number in range(1, messages)
    )
    return SummaryView(passages=(first, *later))


def median_ms(
    detector: LexicalDetector, invariants: list[Invariant], views: list[SummaryView]
) -> float:
    return timed(detector, invariants, views)[0]


def timed(
    detector: LexicalDetector, invariants: list[Invariant], views: list[SummaryView]
) -> tuple[float, float, float]:
    """Return the median wall and CPU milliseconds for every constraint against one view,
    and the CPU milliseconds of the slowest view.

    On a shared machine the wall time also counts the time other jobs held the cores; the
    CPU time of this process is the work itself. The slowest view is where a pause of the
    cyclic garbage collector shows, which a median hides.
    """
    walls, cpus = [], []
    for view in views:
        wall, cpu = time.perf_counter(), time.process_time()
        for invariant in invariants:
            detector.detect(invariant, view)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus), max(cpus)


def _row(label: str, times: tuple[float, float, float], goal: str = "") -> str:
    wall, cpu, _ = times
    return f"  {label:<27s}{wall:8.2f} ms wall {cpu:8.2f} ms cpu{goal}"


def main() -> None:
    rng = random.Random(SEED)
    invariants = constraints(50, rng)
    detector = LexicalDetector()
    # Warm the per-constraint cache once, as a guard does on its first compaction.
    median_ms(detector, invariants, [summary_view(2_000, rng, invariants)])

    print("lexical tier, 50 constraints, median of", RUNS, "fresh views")
    views = [summary_view(20_000, rng, invariants) for _ in range(RUNS)]
    times = timed(detector, invariants, views)
    print(_row("20 KB summary:", times, "   (goal <= 20 ms)"))
    print(f"  {'slowest of the ' + str(RUNS) + ' views:':<27s}{times[2]:26.2f} ms cpu")
    big = [retained_view(2_000, rng, invariants) for _ in range(5)]
    size = sum(len(p.text) for p in big[0].passages)
    print(_row(f"{size / 1e6:.1f} MB retained, 2,000 msgs:", timed(detector, invariants, big)))
    print(_row("same, 5 constraints:", timed(detector, invariants[:5], big)))
    fresh = [retained_view(2_000, rng, invariants) for _ in range(5)]
    one = timed(detector, invariants[:1], fresh)
    print(_row("1 constraint, fresh views:", one, "   (goal <= 150 ms)"))

    print("growth with summary length (50 constraints):")
    previous = None
    for kilobytes in (5, 20, 80, 320, 1280):
        views = [summary_view(kilobytes * 1000, rng, invariants) for _ in range(5)]
        wall, cpu, _ = timed(detector, invariants, views)
        ratio = "" if previous is None else f"  x{cpu / previous:.2f} cpu for x4 text"
        print(f"  {kilobytes:5d} KB: {wall:8.2f} ms wall {cpu:8.2f} ms cpu{ratio}")
        previous = cpu


if __name__ == "__main__":
    main()
