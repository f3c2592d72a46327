"""Assemble the hand-written prose corpus: prose_cases.txt -> prose.jsonl and prose.sha256.

`python evidence/make_prose.py` writes both files; `--check` assembles in memory and exits 1
when a committed file differs. Every sentence a summary holds is written by hand in
prose_cases.txt; this script only wraps them in chat messages. See README.md, "The prose
section".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "prose_cases.txt"
CORPUS = HERE / "prose.jsonl"
DIGEST = HERE / "prose.sha256"

KINDS = ("preserved", "paraphrased", "weakened", "mutated", "contradicted", "dropped")
SYSTEM = "You are an operations agent with shell, SQL, HTTP and file tools. Explain each step briefly."
ACK = "Understood. I will keep to those rules and report progress as I go."
FILLER_LINE = "{stamp} GET /api/items/{item} {status} {ms}ms cache={cache}"
_PLACEHOLDER = re.compile(r"\{(id|block)(?::([a-z0-9_,-]+))?\}")

Message = dict[str, Any]


class SourceError(Exception):
    """prose_cases.txt does not parse; the message names the line."""


@dataclass
class Rule:
    key: str
    domain: str
    text: str = ""
    task: str = ""


@dataclass
class Case:
    line: int
    rule: Rule
    kind: str
    mechanism: str
    others: list[str] = field(default_factory=list)
    role: str = "user"
    why: str = ""
    # Each part: its kind (summary, tail-<role> or filler) and its source lines.
    parts: list[tuple[str, list[str]]] = field(default_factory=list)


# --------------------------------------------------------------------------------------
# Parsing the source
# --------------------------------------------------------------------------------------


def _options(tokens: list[str], line: int) -> dict[str, str]:
    options = {}
    for token in tokens:
        name, sep, value = token.partition("=")
        if not sep or name not in {"others", "role"}:
            raise SourceError(f"line {line}: unknown case option {token!r} (use others=a,b or role=assistant)")
        options[name] = value
    return options


def parse(text: str) -> tuple[dict[str, Rule], list[Case]]:
    """Read prose_cases.txt: `@rule` headers, `@on` (back to an earlier rule), `@case` headers, bodies and `%%` markers."""
    rules: dict[str, Rule] = {}
    cases: list[Case] = []
    rule: Rule | None = None
    case: Case | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if line.startswith(";;"):
            continue
        if line.startswith("@rule "):
            case = None
            key, _, domain = line[len("@rule "):].partition("|")
            rule = Rule(key.strip(), domain.strip())
            if rule.key in rules:
                raise SourceError(f"line {number}: rule {rule.key} is defined twice")
            rules[rule.key] = rule
            continue
        if line.startswith("@on "):
            case = None
            key = line[len("@on "):].strip()
            if key not in rules:
                raise SourceError(f"line {number}: @on names rule {key!r}, which is not defined above")
            rule = rules[key]
            continue
        if line.startswith("@case "):
            if rule is None:
                raise SourceError(f"line {number}: @case before any @rule")
            tokens = line[len("@case "):].split()
            if len(tokens) < 2 or tokens[0] not in KINDS:
                raise SourceError(f"line {number}: write `@case <kind> <mechanism> [options]`, kind one of {KINDS}")
            options = _options(tokens[2:], number)
            others = [key for key in options.get("others", "").split(",") if key]
            case = Case(number, rule, tokens[0], tokens[1], others, options.get("role", "user"))
            case.parts.append(("summary", []))
            cases.append(case)
            continue
        if case is None:
            if rule is not None and line.startswith(("text: ", "task: ")):
                setattr(rule, line[:4], line[6:].strip())
            elif line.strip():
                raise SourceError(f"line {number}: text outside a case: {line[:60]!r}")
            continue
        if line.startswith("why: ") and not case.why:
            case.why = line[5:].strip()
        elif line.startswith("%%part"):
            case.parts.append(("summary", []))
        elif line.startswith("%%tail "):
            case.parts.append((f"tail-{line.split()[1]}", []))
        elif line.startswith("%%filler "):
            case.parts.append(("filler", [line.split()[1]]))
        else:
            case.parts[-1][1].append(line)
    return rules, cases


# --------------------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------------------


def _invariant_id(text: str) -> str:
    from compaction_guard.invariant import invariant_id

    return str(invariant_id(text))


def _block(texts: list[str]) -> str:
    from compaction_guard.block import format_block

    return format_block([(_invariant_id(text), text) for text in texts])


def _filler(lines: int, seed: int) -> str:
    """A kept tool result of neutral access-log lines: bulk text the model reads too."""
    rows = []
    for n in range(lines):
        k = seed * 7919 + n * 104729
        rows.append(FILLER_LINE.format(
            stamp=f"2026-11-30T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{n % 60:02d}Z",
            item=1000 + k % 9000, status=(200, 200, 200, 304, 404)[k % 5], ms=3 + k % 97,
            cache=("hit", "miss")[k % 2],
        ))
    return "\n".join(rows)


def _expand(text: str, case: Case, rules: dict[str, Rule], registered: list[str]) -> str:
    def sub(match: re.Match[str]) -> str:
        what, arg = match.group(1), match.group(2)
        if what == "id":
            return _invariant_id(rules[arg].text if arg else case.rule.text)
        texts = [rules[key].text for key in arg.split(",")] if arg else registered
        return _block(texts)

    return _PLACEHOLDER.sub(sub, text)


def _body(lines: list[str]) -> str:
    return "\n".join(lines).strip("\n")


def build_case(case: Case, case_id: str, rules: dict[str, Rule]) -> dict[str, Any]:
    """One corpus line: the registered rules, the chat before compaction and after it."""
    missing = [key for key in case.others if key not in rules]
    if missing:
        raise SourceError(f"line {case.line}: others name unknown rules {missing}")
    if not case.why:
        raise SourceError(f"line {case.line}: every case needs a one-line `why:`")
    others = [rules[key].text for key in case.others]
    registered = [case.rule.text, *others]
    listed = list(others)
    listed.insert(case.line % (len(others) + 1), case.rule.text)
    before: list[Message] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{case.rule.task}\n\nGround rules for this session:\n"
         + "\n".join(f"- {text}" for text in listed)},
        {"role": "assistant", "content": ACK},
    ]
    source = "\n".join(line for _, part in case.parts for line in part)
    if "{block" in source:
        before.insert(1, {"role": "user", "content": _expand("{block}", case, rules, registered)})
    after: list[Message] = [{"role": "system", "content": SYSTEM}]
    tail: list[Message] = []
    calls = 0
    for part, lines in case.parts:
        if part == "summary":
            body = _expand(_body(lines), case, rules, registered)
            if body:
                after.append({"role": case.role, "content": body})
        elif part == "filler":
            calls += 1
            call = f"call_{calls:04d}"
            tail.append({"role": "assistant", "content": None, "tool_calls": [{
                "id": call, "type": "function",
                "function": {"name": "shell", "arguments": json.dumps({"cmd": "tail -n 400 access.log"})},
            }]})
            tail.append({"role": "tool", "tool_call_id": call, "content": _filler(int(lines[0]), case.line)})
        else:
            tail.append({"role": part.removeprefix("tail-"), "content": _expand(_body(lines), case, rules, registered)})
    return {
        "id": case_id,
        "domain": case.rule.domain,
        "constraint": case.rule.text,
        "others": others,
        "ground_truth": case.kind,
        "mechanism": case.mechanism,
        "why": case.why,
        "before": before + tail,
        "after": after + tail,
    }


def build_corpus(text: str | None = None) -> list[dict[str, Any]]:
    rules, cases = parse(SOURCE.read_text(encoding="utf-8") if text is None else text)
    for rule in rules.values():
        if not rule.text or not rule.task:
            raise SourceError(f"rule {rule.key} needs a `text:` and a `task:` line")
    seen: Counter[tuple[str, str]] = Counter()
    out = []
    for case in cases:
        seen[case.rule.key, case.kind] += 1
        out.append(build_case(case, f"{case.rule.key}-{case.kind}-{seen[case.rule.key, case.kind]}", rules))
    return out


def corpus_bytes(text: str | None = None) -> bytes:
    """The exact bytes of prose.jsonl, assembled from prose_cases.txt."""
    return "".join(json.dumps(case, ensure_ascii=True) + "\n" for case in build_corpus(text)).encode("ascii")


def digest_line(data: bytes) -> str:
    return f"{hashlib.sha256(data).hexdigest()}  {CORPUS.name}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="assemble in memory; exit 1 if the committed files differ")
    args = parser.parse_args(argv)
    try:
        data = corpus_bytes()
    except SourceError as exc:
        print(f"{SOURCE.name}: {exc}", file=sys.stderr)
        return 2
    if args.check:
        problems = []
        if not DIGEST.exists() or DIGEST.read_text(encoding="ascii") != digest_line(data):
            problems.append(f"{DIGEST.name} does not match the assembled corpus (sha256 {hashlib.sha256(data).hexdigest()})")
        if not CORPUS.exists() or CORPUS.read_bytes() != data:
            problems.append(f"{CORPUS.name} differs from what {SOURCE.name} assembles to")
        for problem in problems:
            print(f"drift: {problem}; run `python evidence/make_prose.py` and commit the result", file=sys.stderr)
        return 1 if problems else 0
    for path, content in ((CORPUS, data), (DIGEST, digest_line(data).encode("ascii"))):
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(content)
        tmp.replace(path)
    cases = [json.loads(line) for line in data.decode("ascii").splitlines()]
    kinds = Counter(case["ground_truth"] for case in cases)
    print(f"{len(cases)} cases: " + ", ".join(f"{kind} {kinds[kind]}" for kind in KINDS))
    print(f"sha256 {hashlib.sha256(data).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
