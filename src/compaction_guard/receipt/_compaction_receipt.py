"""`CompactionReceipt`: digests of what one compaction kept, dropped and introduced, sealed.

Open over the context handed to the compactor, record what it returned, seal one chained
row to a JSONL log. See docs/DESIGN.md, "Receipts".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compaction_guard.errors import CanonicalJSONError, ReceiptSealError
from compaction_guard.receipt import _log_file
from compaction_guard.receipt._canonical_json import dumps, loads
from compaction_guard.receipt._digests import (
    RECEIPT_SCHEMA,
    Items,
    Split,
    key_string,
    manifest_chunks,
    receipt_digest,
    resolve_key,
)
from compaction_guard.receipt._log_file import LOCK_TIMEOUT
from compaction_guard.receipt._row import utc_timestamp

if TYPE_CHECKING:
    import os

__all__ = ["CompactionReceipt", "item_digest"]


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
        members = {key: [dumps(value)] for key, value in values.items() if key != "dropped"}
        members["dropped"] = manifest_chunks(values["dropped"])
        if extra is not None:
            values["annotations"], members["annotations"] = extra
        values["receipt_digest"] = receipt_digest(members, self._key)
        members["receipt_digest"] = [dumps(values["receipt_digest"])]
        values.update(
            _log_file.append_row(Path(path), members, lock_timeout=lock_timeout, key=self._key)
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
        encoded = dumps(dict(annotations))
        # Round-trip: nothing may be sealed that verify_chain would refuse to read back.
        return loads(encoded), [encoded]
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
