"""Tool-call-safe trimming of a message list to a token budget (docs/DESIGN.md, "group_trim").

Reads OpenAI chat messages, OpenAI Responses input items and Anthropic messages (one format
per list), keeps every tool call with its results, and drops the oldest groups first.
"""

from __future__ import annotations

import inspect
import json
import math
import operator
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from json import encoder as json_encoder
from typing import Any, Final

from compaction_guard._wire.formats import WireFormat, detect_format
from compaction_guard._wire.pairing import DUPLICATE_CALL_ID, read_groups
from compaction_guard._wire.sdk_blocks import is_sdk_block

__all__ = [
    "CompactResult",
    "CompactResultWithSummary",
    "Problem",
    "acompact_with_summary",
    "compact",
    "compact_with_summary",
    "estimate_tokens",
    "trimmer",
    "validate",
]

CountTokens = Callable[[Any], int]
Protect = Callable[[Any], bool]
Summarize = Callable[[list[Any]], Any]

def _sdk_block_json(value: object) -> object:
    """Let the default estimate measure Anthropic SDK blocks as the params they send as."""
    if is_sdk_block(value):
        return value.model_dump(mode="json", exclude_none=True)  # type: ignore[attr-defined]
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_ENCODER: Final = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, default=_sdk_block_json,
)
_MAX_BMP: Final = "\uffff"
_FLAGS: Final = (False, False, True)  # sort_keys, skipkeys, allow_nan as json.dumps defaults


def __dir__() -> list[str]:
    return list(__all__)


@dataclass(frozen=True)
class CompactResult:
    """What `compact` kept and dropped; `dropped` is in original order."""

    messages: list[Any]
    dropped: list[Any]
    tokens_before: int
    tokens_after: int
    fits: bool


@dataclass(frozen=True)
class CompactResultWithSummary(CompactResult):
    """`CompactResult` plus the summary text inserted after the head (None when none was)."""

    summary: str | None


@dataclass(frozen=True)
class Problem:
    """One shape a provider would reject, found by `validate`.

    `kind` is one of orphan_result, call_without_result, reasoning_without_item,
    result_not_first, duplicate_call_id; `index` is the message it concerns.
    """

    index: int
    kind: str
    message: str


def _make_chunk_encoder() -> Callable[[Any], str]:
    # One C encoder built once: json.dumps builds a new encoder object on every call.
    make = getattr(json_encoder, "c_make_encoder", None)
    if make is None:
        return _ENCODER.encode
    # Same arguments JSONEncoder.iterencode passes, minus the circular-reference table.
    raw = make(None, _ENCODER.default, json_encoder.encode_basestring, None, ":", ",", *_FLAGS)
    if isinstance(raw({}, 0), str):
        return lambda message: raw(message, 0)
    return lambda message: "".join(raw(message, 0))


_encode: Final = _make_chunk_encoder()


def _default_count(message: Any) -> int:
    return _default_costs([message])[0]


def _default_costs(seq: list[Any]) -> list[int]:
    # One loop with everything inlined: this is most of compact's running time.
    costs: list[int] = []
    add = costs.append
    encode = _encode
    for message in seq:
        text = encode(message)
        if text.isascii() or max(text) <= _MAX_BMP:
            add((len(text) + 3) >> 2)
        else:  # count UTF-16 code units, as JavaScript's String.length does
            add(((len(text.encode("utf-16-le", "surrogatepass")) >> 1) + 3) >> 2)
    return costs


def estimate_tokens(message: Any, count_tokens: CountTokens | None = None) -> int:
    """Return the token estimate `compact` uses for one message.

    The default is ceil(UTF-16 code units of compact, non-ASCII-preserving JSON / 4);
    `count_tokens` replaces it. Raises TypeError/ValueError when the estimate is not a
    non-negative int or the message cannot be serialised.
    """
    return _costs([message], count_tokens, "the message")[0]


def compact(
    messages: Sequence[Any],
    *,
    max_tokens: float,
    count_tokens: CountTokens | None = None,
    keep_head: int = 1,
    keep_tail: int = 4,
    protect: Protect | None = None,
) -> CompactResult:
    """Drop whole groups from the middle, oldest first, until the estimate fits `max_tokens`.

    A tool call and its results form one group and are kept or dropped together.
    `keep_head`/`keep_tail` count messages and widen to whole groups; a group holding a
    message for which `protect` returns True is never dropped. Input that fits comes back
    unchanged with `dropped == []`. Raises TypeError for a bad budget or input type and
    ValueError for mixed wire formats or duplicate tool-call ids.

        >>> compact([{"role": "user", "content": "hi"}], max_tokens=100).fits
        True
    """
    plan = _plan(messages, max_tokens, count_tokens, keep_head, keep_tail, protect)
    kept, dropped = _split(plan.seq, plan.starts, plan.dropped)
    return CompactResult(
        kept, dropped, plan.tokens_before, plan.tokens_after, plan.tokens_after <= plan.budget
    )


def compact_with_summary(
    messages: Sequence[Any],
    *,
    max_tokens: float,
    count_tokens: CountTokens | None = None,
    keep_head: int = 1,
    keep_tail: int = 4,
    summarize: Callable[[list[Any]], str] | None = None,
    summary_role: str = "user",
    protect: Protect | None = None,
) -> CompactResultWithSummary:
    """`compact`, then insert `summarize(dropped)` as a message right after the head.

    The summary counts against the budget: more groups are dropped, oldest first, to make
    room, and `fits` says whether that sufficed. Without `summarize`, or when nothing was
    dropped, this is `compact` with `summary=None`. A summariser that raises leaves the
    input untouched and its exception propagates.
    """
    plan = _plan(messages, max_tokens, count_tokens, keep_head, keep_tail, protect)
    summarizer = _summarizer(plan, summarize, summary_role)
    if summarizer is None:
        return _without_summary(plan)
    text = summarizer(_split(plan.seq, plan.starts, plan.dropped)[1])
    if inspect.isawaitable(text):
        _discard(text)
        raise TypeError("summarize returned an awaitable; use acompact_with_summary for it")
    return _with_summary(plan, text, summary_role)


async def acompact_with_summary(
    messages: Sequence[Any],
    *,
    max_tokens: float,
    count_tokens: CountTokens | None = None,
    keep_head: int = 1,
    keep_tail: int = 4,
    summarize: Summarize | None = None,
    summary_role: str = "user",
    protect: Protect | None = None,
) -> CompactResultWithSummary:
    """`compact_with_summary` for a summariser that may be async (its result is awaited)."""
    plan = _plan(messages, max_tokens, count_tokens, keep_head, keep_tail, protect)
    summarizer = _summarizer(plan, summarize, summary_role)
    if summarizer is None:
        return _without_summary(plan)
    text = summarizer(_split(plan.seq, plan.starts, plan.dropped)[1])
    if inspect.isawaitable(text):
        text = await text
    return _with_summary(plan, text, summary_role)


def trimmer(
    max_tokens: float,
    *,
    keep_head: int = 1,
    keep_tail: int = 4,
    summarize: Callable[[list[Any]], str] | None = None,
    count_tokens: CountTokens | None = None,
    summary_role: str = "user",
    protect: Protect | None = None,
) -> Callable[[Sequence[Any]], list[Any]]:
    """Return a `messages -> messages` compactor (for `Guard.compact`) with these settings.

    Arguments are checked now, so a bad budget fails where the trimmer is built.
    """
    _check_budget(max_tokens)
    _check_keep("keep_head", keep_head)
    _check_keep("keep_tail", keep_tail)
    if summarize is not None and inspect.iscoroutinefunction(summarize):
        raise TypeError("trimmer needs a synchronous summarize; call acompact_with_summary")

    def trim(messages: Sequence[Any]) -> list[Any]:
        return compact_with_summary(
            messages,
            max_tokens=max_tokens,
            count_tokens=count_tokens,
            keep_head=keep_head,
            keep_tail=keep_tail,
            summarize=summarize,
            summary_role=summary_role,
            protect=protect,
        ).messages

    return trim


def validate(messages: Sequence[Any]) -> list[Problem]:
    """List every provider-rejected pairing in `messages`, in index order ([] when clean).

    Raises the same TypeError/ValueError as `compact` for input it cannot read at all.
    """
    seq = _as_list(messages)
    walk = read_groups(seq, detect_format(seq))
    problems = sorted(walk.problems, key=lambda problem: problem[0])
    return [Problem(index, kind, text) for index, kind, text in problems]


@dataclass(frozen=True, slots=True)
class _Plan:
    seq: list[Any]
    wire: WireFormat
    budget: float
    count: CountTokens
    prefix: list[int]  # prefix[i] = tokens of seq[:i]
    starts: list[int]  # group starts, then len(seq)
    head_end: int = 0
    dropped: tuple[int, ...] = ()  # group numbers, ascending
    spare: tuple[int, ...] = ()  # droppable groups still kept, oldest first
    tokens_after: int = 0

    @property
    def tokens_before(self) -> int:
        return self.prefix[-1]

    def group_tokens(self, group: int) -> int:
        return self.prefix[self.starts[group + 1]] - self.prefix[self.starts[group]]


def _plan(  # noqa: PLR0917 - mirrors the public keywords one to one
    messages: Sequence[Any],
    max_tokens: float,
    count_tokens: CountTokens | None,
    keep_head: int,
    keep_tail: int,
    protect: Protect | None,
) -> _Plan:
    budget = _check_budget(max_tokens)
    _check_keep("keep_head", keep_head)
    _check_keep("keep_tail", keep_tail)
    seq = _as_list(messages)
    wire = detect_format(seq)
    walk = read_groups(seq, wire)
    _refuse_duplicates(walk.problems)
    count = _default_count if count_tokens is None else count_tokens
    prefix = list(accumulate(_costs(seq, count_tokens, None), initial=0))
    starts = [*walk.starts, len(seq)]
    plan = _Plan(seq, wire, budget, count, prefix, starts, tokens_after=prefix[-1])
    if plan.tokens_before <= budget:
        return plan
    # 1. groups are read; 2. snap keep_head/keep_tail outward to group boundaries
    first, stop = _middle(starts, keep_head, keep_tail)
    droppable = _droppable(seq, starts, range(first, stop), walk.pinned, protect)
    # 3. drop the oldest droppable groups until the total fits
    tokens = plan.tokens_before
    taken = 0
    for group in droppable:
        if tokens <= budget:
            break
        tokens -= plan.group_tokens(group)
        taken += 1
    return replace(
        plan,
        head_end=starts[first],
        dropped=tuple(droppable[:taken]),
        spare=tuple(droppable[taken:]),
        tokens_after=tokens,
    )


def _middle(starts: list[int], keep_head: int, keep_tail: int) -> tuple[int, int]:
    """Return the group range [first, stop) outside the snapped head and tail."""
    size = starts[-1]
    groups = len(starts) - 1
    first = bisect_right(starts, min(keep_head, size) - 1) if keep_head else 0
    stop = bisect_right(starts, max(size - keep_tail, 0)) - 1 if keep_tail else groups
    return first, max(first, stop)


def _droppable(
    seq: list[Any],
    starts: list[int],
    middle: range,
    pinned: tuple[int, ...],
    protect: Protect | None,
) -> list[int]:
    """Return the middle groups holding no pinned or protected message, oldest first."""
    kept = {bisect_right(starts, index) - 1 for index in pinned}
    if protect is not None:
        for index in range(starts[middle.start], starts[middle.stop]):
            if protect(seq[index]):
                kept.add(bisect_right(starts, index) - 1)
    return [group for group in middle if group not in kept]


def _split(seq: list[Any], starts: list[int], groups: Sequence[int]) -> tuple[list[Any], list[Any]]:
    """Return (kept, dropped) for dropping `groups` (ascending), each in original order."""
    kept: list[Any] = []
    dropped: list[Any] = []
    position = 0
    run_start = run_end = -1
    for group in groups:
        start = starts[group]
        if start != run_end:
            if run_end >= 0:
                kept.extend(seq[position:run_start])
                dropped.extend(seq[run_start:run_end])
                position = run_end
            run_start = start
        run_end = starts[group + 1]
    if run_end >= 0:
        kept.extend(seq[position:run_start])
        dropped.extend(seq[run_start:run_end])
        position = run_end
    kept.extend(seq[position:])
    return kept, dropped


def _without_summary(plan: _Plan) -> CompactResultWithSummary:
    kept, dropped = _split(plan.seq, plan.starts, plan.dropped)
    tokens = plan.tokens_after
    return CompactResultWithSummary(
        kept, dropped, plan.tokens_before, tokens, tokens <= plan.budget, None
    )


def _summarizer(plan: _Plan, summarize: object, summary_role: object) -> Summarize | None:
    """Return the summariser to call, or None when no summary is wanted or nothing dropped."""
    if summarize is None:
        return None
    if not callable(summarize):
        raise TypeError("summarize must be a callable taking the dropped messages")
    allowed = plan.wire.summary_roles
    if summary_role not in allowed:
        raise ValueError(
            f"summary_role {summary_role!r} is not a message role in {plan.wire.label} lists; "
            f"use one of {', '.join(sorted(allowed))}"
        )
    return summarize if plan.dropped else None


def _with_summary(plan: _Plan, text: object, summary_role: str) -> CompactResultWithSummary:
    if not isinstance(text, str):
        raise TypeError(f"summarize must return a str; it returned {type(text).__name__}")
    note = {"role": summary_role, "content": text}
    tokens = plan.tokens_after + _checked_count(plan.count(note), "the summary message")
    extra = 0
    while tokens > plan.budget and extra < len(plan.spare):
        tokens -= plan.group_tokens(plan.spare[extra])
        extra += 1
    kept, dropped = _split(plan.seq, plan.starts, [*plan.dropped, *plan.spare[:extra]])
    kept.insert(plan.head_end, note)
    return CompactResultWithSummary(
        kept, dropped, plan.tokens_before, tokens, tokens <= plan.budget, text
    )


def _discard(awaitable: object) -> None:
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()  # an un-awaited coroutine would otherwise warn when collected


def _costs(seq: list[Any], count_tokens: CountTokens | None, where: str | None) -> list[int]:
    if count_tokens is None:
        try:
            return _default_costs(seq)
        except (TypeError, ValueError, RecursionError) as exc:
            raise _unencodable(seq, exc, where) from exc
    costs: list[int] = []
    for index, message in enumerate(seq):
        value = count_tokens(message)
        if value.__class__ is not int or value < 0:
            value = _checked_count(value, where or f"the message at index {index}")
        costs.append(value)
    return costs


def _unencodable(seq: list[Any], exc: BaseException, where: str | None) -> Exception:
    index = 0
    for index, message in enumerate(seq):  # noqa: B007 - the failing index is the answer
        try:
            _encode(message)
        except (TypeError, ValueError, RecursionError):
            break
    error = TypeError if isinstance(exc, TypeError) else ValueError
    return error(
        f"{where or f'the message at index {index}'} cannot be serialised as JSON for the "
        f"default token estimate ({exc}); pass count_tokens= that understands it"
    )


def _checked_count(value: Any, where: str) -> int:
    """Return `value` as an int; integral floats and integer types (numpy's) are accepted."""
    if isinstance(value, float) and value.is_integer():  # False for NaN and inf
        value = int(value)
    try:
        count = -1 if isinstance(value, bool) else operator.index(value)
    except TypeError:
        count = -1
    if count < 0:
        error = ValueError if count == value else TypeError  # a negative number, or no int
        raise error(
            f"count_tokens must return a non-negative int; it returned {value!r} "
            f"({type(value).__name__}) for {where}"
        )
    return count


def _check_budget(max_tokens: object) -> float:
    if (
        isinstance(max_tokens, (int, float))
        and not isinstance(max_tokens, bool)
        and 0 < max_tokens < math.inf  # NaN fails this too
    ):
        return max_tokens
    raise TypeError("max_tokens must be a positive number")


def _check_keep(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int count of messages; got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be 0 or more; got {value}")


def _as_list(messages: object) -> list[Any]:
    if isinstance(messages, list):
        return messages
    if isinstance(messages, tuple):
        return list(messages)
    raise TypeError(f"messages must be a list of message mappings; got {type(messages).__name__}")


def _refuse_duplicates(problems: list[tuple[int, str, str]]) -> None:
    for _index, kind, text in problems:
        if kind == DUPLICATE_CALL_ID:
            raise ValueError(
                f"{text}; give every tool call its own id so results pair with one call"
            )
