"""Compaction receipts: digests of what a compaction kept, dropped and introduced, chained to JSONL.

See DESIGN.md "receipt: promises". The chain is in `_chain`, canonical JSON in `_jcs`.
"""

from __future__ import annotations

import hashlib
import re
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compaction_guard import _chain, _jcs
from compaction_guard._chain import (
    LOCK_TIMEOUT,
    RAW_RECIPE,
    ChainDefect,
    ChainProblem,
    ChainReport,
    ReceiptHead,
    Recovery,
    recover,
)
from compaction_guard._jcs import CanonicalJSONError
from compaction_guard.errors import ReceiptIntegrityError, ReceiptSealError

if TYPE_CHECKING:
    import os

__all__ = [
    "RECEIPT_SCHEMA",
    "CanonicalJSONError",
    "ChainDefect",
    "ChainProblem",
    "ChainReport",
    "CompactionReceipt",
    "HeadPin",
    "ReceiptHead",
    "Recovery",
    "item_digest",
    "receipt_head",
    "recover",
    "verify_chain",
    "verify_receipt",
]


def __dir__() -> list[str]:
    return list(__all__)


RECEIPT_SCHEMA = "compaction-guard:receipt:v1"
JCS_RECIPE = "sha256:jcs:v1:"
ITEMS_RECIPE = "sha256:items:v1:"
RECEIPT_RECIPE = "sha256:receipt:v1:"
# Hash domains (the per-item digests stay plain SHA-256 so anyone can recompute them).
DOMAIN_ITEMS = b"compaction-guard/items/v1\n"
DOMAIN_RECEIPT = b"compaction-guard/receipt/v1\n"
CORE_FIELDS = ("schema", "pre", "post", "dropped", "introduced", "compactor", "method", "opened_at")
OPTIONAL_FIELDS = ("annotations",)
_SIDE_KEYS = {"pre": {"count", "bytes", "digest"}, "post": {"count", "bytes", "digest"}}
_SHAPES = {**_SIDE_KEYS, "dropped": {"count", "bytes", "items"}, "introduced": {"count", "bytes"}}
_ITEM = re.compile(r"sha256:(?:raw|jcs):v1:[0-9a-f]{64}")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z")
_MANIFEST_CHUNK = 16384

Problem = tuple[ChainDefect, str]


class _Items:
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
        return [_key_string(keys[i]) for i in indices]


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


def _key_string(key: bytes) -> str:
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


def item_digest(item: Any) -> str:
    """Return one item's digest: `sha256:raw:v1:` for str (UTF-8) and bytes, else `sha256:jcs:v1:`.

    Anyone holding an item can recompute this and look for it in a drop manifest.
    """
    return _key_string(_Items([item]).keys[0])


class _Split:
    """pre vs post as multisets: which pre items were dropped, and the totals."""

    def __init__(self, pre: _Items, post: _Items) -> None:
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


class CompactionReceipt:
    """A receipt for one compaction: `open(pre)`, `record_kept(post)`, then `seal(path, ...)`.

    Items are digested, never stored: str as UTF-8 and bytes raw (`sha256:raw:v1`),
    anything else as RFC 8785 JSON (`sha256:jcs:v1`). A list or tuple is a sequence of
    items; any other `pre`/`post` (a plain str, one message dict) counts as one item.

        receipt = CompactionReceipt.open(messages)
        receipt.record_kept(compacted)
        row = receipt.seal("receipts.jsonl", compactor="summarizer-v2", method="llm-summary")
    """

    def __init__(self, pre: _Items, opened_at: str) -> None:
        self._pre: _Items | None = pre
        self._pre_digest = pre.digest()
        self._opened_at = opened_at
        self._post: _Items | None = None
        self._claimed: _Items | None = None
        self._row: dict[str, Any] | None = None

    @classmethod
    def open(cls, pre: Any) -> CompactionReceipt:
        """Digest every pre-compaction item and the whole; CanonicalJSONError names bad items."""
        return cls(_Items(pre), _chain.utc_timestamp())

    def record_kept(self, post: Any) -> None:
        """Record the survivor. Dropped items are inferred as pre minus post, by digest."""
        self._require_open("record_kept")
        if self._post is not None:
            raise ReceiptSealError("record_kept was already called; open a receipt per compaction")
        self._post = _Items(post)

    def record_dropped(self, items: Any) -> None:
        """Optionally claim the dropped items; `seal` refuses if the claim disagrees."""
        self._require_open("record_dropped")
        self._claimed = _Items(items)

    def seal(
        self,
        path: str | os.PathLike[str],
        *,
        compactor: str,
        method: str,
        annotations: Mapping[str, Any] | None = None,
        lock_timeout: float = LOCK_TIMEOUT,
    ) -> dict[str, Any]:
        """Append the receipt as one chained row to `path` and return the row.

        `annotations` (any JSON mapping) is stored under "annotations" and covered by
        receipt_digest. Raises ReceiptSealError on misuse or a disagreeing drop claim,
        TypeError for a non-str compactor/method, ReceiptLockError (a TimeoutError) when
        the log stays locked.
        """
        self._require_open("seal")
        pre, post = self._pre, self._post
        if post is None:
            raise ReceiptSealError("call record_kept(post) before seal(); nothing was written")
        if pre is None:
            raise ReceiptSealError("an earlier seal() of this receipt failed; open a new receipt")
        _require_text(compactor=compactor, method=method)
        extra = None if annotations is None else _annotations(annotations)
        values = self._values(pre, post, compactor=compactor, method=method)
        self._pre = None  # free the per-item digests before the row is encoded
        del pre
        members = {key: [_jcs.dumps(value)] for key, value in values.items() if key != "dropped"}
        members["dropped"] = _manifest_chunks(values["dropped"])
        if extra is not None:
            values["annotations"], members["annotations"] = extra
        values["receipt_digest"] = _receipt_digest(members)
        members["receipt_digest"] = [_jcs.dumps(values["receipt_digest"])]
        values.update(_chain.append_row(Path(path), members, lock_timeout=lock_timeout))
        self._row = values
        return values

    def _require_open(self, action: str) -> None:
        if self._row is not None:
            raise ReceiptSealError(
                f"{action}: this receipt is already sealed (row {self._row['seq']}); "
                "open a new receipt for the next compaction"
            )

    def _check_claim(self, pre: _Items, split: _Split) -> None:
        if self._claimed is None:
            return
        inferred = Counter(pre.keys[i] for i in split.dropped)
        claimed = Counter(self._claimed.keys)
        if inferred != claimed:
            raise ReceiptSealError(
                f"record_dropped claims {self._claimed.count} item(s) but pre minus kept drops "
                f"{len(split.dropped)}: {(claimed - inferred).total()} claimed item(s) were kept "
                f"or never in pre, {(inferred - claimed).total()} dropped item(s) are unclaimed; "
                "fix the compactor's drop list or leave record_dropped out. Nothing was written"
            )

    def _values(
        self, pre: _Items, post: _Items, *, compactor: str, method: str
    ) -> dict[str, Any]:
        split = _Split(pre, post)
        self._check_claim(pre, split)
        manifest = pre.strings(split.dropped)
        return {
            "schema": RECEIPT_SCHEMA,
            "pre": {"count": pre.count, "bytes": pre.total, "digest": self._pre_digest},
            "post": {"count": post.count, "bytes": post.total, "digest": post.digest()},
            "dropped": {"count": len(manifest), "bytes": split.dropped_bytes, "items": manifest},
            "introduced": {"count": split.introduced_count, "bytes": split.introduced_bytes},
            "compactor": compactor,
            "method": method,
            "opened_at": self._opened_at,
        }


def _require_text(**values: object) -> None:
    for name, value in values.items():
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, not {type(value).__name__}")


def _manifest_chunks(dropped: dict[str, Any]) -> list[bytes]:
    """Encode {"bytes", "count", "items"} canonically in chunks (items need no escaping)."""
    items: list[str] = dropped["items"]
    chunks = [b'{"bytes":%d,"count":%d,"items":[' % (dropped["bytes"], dropped["count"])]
    for start in range(0, len(items), _MANIFEST_CHUNK):
        text = '","'.join(items[start : start + _MANIFEST_CHUNK])
        chunks.append(f'{"," if start else ""}"{text}"'.encode("ascii"))
    chunks.append(b"]}")
    return chunks


def _annotations(annotations: Mapping[str, Any]) -> tuple[Any, list[bytes]]:
    if not isinstance(annotations, Mapping):
        raise TypeError("annotations must be a JSON mapping (dict) or None")
    try:
        encoded = _jcs.dumps(dict(annotations))
        # Round-trip: nothing may be sealed that verify_chain would refuse to read back.
        return _jcs.loads(encoded), [encoded]
    except CanonicalJSONError as exc:
        raise CanonicalJSONError(f"$.annotations{exc.path[1:]}", exc.reason) from None


def _receipt_digest(members: Mapping[str, list[bytes]]) -> str:
    hasher = hashlib.sha256(DOMAIN_RECEIPT)
    core = {key: members[key] for key in (*CORE_FIELDS, *OPTIONAL_FIELDS) if key in members}
    for chunk in _chain.object_chunks(core):
        hasher.update(chunk)
    return RECEIPT_RECIPE + hasher.hexdigest()


def verify_receipt(
    row: Mapping[str, Any], pre_content: Any = None, post_content: Any = None
) -> dict[str, Any]:
    """Check a receipt row; with content, recompute every digest and the drop set.

    Returns {"ok", "self_consistent", "content": "skipped"|"match"|"mismatch", "schema",
    "understatement_check", "notes"}. Self-consistency checks the schema, field shapes,
    digest forms, count and byte arithmetic, and receipt_digest; it cannot prove a claim,
    only that the row is the one that was sealed. Never raises for a bad row.
    """
    problems = _receipt_problems(row, None)
    notes = [message for _, message in problems]
    content = "skipped"
    if pre_content is not None or post_content is not None:
        mismatches = _content_mismatches(row, pre_content, post_content)
        notes.extend(mismatches)
        content = "mismatch" if mismatches else "match"
    ours = _schema_of(row) == RECEIPT_SCHEMA
    return {
        "ok": not problems and content != "mismatch",
        "self_consistent": not problems,
        "content": content,
        "schema": "v1" if ours else "unknown",
        "understatement_check": "full" if ours else "none",
        "notes": notes,
    }


def _schema_of(row: object) -> object:
    return row.get("schema") if isinstance(row, Mapping) else None


def _receipt_problems(row: Any, members: _chain.Members | None) -> list[Problem]:
    """Self-consistency problems, in check order; shape problems stop before arithmetic."""
    if not isinstance(row, Mapping):
        return [(ChainDefect.MALFORMED_ROW, "row must be a mapping (the dict seal returned)")]
    schema = row.get("schema")
    if schema != RECEIPT_SCHEMA:
        message = f"schema {str(schema)[:60]!r} is not {RECEIPT_SCHEMA}"
        return [(ChainDefect.UNKNOWN_SCHEMA, message)]
    problems = _field_problems(row) + _value_problems(row)
    if problems:
        return problems
    problems = _digest_problems(row)
    if problems:
        return problems
    problems = _arithmetic_problems(row)
    try:
        if members is None:
            keys = [key for key in (*CORE_FIELDS, *OPTIONAL_FIELDS) if key in row]
            members = {key: [_jcs.dumps(row[key])] for key in keys}
        recomputed = _receipt_digest(members)
    except CanonicalJSONError as exc:
        return [*problems, (ChainDefect.MALFORMED_ROW, str(exc))]
    claimed = row["receipt_digest"]
    if recomputed != claimed:
        message = f"receipt_digest: recomputed {recomputed} != claimed {claimed}"
        problems.append((ChainDefect.ROW_EDITED, message))
    return problems


def _field_problems(row: Mapping[str, Any]) -> list[Problem]:
    allowed = {*CORE_FIELDS, *OPTIONAL_FIELDS, "receipt_digest", *_chain.CHAIN_FIELDS}
    missing = [key for key in (*CORE_FIELDS, "receipt_digest") if key not in row]
    unexpected = [str(key)[:40] for key in row if key not in allowed]
    return [(ChainDefect.MALFORMED_ROW, f"{key}: missing") for key in missing] + [
        (ChainDefect.MALFORMED_ROW, f"{key}: unexpected field, not covered by receipt_digest")
        for key in unexpected
    ]


def _value_problems(row: Mapping[str, Any]) -> list[Problem]:
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
            if type(value[unit]) is not int or not 0 <= value[unit] <= _jcs.MAX_SAFE_INTEGER
        )
    messages.extend(
        f"{key}: must be a string"
        for key in ("compactor", "method")
        if key in row and not isinstance(row[key], str)
    )
    opened = row.get("opened_at", "")
    if not (isinstance(opened, str) and _TIMESTAMP.fullmatch(opened)) and "opened_at" in row:
        messages.append("opened_at: must be a UTC timestamp like 2026-01-31T12:00:00Z")
    if not isinstance(row.get("annotations", {}), Mapping):
        messages.append("annotations: must be a mapping")
    dropped = row.get("dropped")
    if isinstance(dropped, Mapping) and not isinstance(dropped.get("items"), list):
        messages.append("dropped.items: must be a list of item digests")
    return [(ChainDefect.MALFORMED_ROW, message) for message in messages]


def _digest_problems(row: Mapping[str, Any]) -> list[Problem]:
    checks = [
        _chain.check_digest(row["pre"]["digest"], "pre.digest", (ITEMS_RECIPE,)),
        _chain.check_digest(row["post"]["digest"], "post.digest", (ITEMS_RECIPE,)),
        _chain.check_digest(row["receipt_digest"], "receipt_digest", (RECEIPT_RECIPE,)),
    ]
    items = row["dropped"]["items"]
    try:
        items_ok = all(map(_ITEM.fullmatch, items))
    except TypeError:  # a non-string item
        items_ok = False
    if not items_ok:  # find and name the first bad item
        checks.extend(
            _chain.check_digest(item, f"dropped.items[{index}]", (RAW_RECIPE, JCS_RECIPE))
            for index, item in enumerate(items)
        )
    return [problem for problem in checks if problem is not None][:1]


def _arithmetic_problems(row: Mapping[str, Any]) -> list[Problem]:
    pre, post, dropped, introduced = (row[k] for k in ("pre", "post", "dropped", "introduced"))
    problems: list[str] = []
    if len(dropped["items"]) != dropped["count"]:
        count, listed = dropped["count"], len(dropped["items"])
        problems.append(f"dropped.count {count} != {listed} manifest items")
    for unit in ("count", "bytes"):
        kept = pre[unit] - dropped[unit]
        if kept < 0:
            problems.append(
                f"{unit} arithmetic: dropped.{unit} {dropped[unit]} > pre.{unit} {pre[unit]}"
            )
        elif post[unit] != kept + introduced[unit]:
            problems.append(
                f"{unit} arithmetic: post.{unit} {post[unit]} != pre.{unit} {pre[unit]} "
                f"- dropped.{unit} {dropped[unit]} + introduced.{unit} {introduced[unit]}"
            )
    for name, side in (("dropped", dropped), ("introduced", introduced), ("kept", None)):
        count = side["count"] if side else pre["count"] - dropped["count"]
        size = side["bytes"] if side else pre["bytes"] - dropped["bytes"]
        if count == 0 and size != 0:
            problems.append(f"byte arithmetic: {name} has 0 items but {size} bytes")
    empty = _Items([]).digest()
    for name, side in (("pre", pre), ("post", post)):
        if side["count"] == 0 and side["digest"] != empty:
            problems.append(f"{name}.digest: 0 items must digest to {empty}")
    return [(ChainDefect.ROW_EDITED, message) for message in problems]


def _content_mismatches(row: Any, pre_content: Any, post_content: Any) -> list[str]:
    claimed = row if isinstance(row, Mapping) else {}
    notes: list[str] = []
    sides: dict[str, _Items] = {}
    for name, content in (("pre", pre_content), ("post", post_content)):
        if content is None:
            continue
        try:
            sides[name] = _Items(content)
        except CanonicalJSONError as exc:
            notes.append(f"{name} content cannot be digested: {exc}")
            continue
        notes.extend(_side_mismatches(name, claimed.get(name), sides[name]))
    if "pre" in sides:
        notes.extend(_drop_mismatches(claimed, sides["pre"], sides.get("post")))
    return notes


def _side_mismatches(name: str, claimed: Any, items: _Items) -> list[str]:
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


def _drop_mismatches(claimed: Mapping[str, Any], pre: _Items, post: _Items | None) -> list[str]:
    dropped = claimed.get("dropped")
    items = dropped.get("items") if isinstance(dropped, Mapping) else None
    if not isinstance(items, list):
        return ["dropped: the row has no readable drop manifest to compare"]
    if post is None:
        missing = Counter(items) - Counter(pre.strings(list(range(pre.count))))
        if missing:
            return [f"drop-manifest names {missing.total()} item(s) not in the pre content"]
        return []
    split = _Split(pre, post)
    if pre.strings(split.dropped) != items:
        recomputed = len(split.dropped)
        message = (
            f"drop-manifest disagrees with content: recomputed {recomputed} dropped item(s), "
            f"manifest claims {len(items)}"
        )
        return [message]
    introduced = claimed.get("introduced")
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


def _check_row(row: dict[str, Any], members: _chain.Members) -> Problem | None:
    problems = _receipt_problems(row, members)
    return problems[0] if problems else None


def verify_chain(
    path: str | os.PathLike[str],
    *,
    expected_head: ReceiptHead | None = None,
    max_line_bytes: int = _chain.MAX_LINE_BYTES,
) -> ChainReport:
    """Stream a receipts log and name the first bad line with its ChainDefect.

    Without `expected_head` the scope is "unanchored": rows cut from the end cannot be
    seen from the file alone. An empty or missing log is never `ok`.
    """
    return _chain.verify_chain(
        path, expected_head=expected_head, check_row=_check_row, max_line_bytes=max_line_bytes
    )


def receipt_head(path: str | os.PathLike[str]) -> ReceiptHead:
    """Verify the log and return its head; raises ReceiptIntegrityError naming the first problem."""
    report = verify_chain(path)
    if report.head is None:
        first = report.problems[0]
        raise ReceiptIntegrityError(f"{path}: {first}", line_number=first.line_number)
    return report.head


class HeadPin:
    """The last verified head of a log, kept in `file`; it only moves forward.

    `advance(log)` verifies the log against the pin, then pins its new head;
    `verify(log)` then sees truncation, rollback and forks:

        pin = HeadPin("receipts.head")
        pin.advance("receipts.jsonl")
        assert pin.verify("receipts.jsonl").ok
    """

    def __init__(self, file: str | os.PathLike[str]) -> None:
        self.path = Path(file)

    def read(self) -> ReceiptHead | None:
        """Return the pinned head, or None when nothing is pinned yet."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            return ReceiptHead.parse(text)
        except ValueError as exc:
            raise ReceiptIntegrityError(f"{self.path}: {exc}") from None

    def verify(self, log: str | os.PathLike[str]) -> ChainReport:
        """Verify `log` against the pinned head (unanchored while nothing is pinned)."""
        return verify_chain(log, expected_head=self.read())

    def advance(
        self, log: str | os.PathLike[str], *, lock_timeout: float = LOCK_TIMEOUT
    ) -> ReceiptHead:
        """Verify `log` against the pin and, if it holds, pin its new head (atomic replace).

        Raises ReceiptIntegrityError when the log does not extend the pinned head.
        """
        with _chain.hold_lock(self.path, lock_timeout):
            current = self.read()
            report = verify_chain(log, expected_head=current)
            if report.head is None:
                first = report.problems[0]
                raise ReceiptIntegrityError(
                    f"{log}: {first}; the pin in {self.path} was not moved",
                    line_number=first.line_number,
                )
            if report.head != current:
                _chain.replace_atomically(self.path, (report.head.to_text() + "\n").encode())
            return report.head
