"""Receipt row checks: self-consistency (shapes, digest forms, arithmetic) and content.

See docs/DESIGN.md, "Receipts". Each check returns problems in check order, never raises.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from compaction_guard.errors import CanonicalJSONError
from compaction_guard.receipt._canonical_json import MAX_SAFE_INTEGER, Members, dumps
from compaction_guard.receipt._digests import (
    CORE_FIELDS,
    ITEMS_RECIPE,
    KEYED_PREFIX,
    OPTIONAL_FIELDS,
    RECEIPT_RECIPE,
    RECEIPT_SCHEMA,
    Items,
    Split,
    item_recipes,
    keyed,
    receipt_digest,
    resolve_key,
)
from compaction_guard.receipt._row import (
    CHAIN_FIELDS,
    TIMESTAMP,
    ChainDefect,
    Problem,
    check_digest,
)

__all__ = ["check_row", "content_mismatches", "row_problems", "verify_receipt"]

_SIDE_KEYS = {"pre": {"count", "bytes", "digest"}, "post": {"count", "bytes", "digest"}}
_SHAPES = {**_SIDE_KEYS, "dropped": {"count", "bytes", "items"}, "introduced": {"count", "bytes"}}
_ITEM = re.compile(r"sha256:(?:raw|jcs|lossless):v1:[0-9a-f]{64}")
_KEYED_ITEM = re.compile(r"sha256:hmac-(?:raw|jcs|lossless):v1:[0-9a-f]{64}")


def verify_receipt(
    row: Mapping[str, Any],
    pre_content: Any = None,
    post_content: Any = None,
    *,
    key: bytes | str | None = None,
) -> dict[str, Any]:
    """Check a receipt row; with content, recompute every digest and the drop set.

    Returns {"ok", "self_consistent", "content": "skipped"|"match"|"mismatch", "schema",
    "understatement_check", "notes"}. Self-consistency checks the schema, field shapes,
    digest forms, count and byte arithmetic, and receipt_digest; it cannot prove a claim,
    only that the row is the one that was sealed. Rows record introduced.bytes, so they
    report schema "v2" with the full understatement check. A keyed row needs its `key`;
    under a key an unkeyed row fails. Never raises for a bad row.
    """
    secret = resolve_key(key)
    problems = row_problems(row, None, secret)
    notes = [message for _, message in problems]
    content = "skipped"
    if pre_content is not None or post_content is not None:
        mismatches = content_mismatches(row, pre_content, post_content, secret)
        notes.extend(mismatches)
        content = "mismatch" if mismatches else "match"
    ours = _schema_of(row) == RECEIPT_SCHEMA
    return {
        "ok": not problems and content != "mismatch",
        "self_consistent": not problems,
        "content": content,
        "schema": "v2" if ours else "unknown",
        "understatement_check": "full" if ours else "none",
        "notes": notes,
    }


def _schema_of(row: object) -> object:
    return row.get("schema") if isinstance(row, Mapping) else None


def row_problems(row: Any, members: Members | None, key: bytes | None = None) -> list[Problem]:
    """Self-consistency problems, in check order; shape problems stop before arithmetic.

    `members` is the row's canonical encoding when it was read from a log; None re-encodes.
    Under `key` every digest must be keyed and the receipt digest recomputes with it.
    """
    if not isinstance(row, Mapping):
        return [(ChainDefect.MALFORMED_ROW, "row must be a mapping (the dict seal returned)")]
    schema = row.get("schema")
    if schema != RECEIPT_SCHEMA:
        message = f"schema {str(schema)[:60]!r} is not {RECEIPT_SCHEMA}"
        return [(ChainDefect.UNKNOWN_SCHEMA, message)]
    problems = _field_problems(row) + _value_problems(row)
    if problems:
        return problems
    problems = _key_problems(row, key) or _digest_problems(row, key)
    if problems:
        return problems
    return _arithmetic_problems(row, key) + _receipt_digest_problems(row, members, key)


def check_row(row: dict[str, Any], members: Members, key: bytes | None = None) -> Problem | None:
    """Return the first self-consistency problem of a row read from a log, or None."""
    problems = row_problems(row, members, key)
    return problems[0] if problems else None


def _key_problems(row: Mapping[str, Any], key: bytes | None) -> list[Problem]:
    """Refuse a keyed row without the key, and an unkeyed row under a key."""
    digest = row.get("receipt_digest")
    is_keyed = isinstance(digest, str) and digest.startswith(KEYED_PREFIX)
    if is_keyed and key is None:
        message = "the receipt is keyed (HMAC-SHA256); verify it with the key it was sealed with"
        return [(ChainDefect.KEY_REQUIRED, message)]
    if key is not None and not is_keyed:
        message = (
            "the receipt is not keyed but a key was given: it was sealed without the key "
            "(or re-minted by someone who lacks it)"
        )
        return [(ChainDefect.UNKEYED_ROW, message)]
    return []


def _field_problems(row: Mapping[str, Any]) -> list[Problem]:
    allowed = {*CORE_FIELDS, *OPTIONAL_FIELDS, "receipt_digest", *CHAIN_FIELDS}
    missing = [key for key in (*CORE_FIELDS, "receipt_digest") if key not in row]
    unexpected = [str(key)[:40] for key in row if key not in allowed]
    return [(ChainDefect.MALFORMED_ROW, f"{key}: missing") for key in missing] + [
        (ChainDefect.MALFORMED_ROW, f"{key}: unexpected field, not covered by receipt_digest")
        for key in unexpected
    ]


def _value_problems(row: Mapping[str, Any]) -> list[Problem]:
    messages = _side_shape_messages(row) + _scalar_messages(row)
    return [(ChainDefect.MALFORMED_ROW, message) for message in messages]


def _side_shape_messages(row: Mapping[str, Any]) -> list[str]:
    """Check pre, post, dropped and introduced hold exactly their keys, units safe integers."""
    messages: list[str] = []
    for key, fields in _SHAPES.items():
        value = row.get(key)
        if key not in row:
            continue
        if not isinstance(value, Mapping) or set(value) != fields:
            messages.append(f"{key}: must hold exactly {sorted(fields)}")
            continue
        messages.extend(
            f"{key}.{unit}: must be a non-negative integer, not {value[unit]!r:.40}"
            for unit in ("count", "bytes")
            if type(value[unit]) is not int or not 0 <= value[unit] <= MAX_SAFE_INTEGER
        )
    return messages


def _scalar_messages(row: Mapping[str, Any]) -> list[str]:
    """Check compactor and method are strings, opened_at a timestamp, the rest typed."""
    messages = [
        f"{key}: must be a string"
        for key in ("compactor", "method")
        if key in row and not isinstance(row[key], str)
    ]
    opened = row.get("opened_at", "")
    if not (isinstance(opened, str) and TIMESTAMP.fullmatch(opened)) and "opened_at" in row:
        messages.append("opened_at: must be a UTC timestamp like 2026-01-31T12:00:00Z")
    if not isinstance(row.get("annotations", {}), Mapping):
        messages.append("annotations: must be a mapping")
    dropped = row.get("dropped")
    if isinstance(dropped, Mapping) and not isinstance(dropped.get("items"), list):
        messages.append("dropped.items: must be a list of item digests")
    return messages


def _digest_problems(row: Mapping[str, Any], key: bytes | None) -> list[Problem]:
    items_recipe = (keyed(ITEMS_RECIPE, key),)
    checks = [
        check_digest(row["pre"]["digest"], "pre.digest", items_recipe),
        check_digest(row["post"]["digest"], "post.digest", items_recipe),
        check_digest(row["receipt_digest"], "receipt_digest", (keyed(RECEIPT_RECIPE, key),)),
    ]
    items = row["dropped"]["items"]
    pattern = _ITEM if key is None else _KEYED_ITEM
    try:
        items_ok = all(map(pattern.fullmatch, items))
    except TypeError:  # a non-string item
        items_ok = False
    if not items_ok:  # find and name the first bad item
        recipes = item_recipes(key)
        checks.extend(
            check_digest(item, f"dropped.items[{index}]", recipes)
            for index, item in enumerate(items)
        )
    return [problem for problem in checks if problem is not None][:1]


def _arithmetic_problems(row: Mapping[str, Any], key: bytes | None) -> list[Problem]:
    pre, post, dropped, introduced = (row[k] for k in ("pre", "post", "dropped", "introduced"))
    messages = [
        *_manifest_count_messages(dropped),
        *_unit_messages(pre, post, dropped, introduced),
        *_empty_part_messages(pre, dropped, introduced),
        *_empty_digest_messages(pre, post, key),
    ]
    return [(ChainDefect.ROW_EDITED, message) for message in messages]


def _manifest_count_messages(dropped: Mapping[str, Any]) -> list[str]:
    """Check dropped.count equals the number of manifest items."""
    count, listed = dropped["count"], len(dropped["items"])
    return [] if listed == count else [f"dropped.count {count} != {listed} manifest items"]


def _unit_messages(
    pre: Mapping[str, Any],
    post: Mapping[str, Any],
    dropped: Mapping[str, Any],
    introduced: Mapping[str, Any],
) -> list[str]:
    """Check for counts and bytes: pre = kept + dropped, post = kept + introduced."""
    messages: list[str] = []
    for unit in ("count", "bytes"):
        kept = pre[unit] - dropped[unit]
        if kept < 0:
            messages.append(
                f"{unit} arithmetic: dropped.{unit} {dropped[unit]} > pre.{unit} {pre[unit]}"
            )
        elif post[unit] != kept + introduced[unit]:
            messages.append(
                f"{unit} arithmetic: post.{unit} {post[unit]} != pre.{unit} {pre[unit]} "
                f"- dropped.{unit} {dropped[unit]} + introduced.{unit} {introduced[unit]}"
            )
    return messages


def _empty_part_messages(
    pre: Mapping[str, Any], dropped: Mapping[str, Any], introduced: Mapping[str, Any]
) -> list[str]:
    """Check the dropped, introduced and kept parts with no items have no bytes."""
    messages: list[str] = []
    for name, side in (("dropped", dropped), ("introduced", introduced), ("kept", None)):
        count = side["count"] if side else pre["count"] - dropped["count"]
        size = side["bytes"] if side else pre["bytes"] - dropped["bytes"]
        if count == 0 and size != 0:
            messages.append(f"byte arithmetic: {name} has 0 items but {size} bytes")
    return messages


def _empty_digest_messages(
    pre: Mapping[str, Any], post: Mapping[str, Any], key: bytes | None
) -> list[str]:
    """Check a side with no items carries the digest of the empty sequence."""
    empty = Items([], key).digest()
    return [
        f"{name}.digest: 0 items must digest to {empty}"
        for name, side in (("pre", pre), ("post", post))
        if side["count"] == 0 and side["digest"] != empty
    ]


def _receipt_digest_problems(
    row: Mapping[str, Any], members: Members | None, key: bytes | None
) -> list[Problem]:
    """Check receipt_digest matches the canonical encoding of the core fields."""
    try:
        if members is None:
            keys = [key for key in (*CORE_FIELDS, *OPTIONAL_FIELDS) if key in row]
            members = {key: [dumps(row[key])] for key in keys}
        recomputed = receipt_digest(members, key)
    except CanonicalJSONError as exc:
        return [(ChainDefect.MALFORMED_ROW, str(exc))]
    claimed = row["receipt_digest"]
    if recomputed == claimed:
        return []
    message = f"receipt_digest: recomputed {recomputed} != claimed {claimed}"
    return [(ChainDefect.ROW_EDITED, message)]


def content_mismatches(
    row: Any, pre_content: Any, post_content: Any, key: bytes | None = None
) -> list[str]:
    """Recompute the digests, totals and drop set from content; one note per mismatch."""
    claimed = row if isinstance(row, Mapping) else {}
    notes: list[str] = []
    sides: dict[str, Items] = {}
    for name, content in (("pre", pre_content), ("post", post_content)):
        if content is None:
            continue
        try:
            sides[name] = Items(content, key)
        except CanonicalJSONError as exc:
            notes.append(f"{name} content cannot be digested: {exc}")
            continue
        notes.extend(_side_mismatches(name, claimed.get(name), sides[name]))
    if "pre" in sides:
        notes.extend(_drop_mismatches(claimed, sides["pre"], sides.get("post")))
    return notes


def _side_mismatches(name: str, claimed: Any, items: Items) -> list[str]:
    if not isinstance(claimed, Mapping):
        return [f"{name}: the row has no readable {name} field to compare"]
    digest = items.digest()
    if claimed.get("digest") != digest:
        return [f"{name}.digest: recomputed {digest} != claimed {claimed.get('digest')}"]
    return [
        f"{name}.{unit}: recomputed {value} != claimed {claimed.get(unit)!r}"
        for unit, value in (("count", items.count), ("bytes", items.total))
        if claimed.get(unit) != value
    ]


def _drop_mismatches(claimed: Mapping[str, Any], pre: Items, post: Items | None) -> list[str]:
    dropped = claimed.get("dropped")
    items = dropped.get("items") if isinstance(dropped, Mapping) else None
    if not isinstance(items, list):
        return ["dropped: the row has no readable drop manifest to compare"]
    if post is None:
        return _membership_mismatches(items, pre)
    split = Split(pre, post)
    if pre.strings(split.dropped) != items:
        recomputed = len(split.dropped)
        message = (
            f"drop-manifest disagrees with content: recomputed {recomputed} dropped item(s), "
            f"manifest claims {len(items)}"
        )
        return [message]
    return _split_mismatches(dropped, claimed.get("introduced"), split)


def _membership_mismatches(items: list[Any], pre: Items) -> list[str]:
    """Check, with pre content only, that every manifest item is one of pre's items."""
    missing = Counter(items) - Counter(pre.strings(list(range(pre.count))))
    if missing:
        return [f"drop-manifest names {missing.total()} item(s) not in the pre content"]
    return []


def _split_mismatches(dropped: Any, introduced: Any, split: Split) -> list[str]:
    """Check, with both sides, the claimed dropped bytes and introduced totals."""
    expected = {
        "dropped.bytes": (_get(dropped, "bytes"), split.dropped_bytes),
        "introduced.count": (_get(introduced, "count"), split.introduced_count),
        "introduced.bytes": (_get(introduced, "bytes"), split.introduced_bytes),
    }
    return [
        f"{field}: recomputed {value} != claimed {claim!r}"
        for field, (claim, value) in expected.items()
        if claim != value
    ]


def _get(mapping: Any, key: str) -> Any:
    return mapping.get(key) if isinstance(mapping, Mapping) else None
