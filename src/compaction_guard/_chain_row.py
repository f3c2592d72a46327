"""The receipts-log row format that writing and verifying share: recipes, digests, defects.

See docs/DESIGN.md, "Receipts". Rows are RFC 8785 objects, one per newline-ended line.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import re
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from compaction_guard import _jcs
from compaction_guard.errors import ReceiptKeyError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "CHAIN_FIELDS",
    "DOMAIN_GENESIS",
    "DOMAIN_ROW",
    "GENESIS_RECIPE",
    "HEX64",
    "LOG_ID",
    "RAW_RECIPE",
    "RECOVERY_SCHEMA",
    "ROW_RECIPE",
    "SCAN_CHUNK",
    "TIMESTAMP",
    "ChainDefect",
    "Hasher",
    "Members",
    "Problem",
    "chain_digest",
    "chain_recipe",
    "check_digest",
    "genesis_prev",
    "keyed",
    "last_newline",
    "new_hasher",
    "object_chunks",
    "resolve_key",
    "row_chain",
    "row_seq",
    "utc_timestamp",
]

RECOVERY_SCHEMA = "compaction-guard:recovery:v1"
RAW_RECIPE = "sha256:raw:v1:"
ROW_RECIPE = "sha256:row:v1:"
GENESIS_RECIPE = "sha256:genesis:v1:"
KEYED_PREFIX = "sha256:hmac-"
"""Keyed recipes are the plain ones with `hmac-` before the name: HMAC-SHA256 under a key."""
# Hash domains: a row digest can never equal a genesis value or any other digest kind.
DOMAIN_ROW = b"compaction-guard/row/v1\n"
DOMAIN_GENESIS = b"compaction-guard/genesis/v1\n"
CHAIN_FIELDS = frozenset({"seq", "prev", "log_id", "ts", "chain"})
SCAN_CHUNK = 1 << 20

HEX64 = re.compile(r"[0-9a-f]{64}")
LOG_ID = re.compile(r"[0-9a-f]{32}")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z")
# Canonical rows end with these members (no key sorts after them), so the tail names the seq.
_TAIL = re.compile(rb'"schema":"[^"\\\n]*","seq":(0|[1-9][0-9]{0,15}),"ts":"[^"\\\n]*"}\n?\Z')
_CHAIN_MEMBER = re.compile(rb'"chain":"(sha256:(?:hmac-)?row:v1:[0-9a-f]{64})"')

Members = dict[str, list[bytes]]
"""An object being written: key -> canonical encoding of its value, possibly in chunks."""


class ChainDefect(StrEnum):
    """Why a line of a receipts log does not verify (values are stable in JSON and the CLI)."""

    ROW_EDITED = "row-edited"
    ROW_MISSING = "row-missing"
    OUT_OF_ORDER = "out-of-order"
    DUPLICATED = "duplicated"
    LINK_BROKEN = "link-broken"
    GENESIS_MISMATCH = "genesis-mismatch"
    MALFORMED_ROW = "malformed-row"
    UNKNOWN_SCHEMA = "unknown-schema"
    NON_CANONICAL = "non-canonical"
    TORN_TAIL = "torn-tail"
    TRUNCATED = "truncated"
    FORKED = "forked"
    LOG_ID_MISMATCH = "log-id-mismatch"
    EMPTY_LOG = "empty-log"
    MISSING_LOG = "missing-log"
    KEY_REQUIRED = "key-required"
    UNKEYED_ROW = "unkeyed-row"


Problem = tuple[ChainDefect, str]
"""One problem with a row: its defect class and a message that says what was found."""


def utc_timestamp() -> str:
    """Return the current UTC time as `YYYY-MM-DDTHH:MM:SSZ`."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_digest(value: Any, field: str, recipes: tuple[str, ...]) -> Problem | None:
    """Check a `sha256:<recipe>:<version>:<hex>` digest against the accepted recipe prefixes."""
    if not isinstance(value, str):
        return ChainDefect.MALFORMED_ROW, f"{field} must be a digest string"
    parts = value.split(":")
    if len(parts) != 4:  # noqa: PLR2004 - algorithm, recipe, version, hex
        return ChainDefect.MALFORMED_ROW, f"{field} must read sha256:<recipe>:<version>:<hex>"
    if parts[0] != "sha256":
        return ChainDefect.UNKNOWN_SCHEMA, f"{field} uses unknown algorithm {parts[0][:20]!r}"
    prefix = ":".join(parts[:3]) + ":"
    if prefix not in recipes:
        return ChainDefect.UNKNOWN_SCHEMA, f"{field} uses unknown recipe {prefix[:40]!r}"
    if not HEX64.fullmatch(parts[3]):
        return ChainDefect.MALFORMED_ROW, f"{field} must end in 64 lowercase hex digits"
    return None


def object_chunks(members: Mapping[str, list[bytes]], *, without: str = "") -> list[bytes]:
    """Return the canonical encoding of an object from its encoded members, in key order."""
    chunks: list[bytes] = []
    opening = True
    for key in _jcs.sort_keys([key for key in members if key != without]):
        chunks.append(_member_prefix(key, opening=opening))
        chunks.extend(members[key])
        opening = False
    chunks.append(b"}" if chunks else b"{}")
    return chunks


@functools.lru_cache(maxsize=512)
def _member_prefix(key: str, *, opening: bool) -> bytes:
    return (b"{" if opening else b",") + _jcs.dumps(key) + b":"


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


def row_seq(data: bytes) -> int | None:
    """Return the seq read from the canonical tail that ends `data`, or None."""
    match = _TAIL.search(data)
    return None if match is None else int(match.group(1))


def row_chain(line: bytes) -> str | None:
    """Return the top-level `chain` digest of a canonical row from the start of its line.

    Only "annotations" sorts before "chain", so the member is first or follows that one
    value, which is skipped by decoding it. None when `line` (maybe a prefix) shows neither.
    """
    offset = 1
    if line.startswith(b'{"annotations":'):
        try:
            text = line.decode("utf-8")
            _, end = json.JSONDecoder().raw_decode(text, len('{"annotations":'))
        except (UnicodeDecodeError, ValueError):
            return None
        offset = len(text[:end].encode("utf-8")) + 1
    match = _CHAIN_MEMBER.match(line, offset)
    return None if match is None else match.group(1).decode("ascii")


def last_newline(fd: int, end: int) -> int:
    """Return the offset of the last newline before `end`, or -1."""
    position = end
    while position > 0:
        start = max(0, position - SCAN_CHUNK)
        found = os.pread(fd, position - start, start).rfind(b"\n")
        if found >= 0:
            return start + found
        position = start
    return -1
