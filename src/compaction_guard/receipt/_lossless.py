"""The lossless recipe's encoding: any JSON-like value, and what canonical JSON refuses.

A value canonical JSON cannot hold (a lone surrogate, nesting past its depth limit, a
number outside its range) or a framework message object still gets a digest, so a receipt
never makes a compaction impossible. See docs/DESIGN.md, "Receipt keys and the lossless recipe".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from compaction_guard.errors import CanonicalJSONError

__all__ = ["lossless_bytes"]


def lossless_bytes(value: Any, path: str = "$") -> bytes:
    """Return the lossless encoding of a JSON-like value (the lossless recipe).

    Tagged and length-prefixed, walked without recursion: `n`, `t`, `f`; `i<decimal>;`;
    `d<float.hex()>;`; `s<len>:` + UTF-8 with surrogates passed through; `b<len>:` + bytes;
    `[<n>:` + items; `{<n>:` + key/value pairs sorted by encoded key; `o<len>:` + the
    class's dotted name + `{...` for a pydantic model (its JSON dump) or a dataclass (its
    fields). Raises CanonicalJSONError naming the path for a cycle, a non-str key or
    another type.
    """
    out: list[bytes] = []
    stack: list[tuple[Any, str, bool]] = [(value, path, False)]
    open_ids: set[int] = set()
    while stack:
        item, where, leaving = stack.pop()
        if leaving:
            open_ids.discard(id(item))
            continue
        scalar = _lossless_scalar(item)
        if scalar is not None:
            out.append(scalar)
            continue
        header, children = _lossless_node(item, where)
        if id(item) in open_ids:
            raise CanonicalJSONError(where, "the value contains itself (a cycle)")
        open_ids.add(id(item))
        out.append(header)
        stack.append((item, where, True))
        stack.extend((child, child_where, False) for child, child_where in reversed(children))
    return b"".join(out)


def _lossless_scalar(item: Any) -> bytes | None:  # noqa: PLR0911 - one return per type
    if item is None:
        return b"n"
    if item is True or item is False:
        return b"t" if item else b"f"
    if isinstance(item, int):
        return b"i%d;" % item
    if isinstance(item, float):
        return b"d" + float.hex(item).encode("ascii") + b";"
    if isinstance(item, str):
        data = item.encode("utf-8", "surrogatepass")
        return b"s%d:" % len(data) + data
    if isinstance(item, bytes | bytearray | memoryview):
        data = bytes(item)
        return b"b%d:" % len(data) + data
    return None


def _lossless_node(item: Any, where: str) -> tuple[bytes, list[tuple[Any, str]]]:
    """Return a container's header and its children; an SDK object is tagged by its class."""
    if isinstance(item, list | tuple):
        return b"[%d:" % len(item), [(child, f"{where}[{i}]") for i, child in enumerate(item)]
    if isinstance(item, Mapping):
        pairs = _mapping_pairs(item, where)
        return b"{%d:" % (len(pairs) // 2), pairs
    fields = _object_fields(item)
    if fields is None:
        raise CanonicalJSONError(where, f"a {type(item).__name__} has no JSON or lossless form")
    name = f"{type(item).__module__}.{type(item).__qualname__}".encode()
    pairs = _mapping_pairs(fields, where)
    return b"o%d:" % len(name) + name + b"{%d:" % (len(pairs) // 2), pairs


def _mapping_pairs(item: Mapping[Any, Any], where: str) -> list[tuple[Any, str]]:
    keys = list(item)
    if not all(isinstance(k, str) for k in keys):
        raise CanonicalJSONError(where, "object keys must be strings")
    pairs: list[tuple[Any, str]] = []
    for k in sorted(keys, key=lambda k: k.encode("utf-8", "surrogatepass")):
        pairs += [(k, f"{where}.{k}"), (item[k], f"{where}.{k}")]
    return pairs


def _object_fields(item: Any) -> Mapping[str, Any] | None:
    """Return the fields of a pydantic model (`model_dump(mode="json")`) or a dataclass.

    Framework messages (LangChain, Anthropic, pydantic-ai) are such objects; hashing them by
    class and fields lets a receipt cover a context the guard can render.
    """
    dump = getattr(item, "model_dump", None)
    if callable(dump) and not isinstance(item, type):
        dumped = dump(mode="json")
        return dumped if isinstance(dumped, Mapping) else None
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return {f.name: getattr(item, f.name) for f in dataclasses.fields(item)}
    return None
