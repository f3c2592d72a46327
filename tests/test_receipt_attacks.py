"""Attacks and faults on a receipts log: each case is green on the clean log, then caught."""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from compaction_guard.receipt import (
    ChainDefect,
    ChainProblem,
    CompactionReceipt,
    ReceiptHead,
    _digests,
    receipt_head,
    verify_chain,
)
from compaction_guard.receipt import _canonical_json as _jcs
from tests.support import seal_one


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A ten-row log (rows 0-9, compactors row-0 ... row-9)."""
    path = tmp_path_factory.mktemp("clean") / "receipts.jsonl"
    for index in range(10):
        seal_one(path, f"row-{index}")
    return path.read_bytes()


def split(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1]


def join(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def forge(row: dict[str, Any], *, receipt_digest: bool = True, row_digest: bool = True) -> bytes:
    """Re-encode `row` canonically, recomputing the digests an attacker can recompute."""
    if receipt_digest:
        fields = (*_digests.CORE_FIELDS, *_digests.OPTIONAL_FIELDS)
        core = [key for key in fields if key in row]
        row["receipt_digest"] = _digests.receipt_digest({k: [_jcs.dumps(row[k])] for k in core})
    if row_digest:
        row["chain"] = _digests.chain_digest({k: [_jcs.dumps(v)] for k, v in row.items()})
    return _jcs.dumps(row)


def edited(clean: bytes, index: int, **changes: Any) -> bytes:
    lines = split(clean)
    row = json.loads(lines[index])
    for dotted, value in changes.items():
        *parents, leaf = dotted.split("__")
        target = row
        for key in parents:
            target = target[key]
        target[leaf] = value
    lines[index] = forge(row)
    return join(lines)


def detect(
    tmp_path: Path, clean: bytes, mutated: bytes, head: ReceiptHead | None = None
) -> ChainProblem:
    """Show the clean log green, the bytes changed, and return the first problem found."""
    path = tmp_path / "receipts.jsonl"
    path.write_bytes(clean)
    assert verify_chain(path, expected_head=head).ok
    assert mutated != clean
    path.write_bytes(mutated)
    report = verify_chain(path, expected_head=head)
    assert not report.ok
    return report.problems[0]


def test_attack_edit_a_field_in_row_3(tmp_path: Path, clean: bytes) -> None:
    problem = detect(tmp_path, clean, clean.replace(b'"row-2"', b'"row-X"'))
    assert (problem.defect, problem.line_number) == (ChainDefect.ROW_EDITED, 3)


def test_attack_edit_and_recompute_the_row_digest(tmp_path: Path, clean: bytes) -> None:
    row = json.loads(split(clean)[2])
    row["dropped"]["bytes"] -= 1
    lines = split(clean)
    lines[2] = forge(row, receipt_digest=False)
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.ROW_EDITED, 3)
    assert "bytes arithmetic" in problem.message


def test_attack_edit_and_recompute_every_digest_breaks_the_next_link(tmp_path: Path, clean: bytes) -> None:
    problem = detect(tmp_path, clean, edited(clean, 2, compactor="row-X"))
    assert (problem.defect, problem.line_number) == (ChainDefect.LINK_BROKEN, 4)


def test_attack_recomputed_edit_of_the_last_row_needs_a_pinned_head(tmp_path: Path, clean: bytes) -> None:
    path = tmp_path / "pinned.jsonl"
    path.write_bytes(clean)
    head = receipt_head(path)
    mutated = edited(clean, 9, compactor="row-X")
    path.write_bytes(mutated)
    assert verify_chain(path).ok  # unanchored: the file alone cannot tell
    problem = detect(tmp_path, clean, mutated, head=head)
    assert (problem.defect, problem.line_number) == (ChainDefect.FORKED, 10)


@pytest.mark.parametrize(("index", "line"), [(0, 1), (4, 5)])
def test_attack_delete_a_row(tmp_path: Path, clean: bytes, index: int, line: int) -> None:
    lines = split(clean)
    del lines[index]
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.ROW_MISSING, line)


def test_attack_delete_the_last_row_is_truncation(tmp_path: Path, clean: bytes) -> None:
    path = tmp_path / "pinned.jsonl"
    path.write_bytes(clean)
    head = receipt_head(path)
    shorter = join(split(clean)[:-1])
    path.write_bytes(shorter)
    assert verify_chain(path).ok  # unanchored: invisible without a head
    problem = detect(tmp_path, clean, shorter, head=head)
    assert problem.defect == ChainDefect.TRUNCATED
    assert "9 row(s)" in problem.message


def test_attack_swap_two_rows(tmp_path: Path, clean: bytes) -> None:
    lines = split(clean)
    lines[3], lines[4] = lines[4], lines[3]
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.OUT_OF_ORDER, 4)


def test_attack_duplicate_a_row(tmp_path: Path, clean: bytes) -> None:
    lines = split(clean)
    lines.insert(4, lines[3])
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.DUPLICATED, 5)


def test_attack_insert_a_hand_written_row(tmp_path: Path, clean: bytes) -> None:
    lines = split(clean)
    row = json.loads(lines[5])
    row["compactor"] = "inserted"
    lines.insert(5, forge(row))  # a perfect seq 5 linking to row 4
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.FORKED, 7)


def test_attack_insert_a_naive_row(tmp_path: Path, clean: bytes) -> None:
    lines = split(clean)
    lines.insert(5, lines[5].replace(b'"row-5"', b'"inserted"'))
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.ROW_EDITED, 6)


@pytest.mark.parametrize(
    "reencode",
    [
        lambda row: json.dumps(dict(reversed(row.items())), separators=(",", ":")),
        lambda row: json.dumps(row, sort_keys=True),
        lambda row: json.dumps(row, sort_keys=True, separators=(",", ":")).replace("row-", "\\u0072ow-"),
        lambda row: json.dumps(row, sort_keys=True, separators=(",", ":")) + " ",
    ],
    ids=["key-order", "spacing", "escaping", "trailing-space"],
)
def test_attack_same_values_re_encoded(tmp_path: Path, clean: bytes, reencode: Any) -> None:
    lines = split(clean)
    lines[2] = reencode(json.loads(lines[2])).encode()
    assert json.loads(lines[2]) == json.loads(split(clean)[2])
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.NON_CANONICAL, 3)


def test_attack_duplicate_keys(tmp_path: Path, clean: bytes) -> None:
    lines = split(clean)
    lines[2] = lines[2].replace(b',"compactor":"row-2",', b',"compactor":"row-X","compactor":"row-2",')
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.MALFORMED_ROW, 3)
    assert "duplicate key 'compactor'" in problem.message


@pytest.mark.parametrize(
    ("count", "defect"),
    [(True, ChainDefect.MALFORMED_ROW), ("3", ChainDefect.MALFORMED_ROW),
     (-1, ChainDefect.MALFORMED_ROW), (1.5, ChainDefect.MALFORMED_ROW)],
)
def test_attack_counts_of_the_wrong_type(tmp_path: Path, clean: bytes, count: Any, defect: ChainDefect) -> None:
    problem = detect(tmp_path, clean, edited(clean, 2, dropped__count=count))
    assert (problem.defect, problem.line_number) == (defect, 3)
    assert "dropped.count: must be a non-negative integer" in problem.message


def test_attack_count_written_as_float_text(tmp_path: Path, clean: bytes) -> None:
    lines = split(clean)
    lines[2] = lines[2].replace(b'"count":1,', b'"count":1.0,', 1)
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.NON_CANONICAL, 3)


def test_attack_count_beyond_two_to_the_53(tmp_path: Path, clean: bytes) -> None:
    lines = split(clean)
    lines[2] = lines[2].replace(b'"count":1,', b'"count":%d,' % 2**64, 1)
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.MALFORMED_ROW, 3)
    assert "$.dropped.count" in problem.message
    assert "beyond 2**53" in problem.message


@pytest.mark.parametrize(
    ("changes", "defect", "words"),
    [
        ({"prev": "sha256:row:v1:" + "0" * 63}, ChainDefect.MALFORMED_ROW, "prev must end in 64"),
        ({"pre__digest": "sha256:items:v1:" + "A" * 64}, ChainDefect.MALFORMED_ROW, "lowercase hex"),
        ({"pre__digest": "sha256:items:v9:" + "0" * 64}, ChainDefect.UNKNOWN_SCHEMA, "unknown recipe"),
        ({"post__digest": "blake3:items:v1:" + "0" * 64}, ChainDefect.UNKNOWN_SCHEMA, "unknown algorithm"),
        ({"prev": "deadbeef"}, ChainDefect.MALFORMED_ROW, "sha256:<recipe>"),
        ({"schema": "compaction-guard:receipt:v9"}, ChainDefect.UNKNOWN_SCHEMA, "is not compaction-guard:receipt:v2"),
    ],
)
def test_attack_malformed_and_unknown_digests(
    tmp_path: Path, clean: bytes, changes: dict[str, Any], defect: ChainDefect, words: str
) -> None:
    problem = detect(tmp_path, clean, edited(clean, 2, **changes))
    assert (problem.defect, problem.line_number) == (defect, 3)
    assert words in problem.message


def test_attack_manifest_item_with_unknown_recipe(tmp_path: Path, clean: bytes) -> None:
    row = json.loads(split(clean)[2])
    row["dropped"]["items"][0] = "sha256:md5:v1:" + "0" * 64
    lines = split(clean)
    lines[2] = forge(row)
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.UNKNOWN_SCHEMA, 3)
    assert "dropped.items[0]" in problem.message


@pytest.mark.parametrize(
    "case",
    [
        (lambda d: d.replace(b"row-2", b"row-\xff"), ChainDefect.MALFORMED_ROW, 3, "invalid UTF-8"),
        (lambda d: d.replace(b"row-2", b"row-\x00"), ChainDefect.MALFORMED_ROW, 3, "NUL byte"),
        (lambda d: b"\xef\xbb\xbf" + d, ChainDefect.NON_CANONICAL, 1, "byte order mark"),
        (lambda d: d.replace(b"\n", b"\r\n"), ChainDefect.NON_CANONICAL, 1, "CR"),
        (lambda d: d.replace(b"\n", b"\r"), ChainDefect.NON_CANONICAL, 1, "CR line endings"),
        (lambda d: join([*split(d)[:3], b"", *split(d)[3:]]), ChainDefect.MALFORMED_ROW, 4, "blank line"),
        (lambda d: join([*split(d)[:3], b" \t", *split(d)[3:]]), ChainDefect.MALFORMED_ROW, 4, "blank line"),
        (lambda d: d[:-1], ChainDefect.TORN_TAIL, 10, "no final newline"),
        (lambda d: d.replace(b"}\n", b"}\n[1,2]\n", 1), ChainDefect.MALFORMED_ROW, 2, "not a JSON object"),
    ],
    ids=["invalid-utf8", "nul", "bom", "crlf", "cr", "blank", "whitespace", "no-final-newline", "array"],
)
def test_attack_framing_and_encoding(tmp_path: Path, clean: bytes, case: tuple[Any, ...]) -> None:
    mutate, defect, line, words = case
    problem = detect(tmp_path, clean, mutate(clean))
    assert (problem.defect, problem.line_number) == (defect, line)
    assert words in problem.message


def test_attack_very_deep_nesting_is_a_clear_error(tmp_path: Path, clean: bytes) -> None:
    deep = b"[" * 200_000 + b"]" * 200_000
    problem = detect(tmp_path, clean, join([*split(clean)[:3], deep]))
    assert (problem.defect, problem.line_number) == (ChainDefect.MALFORMED_ROW, 4)
    assert "nested deeper" in problem.message


def test_attack_deep_nesting_inside_a_row_is_a_clear_error(tmp_path: Path, clean: bytes) -> None:
    lines = split(clean)
    depth = _jcs.MAX_DEPTH + 5
    lines[2] = lines[2].replace(b'"compactor":"row-2"', b'"compactor":' + b"[" * depth + b"]" * depth)
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.MALFORMED_ROW, 3)
    assert "nested deeper" in problem.message


def test_attack_very_long_line_is_a_clear_error(tmp_path: Path, clean: bytes) -> None:
    long_line = b'{"compactor":"' + b"x" * 5_000_000 + b'"}'
    problem = detect(tmp_path, clean, join([*split(clean), long_line]))
    assert (problem.defect, problem.line_number) == (ChainDefect.MALFORMED_ROW, 11)


def test_attack_line_over_the_length_cap(tmp_path: Path, clean: bytes) -> None:
    path = tmp_path / "receipts.jsonl"
    path.write_bytes(clean)
    report = verify_chain(path, max_line_bytes=200)
    assert (report.problems[0].defect, report.problems[0].line_number) == (ChainDefect.MALFORMED_ROW, 1)
    assert "longer than 200 bytes" in report.problems[0].message


def test_attack_genesis_prev_replaced(tmp_path: Path, clean: bytes) -> None:
    fake = _digests.genesis_prev("0" * 32)
    problem = detect(tmp_path, clean, edited(clean, 0, prev=fake))
    assert (problem.defect, problem.line_number) == (ChainDefect.GENESIS_MISMATCH, 1)


def test_attack_log_id_removed_from_row_zero(tmp_path: Path, clean: bytes) -> None:
    lines = split(clean)
    row = json.loads(lines[0])
    del row["log_id"]
    lines[0] = forge(row)
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.GENESIS_MISMATCH, 1)


def test_attack_log_id_on_a_later_row(tmp_path: Path, clean: bytes) -> None:
    problem = detect(tmp_path, clean, edited(clean, 3, log_id="0" * 32))
    assert (problem.defect, problem.line_number) == (ChainDefect.MALFORMED_ROW, 4)


def test_attack_row_spliced_from_another_log(tmp_path: Path, clean: bytes) -> None:
    other = tmp_path / "other.jsonl"
    for index in range(10):
        seal_one(other, f"row-{index}")
    lines = split(clean)
    lines[4] = split(other.read_bytes())[4]
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.LINK_BROKEN, 5)


def test_attack_unknown_schema_row_chained_properly(tmp_path: Path, clean: bytes) -> None:
    lines = split(clean)
    last = json.loads(lines[-1])
    stranger = {"schema": "someone-else:v1", "seq": 10, "prev": last["chain"], "ts": last["ts"]}
    lines.append(forge(stranger, receipt_digest=False))
    problem = detect(tmp_path, clean, join(lines))
    assert (problem.defect, problem.line_number) == (ChainDefect.UNKNOWN_SCHEMA, 11)


def test_attack_another_log_against_a_pinned_head(tmp_path: Path, clean: bytes) -> None:
    path = tmp_path / "pinned.jsonl"
    path.write_bytes(clean)
    head = receipt_head(path)
    other = tmp_path / "other.jsonl"
    for index in range(10):
        seal_one(other, f"row-{index}")
    problem = detect(tmp_path, clean, other.read_bytes(), head=head)
    assert (problem.defect, problem.line_number) == (ChainDefect.LOG_ID_MISMATCH, 1)


def test_attack_rollback_to_an_older_copy(tmp_path: Path) -> None:
    path = tmp_path / "receipts.jsonl"
    for index in range(5):
        seal_one(path, f"row-{index}")
    old = path.read_bytes()
    for index in range(5, 10):
        seal_one(path, f"row-{index}")
    head = receipt_head(path)
    problem = detect(tmp_path, path.read_bytes(), old, head=head)
    assert problem.defect == ChainDefect.TRUNCATED


def test_attack_two_copies_that_diverge(tmp_path: Path) -> None:
    first = tmp_path / "a.jsonl"
    for index in range(5):
        seal_one(first, f"row-{index}")
    second = tmp_path / "b.jsonl"
    shutil.copyfile(first, second)
    for index in range(5, 8):
        seal_one(first, f"a-{index}")
        seal_one(second, f"b-{index}")
    assert verify_chain(first).ok
    assert verify_chain(second).ok
    head = receipt_head(first)
    problem = detect(tmp_path, first.read_bytes(), second.read_bytes(), head=head)
    assert (problem.defect, problem.line_number) == (ChainDefect.FORKED, 8)


def test_attack_problem_after_a_torn_tail_reports_both(tmp_path: Path, clean: bytes) -> None:
    mutated = clean.replace(b'"row-2"', b'"row-X"') + b'{"half'
    path = tmp_path / "receipts.jsonl"
    path.write_bytes(mutated)
    defects = [problem.defect for problem in verify_chain(path).problems]
    assert defects == [ChainDefect.ROW_EDITED, ChainDefect.TORN_TAIL]


def _sweep_log(tmp_path: Path) -> bytes:
    path = tmp_path / "sweep.jsonl"
    for index in range(10):
        sealed = CompactionReceipt.open([f"t{index}"])
        sealed.record_kept([f"t{index}"])
        sealed.seal(path, compactor="c", method="m")
    return path.read_bytes()


def test_byte_flip_sweep_every_mutant_is_detected(tmp_path: Path) -> None:
    """Substitute, delete, and insert a newline at every byte of a ten-row log."""
    data = _sweep_log(tmp_path)
    path = tmp_path / "mutant.jsonl"
    missed: list[tuple[str, int]] = []
    for position in range(len(data) + 1):
        mutants = [("newline", data[:position] + b"\n" + data[position:])]
        if position < len(data):
            flipped = bytes([data[position] ^ 0x01])
            mutants.append(("substitute", data[:position] + flipped + data[position + 1 :]))
            mutants.append(("delete", data[:position] + data[position + 1 :]))
        for kind, mutant in mutants:
            path.write_bytes(mutant)
            if verify_chain(path).ok:
                missed.append((kind, position))
    assert missed == []


def test_a_row_whose_log_id_lost_its_quote_is_reported_not_raised(tmp_path: Path) -> None:
    """A hex log_id such as 79e348af, unquoted, starts with an overflowing number."""
    data = _sweep_log(tmp_path)
    first, rest = data.split(b"\n", 1)
    row = json.loads(first)
    row["log_id"] = "79e348af408d9155911f4713b68df9ab"
    forged = _jcs.dumps(row).replace(b'"log_id":"', b'"log_id":', 1)
    path = tmp_path / "unquoted.jsonl"
    path.write_bytes(forged + b"\n" + rest)
    assert not verify_chain(path).ok
