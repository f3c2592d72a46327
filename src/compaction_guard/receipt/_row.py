"""One row of the receipts log: its chain fields, its defects, and what its line says alone.

Rows are RFC 8785 objects, one per newline-ended line, ending with `"schema", "seq", "ts"`
(no body key sorts after `schema`), so an append reads the last seq from the file's tail
and the `chain` digest from the line's start without parsing the row. How lines link to
each other is in `_verify_chain`. See docs/DESIGN.md, "Receipts".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from compaction_guard.errors import CanonicalJSONError
from compaction_guard.receipt._canonical_json import Members, dumps, loads, object_chunks
from compaction_guard.receipt._digests import (
    GENESIS_RECIPE,
    KEYED_PREFIX,
    RAW_RECIPE,
    chain_digest,
    chain_recipe,
)

__all__ = [
    "CHAIN_FIELDS",
    "HEX64",
    "LOG_ID",
    "RECOVERY_SCHEMA",
    "TIMESTAMP",
    "ChainDefect",
    "Problem",
    "RowCheck",
    "check_digest",
    "read_row",
    "row_chain",
    "row_seq",
    "utc_timestamp",
]

RECOVERY_SCHEMA = "compaction-guard:recovery:v1"
CHAIN_FIELDS = frozenset({"seq", "prev", "log_id", "ts", "chain"})
HEX64 = re.compile(r"[0-9a-f]{64}")
LOG_ID = re.compile(r"[0-9a-f]{32}")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z")
# Canonical rows end with these members (no key sorts after them), so the tail names the seq.
_TAIL = re.compile(rb'"schema":"[^"\\\n]*","seq":(0|[1-9][0-9]{0,15}),"ts":"[^"\\\n]*"}\n?\Z')
_CHAIN_MEMBER = re.compile(rb'"chain":"(sha256:(?:hmac-)?row:v1:[0-9a-f]{64})"')


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

RowCheck = Callable[[dict[str, Any], Members], "Problem | None"]
"""Checks one parsed row of a schema the caller owns; returns the first problem or None."""


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


_UNKEYED = (
    "the row is not keyed but a key was given: it was written without the key "
    "(or re-minted by someone who lacks it)"
)

def read_row(
    line: bytes, check_row: RowCheck, key: bytes | None = None
) -> tuple[dict[str, Any] | None, Problem | None]:
    """Parse one line without its newline; return (row, None), or (None, the first problem).

    The row is canonical, its chain fields are well formed, its `chain` digest matches its
    bytes (as HMAC-SHA256 under `key`), and `check_row` (or the recovery-row check) accepts it.
    """
    framing = _framing(line)
    if framing is not None:
        return None, framing
    try:
        row, members = _parse(line)
    except _LineError as exc:
        return None, (exc.defect, exc.message)
    found = _chain_fields(row, key) or _content(row, members, check_row, key)
    return (None, found) if found is not None else (row, None)


def _framing(line: bytes) -> Problem | None:
    if not line.strip(b" \t\r\n\f\v"):
        return ChainDefect.MALFORMED_ROW, "blank line"
    if line.startswith(b"\xef\xbb\xbf"):
        return ChainDefect.NON_CANONICAL, "line starts with a UTF-8 byte order mark"
    cr = line.find(b"\r")
    if cr >= 0:
        return ChainDefect.NON_CANONICAL, f"raw CR byte at column {cr + 1} (CRLF or CR line ending)"
    nul = line.find(b"\x00")
    if nul >= 0:
        return ChainDefect.MALFORMED_ROW, f"NUL byte at column {nul + 1}"
    return None


class _LineError(Exception):
    def __init__(self, defect: ChainDefect, message: str) -> None:
        super().__init__(message)
        self.defect = defect
        self.message = message


def _parse(line: bytes) -> tuple[dict[str, Any], Members]:
    """Parse a line strictly and re-encode it; raise _LineError unless it is canonical."""
    try:
        row = loads(line)
        if not isinstance(row, dict):
            raise _LineError(ChainDefect.MALFORMED_ROW, "row is not a JSON object")
        members = {key: [dumps(value)] for key, value in row.items()}
    except CanonicalJSONError:
        try:  # name the path from the row's root
            dumps(loads(line))
        except CanonicalJSONError as exc:
            raise _LineError(ChainDefect.MALFORMED_ROW, str(exc)) from None
        raise  # pragma: no cover - a member refused means the row refuses
    canonical = b"".join(object_chunks(members))
    if canonical != line:
        column = next(
            (i for i, (a, b) in enumerate(zip(canonical, line, strict=False)) if a != b),
            min(len(canonical), len(line)),
        )
        raise _LineError(
            ChainDefect.NON_CANONICAL,
            f"not RFC 8785 canonical JSON (first difference at column {column + 1}); "
            "rows are written by compaction-guard and never re-encoded",
        )
    return row, members


def _chain_fields(row: dict[str, Any], key: bytes | None) -> Problem | None:
    seq = row.get("seq")
    if type(seq) is not int or seq < 0:
        return ChainDefect.MALFORMED_ROW, "seq must be a non-negative integer"
    if "log_id" in row and seq != 0:
        return ChainDefect.MALFORMED_ROW, "log_id belongs on row 0 only"
    ts = row.get("ts")
    if not isinstance(ts, str) or not TIMESTAMP.fullmatch(ts):
        return ChainDefect.MALFORMED_ROW, "ts must be a UTC timestamp like 2026-01-31T12:00:00Z"
    chain = row.get("chain")
    if isinstance(chain, str) and chain.startswith(KEYED_PREFIX) and key is None:
        return ChainDefect.KEY_REQUIRED, "the log is keyed (HMAC-SHA256); verify it with key="
    if isinstance(chain, str) and key is not None and not chain.startswith(KEYED_PREFIX):
        return (
            ChainDefect.UNKEYED_ROW,
            _UNKEYED,
        )
    recipe = chain_recipe(key)
    return check_digest(row.get("prev"), "prev", (recipe, GENESIS_RECIPE)) or check_digest(
        chain, "chain", (recipe,)
    )


def _content(
    row: dict[str, Any], members: Members, check_row: RowCheck, key: bytes | None
) -> Problem | None:
    if chain_digest(members, key) != row["chain"]:
        return (
            ChainDefect.ROW_EDITED,
            "the chain digest does not match the row's bytes: the row was edited after it "
            "was written" + ("" if key is None else ", or written under another key"),
        )
    if row.get("schema") == RECOVERY_SCHEMA:
        return _recovery_fields(row)
    return check_row(row, members)


def _recovery_fields(row: dict[str, Any]) -> Problem | None:
    fragment = row.get("fragment")
    keys = {"offset", "bytes", "digest", "sidecar"}
    if set(row) - {"log_id"} != {"schema", "fragment", "seq", "prev", "ts", "chain"}:
        return ChainDefect.MALFORMED_ROW, "a recovery row holds schema, fragment and chain fields"
    if not isinstance(fragment, dict) or set(fragment) != keys:
        return ChainDefect.MALFORMED_ROW, f"fragment must hold exactly {sorted(keys)}"
    if not all(type(fragment[k]) is int and fragment[k] >= 0 for k in ("offset", "bytes")):
        return ChainDefect.MALFORMED_ROW, "fragment offset and bytes must be non-negative integers"
    if not isinstance(fragment["sidecar"], str):
        return ChainDefect.MALFORMED_ROW, "fragment sidecar must be a file name"
    return check_digest(fragment["digest"], "fragment.digest", (RAW_RECIPE,))
