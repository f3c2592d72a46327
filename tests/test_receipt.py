import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from compaction_guard.errors import ReceiptSealError
from compaction_guard.receipt import (
    RECEIPT_SCHEMA,
    CanonicalJSONError,
    CompactionReceipt,
    item_digest,
    verify_chain,
    verify_receipt,
)

TURNS = [
    "user: what's the refund window?",
    "assistant: 30 days from delivery.",
    "user: does that cover digital goods?",
    "assistant: yes, minus any credits already spent.",
]
SUMMARY = "assistant: 30-day refunds, digital goods included."
DIGEST = re.compile(r"sha256:[a-z0-9-]+:v[0-9]+:[0-9a-f]{64}")


def _seal(log: Path, pre: Any, post: Any, **kwargs: Any) -> dict[str, Any]:
    receipt = CompactionReceipt.open(pre)
    receipt.record_kept(post)
    return receipt.seal(log, compactor=kwargs.pop("compactor", "summarizer-v2"),
                        method=kwargs.pop("method", "llm-summary"), **kwargs)


def _resealed(row: dict[str, Any], **edits: Any) -> dict[str, Any]:
    """A copy of `row` with `edits` applied (dotted keys) and nothing recomputed."""
    forged = copy.deepcopy(row)
    for dotted, value in edits.items():
        *parents, leaf = dotted.split("__")
        target = forged
        for key in parents:
            target = target[key]
        target[leaf] = value
    return forged


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "receipts.jsonl"


@pytest.fixture
def row(log: Path) -> dict[str, Any]:
    return _seal(log, TURNS, [TURNS[0], SUMMARY])


def test_seal_seed_example_counts(row: dict[str, Any]) -> None:
    assert row["pre"]["count"] == 4
    assert row["post"]["count"] == 2
    assert row["dropped"]["count"] == 3
    assert row["introduced"]["count"] == 1
    assert row["compactor"] == "summarizer-v2"
    assert row["method"] == "llm-summary"


def test_seal_bytes_are_exact(row: dict[str, Any]) -> None:
    sizes = [len(turn.encode()) for turn in TURNS]
    assert row["pre"]["bytes"] == sum(sizes)
    assert row["dropped"]["bytes"] == sum(sizes[1:])
    assert row["introduced"]["bytes"] == len(SUMMARY.encode())
    assert row["post"]["bytes"] == sizes[0] + len(SUMMARY.encode())


def test_seal_row_has_documented_fields(row: dict[str, Any]) -> None:
    for key in ("schema", "pre", "post", "dropped", "introduced", "compactor", "method",
                "opened_at", "receipt_digest", "seq", "prev", "log_id", "ts", "chain"):
        assert key in row, key
    assert row["schema"] == RECEIPT_SCHEMA
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", row["opened_at"])


def test_seal_digests_are_self_describing(row: dict[str, Any]) -> None:
    digests = [row["pre"]["digest"], row["post"]["digest"], row["receipt_digest"],
               row["prev"], row["chain"], *row["dropped"]["items"]]
    assert all(DIGEST.fullmatch(digest) for digest in digests)
    assert row["pre"]["digest"].startswith("sha256:items:v1:")
    assert row["receipt_digest"].startswith("sha256:receipt:v1:")


def test_seal_returns_the_row_written_to_the_log(log: Path, row: dict[str, Any]) -> None:
    assert json.loads(log.read_bytes()) == row


def test_seal_never_stores_item_content(log: Path) -> None:
    secret = "wire $9,400 to account 1234-5678"
    _seal(log, ["hello", secret], ["hello"])
    text = log.read_text()
    assert secret not in text
    assert "hello" not in text


def test_verify_receipt_self_consistency_seed_shape(row: dict[str, Any]) -> None:
    assert verify_receipt(row) == {"ok": True, "self_consistent": True, "content": "skipped",
                                   "schema": "v2", "understatement_check": "full", "notes": []}


def test_verify_receipt_with_content_matches(row: dict[str, Any]) -> None:
    result = verify_receipt(row, pre_content=TURNS, post_content=[TURNS[0], SUMMARY])
    assert result["ok"] is True
    assert result["content"] == "match"
    assert result["notes"] == []


def test_verify_receipt_planted_drop_lie_is_self_consistent_but_mismatches(log: Path) -> None:
    receipt = CompactionReceipt.open(TURNS)
    receipt.record_kept(TURNS)  # "kept everything"
    row = receipt.seal(log, compactor="liar", method="llm-summary")
    shipped_post = TURNS[:2] + TURNS[3:]
    assert verify_receipt(row)["ok"] is True  # the claim alone cannot be caught
    result = verify_receipt(row, TURNS, shipped_post)
    assert result["ok"] is False
    assert result["self_consistent"] is True
    assert result["content"] == "mismatch"
    assert result["notes"][0].startswith("post.digest: recomputed ")
    assert result["notes"][1] == (
        "drop-manifest disagrees with content: recomputed 1 dropped item(s), manifest claims 0"
    )


def test_item_digest_str_is_utf8_and_bytes_raw() -> None:
    expected = "sha256:raw:v1:" + hashlib.sha256("é".encode()).hexdigest()
    assert item_digest("é") == expected
    assert item_digest("é".encode()) == expected


def test_item_digest_json_items_use_canonical_json() -> None:
    message = {"role": "user", "content": "hi", "n": 1.0}
    canonical = b'{"content":"hi","n":1,"role":"user"}'
    assert item_digest(message) == "sha256:jcs:v1:" + hashlib.sha256(canonical).hexdigest()


def test_item_digest_separates_a_string_from_the_json_it_spells() -> None:
    assert item_digest("1") != item_digest(1)
    assert item_digest("1")[-64:] == item_digest(1)[-64:]  # same bytes, different recipe


def test_open_pre_digest_depends_on_content_and_order_only(tmp_path: Path) -> None:
    first = _seal(tmp_path / "a.jsonl", TURNS, TURNS)
    again = _seal(tmp_path / "b.jsonl", list(TURNS), TURNS)
    swapped = _seal(tmp_path / "c.jsonl", TURNS[::-1], TURNS)
    assert first["pre"]["digest"] == again["pre"]["digest"]
    assert first["pre"]["digest"] != swapped["pre"]["digest"]


def test_open_plain_string_context_is_one_item(log: Path) -> None:
    row = _seal(log, "the whole transcript as one string", "a summary")
    assert row["pre"]["count"] == 1
    assert row["dropped"]["items"] == [item_digest("the whole transcript as one string")]
    assert verify_receipt(row, "the whole transcript as one string", "a summary")["ok"]


def test_open_accepts_openai_messages_and_mixed_items(log: Path) -> None:
    pre = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"},
           b"raw", 7, 2.5, True, None, ["nested", {"k": "v"}]]
    post = [pre[0], {"role": "assistant", "content": "summary"}]
    row = _seal(log, pre, post)
    assert row["dropped"]["count"] == 7
    assert verify_receipt(row, pre, post)["content"] == "match"


def test_open_refuses_non_json_items_naming_the_path() -> None:
    with pytest.raises(CanonicalJSONError) as caught:
        CompactionReceipt.open(["ok", {"content": object()}])
    assert caught.value.path == "$[1].content"


def test_open_digests_strings_with_lone_surrogates_losslessly() -> None:
    assert item_digest("bad \ud800").startswith("sha256:lossless:v1:")
    assert item_digest("bad \ud800") != item_digest("bad \ud801")


def test_seal_counts_duplicates_as_a_multiset(log: Path) -> None:
    row = _seal(log, ["a", "a", "b"], ["a", "b"])
    assert row["dropped"]["items"] == [item_digest("a")]
    assert row["dropped"]["count"] == 1
    assert row["introduced"]["count"] == 0


def test_seal_counts_a_repeated_survivor_as_introduced(log: Path) -> None:
    row = _seal(log, ["a"], ["a", "a"])
    assert row["dropped"]["count"] == 0
    assert row["introduced"] == {"count": 1, "bytes": 1}


def test_record_dropped_matching_claim_seals(log: Path) -> None:
    receipt = CompactionReceipt.open(TURNS)
    receipt.record_dropped(TURNS[1:][::-1])  # order does not matter, the multiset does
    receipt.record_kept([TURNS[0], SUMMARY])
    assert receipt.seal(log, compactor="c", method="m")["dropped"]["count"] == 3


def test_record_dropped_disagreeing_claim_refuses_to_seal(log: Path) -> None:
    receipt = CompactionReceipt.open(TURNS)
    receipt.record_kept([TURNS[0], SUMMARY])
    receipt.record_dropped(TURNS[1:3])
    with pytest.raises(ReceiptSealError, match="claims 2 item"):
        receipt.seal(log, compactor="c", method="m")
    assert not log.exists()


def test_seal_before_record_kept_refuses(log: Path) -> None:
    with pytest.raises(ReceiptSealError, match="record_kept"):
        CompactionReceipt.open(TURNS).seal(log, compactor="c", method="m")
    assert not log.exists()


def test_seal_twice_refuses(log: Path) -> None:
    receipt = CompactionReceipt.open(TURNS)
    receipt.record_kept(TURNS)
    receipt.seal(log, compactor="c", method="m")
    with pytest.raises(ReceiptSealError, match="already sealed"):
        receipt.seal(log, compactor="c", method="m")


def test_record_kept_twice_refuses() -> None:
    receipt = CompactionReceipt.open(TURNS)
    receipt.record_kept(TURNS)
    with pytest.raises(ReceiptSealError, match="already called"):
        receipt.record_kept(TURNS)


def test_seal_refuses_non_string_compactor(log: Path) -> None:
    receipt = CompactionReceipt.open(TURNS)
    receipt.record_kept(TURNS)
    with pytest.raises(TypeError, match="compactor"):
        receipt.seal(log, compactor=None, method="m")  # type: ignore[arg-type]


def test_seal_annotations_are_stored_and_covered(log: Path) -> None:
    notes = {"mode": "owned", "invariants": [{"id": "inv-1", "kind": "preserved"}]}
    row = _seal(log, TURNS, TURNS, annotations=notes)
    assert row["annotations"] == notes
    assert verify_receipt(row)["ok"]
    forged = _resealed(row, annotations={"mode": "owned", "invariants": []})
    assert verify_receipt(forged)["self_consistent"] is False


def test_seal_annotations_refuse_non_json_naming_the_path(log: Path) -> None:
    with pytest.raises(CanonicalJSONError) as caught:
        _seal(log, TURNS, TURNS, annotations={"score": float("inf")})
    assert caught.value.path == "$.annotations.score"
    assert not log.exists()


def test_seal_annotations_refuse_values_that_would_not_read_back(log: Path) -> None:
    with pytest.raises(CanonicalJSONError, match="beyond 2"):
        _seal(log, TURNS, TURNS, annotations={"big": 1e16})


def test_seal_annotations_must_be_a_mapping(log: Path) -> None:
    with pytest.raises(TypeError, match="mapping"):
        _seal(log, TURNS, TURNS, annotations=["not", "a", "mapping"])


@pytest.mark.parametrize(
    ("edits", "note"),
    [
        ({"dropped__bytes": 1}, "bytes arithmetic"),
        ({"dropped__bytes": 10**9}, "bytes arithmetic"),
        ({"introduced__count": 0}, "count arithmetic"),
        ({"pre__count": 5}, "count arithmetic"),
        ({"dropped__count": 2}, "dropped.count 2 != 3 manifest items"),
        ({"compactor": "someone-else"}, "receipt_digest: recomputed"),
        ({"pre__count": True}, "pre.count: must be a non-negative integer"),
        ({"pre__count": 4.0}, "pre.count: must be a non-negative integer"),
        ({"post__bytes": -1}, "post.bytes: must be a non-negative integer"),
        ({"pre__digest": "sha256:items:v1:abc"}, "pre.digest must end in 64"),
        ({"pre__digest": "md5:items:v1:" + "0" * 64}, "unknown algorithm"),
        ({"receipt_digest": "sha256:other:v1:" + "0" * 64}, "unknown recipe"),
        ({"opened_at": "yesterday"}, "opened_at: must be a UTC timestamp"),
        ({"schema": "arcaeon-compact:receipt:v2"}, "is not compaction-guard:receipt:v2"),
        ({"extra": 1}, "extra: unexpected field"),
    ],
)
def test_verify_receipt_catches_forged_rows(row: dict[str, Any], edits: dict[str, Any], note: str) -> None:
    assert verify_receipt(row)["ok"] is True
    result = verify_receipt(_resealed(row, **edits))
    assert result["ok"] is False
    assert result["self_consistent"] is False
    assert any(note in message for message in result["notes"]), result["notes"]


def test_verify_receipt_catches_understated_drop_behind_an_introduction(row: dict[str, Any]) -> None:
    """Lowering dropped.bytes alone (the summary hides it) breaks the exact byte equation."""
    assert row["introduced"]["count"] == 1
    forged = _resealed(row, dropped__bytes=row["dropped"]["bytes"] - 40)
    assert verify_receipt(forged)["self_consistent"] is False


def test_verify_receipt_missing_field_is_not_self_consistent(row: dict[str, Any]) -> None:
    del row["dropped"]
    result = verify_receipt(row)
    assert result["self_consistent"] is False
    assert "dropped: missing" in result["notes"]


def test_verify_receipt_unknown_schema_reports_unknown(row: dict[str, Any]) -> None:
    result = verify_receipt(_resealed(row, schema="other:v9"))
    assert (result["schema"], result["understatement_check"]) == ("unknown", "none")


def test_verify_receipt_non_mapping_row_does_not_raise() -> None:
    result = verify_receipt("not a row", TURNS, TURNS)  # type: ignore[arg-type]
    assert result["ok"] is False
    assert result["content"] == "mismatch"


def test_verify_receipt_pre_only_checks_manifest_membership(row: dict[str, Any]) -> None:
    assert verify_receipt(row, pre_content=TURNS)["content"] == "match"
    other = ["something else entirely", *TURNS[1:]]
    result = verify_receipt(row, pre_content=other)
    assert result["content"] == "mismatch"
    assert result["notes"][0].startswith("pre.digest: recomputed")


def test_verify_receipt_pre_only_flags_a_manifest_item_not_in_pre(row: dict[str, Any]) -> None:
    forged = _resealed(row)
    forged["dropped"]["items"][0] = item_digest("never there")
    result = verify_receipt(forged, pre_content=TURNS)
    assert "drop-manifest names 1 item(s) not in the pre content" in result["notes"]


def test_verify_receipt_content_that_cannot_be_digested_mismatches(row: dict[str, Any]) -> None:
    result = verify_receipt(row, pre_content=[object()])
    assert result["content"] == "mismatch"
    assert "pre content cannot be digested" in result["notes"][0]


def test_verify_receipt_post_only_checks_post(row: dict[str, Any]) -> None:
    assert verify_receipt(row, post_content=[TURNS[0], SUMMARY])["content"] == "match"
    assert verify_receipt(row, post_content=[TURNS[0]])["content"] == "mismatch"


def test_verify_chain_accepts_rows_sealed_with_every_item_kind(log: Path) -> None:
    _seal(log, [{"a": [1, 2.5, None]}, "s", b"b", 3], ["s"], annotations={"k": ["v", 1]})
    _seal(log, [], [])
    report = verify_chain(log)
    assert report.ok, report.problems
    assert report.rows == 2
