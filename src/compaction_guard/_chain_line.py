"""What one line of a receipts log says on its own: framing, canonical JSON, chain fields.

See docs/DESIGN.md, "Receipts". How lines link to each other is in `_chain_verify`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compaction_guard import _jcs
from compaction_guard._chain_row import (
    GENESIS_RECIPE,
    KEYED_PREFIX,
    RAW_RECIPE,
    RECOVERY_SCHEMA,
    TIMESTAMP,
    ChainDefect,
    Members,
    Problem,
    chain_digest,
    chain_recipe,
    check_digest,
    object_chunks,
)

__all__ = ["RowCheck", "read_row"]

_UNKEYED = (
    "the row is not keyed but a key was given: it was written without the key "
    "(or re-minted by someone who lacks it)"
)

RowCheck = Callable[[dict[str, Any], Members], "Problem | None"]
"""Checks one parsed row of a schema the caller owns; returns the first problem or None."""


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
        row = _jcs.loads(line)
        if not isinstance(row, dict):
            raise _LineError(ChainDefect.MALFORMED_ROW, "row is not a JSON object")
        members = {key: [_jcs.dumps(value)] for key, value in row.items()}
    except _jcs.CanonicalJSONError:
        try:  # name the path from the row's root
            _jcs.dumps(_jcs.loads(line))
        except _jcs.CanonicalJSONError as exc:
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
