"""The `compaction-guard` command (also `python -m compaction_guard`).

Each subcommand is an `_add_<name>` that registers its arguments and a `_run_<name>` that
returns the exit code; a new subcommand adds one pair and one entry in `SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from compaction_guard import __version__
from compaction_guard.errors import ReceiptKeyError, RegistryError
from compaction_guard.guard import Guard
from compaction_guard.integrations.anthropic import session_start_hook_output
from compaction_guard.receipt import ChainReport, ReceiptHead, verify_chain
from compaction_guard.taxonomy import GATING_KINDS, Kind, Severity

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from compaction_guard.report import CompactionReport, Finding

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

EXIT_OK = 0
EXIT_PROBLEMS = 1  # the check failed: a defect in a log, a finding that gates
EXIT_USAGE = 2  # the command could not run as asked (argparse uses 2 as well)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 only when the command succeeded)."""
    args = build_parser().parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    return run(args)


def build_parser() -> argparse.ArgumentParser:
    """Build the parser with every subcommand in SUBCOMMANDS."""
    parser = argparse.ArgumentParser(
        prog="compaction-guard",
        description="Keep registered constraints in context across compaction; check receipts.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def _add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of text",
    )


def _print_json(data: dict[str, object]) -> None:
    print(json.dumps(data, sort_keys=True, ensure_ascii=False))


def _add_verify(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="verify a receipts log; exit 0 only when every row verifies",
        description=(
            "Verify every row and link of a receipts log. Without --head the result is "
            "unanchored: rows cut from the end cannot be seen from the file alone."
        ),
    )
    parser.add_argument("log", help="the receipts .jsonl file")
    parser.add_argument(
        "--head",
        type=_parse_head,
        help="a pinned head line from `compaction-guard head` to check truncation and forks",
    )
    _add_key_env(parser)
    _add_json(parser)
    parser.set_defaults(run=_run_verify)


def _add_key_env(parser: argparse.ArgumentParser) -> None:
    # The key is named by a variable, never passed on the command line (where `ps` shows it).
    parser.add_argument(
        "--key-env",
        metavar="NAME",
        help="the environment variable holding the key of a keyed (HMAC-SHA256) log",
    )


def _run_verify(args: argparse.Namespace) -> int:
    report = _verify(args.log, args.head, key_env=args.key_env, as_json=args.json)
    if report is None:
        return EXIT_PROBLEMS
    if args.json:
        _print_json(_chain_json(args.log, report))
        return EXIT_OK if report.ok else EXIT_PROBLEMS
    if not report.ok:
        _print_problems(args.log, report)
        return EXIT_PROBLEMS
    head = report.head
    print(f"{args.log}: verified {report.rows} row(s), {report.scope}; head {head}")
    if not report.anchored:
        print(f"{args.log}: note: pass --head to detect rows cut from the end")
    return EXIT_OK


def _add_head(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "head",
        help="verify a receipts log and print its head line, to pin outside the file",
    )
    parser.add_argument("log", help="the receipts .jsonl file")
    _add_key_env(parser)
    _add_json(parser)
    parser.set_defaults(run=_run_head)


def _run_head(args: argparse.Namespace) -> int:
    report = _verify(args.log, None, key_env=args.key_env, as_json=args.json)
    if report is None:
        return EXIT_PROBLEMS
    if args.json:
        data = _chain_json(args.log, report)
        _print_json({key: data[key] for key in ("log", "ok", "head", "problems")})
        return EXIT_OK if report.head is not None else EXIT_PROBLEMS
    if report.head is None:
        _print_problems(args.log, report)
        return EXIT_PROBLEMS
    print(report.head)
    return EXIT_OK


def _parse_head(text: str) -> ReceiptHead:
    try:
        return ReceiptHead.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _verify(
    log: str, head: ReceiptHead | None, *, key_env: str | None, as_json: bool
) -> ChainReport | None:
    try:
        return verify_chain(log, expected_head=head, key=key_env)
    except ReceiptKeyError as exc:
        error = str(exc)
    except OSError as exc:
        error = f"cannot read: {exc.strerror or exc}"
    if as_json:
        _print_json({"log": log, "ok": False, "error": error})
    else:
        print(f"{log}: {error}")
    return None


def _chain_json(log: str, report: ChainReport) -> dict[str, object]:
    return {
        "log": log,
        "ok": report.ok,
        "rows": report.rows,
        "scope": report.scope,
        "anchored": report.anchored,
        "head": None if report.head is None else str(report.head),
        "problems": [
            {"line": p.line_number, "defect": p.defect, "message": p.message}
            for p in report.problems
        ],
    }


def _print_problems(log: str, report: ChainReport) -> None:
    for problem in report.problems:
        line = "-" if problem.line_number is None else problem.line_number
        print(f"{log}:{line}: {problem.defect}: {problem.message}")


def _add_hook(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "hook",
        help="agent-harness hooks (Claude Code), printing what the harness reads",
    )
    hooks = parser.add_subparsers(dest="hook", required=True, metavar="HOOK")
    start = hooks.add_parser(
        "session-start",
        help="print Claude Code SessionStart JSON carrying the constraints block",
        description=(
            "Print {'hookSpecificOutput': {'hookEventName': 'SessionStart', "
            "'additionalContext': <block>}} for a SessionStart hook with matcher 'compact'. "
            "The harness is offered the block; that it uses it is not verified."
        ),
    )
    _add_constraints(start)
    start.add_argument(
        "--max-block-tokens",
        type=int,
        default=1024,
        help="the block's token budget (default 1024)",
    )
    start.set_defaults(run=_run_hook_session_start)


def _run_hook_session_start(args: argparse.Namespace) -> int:
    # stdout is the harness's input: every problem goes to stderr.
    guard = _guard_from_file(args.constraints, max_block_tokens=args.max_block_tokens)
    if guard is None:
        return EXIT_PROBLEMS
    print(session_start_hook_output(guard))
    return EXIT_OK


def _add_constraints(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--constraints",
        required=True,
        metavar="FILE",
        help="one constraint per line ('#' comments and blank lines skipped), "
        "or a JSON list of strings",
    )


def _guard_from_file(path: str, **options: Any) -> Guard | None:
    """Return a Guard over the constraints in `path`, or print why not to stderr (None)."""
    try:
        return Guard(_read_constraints(path), **options)
    except OSError as exc:
        print(f"{path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
    except (ValueError, TypeError) as exc:
        what = "cannot register" if isinstance(exc, RegistryError) else "bad constraints file"
        print(f"{path}: {what}: {exc}", file=sys.stderr)
    return None


def _add_check(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "check",
        help="check a summary against a constraints file; exit 1 when any finding gates",
        description=(
            "Classify every constraint against a summary your summariser wrote (mode "
            "'reasserted') and print one verdict per constraint. Exit 0 when no finding "
            "gates, 1 when one does, 2 when the inputs cannot be read. Made for CI: run "
            "your summariser prompt on a fixture transcript and check what it kept."
        ),
    )
    _add_constraints(parser)
    parser.add_argument(
        "summary", nargs="?", default="-", metavar="SUMMARY",
        help="the summary text file, or - (the default) for stdin",
    )
    parser.add_argument(
        "--gate",
        type=_parse_kinds,
        default=tuple(sorted(GATING_KINDS)),
        metavar="KINDS",
        help="comma-separated kinds that fail the check (default: "
        f"{','.join(sorted(GATING_KINDS))})",
    )
    parser.add_argument(
        "--fail-closed",
        action="store_true",
        help="also fail on unverifiable: the installed tiers could not decide",
    )
    _add_json(parser)
    parser.set_defaults(run=_run_check)


def _parse_kinds(text: str) -> tuple[Kind, ...]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    try:
        return tuple(sorted({Kind(name) for name in names}))
    except ValueError:
        known = ", ".join(kind.value for kind in Kind)
        raise argparse.ArgumentTypeError(f"{text!r} names an unknown kind; use {known}") from None


def _run_check(args: argparse.Namespace) -> int:
    # No block is written here, so the block budget does not apply.
    guard = _guard_from_file(
        args.constraints, max_block_tokens=1 << 30, fail_closed=args.fail_closed,
    )
    if guard is None:
        return EXIT_USAGE
    try:
        summary = sys.stdin.read() if args.summary == "-" else _read_text(args.summary)
    except OSError as exc:
        print(f"{args.summary}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except UnicodeDecodeError as exc:
        print(f"{args.summary}: not UTF-8 text ({exc.reason}); pass the summary as text",
              file=sys.stderr)
        return EXIT_USAGE
    report = guard.check(summary)
    gate = set(args.gate) | ({Kind.UNVERIFIABLE} if args.fail_closed else set())
    gating = [f for f in report.findings if f.severity is Severity.BLOCK and f.kind in gate]
    if args.json:
        _print_json(_check_json(args, report, gate, gating))
    else:
        _print_check(args, report, gate, gating)
    return EXIT_PROBLEMS if gating else EXIT_OK


def _check_json(
    args: argparse.Namespace, report: CompactionReport, gate: set[Kind], gating: list[Finding],
) -> dict[str, object]:
    return {
        "version": __version__,
        "constraints": args.constraints,
        "summary": args.summary,
        "gate": sorted(kind.value for kind in gate),
        "ok": not gating,
        "gating": [finding.invariant_id for finding in gating],
        "report": report.to_dict(),
    }


def _print_check(
    args: argparse.Namespace, report: CompactionReport, gate: set[Kind], gating: list[Finding],
) -> None:
    source = "stdin" if args.summary == "-" else args.summary
    print(f"{len(report.findings)} constraint(s) from {args.constraints} against {source}")
    print("\n".join(report.summary().splitlines()[1:]))
    kinds = ",".join(sorted(kind.value for kind in gate))
    if gating:
        named = ", ".join(f"{f.invariant_id} {f.kind.value}" for f in gating)
        print(f"FAIL: {len(gating)} finding(s) gate ({named}); gating kinds: {kinds}")
    else:
        print(f"ok: no finding gates; gating kinds: {kinds}")


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as handle:  # noqa: PTH123 - a plain CLI path
        return handle.read()


def _read_constraints(path: str) -> list[str]:
    """Read one constraint per line (blank and '#' lines skipped) or a JSON list of strings."""
    text = _read_text(path)
    if text.lstrip().startswith("["):
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"starts with '[' but is not valid JSON ({exc})") from None
        if not isinstance(loaded, list) or not all(isinstance(item, str) for item in loaded):
            raise ValueError("a JSON constraints file must hold a list of strings")
        constraints: list[str] = loaded
    else:
        constraints = [
            line.strip() for line in text.splitlines() if line.strip() and not _comment(line)
        ]
    if not constraints:
        raise ValueError("no constraints found; write one per line, or a JSON list of strings")
    return constraints


def _comment(line: str) -> bool:
    return line.lstrip().startswith("#")


SUBCOMMANDS: tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None], ...] = (
    _add_check,
    _add_verify,
    _add_head,
    _add_hook,
)
"""Every subcommand's `_add_<name>`, in help order."""
