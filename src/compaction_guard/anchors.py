"""Anchors: the values and identifiers a constraint is bound by.

Extraction reads tokens from `normalize.tokenize` (detection form). Values compare by
meaning (`$1,200` equals `1200 USD`); identifiers compare whole. See docs/DESIGN.md,
"Anchors".
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from typing import TYPE_CHECKING

from compaction_guard._anchor_reader import Value, value_at
from compaction_guard._anchor_units import (
    ARTICLES,
    CLOCK,
    CURRENCY_WORDS,
    IP,
    ISO_DATE,
    NUMBER,
    RATE_ADVERBS,
    RATED_KINDS,
    RATES,
    SHORT_WEEKDAYS,
    SLASH_DATE,
    TEMPERATURES,
    TIMEZONES,
    UNITS,
    VALUE_WORDS,
    VERSION,
    WEEKDAYS,
    WORD_NUMBERS,
    YEAR_MONTH,
    singular,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from fractions import Fraction

__all__ = [
    "RATE_PERIODS",
    "VALUE_WORDS",
    "Value",
    "are_siblings",
    "comparable",
    "extract_values",
    "full_day_name",
    "identifier_parts",
    "is_identifier",
    "is_numeric",
    "is_soft_identifier",
    "period_seconds",
    "period_words",
    "range_pairs",
    "rate_of",
    "singular",
    "unit_word",
    "values_equal",
    "with_rate",
]


@functools.lru_cache(maxsize=65536)
def _could_start(token: str) -> bool:
    """Tell whether a value may start at `token`: a value word, a sign, a digit, a number word.

    Keyed by the token alone (the vocabulary bounds the cache), and asked of every token.
    """
    if token in VALUE_WORDS or token in ARTICLES or token[0] in "$\u20ac\u00a3\u00a5":
        return True
    if token.isalpha():  # no digit and no hyphen: a number word, or a day in a list of days
        return token in WORD_NUMBERS or token in SHORT_WEEKDAYS
    return token.partition("-")[0] in WORD_NUMBERS or any(map(str.isdigit, token))


def full_day_name(token: str) -> str | None:
    """Return the day a short day name names ("fri": "friday"), or None.

    The value reader reads one as a day only in a list of days; the index keys it by the
    day's full name wherever it stands, so "deploy_days: [mon, fri]" shares a key with
    "Only deploy on Mondays".
    """
    index = SHORT_WEEKDAYS.get(token)
    return None if index is None else _DAY_NAMES[index]


_DAY_NAMES = {index: name for name, index in WEEKDAYS.items() if " " not in name}


def is_numeric(token: str) -> bool:
    """Return True when `token` alone reads as a number, money, percent, date or time."""
    if IP.match(token):
        return False
    return bool(
        NUMBER.match(token)
        or ISO_DATE.match(token)
        or CLOCK.match(token)
        or VERSION.match(token)
        or SLASH_DATE.match(token)
        or YEAR_MONTH.match(token),
    )


def extract_values(tokens: Sequence[str]) -> tuple[Value, ...]:
    """Return the value anchors in `tokens`, in order, each with its token span."""
    found: list[Value] = []
    resume = 0  # a value's span is never read again for another value
    for index in itertools.compress(itertools.count(), map(_could_start, tokens)):
        if index < resume:
            continue
        value = value_at(tokens, index)
        if value is not None:
            found.append(value)
            resume = value.end
    for position in range(len(found) - 1):
        low, high = found[position], found[position + 1]
        if _joined(tokens, low, high):
            found[position] = _shared_unit(tokens, low, high)
    return tuple(found)


_RANGE_WORDS = frozenset({"to", "through", "thru", "until", "till"})


def range_pairs(tokens: Sequence[str], values: Sequence[Value]) -> list[tuple[Value, Value]]:
    """Return the pairs of values written as a range: "between A and B", "from A to B".

    Two neighbouring values of one kind and dimension joined by one range word ("to",
    "through", "until"), or by "and" after "between". In order: the first is the start.
    """
    pairs = []
    for low, high in itertools.pairwise(values):
        if (low.kind, low.dimension) != (high.kind, high.dimension) or low.ends or high.ends:
            continue
        if _joined(tokens, low, high):
            pairs.append((low, high))
    return pairs


def _joined(tokens: Sequence[str], low: Value, high: Value) -> bool:
    """Tell whether one range word alone stands between two values ("and" after "between")."""
    if high.start - low.end != 1:
        return False
    joint = tokens[low.end]
    return joint in _RANGE_WORDS or (
        joint == "and" and low.start > 0 and tokens[low.start - 1] == "between"
    )


@functools.lru_cache(maxsize=64)
def period_words(per: str) -> frozenset[str]:
    """Return the unit words that name a rate's period (`time:86400` is "day", "d")."""
    return frozenset(
        name for name, (dimension, factor) in UNITS.items() if f"{dimension}:{factor}" == per
    )


def _shared_unit(tokens: Sequence[str], low: Value, high: Value) -> Value:
    """Read a bare first end with the second end's unit: "between 2 and 8 degrees Celsius".

    A clock end takes the other's half of the day only when the hours then run forward
    ("two and four in the morning"; "9 to 5 pm" stays unread).
    """
    unit = tuple(tokens[high.start + 1 : high.end])
    if low.kind != "number" or low.unit or low.end - low.start != 1 or not unit:
        return low
    read = value_at((tokens[low.start], *unit), 0)
    if read is None or read.end != 1 + len(unit) or read.kind != high.kind:
        return low
    if read.kind == "time" and read.amount >= high.amount:
        return low
    return dataclasses.replace(read, surface=tokens[low.start], start=low.start, end=low.end)


def rate_of(token: str) -> str | None:
    """Return the rate denominator an adverb states (`daily` is `per day`), or None."""
    return RATE_PERIODS.get(token)


# Each rate adverb with the denominator it states, worked out once from the unit table.
RATE_PERIODS = {
    adverb: f"{UNITS[unit][0]}:{UNITS[unit][1]}" for adverb, unit in RATE_ADVERBS.items()
}


def with_rate(value: Value, per: str) -> Value:
    """Return `value` read as a rate per `per`, when it is an amount stated without one.

    "Daily API spend may not go above $250" states $250 per day. Durations, dates and
    values that already carry a rate are returned unchanged.
    """
    if (
        value.per
        or value.kind not in RATED_KINDS
        or value.dimension not in {"money", "count", "percent"}
    ):
        return value
    return dataclasses.replace(value, per=per)


def values_equal(left: Value, right: Value) -> bool:  # noqa: PLR0911 (a return per kind of value)
    """Return True when two values state the same quantity, whatever their spelling.

    A plain number equals a money, percent or quantity value with the same written
    amount (`500` and `$500`); two stated units must agree. Counts ignore the counted
    noun (`3 retries`, `3 times`). A unit of measure (time, data, length, mass,
    temperature) is never supplied to a plain number: "users under 13" and "13 months"
    may mean different ages, so the tier cannot say they are one value.
    """
    if left.kind == "number" and right.kind == "number":
        return left.amount == right.amount and left.per == right.per
    if left.kind == "number" or right.kind == "number":
        plain, other = (left, right) if left.kind == "number" else (right, left)
        if other.dimension == "rate" and other.unit in RATES:
            # "60 requests per minute" is "60 rpm"
            return plain.per == _rate_per(other.unit) and plain.amount == other.amount
        # "under 13" leaves its unit implicit: "13 months" may not be it
        implicit = other.dimension not in _MEASURED
        return implicit and not plain.unit and not plain.per and plain.amount == other.raw
    if len(left.ends) == len(right.ends) == 2:  # noqa: PLR2004 - two ranges: end by end
        return all(values_equal(a, b) for a, b in zip(left.ends, right.ends, strict=True))
    if left.kind == "date" == right.kind and {left.unit, right.unit} == {"md", "ymd"}:
        return left.amount % 10000 == right.amount % 10000
    months = _calendar_months(left), _calendar_months(right)
    if months != (None, None):
        return months[0] == months[1] and left.per == right.per
    return (left.kind, left.dimension, left.unit if left.kind in _UNIT_KINDS else "") == (
        right.kind,
        right.dimension,
        right.unit if right.kind in _UNIT_KINDS else "",
    ) and (left.amount, left.per) == (right.amount, right.per)


def period_seconds(token: str) -> Fraction | None:
    """Return the seconds a unit-of-time word names ("weeks": 604800), else None.

    The period of a rule written apart from its values ("at most three posts per
    channel each week"), to weigh a count given per another period against it.
    """
    found = UNITS.get(singular(token.lower()))
    return found[1] if found is not None and found[0] == "time" else None


@functools.lru_cache(maxsize=8192)
def unit_word(token: str) -> tuple[str, str] | None:
    """Return (dimension, unit) of a unit, currency, scale or time zone word, else None.

    "euros" is ("money", "eur"), "kilometres" ("length", "1000"), "Celsius" ("temperature",
    "c"): what a rule's slot is measured in, written as a word, even with no number by it.
    Units of time are left out: "per minute", "every day" name a period, not a unit a
    quantity is shown in; so are one-letter words ("g", "m").
    """
    word = singular(token.lower())
    if len(word) < 2:  # noqa: PLR2004
        return None
    if word in CURRENCY_WORDS:
        return "money", CURRENCY_WORDS[word]
    if word in UNITS and UNITS[word][0] != "time":
        dimension, factor = UNITS[word]
        return dimension, str(factor)
    if word in TEMPERATURES:
        return "temperature", TEMPERATURES[word]
    if word in TIMEZONES:
        return "timezone", TIMEZONES[word]
    return None


_UNIT_KINDS = {"money", "version", "unit"}
# A month is 28 to 31 days and a year 365 or 366: neither is a count of days, weeks or
# hours ("3 months" is not "90 days"), and between themselves they count in months.
_CALENDAR_MONTHS = {"mo": 1, "month": 1, "yr": 12, "year": 12}


def _calendar_months(value: Value) -> Fraction | None:
    """Return the months a period written in calendar units spans, or None for any other value."""
    months = _CALENDAR_MONTHS.get(value.unit) if value.dimension == "time" else None
    return None if months is None or value.kind != "quantity" else value.raw * months


_MEASURED = frozenset({"time", "data", "length", "mass", "temperature"})


def _rate_per(rate: str) -> str:
    dimension, factor = UNITS[RATES[rate]]
    return f"{dimension}:{factor}"


def comparable(left: Value, right: Value) -> bool:
    """Return True when two values measure the same thing, so a difference is an edit."""
    if left.kind == "number" or right.kind == "number":
        return left.kind == right.kind and left.dimension == right.dimension
    return left.kind == right.kind and left.dimension == right.dimension


_ID_MARK = re.compile(r"[_@/#~:]|^--?[a-z]|^\.\w|\w\.\w")
_LETTER_DIGIT = re.compile(r"(?=.*[a-z])(?=.*\d)")
_PARTS = re.compile(r"[-_./:@#~]+")
_HYPHENATED = re.compile(r"^[^\W\d_]+(?:-[^\W\d_]+)+$")
_MIN_PART = 3


@functools.lru_cache(maxsize=65536)
def is_identifier(token: str) -> bool:
    """Return True for a name compared whole: snake_case, dotted, path, flag, email, URL.

    Tokens mixing letters and digits (`eu-west-1`, `s3`) count too; values (`24h`,
    `9am-5pm`), plain words and hyphenated words (see `is_soft_identifier`) do not.
    The value reading only ever turns a name-shaped token down, so a token without a
    name's shape (a plain word, "19,303") is answered before it is read as a value.
    """
    if IP.match(token):
        return True
    shaped = bool(_ID_MARK.search(token) and any(map(str.isalnum, token)))
    if not shaped and not _LETTER_DIGIT.match(token):
        return False
    return value_at((token,), 0) is None


@functools.lru_cache(maxsize=65536)
def is_soft_identifier(token: str) -> bool:
    """Return True for a hyphenated word (`payments-staging`, `third-party`).

    It is compared whole when it is replaced, but a summary that writes it with a space
    or without the hyphen still carries it.
    """
    return bool(_HYPHENATED.match(token))


@functools.lru_cache(maxsize=65536)
def identifier_parts(token: str) -> tuple[str, ...]:
    """Return the pieces of an identifier split at its joiners, empty pieces dropped."""
    return tuple(filter(None, _PARTS.split(token)))


@functools.lru_cache(maxsize=65536)
def are_siblings(wanted: str, found: str) -> bool:
    """Return True when `found` looks like an edited version of identifier `wanted`.

    Siblings extend or truncate one another (`orders_prod` / `orders_prod_archive`,
    `.env` / `.env.example`) or share a leading part of four letters or more, or two
    leading parts (`payments-staging` / `payments-sandbox`, `eu-west-1` / `eu-west-2`).
    """
    if wanted == found:
        return False
    if found.startswith(wanted) or wanted.startswith(found):
        return True
    left, right = identifier_parts(wanted), identifier_parts(found)
    if not left or not right or (len(left) == 1 and len(right) == 1):
        return False
    # A shared family name (`payments-`) marks an edit; a shared suffix (`_prod`) does not:
    # orders_prod and billing_prod are two tables.
    if left[0] == right[0] and (len(left[0]) > _MIN_PART or left[:2] == right[:2]):
        return True
    # One part extended in place: `m5.xlarge` / `m5.2xlarge`, `gpt-4` / `gpt-4o`.
    if len(left) != len(right) or left[0] != right[0]:
        return False
    changed = [(a, b) for a, b in zip(left, right, strict=True) if a != b]
    return len(changed) == 1 and (changed[0][0] in changed[0][1] or changed[0][1] in changed[0][0])
