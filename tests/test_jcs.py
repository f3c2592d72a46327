import json
import struct
import sys
from enum import IntEnum, StrEnum
from typing import Any

import pytest

from compaction_guard.receipt._canonical_json import (
    MAX_DEPTH,
    MAX_SAFE_INTEGER,
    CanonicalJSONError,
    dumps,
    format_number,
    loads,
    sort_keys,
)

# RFC 8785 Appendix B: IEEE-754 bit patterns and their canonical text.
APPENDIX_B = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


def _double(bits: str) -> float:
    number: float = struct.unpack(">d", bytes.fromhex(bits))[0]
    return number


@pytest.mark.parametrize(("bits", "expected"), APPENDIX_B)
def test_format_number_matches_rfc8785_appendix_b(bits: str, expected: str) -> None:
    assert format_number(_double(bits)) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1.0, b"1"), (-0.0, b"0"), (1e16, b"10000000000000000"), (1e-7, b"1e-7"), (1e20, b"100000000000000000000")],
)
def test_dumps_differs_from_json_sort_keys_where_jcs_requires(value: float, expected: bytes) -> None:
    assert dumps(value) == expected
    assert json.dumps(value).encode() != expected


def test_dumps_rfc8785_section_3_2_2_example() -> None:
    text = (
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
        ' "literals": [null, true, false]}'
    )
    expected = (
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    )
    assert dumps(loads(text)) == expected.encode("utf-8")


def test_sort_keys_orders_by_utf16_code_units() -> None:
    keys = ["\u20ac", "\r", "\ufb33", "1", "\U0001f600", "\u0080", "\u00f6"]
    assert sort_keys(keys) == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]
    assert sorted(keys) != sort_keys(keys)  # code point order puts the emoji last


def test_dumps_sorts_nested_keys_and_drops_whitespace() -> None:
    assert dumps({"b": [1, {"z": None, "a": True}], "a": "x"}) == b'{"a":"x","b":[1,{"a":true,"z":null}]}'


def test_dumps_escapes_controls_as_rfc8785() -> None:
    assert dumps('\x00\x1f\b\t\n\f\r"\\\x7f\u2028') == b'"\\u0000\\u001f\\b\\t\\n\\f\\r\\"\\\\\x7f\xe2\x80\xa8"'


def test_dumps_writes_non_ascii_as_utf8() -> None:
    assert dumps("é😀") == '"é😀"'.encode()


def test_dumps_accepts_enum_subclasses_as_their_values() -> None:
    class Colour(StrEnum):
        RED = "red"

    class Level(IntEnum):
        HIGH = 3

    assert dumps({"c": Colour.RED, "l": Level.HIGH, "t": (1, 2)}) == b'{"c":"red","l":3,"t":[1,2]}'


@pytest.mark.parametrize(
    ("call", "value", "path", "reason"),
    [
        (dumps, {"a": [1, float("nan")]}, "$.a[1]", "nan"),
        (dumps, {"a": float("inf")}, "$.a", "inf"),
        (dumps, {"a": {"b c": "\ud800"}}, '$.a["b c"]', "lone surrogate"),
        (dumps, [MAX_SAFE_INTEGER + 1], "$[0]", "beyond 2**53"),
        (dumps, {"x": {1: "one"}}, "$.x", "JSON keys are strings"),
        (dumps, {"s": {1, 2}}, "$.s", "set is not a JSON type"),
        (dumps, {"k\udc00": 1}, "$", "lone surrogate"),
        (loads, '{"a":1,"a":2}', "$", "duplicate key 'a'"),
        (loads, '{"a":{"b":[1,{"c":1,"c":1}]}}', "$.a.b[1]", "duplicate key 'c'"),
        (loads, '{"a":NaN}', "$.a", "NaN"),
        (loads, "[1,-Infinity]", "$[1]", "-Infinity"),
        (loads, '{"n":9007199254740992}', "$.n", "beyond 2**53"),
        (loads, '{"n":' + "9" * 5000 + "}", "$.n", "beyond 2**53"),
    ],
)
def test_jcs_refuses_naming_the_path(call: Any, value: object, path: str, reason: str) -> None:
    with pytest.raises(CanonicalJSONError) as caught:
        call(value)
    assert caught.value.path == path
    assert reason in caught.value.reason


def test_dumps_accepts_the_largest_safe_integers() -> None:
    assert dumps([MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER]) == b"[9007199254740991,-9007199254740991]"


def test_dumps_refuses_nesting_deeper_than_max_depth() -> None:
    value: object = []
    for _ in range(MAX_DEPTH + 1):
        value = [value]
    with pytest.raises(CanonicalJSONError, match="nested deeper"):
        dumps(value)


def test_loads_refuses_float_overflow() -> None:
    with pytest.raises(CanonicalJSONError, match="not a JSON number"):
        loads("[1e400]")


@pytest.mark.parametrize("text", ['{"a":1e400x}', "[1e400 2]", '{"a":1,"a":2'])
def test_loads_reports_a_refusal_before_a_later_syntax_error_as_not_json(text: str) -> None:
    # A receipt row whose hex log_id lost its opening quote reads as '79e348af...':
    # the strict pass refuses the overflowing number before it meets the syntax
    # error, and the text must still be reported as a CanonicalJSONError.
    with pytest.raises(CanonicalJSONError, match="not JSON"):
        loads(text)


def test_loads_refuses_invalid_utf8_with_the_offset() -> None:
    with pytest.raises(CanonicalJSONError, match="invalid UTF-8 at byte 2"):
        loads(b'["\xff"]')


def test_loads_reports_syntax_errors_with_the_position() -> None:
    with pytest.raises(CanonicalJSONError, match="at character 5"):
        loads('{"a":}')


def test_loads_refuses_deep_nesting_without_recursion_error() -> None:
    depth = sys.getrecursionlimit() * 20
    with pytest.raises(CanonicalJSONError, match="nested deeper"):
        loads("[" * depth + "]" * depth)


def test_loads_then_dumps_round_trips_canonical_text() -> None:
    text = b'{"a":[1,2.5,"x",null,true,false,{}],"b":{"c":"\\u0001"}}'
    assert dumps(loads(text)) == text
