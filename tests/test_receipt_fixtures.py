"""Receipt logs written by an earlier version still verify, row by row and with their content.

The logs in tests/fixtures/receipts/ were written once (tests/fixtures/receipts/write.py)
and are never rewritten: a change to a recipe, a hash domain, the canonical form or a row
check that would strand receipts already on disk fails here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from compaction_guard.receipt import (
    ChainDefect,
    CompactionReceipt,
    HeadPin,
    ReceiptHead,
    item_digest,
    receipt_head,
    verify_chain,
    verify_receipt,
)
from tests.fixtures.receipts.content import KEY, SEALS

FIXTURES = Path(__file__).parent / "fixtures" / "receipts"
UNKEYED = FIXTURES / "unkeyed.jsonl"
KEYED = FIXTURES / "keyed.jsonl"
PIN = FIXTURES / "unkeyed.head"


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_unkeyed_log_verifies_against_its_pinned_head() -> None:
    report = verify_chain(UNKEYED)
    assert report.ok, report.problems
    assert report.rows == 4
    pinned = ReceiptHead.parse(PIN.read_text(encoding="utf-8"))
    assert receipt_head(UNKEYED) == pinned
    anchored = HeadPin(PIN).verify(UNKEYED)
    assert anchored.ok
    assert anchored.scope == "anchored"


def test_the_unkeyed_log_holds_receipts_a_recovery_and_a_guard_row() -> None:
    schemas = [row["schema"] for row in _rows(UNKEYED)]
    assert schemas == [
        "compaction-guard:receipt:v2",
        "compaction-guard:receipt:v2",
        "compaction-guard:recovery:v1",
        "compaction-guard:receipt:v2",
    ]
    guard_row = _rows(UNKEYED)[3]
    assert guard_row["annotations"]["guard"]["policy"] == "repair"
    assert verify_receipt(guard_row)["ok"]


@pytest.mark.parametrize("index", [0, 1])
def test_unkeyed_rows_match_the_content_they_were_sealed_over(index: int) -> None:
    row, seal = _rows(UNKEYED)[index], SEALS[index]
    result = verify_receipt(row, seal["pre"], seal["post"])
    assert result["ok"], result["notes"]
    assert result["content"] == "match"


def test_a_changed_item_no_longer_matches_a_frozen_row() -> None:
    row, seal = _rows(UNKEYED)[0], SEALS[0]
    post = [*seal["post"][:-1], {"role": "user", "content": "cafe"}]
    assert verify_receipt(row, seal["pre"], post)["content"] == "mismatch"


def test_frozen_manifests_list_the_digests_item_digest_gives_today() -> None:
    row, claimed = _rows(UNKEYED)[0], SEALS[0]["fields"]["claimed"]
    assert sorted(row["dropped"]["items"]) == sorted(item_digest(item) for item in claimed)
    recipes = {digest.split(":")[1] for digest in row["dropped"]["items"]}
    assert recipes == {"raw", "jcs", "lossless"}


def test_the_keyed_log_verifies_only_under_its_key() -> None:
    assert verify_chain(KEYED, key=KEY).ok
    assert verify_chain(KEYED).problems[0].defect == ChainDefect.KEY_REQUIRED
    assert verify_chain(KEYED, key=b"another key").problems[0].defect == ChainDefect.ROW_EDITED
    for row, seal in zip(_rows(KEYED), (SEALS[0], SEALS[2]), strict=True):
        result = verify_receipt(row, seal["pre"], seal["post"], key=KEY)
        assert result["ok"], result["notes"]
        assert result["content"] == "match"


def test_a_frozen_log_still_takes_appends(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    shutil.copyfile(UNKEYED, log)
    pin = tmp_path / "receipts.head"
    shutil.copyfile(PIN, pin)
    receipt = CompactionReceipt.open(["a", "b"])
    receipt.record_kept(["a"])
    row = receipt.seal(log, compactor="later", method="trim")
    assert row["seq"] == 4
    assert HeadPin(pin).advance(log).size == 5
    assert verify_chain(log).ok
