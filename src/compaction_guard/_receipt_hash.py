"""How receipts hash: recipes, hash domains, per-item digests, the drop split, the receipt digest.

See DESIGN.md "receipt: promises". Row checks that use these are in `_receipt_verify`.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import Counter
from typing import TYPE_CHECKING, Any

from compaction_guard import _jcs
from compaction_guard._chain_row import RAW_RECIPE, object_chunks
from compaction_guard.errors import CanonicalJSONError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = [
    "CORE_FIELDS",
    "ITEMS_RECIPE",
    "JCS_RECIPE",
    "OPTIONAL_FIELDS",
    "RECEIPT_RECIPE",
    "RECEIPT_SCHEMA",
    "Items",
    "Split",
    "key_string",
    "manifest_chunks",
    "receipt_digest",
]

RECEIPT_SCHEMA = "compaction-guard:receipt:v1"
JCS_RECIPE = "sha256:jcs:v1:"
ITEMS_RECIPE = "sha256:items:v1:"
RECEIPT_RECIPE = "sha256:receipt:v1:"
# Hash domains (the per-item digests stay plain SHA-256 so anyone can recompute them).
DOMAIN_ITEMS = b"compaction-guard/items/v1\n"
DOMAIN_RECEIPT = b"compaction-guard/receipt/v1\n"
CORE_FIELDS = ("schema", "pre", "post", "dropped", "introduced", "compactor", "method", "opened_at")
OPTIONAL_FIELDS = ("annotations",)
_MANIFEST_CHUNK = 16384


class Items:
    """Per-item digests of one side: 32 raw bytes (`b"j"` prefixed for JSON items) and sizes."""

    __slots__ = ("count", "json_items", "keys", "sizes", "total")

    def __init__(self, content: Any) -> None:
        items = content if isinstance(content, list | tuple) else [content]
        self.json_items = 0
        if set(map(type, items)) == {str}:
            self.keys, self.sizes = _digest_strings(items)
        else:
            self.keys, self.sizes = self._digest_any(items)
        self.count = len(self.keys)
        self.total = sum(self.sizes)

    def _digest_any(self, items: list[Any] | tuple[Any, ...]) -> tuple[list[bytes], array[int]]:
        sha = hashlib.sha256
        keys: list[bytes] = []
        sizes = array("Q")
        for index, item in enumerate(items):
            if type(item) is bytes:
                data, is_json = item, False
            else:
                data, is_json = _payload(item, index)
            self.json_items += is_json
            keys.append(b"j" + sha(data).digest() if is_json else sha(data).digest())
            sizes.append(len(data))
        return keys, sizes

    def digest(self) -> str:
        """Digest the ordered items: one recipe byte (r or j) and 32 digest bytes per item."""
        hasher = hashlib.sha256(DOMAIN_ITEMS)
        if not self.json_items:
            if self.keys:
                hasher.update(b"r")
                hasher.update(b"r".join(self.keys))
        else:
            hasher.update(b"".join(k if len(k) == 33 else b"r" + k for k in self.keys))  # noqa: PLR2004
        return ITEMS_RECIPE + hasher.hexdigest()

    def strings(self, indices: Iterable[int]) -> list[str]:
        """Return the item digest strings at `indices`, in order."""
        keys = self.keys
        if not self.json_items:
            return [RAW_RECIPE + keys[i].hex() for i in indices]
        return [key_string(keys[i]) for i in indices]


def _digest_strings(items: list[str] | tuple[str, ...]) -> tuple[list[bytes], array[int]]:
    """Digest plain strings (the common case) without per-item dispatch."""
    sha = hashlib.sha256
    try:
        keys = [sha(item.encode("utf-8")).digest() for item in items]
    except UnicodeEncodeError:
        for index, item in enumerate(items):
            _payload(item, index)  # raises, naming the item
        raise  # pragma: no cover - one item failed to encode above
    # An ASCII str is as long in UTF-8 as in code points (isascii() is O(1)).
    sizes = array("Q", [len(item) if item.isascii() else len(item.encode()) for item in items])
    return keys, sizes


def key_string(key: bytes) -> str:
    """Return the self-describing digest string of one item key."""
    return JCS_RECIPE + key[1:].hex() if len(key) == 33 else RAW_RECIPE + key.hex()  # noqa: PLR2004


def _payload(item: Any, index: int) -> tuple[bytes, bool]:
    if isinstance(item, str):
        try:
            return str.encode(item, "utf-8"), False
        except UnicodeEncodeError as exc:
            reason = f"string holds a lone surrogate at index {exc.start}"
            raise CanonicalJSONError(f"$[{index}]", reason) from None
    if isinstance(item, bytes | bytearray | memoryview):
        return bytes(item), False
    try:
        return _jcs.dumps(item), True
    except CanonicalJSONError as exc:
        raise CanonicalJSONError(f"$[{index}]{exc.path[1:]}", exc.reason) from None


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


def receipt_digest(members: Mapping[str, list[bytes]]) -> str:
    """Digest the canonical encoding of the core and optional fields among `members`."""
    hasher = hashlib.sha256(DOMAIN_RECEIPT)
    core = {key: members[key] for key in (*CORE_FIELDS, *OPTIONAL_FIELDS) if key in members}
    for chunk in object_chunks(core):
        hasher.update(chunk)
    return RECEIPT_RECIPE + hasher.hexdigest()
