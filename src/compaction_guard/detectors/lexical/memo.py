"""Results kept per object, by identity, for the lexical tier's unhashable readings.

A part or an analysis holds lists and dicts, so it has no hash, yet the same object is read
by every statement of a view (a part lives in the `parts_of` cache, an analysis is shared
by every constraint reading its sentence). Its derived facts are worked out once and kept
by `id()`; each entry keeps its object, so an `id()` reused after garbage collection never
answers for another one, and the table is cleared when full.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable

__all__ = ["IdentityMemo"]

T = TypeVar("T")
R = TypeVar("R")


class IdentityMemo(Generic[T, R]):
    """At most `limit` results of functions of one object, keyed by its identity and a tag."""

    __slots__ = ("_entries", "_limit")

    def __init__(self, limit: int) -> None:
        self._entries: dict[Hashable, tuple[T, R]] = {}
        self._limit = limit

    def get(self, obj: T, compute: Callable[[T], R], tag: Hashable = None) -> R:
        """Return `compute(obj)`, worked out once per object (and `tag`, when several apply)."""
        key = id(obj) if tag is None else (id(obj), tag)
        entry = self._entries.get(key)
        if entry is not None and entry[0] is obj:
            return entry[1]
        result = compute(obj)
        if len(self._entries) >= self._limit:
            self._entries.clear()
        self._entries[key] = (obj, result)
        return result
