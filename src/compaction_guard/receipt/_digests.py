"""How receipts hash: recipes, hash domains and keys; item, items, receipt and chain digests.

Every digest names its recipe (`sha256:<recipe>:v1:`, `sha256:hmac-<recipe>:v1:` under a
key), and each kind hashes under its own domain, so no digest can stand for another kind.
See docs/DESIGN.md, "Receipts" and docs/DESIGN.md, "Receipt keys and the lossless recipe".
"""

from __future__ import annotations

import hashlib
import hmac
import os
from array import array
from collections import Counter
from typing import TYPE_CHECKING, Any, Protocol

from compaction_guard.errors import CanonicalJSONError, ReceiptKeyError
from compaction_guard.receipt._canonical_json import dumps, object_chunks
from compaction_guard.receipt._lossless import lossless_bytes

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

__all__ = [
    "CORE_FIELDS",
    "GENESIS_RECIPE",
    "ITEMS_RECIPE",
    "JCS_RECIPE",
    "KEYED_PREFIX",
    "LOSSLESS_RECIPE",
    "OPTIONAL_FIELDS",
    "RAW_RECIPE",
    "RECEIPT_RECIPE",
    "RECEIPT_SCHEMA",
    "ROW_RECIPE",
    "Hasher",
    "Items",
    "Split",
    "chain_digest",
    "chain_recipe",
    "genesis_prev",
    "item_recipes",
    "key_string",
    "keyed",
    "manifest_chunks",
    "new_hasher",
    "receipt_digest",
    "resolve_key",
]

RECEIPT_SCHEMA = "compaction-guard:receipt:v2"
RAW_RECIPE = "sha256:raw:v1:"
JCS_RECIPE = "sha256:jcs:v1:"
LOSSLESS_RECIPE = "sha256:lossless:v1:"
ITEMS_RECIPE = "sha256:items:v1:"
RECEIPT_RECIPE = "sha256:receipt:v1:"
ROW_RECIPE = "sha256:row:v1:"
GENESIS_RECIPE = "sha256:genesis:v1:"
KEYED_PREFIX = "sha256:hmac-"
"""Keyed recipes are the plain ones with `hmac-` before the name: HMAC-SHA256 under a key."""
# Hash domains: a digest of one kind can never equal a digest of another kind. Unkeyed
# per-item digests stay plain SHA-256 so anyone holding an item can recompute them.
DOMAIN_ITEMS = b"compaction-guard/items/v1\n"
DOMAIN_RECEIPT = b"compaction-guard/receipt/v1\n"
DOMAIN_ROW = b"compaction-guard/row/v1\n"
DOMAIN_GENESIS = b"compaction-guard/genesis/v1\n"
CORE_FIELDS = ("schema", "pre", "post", "dropped", "introduced", "compactor", "method", "opened_at")
OPTIONAL_FIELDS = ("annotations",)
_MANIFEST_CHUNK = 16384
# An item key is 32 digest bytes (raw recipe) or a tag byte and 32 digest bytes.
_TAGGED = 33
_TAG_RECIPES = {ord("j"): JCS_RECIPE, ord("l"): LOSSLESS_RECIPE}


def resolve_key(key: object) -> bytes | None:
    """Return the receipt key: bytes as given, a str names the environment variable holding it.

    Raises ReceiptKeyError for empty bytes or an unset or empty variable, TypeError otherwise.
    """
    if key is None:
        return None
    if isinstance(key, bytes | bytearray):
        if not key:
            raise ReceiptKeyError("the receipt key is empty; pass at least 16 random bytes")
        return bytes(key)
    if isinstance(key, str):
        value = os.environ.get(key, "")
        if not value:
            raise ReceiptKeyError(
                f"the receipt key variable {key!r} is not set or empty; set it to a secret "
                "(e.g. 32 random hex digits) or pass key=b'...' directly"
            )
        return value.encode("utf-8")
    kind = type(key).__name__
    raise TypeError(f"key must be bytes or the name of an environment variable, not {kind}")


def keyed(recipe: str, key: bytes | None) -> str:
    """Return `recipe` as written under `key`: `sha256:hmac-<name>:v1:` when keyed."""
    return KEYED_PREFIX + recipe[len("sha256:") :] if key else recipe


class Hasher(Protocol):
    """A running hash: `hashlib.sha256` unkeyed, `hmac.HMAC` over SHA-256 keyed."""

    def update(self, data: bytes, /) -> None:
        """Feed `data`."""

    def hexdigest(self) -> str:
        """Return the digest so far in hex."""
        ...


def new_hasher(domain: bytes, key: bytes | None) -> Hasher:
    """Return a running SHA-256 (or HMAC-SHA256 under `key`) already fed the domain separator."""
    if key:
        return hmac.new(key, domain, hashlib.sha256)
    return hashlib.sha256(domain)


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
        return dumps(item), b"j"
    except CanonicalJSONError:
        return lossless_bytes(item, f"$[{index}]"), b"l"


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


def chain_recipe(key: bytes | None) -> str:
    """Return the recipe prefix of the `chain` digest under `key`."""
    return keyed(ROW_RECIPE, key)


def chain_digest(members: Mapping[str, list[bytes]], key: bytes | None = None) -> str:
    """Digest a row over its canonical bytes without the `chain` member (HMAC under `key`)."""
    hasher = new_hasher(DOMAIN_ROW, key)
    for chunk in object_chunks(members, without="chain"):
        hasher.update(chunk)
    return chain_recipe(key) + hasher.hexdigest()


def genesis_prev(log_id: str) -> str:
    """Return the `prev` of row 0, which binds the row to its log's id."""
    return GENESIS_RECIPE + hashlib.sha256(DOMAIN_GENESIS + log_id.encode("ascii")).hexdigest()
