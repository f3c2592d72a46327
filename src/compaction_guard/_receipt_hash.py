"""How receipts hash: recipes, hash domains, per-item digests, the drop split, the receipt digest.

See docs/DESIGN.md, "Receipts" and docs/DESIGN.md, "Receipt keys and the lossless recipe".
Row checks that use these are in `_receipt_verify`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
from array import array
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compaction_guard import _jcs
from compaction_guard._chain_row import RAW_RECIPE, keyed, new_hasher, object_chunks
from compaction_guard.errors import CanonicalJSONError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

__all__ = [
    "CORE_FIELDS",
    "ITEMS_RECIPE",
    "JCS_RECIPE",
    "LOSSLESS_RECIPE",
    "OPTIONAL_FIELDS",
    "RECEIPT_RECIPE",
    "RECEIPT_SCHEMA",
    "Items",
    "Split",
    "item_recipes",
    "key_string",
    "lossless_bytes",
    "manifest_chunks",
    "receipt_digest",
]

RECEIPT_SCHEMA = "compaction-guard:receipt:v2"
JCS_RECIPE = "sha256:jcs:v1:"
LOSSLESS_RECIPE = "sha256:lossless:v1:"
ITEMS_RECIPE = "sha256:items:v1:"
RECEIPT_RECIPE = "sha256:receipt:v1:"
# Hash domains (unkeyed per-item digests stay plain SHA-256 so anyone can recompute them).
DOMAIN_ITEMS = b"compaction-guard/items/v1\n"
DOMAIN_RECEIPT = b"compaction-guard/receipt/v1\n"
CORE_FIELDS = ("schema", "pre", "post", "dropped", "introduced", "compactor", "method", "opened_at")
OPTIONAL_FIELDS = ("annotations",)
_MANIFEST_CHUNK = 16384
# An item key is 32 digest bytes (raw recipe) or a tag byte and 32 digest bytes.
_TAGGED = 33
_TAG_RECIPES = {ord("j"): JCS_RECIPE, ord("l"): LOSSLESS_RECIPE}


def item_recipes(key: bytes | None) -> tuple[str, ...]:
    """Return the recipe prefixes a drop-manifest item may carry under `key`."""
    return tuple(keyed(r, key) for r in (RAW_RECIPE, JCS_RECIPE, LOSSLESS_RECIPE))


class Items:
    """Per-item digests of one side and their sizes; HMAC-SHA256 digests under `key`.

    A key is 32 raw bytes (str/bytes) or 33: `b"j"` (canonical JSON) or `b"l"` (lossless)
    and 32 bytes.
    """

    __slots__ = ("count", "key", "keys", "sizes", "tagged", "total")

    def __init__(self, content: Any, key: bytes | None = None) -> None:
        items = content if isinstance(content, list | tuple) else [content]
        self.key = key
        self.tagged = 0
        try:
            if set(map(type, items)) != {str}:
                raise _Surrogate  # noqa: TRY301 - not only str: the general path
            self.keys, self.sizes = _digest_strings(items, key)
        except _Surrogate:
            self.keys, self.sizes = self._digest_any(items)
        self.count = len(self.keys)
        self.total = sum(self.sizes)

    def _digest_any(self, items: list[Any] | tuple[Any, ...]) -> tuple[list[bytes], array[int]]:
        keys: list[bytes] = []
        sizes = array("Q")
        digest = _item_hash(self.key)
        for index, item in enumerate(items):
            data, tag = (item, b"") if type(item) is bytes else _payload(item, index)
            self.tagged += bool(tag)
            keys.append(tag + digest(data))
            sizes.append(len(data))
        return keys, sizes

    def digest(self) -> str:
        """Digest the ordered items: one recipe byte (r, j or l) and 32 digest bytes per item."""
        hasher = new_hasher(DOMAIN_ITEMS, self.key)
        if not self.tagged:
            if self.keys:
                hasher.update(b"r")
                hasher.update(b"r".join(self.keys))
        else:
            hasher.update(b"".join(k if len(k) == _TAGGED else b"r" + k for k in self.keys))
        return keyed(ITEMS_RECIPE, self.key) + hasher.hexdigest()

    def strings(self, indices: Iterable[int]) -> list[str]:
        """Return the item digest strings at `indices`, in order."""
        keys = self.keys
        if not self.tagged:
            raw = keyed(RAW_RECIPE, self.key)
            return [raw + keys[i].hex() for i in indices]
        return [key_string(keys[i], self.key) for i in indices]


def _item_hash(key: bytes | None) -> Callable[[bytes], bytes]:
    if key is None:
        return lambda data: hashlib.sha256(data).digest()
    return lambda data: hmac.digest(key, data, "sha256")


def _digest_strings(
    items: list[str] | tuple[str, ...], key: bytes | None
) -> tuple[list[bytes], array[int]]:
    """Digest plain strings (the common case) without per-item dispatch."""
    try:
        if key is None:
            sha = hashlib.sha256
            keys = [sha(item.encode("utf-8")).digest() for item in items]
        else:
            keys = [hmac.digest(key, item.encode("utf-8"), "sha256") for item in items]
    except UnicodeEncodeError:
        raise _Surrogate from None
    # An ASCII str is as long in UTF-8 as in code points (isascii() is O(1)).
    sizes = array("Q", [len(item) if item.isascii() else len(item.encode()) for item in items])
    return keys, sizes


class _Surrogate(Exception):  # noqa: N818 - private control flow, never escapes Items
    """Not a list of UTF-8 encodable str: the general path digests it item by item."""


def key_string(item_key: bytes, key: bytes | None = None) -> str:
    """Return the self-describing digest string of one item key (keyed recipe under `key`)."""
    if len(item_key) == _TAGGED:
        return keyed(_TAG_RECIPES[item_key[0]], key) + item_key[1:].hex()
    return keyed(RAW_RECIPE, key) + item_key.hex()


def _payload(item: Any, index: int) -> tuple[bytes, bytes]:
    """Return an item's hashed bytes and its tag: b"" raw, b"j" canonical JSON, b"l" lossless.

    A value canonical JSON refuses (a lone surrogate, nesting past its depth limit, a
    number outside its range) takes the lossless recipe; only a cycle or a type neither
    recipe knows raises CanonicalJSONError naming the item.
    """
    if isinstance(item, str):
        try:
            return str.encode(item, "utf-8"), b""
        except UnicodeEncodeError:
            return lossless_bytes(item, f"$[{index}]"), b"l"
    if isinstance(item, bytes | bytearray | memoryview):
        return bytes(item), b""
    try:
        return _jcs.dumps(item), b"j"
    except CanonicalJSONError:
        return lossless_bytes(item, f"$[{index}]"), b"l"


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


class Split:
    """pre vs post as multisets: which pre items were dropped, and the totals."""

    def __init__(self, pre: Items, post: Items) -> None:
        remaining = Counter(post.keys)
        get = remaining.get
        dropped = array("Q")  # 8 bytes per index, not a 36-byte int object
        add = dropped.append
        for index, key in enumerate(pre.keys):
            left = get(key)
            if left:
                remaining[key] = left - 1
            else:
                add(index)
        sizes = pre.sizes
        self.dropped = dropped
        self.dropped_bytes = sum(sizes[i] for i in dropped)
        kept = pre.count - len(dropped)
        self.introduced_count = post.count - kept
        self.introduced_bytes = post.total - (pre.total - self.dropped_bytes)


def manifest_chunks(dropped: dict[str, Any]) -> list[bytes]:
    """Encode {"bytes", "count", "items"} canonically in chunks (items need no escaping)."""
    items: list[str] = dropped["items"]
    chunks = [b'{"bytes":%d,"count":%d,"items":[' % (dropped["bytes"], dropped["count"])]
    for start in range(0, len(items), _MANIFEST_CHUNK):
        text = '","'.join(items[start : start + _MANIFEST_CHUNK])
        chunks.append(f'{"," if start else ""}"{text}"'.encode("ascii"))
    chunks.append(b"]}")
    return chunks


def receipt_digest(members: Mapping[str, list[bytes]], key: bytes | None = None) -> str:
    """Digest the canonical encoding of the core and optional fields (HMAC under `key`)."""
    hasher = new_hasher(DOMAIN_RECEIPT, key)
    core = {name: members[name] for name in (*CORE_FIELDS, *OPTIONAL_FIELDS) if name in members}
    for chunk in object_chunks(core):
        hasher.update(chunk)
    return keyed(RECEIPT_RECIPE, key) + hasher.hexdigest()
