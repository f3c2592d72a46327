"""Compaction receipts: digests of what a compaction kept, dropped and introduced, chained to JSONL.

See docs/DESIGN.md, "Receipts". Hashing is in `_receipt_hash`, row checks in
`_receipt_verify`, the chain in `_chain` (writing) and `_chain_verify`, canonical JSON in `_jcs`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compaction_guard import _chain, _chain_verify, _jcs
from compaction_guard._chain import LOCK_TIMEOUT, Recovery, recover
from compaction_guard._chain_row import ChainDefect, resolve_key, utc_timestamp
from compaction_guard._chain_verify import MAX_LINE_BYTES, ChainProblem, ChainReport, ReceiptHead
from compaction_guard._jcs import CanonicalJSONError
from compaction_guard._receipt_hash import (
    RECEIPT_SCHEMA,
    Items,
    Split,
    key_string,
    manifest_chunks,
    receipt_digest,
)
from compaction_guard._receipt_verify import check_row, content_mismatches, row_problems
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


class CompactionReceipt:
    """A receipt for one compaction: `open(pre)`, `record_kept(post)`, then `seal(path, ...)`.

    Items are digested, never stored: str as UTF-8 and bytes raw (`sha256:raw:v1`),
    anything else as RFC 8785 JSON (`sha256:jcs:v1`), and a value JSON cannot hold (a lone
    surrogate, deep nesting) by the lossless recipe (`sha256:lossless:v1`). A list or tuple
    is a sequence of items; any other `pre`/`post` (a str, one message dict) is one item.
    With `open(pre, key=...)` every digest is HMAC-SHA256 (`sha256:hmac-raw:v1`, ...).

        receipt = CompactionReceipt.open(messages)
        receipt.record_kept(compacted)
        row = receipt.seal("receipts.jsonl", compactor="summarizer-v2", method="llm-summary")
    """

    def __init__(self, pre: Items, opened_at: str) -> None:
        self._key = pre.key
        self._pre: Items | None = pre
        self._pre_digest = pre.digest()
        self._opened_at = opened_at
        self._post: Items | None = None
        self._claimed: Items | None = None
        self._row: dict[str, Any] | None = None

    @classmethod
    def open(cls, pre: Any, *, key: bytes | str | None = None) -> CompactionReceipt:
        """Digest every pre-compaction item and the whole.

        `key` (bytes, or the name of an environment variable holding it) makes every digest
        HMAC-SHA256: without the key a digest tells nothing about the item, and rows cannot
        be re-minted. CanonicalJSONError names an item no recipe can hold (a cycle, a type
        that is not JSON); ReceiptKeyError an empty key or an unset variable.
        """
        return cls(Items(pre, resolve_key(key)), utc_timestamp())

    def record_kept(self, post: Any) -> None:
        """Record the survivor. Dropped items are inferred as pre minus post, by digest."""
        self._require_open("record_kept")
        if self._post is not None:
            raise ReceiptSealError("record_kept was already called; open a receipt per compaction")
        self._post = Items(post, self._key)

    def record_dropped(self, items: Any) -> None:
        """Optionally claim the dropped items; `seal` refuses if the claim disagrees."""
        self._require_open("record_dropped")
        self._claimed = Items(items, self._key)

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
        members["dropped"] = manifest_chunks(values["dropped"])
        if extra is not None:
            values["annotations"], members["annotations"] = extra
        values["receipt_digest"] = receipt_digest(members, self._key)
        members["receipt_digest"] = [_jcs.dumps(values["receipt_digest"])]
        values.update(
            _chain.append_row(Path(path), members, lock_timeout=lock_timeout, key=self._key)
        )
        self._row = values
        return values

    def _require_open(self, action: str) -> None:
        if self._row is not None:
            raise ReceiptSealError(
                f"{action}: this receipt is already sealed (row {self._row['seq']}); "
                "open a new receipt for the next compaction"
            )

    def _check_claim(self, pre: Items, split: Split) -> None:
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

    def _values(self, pre: Items, post: Items, *, compactor: str, method: str) -> dict[str, Any]:
        split = Split(pre, post)
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


def _annotations(annotations: Mapping[str, Any]) -> tuple[Any, list[bytes]]:
    if not isinstance(annotations, Mapping):
        raise TypeError("annotations must be a JSON mapping (dict) or None")
    try:
        encoded = _jcs.dumps(dict(annotations))
        # Round-trip: nothing may be sealed that verify_chain would refuse to read back.
        return _jcs.loads(encoded), [encoded]
    except CanonicalJSONError as exc:
        raise CanonicalJSONError(f"$.annotations{exc.path[1:]}", exc.reason) from None


def item_digest(item: Any, *, key: bytes | str | None = None) -> str:
    """Return one item's digest as a drop manifest lists it.

    `sha256:raw:v1:` for str (UTF-8) and bytes, `sha256:jcs:v1:` for JSON values,
    `sha256:lossless:v1:` for values JSON cannot hold; `sha256:hmac-...` under `key`.
    Anyone holding an item (and the key, for a keyed receipt) can look for it in a manifest.
    """
    keyed = Items([item], resolve_key(key))
    return key_string(keyed.keys[0], keyed.key)


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


def verify_chain(
    path: str | os.PathLike[str],
    *,
    expected_head: ReceiptHead | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    key: bytes | str | None = None,
) -> ChainReport:
    """Stream a receipts log and name the first bad line with its ChainDefect.

    Without `expected_head` the scope is "unanchored": rows cut from the end cannot be
    seen from the file alone. An empty or missing log is never `ok`. A keyed log verifies
    only with its `key` (KEY_REQUIRED otherwise); under a key every row must be keyed.
    """
    secret = resolve_key(key)

    def check(row: dict[str, Any], members: Any) -> Any:
        return check_row(row, members, secret)

    return _chain_verify.verify_chain(
        path,
        expected_head=expected_head,
        check_row=check,
        max_line_bytes=max_line_bytes,
        key=secret,
    )


def receipt_head(path: str | os.PathLike[str], *, key: bytes | str | None = None) -> ReceiptHead:
    """Verify the log and return its head; raises ReceiptIntegrityError naming the first problem."""
    report = verify_chain(path, key=key)
    if report.head is None:
        first = report.problems[0]
        raise ReceiptIntegrityError(f"{path}: {first}", line_number=first.line_number)
    return report.head


class HeadPin:
    """The last verified head of a log, kept in `file`; it only moves forward.

    `advance(log)` verifies the log against the pin, then pins its new head;
    `verify(log)` then sees truncation, rollback and forks. The pin file is 0600; `key`
    verifies a keyed log:

        pin = HeadPin("receipts.head")
        pin.advance("receipts.jsonl")
        assert pin.verify("receipts.jsonl").ok
    """

    def __init__(self, file: str | os.PathLike[str], *, key: bytes | str | None = None) -> None:
        self.path = Path(file)
        self._key = key

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
        return verify_chain(log, expected_head=self.read(), key=self._key)

    def advance(
        self, log: str | os.PathLike[str], *, lock_timeout: float = LOCK_TIMEOUT
    ) -> ReceiptHead:
        """Verify `log` against the pin and, if it holds, pin its new head (atomic replace).

        Raises ReceiptIntegrityError when the log does not extend the pinned head.
        """
        with _chain.hold_lock(self.path, lock_timeout):
            current = self.read()
            report = verify_chain(log, expected_head=current, key=self._key)
            if report.head is None:
                first = report.problems[0]
                raise ReceiptIntegrityError(
                    f"{log}: {first}; the pin in {self.path} was not moved",
                    line_number=first.line_number,
                )
            if report.head != current:
                _chain.replace_atomically(self.path, (report.head.to_text() + "\n").encode())
            return report.head
