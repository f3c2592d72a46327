"""The `compaction-guard` command (also `python -m compaction_guard`).

Each subcommand is an `_add_<name>` that registers its arguments and a `_run_<name>` that
returns the exit code; a new subcommand adds one pair and one entry in `SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from compaction_guard.errors import RegistryError
from compaction_guard.guard import Guard
from compaction_guard.integrations.anthropic import session_start_hook_output
from compaction_guard.receipt import ChainReport, ReceiptHead, verify_chain

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

EXIT_OK = 0
EXIT_PROBLEMS = 1


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
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser



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
    parser.set_defaults(run=_run_verify)


def _run_verify(args: argparse.Namespace) -> int:
    report = _verify(args.log, args.head)
    if report is None:
        return EXIT_PROBLEMS
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
    parser.set_defaults(run=_run_head)


def _run_head(args: argparse.Namespace) -> int:
    report = _verify(args.log, None)
    if report is None:
        return EXIT_PROBLEMS
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


def _verify(log: str, head: ReceiptHead | None) -> ChainReport | None:
    try:
        return verify_chain(log, expected_head=head)
    except OSError as exc:
        print(f"{log}: cannot read: {exc.strerror or exc}")
        return None


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
    start.add_argument(
        "--constraints",
        required=True,
        metavar="FILE",
        help="one constraint per line ('#' comments and blank lines skipped), "
        "or a JSON list of strings",
    )
    start.add_argument(
        "--max-block-tokens",
        type=int,
        default=1024,
        help="the block's token budget (default 1024)",
    )
    start.set_defaults(run=_run_hook_session_start)


def _run_hook_session_start(args: argparse.Namespace) -> int:
    # stdout is the harness's input: every problem goes to stderr.
    try:
        constraints = _read_constraints(args.constraints)
        guard = Guard(constraints, max_block_tokens=args.max_block_tokens)
    except OSError as exc:
        print(f"{args.constraints}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_PROBLEMS
    except (ValueError, TypeError) as exc:
        what = "cannot register" if isinstance(exc, RegistryError) else "bad constraints file"
        print(f"{args.constraints}: {what}: {exc}", file=sys.stderr)
        return EXIT_PROBLEMS
    print(session_start_hook_output(guard))
    return EXIT_OK


def _read_constraints(path: str) -> list[str]:
    """Read one constraint per line (blank and '#' lines skipped) or a JSON list of strings."""
    with open(path, encoding="utf-8") as handle:  # noqa: PTH123 - a plain CLI path
        text = handle.read()
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
    _add_verify,
    _add_head,
    _add_hook,
)
"""Every subcommand's `_add_<name>`, in help order."""
