import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compaction_guard.receipt import CompactionReceipt, verify_chain, verify_receipt
from compaction_guard.receipt._canonical_json import dumps, format_number, loads, sort_keys
from tests.support import seal_one

pytestmark = pytest.mark.property

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    # Integral floats past 2**53 are written as integer literals, which the strict reader refuses.
    | st.floats(allow_nan=False, allow_infinity=False).filter(
        lambda f: f != int(f) or abs(f) <= 2**53 - 1
    )
    | st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=6),
                      children, max_size=4),
    max_leaves=12,
)
items = st.text(max_size=20).filter(lambda s: not any(0xD800 <= ord(c) <= 0xDFFF for c in s)) | (
    st.binary(max_size=20) | json_values
)


@st.composite
def compactions(draw: st.DrawFn) -> tuple[list[Any], list[Any]]:
    """A pre list (with repeats) and a post list: a sub-multiset of pre plus new items."""
    pool = draw(st.lists(items, min_size=1, max_size=6))
    pre = draw(st.lists(st.sampled_from(pool), max_size=12))
    kept = draw(st.lists(st.sampled_from(pool), max_size=8)) if pre else []
    introduced = draw(st.lists(items, max_size=3))
    post = kept + introduced
    return pre, draw(st.permutations(post))


def _seal(pre: list[Any], post: list[Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as directory:
        receipt = CompactionReceipt.open(pre)
        receipt.record_kept(post)
        return receipt.seal(Path(directory) / "r.jsonl", compactor="p", method="property")


@given(compactions())
def test_receipt_arithmetic_holds_for_any_compaction(case: tuple[list[Any], list[Any]]) -> None:
    pre, post = case
    row = _seal(pre, post)
    assert row["pre"]["count"] == len(pre)
    assert row["post"]["count"] == len(post)
    for unit in ("count", "bytes"):
        kept = row["pre"][unit] - row["dropped"][unit]
        assert kept >= 0
        assert row["post"][unit] == kept + row["introduced"][unit]
    assert verify_receipt(row)["self_consistent"]


@given(compactions())
def test_receipt_honest_content_matches(case: tuple[list[Any], list[Any]]) -> None:
    pre, post = case
    result = verify_receipt(_seal(pre, post), pre, post)
    assert (result["ok"], result["content"], result["notes"]) == (True, "match", [])


@given(compactions(), st.data())
def test_receipt_any_planted_drop_mismatches(case: tuple[list[Any], list[Any]], data: st.DataObject) -> None:
    pre, post = case
    if not post:
        post = list(pre) or ["only"]
    row = _seal(pre, post)
    index = data.draw(st.integers(min_value=0, max_value=len(post) - 1))
    shipped = post[:index] + post[index + 1 :]
    result = verify_receipt(row, pre, shipped)
    assert result["ok"] is False
    assert result["content"] == "mismatch"


@given(st.lists(st.text(max_size=8), min_size=1, max_size=6), st.data())
def test_receipt_kept_everything_lie_mismatches(pre: list[str], data: st.DataObject) -> None:
    row = _seal(pre, pre)
    index = data.draw(st.integers(min_value=0, max_value=len(pre) - 1))
    result = verify_receipt(row, pre, pre[:index] + pre[index + 1 :])
    assert result["self_consistent"] is True
    assert result["content"] == "mismatch"
    assert any(note.startswith("drop-manifest disagrees") for note in result["notes"])


@pytest.fixture(scope="module")
def small_log(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("flip") / "r.jsonl"
    for index in range(4):
        seal_one(path, f"c{index}")
    return path.read_bytes()


@given(st.data())
def test_receipt_any_byte_flip_names_its_line(small_log: bytes, data: st.DataObject) -> None:
    position = data.draw(st.integers(min_value=0, max_value=len(small_log) - 1))
    replacement = data.draw(st.integers(min_value=0, max_value=255).filter(lambda b: b != small_log[position]))
    mutant = small_log[:position] + bytes([replacement]) + small_log[position + 1 :]
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "r.jsonl"
        path.write_bytes(mutant)
        report = verify_chain(path)
    assert not report.ok
    assert report.problems[0].line_number == small_log[:position].count(b"\n") + 1


@given(json_values)
def test_jcs_output_is_a_fixed_point_and_plain_json(value: Any) -> None:
    encoded = dumps(value)
    assert dumps(loads(encoded)) == encoded
    assert json.loads(encoded) == value or _has_integral_float(value)


@given(st.dictionaries(st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=4), st.integers(0, 9)))
def test_jcs_keys_come_out_in_utf16_order(value: dict[str, int]) -> None:
    pairs = json.loads(dumps(value), object_pairs_hook=lambda p: p)
    assert [key for key, _ in pairs] == sort_keys(value)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_jcs_numbers_round_trip(number: float) -> None:
    assert float(format_number(number)) == number


def _has_integral_float(value: Any) -> bool:
    """1.0 is written as 1 and 1e16 as an integer literal: equal values, other Python types."""
    if isinstance(value, float):
        return math.isfinite(value) and value == int(value)
    if isinstance(value, list):
        return any(_has_integral_float(item) for item in value)
    if isinstance(value, dict):
        return any(_has_integral_float(item) for item in value.values())
    return False
