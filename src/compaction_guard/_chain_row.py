"""The receipts-log row format that writing and verifying share: recipes, digests, defects.

See DESIGN.md "receipt: promises". Rows are RFC 8785 objects, one per newline-ended line.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from compaction_guard import _jcs

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
    "Members",
    "Problem",
    "check_digest",
    "genesis_prev",
    "last_newline",
    "object_chunks",
    "row_digest",
    "row_tail",
    "utc_timestamp",
]

RECOVERY_SCHEMA = "compaction-guard:recovery:v1"
RAW_RECIPE = "sha256:raw:v1:"
ROW_RECIPE = "sha256:row:v1:"
GENESIS_RECIPE = "sha256:genesis:v1:"
# Hash domains: a row digest can never equal a genesis value or any other digest kind.
DOMAIN_ROW = b"compaction-guard/row/v1\n"
DOMAIN_GENESIS = b"compaction-guard/genesis/v1\n"
CHAIN_FIELDS = frozenset({"seq", "prev", "log_id", "ts", "row_digest"})
SCAN_CHUNK = 1 << 20

HEX64 = re.compile(r"[0-9a-f]{64}")
LOG_ID = re.compile(r"[0-9a-f]{32}")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z")
# Canonical rows end with these members (no key sorts after them), so the tail names the row.
_TAIL = re.compile(
    rb'"row_digest":"(sha256:row:v1:[0-9a-f]{64})","schema":"[^"\\\n]*",'
    rb'"seq":(0|[1-9][0-9]{0,15}),"ts":"[^"\\\n]*"}\n?\Z'
)

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


def row_digest(members: Mapping[str, list[bytes]]) -> str:
    """Digest a row over its canonical bytes without the `row_digest` member."""
    hasher = hashlib.sha256(DOMAIN_ROW)
    for chunk in object_chunks(members, without="row_digest"):
        hasher.update(chunk)
    return ROW_RECIPE + hasher.hexdigest()


def genesis_prev(log_id: str) -> str:
    """Return the `prev` of row 0, which binds the row to its log's id."""
    return GENESIS_RECIPE + hashlib.sha256(DOMAIN_GENESIS + log_id.encode("ascii")).hexdigest()


def row_tail(data: bytes) -> tuple[int, str] | None:
    """Return (seq, row_digest) read from the canonical tail that ends `data`, or None."""
    match = _TAIL.search(data)
    if match is None:
        return None
    return int(match.group(2)), match.group(1).decode("ascii")


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
