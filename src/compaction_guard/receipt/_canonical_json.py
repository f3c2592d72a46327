"""RFC 8785 canonical JSON (JCS) in the stdlib: the one encoding receipts hash and chain.

Values encode with `dumps` and read back strictly with `loads`; an object whose members are
already encoded (a row being written, perhaps in chunks) encodes with `object_chunks`.
Refusals name the JSON path of the offending value. See docs/DESIGN.md, "Receipts".
"""

from __future__ import annotations

import functools
import json
import math
import re
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from compaction_guard.errors import CanonicalJSONError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = [
    "MAX_DEPTH",
    "MAX_SAFE_INTEGER",
    "CanonicalJSONError",
    "Members",
    "dumps",
    "format_number",
    "loads",
    "object_chunks",
    "sort_keys",
]

MAX_SAFE_INTEGER = 2**53 - 1
"""Largest integer every JSON reader holds exactly (I-JSON, RFC 7493 section 2.2)."""
MAX_DEPTH = 128
"""Deepest nesting of arrays and objects accepted, so no input can exhaust the stack."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Members = dict[str, list[bytes]]
"""An object being written: key -> canonical encoding of its value, possibly in chunks."""


class _RefusedError(Exception):
    """Raised by the fast paths; the slow path then finds and names the problem."""


def dumps(value: Any) -> bytes:
    """Return the RFC 8785 canonical UTF-8 bytes of `value`.

    Accepts dict (str keys), list, tuple, str, int, float, bool and None, subclasses
    included. Raises CanonicalJSONError naming the path for NaN, infinities, lone
    surrogates, integers beyond +/-(2**53 - 1), non-string keys, other types, and
    nesting deeper than MAX_DEPTH.
    """
    parts: list[str] = []
    try:
        _encode(value, parts, 0)
        return "".join(parts).encode("utf-8")
    except (_RefusedError, TypeError, ValueError, RecursionError):
        pass
    raise _locate(value)


def sort_keys(keys: Iterable[str]) -> list[str]:
    """Sort object keys by their UTF-16 code units, as RFC 8785 section 3.2.3 orders them."""
    keys = list(keys)
    if "".join(keys).isascii():
        return sorted(keys)
    return sorted(keys, key=_utf16_units)


def object_chunks(members: Mapping[str, list[bytes]], *, without: str = "") -> list[bytes]:
    """Return the canonical encoding of an object from its encoded members, in key order."""
    chunks: list[bytes] = []
    opening = True
    for key in sort_keys([key for key in members if key != without]):
        chunks.append(_member_prefix(key, opening=opening))
        chunks.extend(members[key])
        opening = False
    chunks.append(b"}" if chunks else b"{}")
    return chunks


@functools.lru_cache(maxsize=512)
def _member_prefix(key: str, *, opening: bool) -> bytes:
    return (b"{" if opening else b",") + dumps(key) + b":"


def format_number(number: float) -> str:
    """Format a finite number as ECMAScript's Number.prototype.toString does (RFC 8785 3.2.2.3)."""
    if not math.isfinite(number):
        raise CanonicalJSONError("$", f"{number!r} is not a JSON number; send it as a string")
    if number == 0:
        return "0"  # also -0.0
    text = float.__repr__(float(number))  # shortest round-trip digits, as ECMAScript picks
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    significant = digits.lstrip("0")
    point -= len(digits) - len(significant)
    significant = significant.rstrip("0")
    count = len(significant)
    if count <= point <= 21:  # noqa: PLR2004 - the ECMAScript cut-over to exponent form
        body = significant + "0" * (point - count)
    elif 0 < point <= 21:  # noqa: PLR2004
        body = significant[:point] + "." + significant[point:]
    elif -6 < point <= 0:  # noqa: PLR2004 - ECMAScript writes 1e-6 plainly, 1e-7 with exponent
        body = "0." + "0" * -point + significant
    else:
        power = point - 1
        head = significant[0] + ("." + significant[1:] if count > 1 else "")
        body = f"{head}e{'+' if power >= 0 else '-'}{abs(power)}"
    return sign + body


def loads(data: bytes | str) -> Any:
    """Parse strict JSON text: refuse duplicate keys, NaN/Infinity and integers beyond 2**53 - 1.

    Raises CanonicalJSONError naming the path (or the character offset for syntax errors).
    Deep nesting is refused with the same error, never RecursionError.
    """
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CanonicalJSONError("$", f"invalid UTF-8 at byte {exc.start}") from None
    else:
        text = data
    try:
        return json.loads(
            text,
            object_pairs_hook=_strict_object,
            parse_constant=_refuse_constant,
            parse_int=_strict_int,
            parse_float=_strict_float,
        )
    except _RefusedError:
        pass
    except json.JSONDecodeError as exc:
        raise CanonicalJSONError("$", f"not JSON: {exc.msg} at character {exc.pos}") from None
    except RecursionError:
        raise CanonicalJSONError("$", f"nested deeper than {MAX_DEPTH} levels") from None
    raise _locate_in_text(text)


def _encode(value: Any, out: list[str], depth: int) -> None:  # noqa: C901, PLR0912 - one branch per JSON type
    kind = type(value)
    if kind is str:
        out.append(encode_basestring(value))
    elif kind is dict:
        _encode_object(value, out, depth)
    elif kind is list or kind is tuple:
        _encode_array(value, out, depth)
    elif kind is int:
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            raise _RefusedError
        out.append(int.__repr__(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif kind is float:
        out.append(format_number(value))
    elif isinstance(value, str):
        out.append(encode_basestring(value))
    elif isinstance(value, dict):
        _encode_object(value, out, depth)
    elif isinstance(value, list | tuple):
        _encode_array(value, out, depth)
    elif isinstance(value, int) and not isinstance(value, bool):
        _encode(int(value), out, depth)
    elif isinstance(value, float):
        out.append(format_number(value))
    else:
        raise _RefusedError


def _encode_object(value: dict[Any, Any], out: list[str], depth: int) -> None:
    if depth >= MAX_DEPTH:
        raise _RefusedError
    if not value:
        out.append("{}")
        return
    separator = "{"
    for key in sort_keys(list(value)):
        out.append(separator)
        out.append(encode_basestring(key))
        out.append(":")
        _encode(value[key], out, depth + 1)
        separator = ","
    out.append("}")


def _encode_array(value: list[Any] | tuple[Any, ...], out: list[str], depth: int) -> None:
    if depth >= MAX_DEPTH:
        raise _RefusedError
    if not value:
        out.append("[]")
        return
    try:  # most arrays in receipts are lists of digest strings
        out.append("[" + ",".join(map(encode_basestring, value)) + "]")
    except TypeError:  # not all strings: encode item by item
        pass
    else:
        return
    separator = "["
    for item in value:
        out.append(separator)
        _encode(item, out, depth + 1)
        separator = ","
    out.append("]")


def _utf16_units(key: str) -> bytes:
    return key.encode("utf-16-be")


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _RefusedError
    return result


def _refuse_constant(_name: str) -> Any:
    raise _RefusedError


def _strict_int(text: str) -> int:
    try:
        number = int(text)
    except ValueError:  # more digits than int() will read
        raise _RefusedError from None
    if not -MAX_SAFE_INTEGER <= number <= MAX_SAFE_INTEGER:
        raise _RefusedError
    return number


def _strict_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):  # 1e400 reads as infinity
        raise _RefusedError
    return number


class _Pairs(list[tuple[str, Any]]):
    """An object as parsed, before duplicate keys are checked."""


class _Constant(str):
    """A NaN / Infinity / -Infinity literal met while parsing."""

    __slots__ = ()


class _BigInt(str):
    """An integer literal outside the safe range, kept as its text."""

    __slots__ = ()


def _lenient_int(text: str) -> int | _BigInt:
    if len(text.lstrip("-")) > 16:  # noqa: PLR2004 - 2**53 has 16 digits
        return _BigInt(text)
    number = int(text)
    return number if -MAX_SAFE_INTEGER <= number <= MAX_SAFE_INTEGER else _BigInt(text)


def _locate_in_text(text: str) -> CanonicalJSONError:
    # The strict pass stops at the first refused value, which may come before a
    # syntax error further on ('"log_id":79e348af...' once its quote is lost):
    # the lenient pass then meets that error, and the text is simply not JSON.
    try:
        parsed = json.loads(
            text, object_pairs_hook=_Pairs, parse_constant=_Constant, parse_int=_lenient_int
        )
    except json.JSONDecodeError as exc:
        return CanonicalJSONError("$", f"not JSON: {exc.msg} at character {exc.pos}")
    return _locate(parsed)


def _locate(value: Any) -> CanonicalJSONError:
    """Walk `value` (iteratively: it may be deep) and describe its first refusal."""
    stack: list[tuple[Any, str, int]] = [(value, "$", 0)]
    while stack:
        item, path, depth = stack.pop()
        reason = _refusal(item, depth)
        if reason is not None:
            return CanonicalJSONError(path, reason)
        children = _children(item, path)
        stack.extend((child, child_path, depth + 1) for child, child_path in reversed(children))
    return CanonicalJSONError("$", "value could not be encoded")  # pragma: no cover


def _refusal(item: Any, depth: int) -> str | None:  # noqa: C901, PLR0911 - one reason per rule
    if isinstance(item, _Constant):
        return f"{item} is not a JSON number; send it as a string"
    if isinstance(item, _BigInt):
        return f"integer {item[:24]} is beyond 2**53 - 1; send it as a string"
    if isinstance(item, str):
        return _string_refusal(item, "string")
    if isinstance(item, bool) or item is None:
        return None
    if isinstance(item, int):
        if -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
            return None
        return f"integer {item} is beyond 2**53 - 1; send it as a string"
    if isinstance(item, float):
        return None if math.isfinite(item) else f"{item!r} is not a JSON number"
    if isinstance(item, dict | list | tuple):
        if depth >= MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels"
        if isinstance(item, _Pairs):
            return _pairs_refusal(item)
        if isinstance(item, dict):
            return _keys_refusal(item)
        return None
    return f"{type(item).__name__} is not a JSON type; convert it to str, list or dict first"


def _string_refusal(text: str, what: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"{what} holds a lone surrogate at index {exc.start}"
    return None


def _pairs_refusal(pairs: _Pairs) -> str | None:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return f"duplicate key {key!r}"
        seen.add(key)
        reason = _string_refusal(key, f"key {key!r}")
        if reason is not None:
            return reason
    return None


def _keys_refusal(mapping: dict[Any, Any]) -> str | None:
    for key in mapping:
        if not isinstance(key, str):
            return f"key {key!r} is a {type(key).__name__}; JSON keys are strings"
        reason = _string_refusal(key, f"key {key!r}")
        if reason is not None:
            return reason
    return None


def _children(item: Any, path: str) -> list[tuple[Any, str]]:
    if isinstance(item, _Pairs):
        return [(child, _member_path(path, key)) for key, child in item]
    if isinstance(item, dict):
        return [(child, _member_path(path, key)) for key, child in item.items()]
    if isinstance(item, list | tuple):
        return [(child, f"{path}[{index}]") for index, child in enumerate(item)]
    return []


def _member_path(path: str, key: str) -> str:
    if _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key)}]"
