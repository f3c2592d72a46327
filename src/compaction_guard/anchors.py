"""Anchors: the values and identifiers a constraint is bound by.

Extraction reads tokens from `normalize.tokenize` (detection form). Values compare by
meaning (`$1,200` equals `1200 USD`); identifiers compare whole. See docs/DESIGN.md,
"Anchors".
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from compaction_guard.normalize import stem

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "VALUE_WORDS",
    "Value",
    "are_siblings",
    "comparable",
    "extract_values",
    "identifier_parts",
    "is_identifier",
    "is_numeric",
    "is_soft_identifier",
    "values_equal",
]


@dataclass(frozen=True, slots=True)
class Value:
    """One value anchor found at tokens [start, end).

    `amount` is in the base unit of `dimension` (seconds, bytes, metres, grams; the
    currency itself for money); `raw` is the number as written; `per` names a rate's
    denominator. Dates store yyyymmdd (or mmdd without a year) and versions their text.
    """

    kind: str
    dimension: str
    unit: str
    amount: Fraction
    raw: Fraction
    per: str
    surface: str
    start: int
    end: int


# unit word -> (dimension, canonical unit, factor to the base unit)
_TIME = {"ms": 0.001, "msec": 0.001, "millisecond": 0.001, "s": 1, "sec": 1, "second": 1}
_TIME |= {"m": 60, "min": 60, "minute": 60, "h": 3600, "hr": 3600, "hour": 3600}
_TIME |= {"d": 86400, "day": 86400, "wk": 604800, "week": 604800}
_TIME |= {"mo": 2592000, "month": 2592000, "yr": 31536000, "year": 31536000}
_DATA = {"b": 1, "byte": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "pb": 10**15}
_DATA |= {"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_DATA |= {"kilobyte": 10**3, "megabyte": 10**6, "gigabyte": 10**9, "terabyte": 10**12}
_LENGTH = {"mm": 0.001, "cm": 0.01, "km": 1000, "meter": 1, "metre": 1, "ft": 0.3048}
_LENGTH |= {"feet": 0.3048, "foot": 0.3048, "mile": 1609.344, "mi": 1609.344, "inch": 0.0254}
_MASS = {"mg": 0.001, "g": 1, "gram": 1, "kg": 1000, "kilogram": 1000, "lb": 453.59237}
_MASS |= {"lbs": 453.59237, "oz": 28.349523125, "tonne": 10**6}
_UNITS: dict[str, tuple[str, Fraction]] = {}
for _dimension, _table in (("time", _TIME), ("data", _DATA), ("length", _LENGTH), ("mass", _MASS)):
    for _name, _factor in _table.items():
        _UNITS[_name] = (_dimension, Fraction(str(_factor)))
_RATES = {"rps": "s", "qps": "s", "tps": "s", "rpm": "m", "rph": "h"}
_CURRENCY_SIGNS = {"$": "usd", "\u20ac": "eur", "\u00a3": "gbp", "\u00a5": "jpy"}
_CURRENCY_WORDS = {"usd": "usd", "dollar": "usd", "buck": "usd", "eur": "eur", "euro": "eur"}
_CURRENCY_WORDS |= {"gbp": "gbp", "jpy": "jpy", "yen": "jpy", "cad": "cad", "aud": "aud"}
_CURRENCY_WORDS |= {"chf": "chf", "inr": "inr", "rupee": "inr", "cent": "usd-cent"}
_MULTIPLIERS = {"k": 10**3, "thousand": 10**3, "m": 10**6, "mn": 10**6, "million": 10**6}
_MULTIPLIERS |= {"b": 10**9, "bn": 10**9, "billion": 10**9}
_PERCENT = {"%", "percent", "pct"}
_TIMEZONES = {"utc": "utc", "gmt": "utc", "z": "utc", "pst": "pst", "pdt": "pdt", "est": "est"}
_TIMEZONES |= {"edt": "edt", "cet": "cet", "cest": "cest", "ist": "ist", "jst": "jst"}
_TIMEZONES |= {"aest": "aest", "bst": "bst", "cst": "cst", "cdt": "cdt", "mst": "mst"}
# Unit words that are anchors even without a number ("report in kg, cm").
_BARE_UNITS = {"ms", "kb", "mb", "gb", "tb", "pb", "kib", "mib", "gib", "tib", "mm", "cm"}
_BARE_UNITS |= {"km", "kg", "mg", "lb", "lbs", "oz", "ft", "usd", "eur", "gbp", "jpy", "cad"}
_BARE_UNITS |= {"aud", "chf", "inr", "celsius", "fahrenheit", "metric", "imperial"}
_BARE_SYSTEMS = {"celsius": "temperature", "fahrenheit": "temperature"}
_BARE_SYSTEMS |= {"metric": "system", "imperial": "system"}
_WORD_NUMBERS = dict(
    zip(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split(),
        range(21),
        strict=True,
    ),
)
_WORD_NUMBERS |= {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}
_WORD_NUMBERS |= {"eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12}
_TIMES_WORDS = {"once": 1, "twice": 2, "thrice": 3}
_MONTHS = {
    name: index
    for index, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_WEEKDAYS = {
    name: index
    for index, name in enumerate(
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    )
} | {"weekday": 7, "weekend": 8, "business day": 9}

_NUMBER = re.compile(
    r"^([$\u20ac\u00a3\u00a5])?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?([a-z%]*)$",
)
_ISO_DATE = re.compile(r"^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$")
_YEAR_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_SLASH_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{2,4})$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::\d{2})?(am|pm)?$")
_VERSION = re.compile(r"^(?:v\d+(?:\.\d+)*|\d+\.\d+\.\d+(?:[.-]\w+)*)$")
_IP = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?$")
_ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?$")
_YEAR = re.compile(r"^(19|20)\d{2}$")
def _singular(token: str) -> str:
    """Return the unit-table spelling of `token`: plural `s` / `es` removed when known."""
    if token in _UNITS or token in _CURRENCY_WORDS or len(token) < 3:  # noqa: PLR2004
        return token
    for cut in ("es", "s"):
        base = token.removesuffix(cut)
        if base != token and (base in _UNITS or base in _CURRENCY_WORDS):
            return base
    return token


_NOT_COUNTED = {"of", "or", "and", "another", "that", "which", "who", "more", "by", "to", "is"}
_NOT_COUNTED |= {"was", "thing", "way", "time", "in", "on", "at", "for", "with", "the", "a"}
_NOISE_NOUNS = {"the", "a", "an", "of", "to", "in", "on", "for", "and", "or", "per", "at"}


# Words that can belong to a value; a token outside this set without a digit or a
# currency sign never starts one.
VALUE_WORDS = frozenset(
    {*_UNITS, *(unit + "s" for unit in _UNITS), *_CURRENCY_WORDS}
    | {word + "s" for word in _CURRENCY_WORDS}
    | {*_MULTIPLIERS, *_PERCENT, *_TIMEZONES, *_BARE_UNITS, *_WORD_NUMBERS, *_TIMES_WORDS}
    | {*_MONTHS, *_WEEKDAYS, *(day + "s" for day in _WEEKDAYS)}
    | {"am", "pm", "a.m", "p.m", "noon", "midday", "midnight", "per", "inches"},
)


def _could_start(token: str) -> bool:
    return token in VALUE_WORDS or token[0] in "$\u20ac\u00a3\u00a5" or any(
        ch.isdigit() for ch in token
    )


def is_numeric(token: str) -> bool:
    """Return True when `token` alone reads as a number, money, percent, date or time."""
    if _IP.match(token):
        return False
    return bool(
        _NUMBER.match(token)
        or _ISO_DATE.match(token)
        or _CLOCK.match(token)
        or _VERSION.match(token)
        or _SLASH_DATE.match(token)
        or _YEAR_MONTH.match(token),
    )


def extract_values(tokens: Sequence[str]) -> tuple[Value, ...]:
    """Return the value anchors in `tokens`, in order, each with its token span."""
    found: list[Value] = []
    index = 0
    while index < len(tokens):
        value = _value_at(tokens, index) if _could_start(tokens[index]) else None
        if value is None:
            index += 1
            continue
        found.append(value)
        index = max(value.end, index + 1)
    return tuple(found)


def _value_at(tokens: Sequence[str], i: int) -> Value | None:
    token = tokens[i]
    for parser in (_date_at, _clock_at, _version_at, _number_at, _word_value_at, _bare_at):
        value = parser(tokens, i)
        if value is not None:
            return value
    if "-" in token and not _ISO_DATE.match(token):
        return _range_at(tokens, i)
    return None


def _make(
    kind: str,
    dimension: str,
    unit: str,
    amount: Fraction,
    *,
    tokens: Sequence[str],
    start: int,
    end: int,
    raw: Fraction | None = None,
    per: str = "",
) -> Value:
    surface = " ".join(tokens[start:end])
    written = amount if raw is None else raw
    return Value(kind, dimension, unit, amount, written, per, surface, start, end)


def _date_at(tokens: Sequence[str], i: int) -> Value | None:
    token = tokens[i]
    match = _ISO_DATE.match(token)
    if match:
        year, month, day = (int(part) for part in match.groups())
        return _date(tokens, i, i + 1, year, month, day)
    match = _YEAR_MONTH.match(token)
    if match and 1 <= int(match.group(2)) <= 12:  # noqa: PLR2004
        amount = Fraction(int(match.group(1)) * 100 + int(match.group(2)))
        return _make("date", "date", "ym", amount, tokens=tokens, start=i, end=i + 1)
    match = _SLASH_DATE.match(token)
    if match:
        amount = Fraction(int("".join(part.zfill(2) for part in match.groups())))
        return _make("date", "date", "slash", amount, tokens=tokens, start=i, end=i + 1)
    return _written_date_at(tokens, i)


def _written_date_at(tokens: Sequence[str], i: int) -> Value | None:
    month = _MONTHS.get(tokens[i].rstrip("."))
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    if month is not None:
        day = _ORDINAL.match(nxt)
        if day and 1 <= int(day.group(1)) <= 31:  # noqa: PLR2004
            year = tokens[i + 2] if i + 2 < len(tokens) and _YEAR.match(tokens[i + 2]) else ""
            end = i + 3 if year else i + 2
            return _date(tokens, i, end, int(year or 0), month, int(day.group(1)))
        if _YEAR.match(nxt):
            amount = Fraction(int(nxt) * 100 + month)
            return _make("date", "date", "ym", amount, tokens=tokens, start=i, end=i + 2)
        if tokens[i] != "may" and len(tokens[i]) > 3:  # noqa: PLR2004 - "may" is a verb
            return _make("month", "month", "", Fraction(month), tokens=tokens, start=i, end=i + 1)
        return None
    day = _ORDINAL.match(tokens[i])
    if day and nxt in {"of"} and i + 2 < len(tokens):
        nxt, skip = tokens[i + 2], 1
    else:
        skip = 0
    month = _MONTHS.get(nxt)
    if day and month is not None and 1 <= int(day.group(1)) <= 31:  # noqa: PLR2004
        after = i + 2 + skip
        year = tokens[after] if after < len(tokens) and _YEAR.match(tokens[after]) else ""
        return _date(
            tokens, i, after + (1 if year else 0), int(year or 0), month, int(day.group(1))
        )
    return _weekday_at(tokens, i)


def _date(tokens: Sequence[str], start: int, end: int, year: int, month: int, day: int) -> Value:
    unit = "ymd" if year else "md"
    amount = Fraction(year * 10000 + month * 100 + day)
    return _make("date", "date", unit, amount, tokens=tokens, start=start, end=end)


def _weekday_at(tokens: Sequence[str], i: int) -> Value | None:
    word = stem(tokens[i]) if tokens[i].endswith("s") else tokens[i]
    index = _WEEKDAYS.get(word.rstrip("s") if word.endswith("days") else word)
    if index is None:
        index = _WEEKDAYS.get(tokens[i][:-1]) if tokens[i].endswith("s") else None
    if index is None:
        return None
    # "weekdays" and "weekends" compare with each other, not with one named day.
    dimension = "weekday" if index < 7 else "dayset"  # noqa: PLR2004
    return _make("weekday", dimension, "", Fraction(index), tokens=tokens, start=i, end=i + 1)


def _clock_at(tokens: Sequence[str], i: int) -> Value | None:
    token = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    match = _CLOCK.match(token)
    if match:
        hour, minute, half = int(match.group(1)), int(match.group(2)), match.group(3)
        end = i + 1
    else:
        match = re.match(r"^(\d{1,2})(am|pm)$", token)
        if match:
            hour, minute, half, end = int(match.group(1)), 0, match.group(2), i + 1
        elif token.isdigit() and nxt in {"am", "pm", "a.m", "p.m"} and int(token) <= 12:  # noqa: PLR2004
            hour, minute, half, end = int(token), 0, nxt[0] + "m", i + 2
        elif token in {"noon", "midday", "midnight"}:
            hour, minute, half, end = (0 if token == "midnight" else 12), 0, None, i + 1
        else:
            return None
    if half == "pm" and hour < 12:  # noqa: PLR2004
        hour += 12
    if half == "am" and hour == 12:  # noqa: PLR2004
        hour = 0
    if hour > 24 or minute > 59:  # noqa: PLR2004
        return None
    amount = Fraction(hour * 60 + minute)
    return _make("time", "clock", "", amount, tokens=tokens, start=i, end=end)


def _version_at(tokens: Sequence[str], i: int) -> Value | None:
    token = tokens[i]
    if _IP.match(token) or not _VERSION.match(token):
        return None
    return _make(
        "version", "version", token.lstrip("v"), Fraction(0), tokens=tokens, start=i, end=i + 1
    )


def _number_at(tokens: Sequence[str], i: int) -> Value | None:
    match = _NUMBER.match(tokens[i])
    if not match:
        return None
    sign, whole, frac, suffix = match.groups()
    raw = Fraction(whole.replace(",", "") + ("." + frac if frac else ""))
    return _quantify(tokens, i, raw, sign, suffix)


def _word_value_at(tokens: Sequence[str], i: int) -> Value | None:
    token = tokens[i]
    if token in _TIMES_WORDS:
        per = _per_at(tokens, i + 1)
        if token == "once" and not per:
            return None  # "once they are old": a conjunction, not a count
        end = i + 1 + (2 if per else 0)
        amount = Fraction(_TIMES_WORDS[token])
        return _make("number", "count", "time", amount, tokens=tokens, start=i, end=end, per=per)
    if token not in _WORD_NUMBERS:
        return None
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    if token in {"one", "zero"} and (not nxt.isalpha() or nxt in _NOT_COUNTED):
        return None  # "one of", "no one", "the one that": not a count
    raw = Fraction(_WORD_NUMBERS[token])
    if nxt == "hundred" or nxt == "thousand":
        raw *= 100 if nxt == "hundred" else 1000
        return _quantify(tokens, i + 1, raw, None, "", start=i)
    return _quantify(tokens, i, raw, None, "")


def _quantify(
    tokens: Sequence[str],
    i: int,
    raw: Fraction,
    sign: str | None,
    suffix: str,
    start: int | None = None,
) -> Value | None:
    begin = i if start is None else start
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    currency = _CURRENCY_SIGNS.get(sign or "") or _currency_before(tokens, begin)
    if suffix and suffix not in _PERCENT and suffix not in _MULTIPLIERS:
        return _suffixed(tokens, begin, i, raw, suffix, currency)
    amount = raw * _MULTIPLIERS.get(suffix, 1)
    end = i + 1
    if nxt in _MULTIPLIERS and len(nxt) > 1:
        amount, end = amount * _MULTIPLIERS[nxt], end + 1
        nxt = tokens[end] if end < len(tokens) else ""
    if suffix in _PERCENT or nxt in _PERCENT:
        return _make(
            "percent", "percent", "", raw, tokens=tokens, start=begin, end=end + (suffix == "")
        )
    word = _singular(nxt)
    if currency is None and word in _CURRENCY_WORDS:
        currency, end = _CURRENCY_WORDS[word], end + 1
    if currency is not None:
        per = _per_at(tokens, end)
        end += 2 if per else 0
        return _make(
            "money",
            "money",
            currency,
            amount,
            tokens=tokens,
            start=begin,
            end=end,
            raw=raw,
            per=per,
        )
    return _unit_value(tokens, begin, end, amount, raw, word)


def _unit_value(
    tokens: Sequence[str], begin: int, end: int, amount: Fraction, raw: Fraction, word: str
) -> Value:
    following = tokens[end] if end < len(tokens) else ""
    if word in _UNITS and following:
        dimension, factor = _UNITS[word]
        per = _per_at(tokens, end + 1)
        stop = end + 1 + (2 if per else 0)
        return _make(
            "quantity",
            dimension,
            word,
            amount * factor,
            tokens=tokens,
            start=begin,
            end=stop,
            raw=raw,
            per=per,
        )
    if word in _RATES:
        return _make(
            "quantity", "rate", word, amount, tokens=tokens, start=begin, end=end + 1, raw=raw
        )
    noun = stem(following) if following.isalpha() and following not in _NOISE_NOUNS else ""
    per = _per_at(tokens, end + (1 if noun else 0))
    stop = end + (1 if noun else 0) + (2 if per else 0)
    return _make(
        "number", "count", noun, amount, tokens=tokens, start=begin, end=stop, raw=raw, per=per
    )


def _suffixed(
    tokens: Sequence[str], begin: int, i: int, raw: Fraction, suffix: str, currency: str | None
) -> Value | None:
    if suffix in {"st", "nd", "rd", "th"}:
        return _make("number", "ordinal", "", raw, tokens=tokens, start=begin, end=i + 1)
    if suffix == "x":
        return _make("number", "factor", "x", raw, tokens=tokens, start=begin, end=i + 1)
    if suffix not in _UNITS and suffix[0] in "kmb" and suffix[1:] in _UNITS and currency is None:
        raw, suffix = raw * _MULTIPLIERS[suffix[0]], suffix[1:]
    if currency is not None and suffix in _MULTIPLIERS:
        return _make(
            "money",
            "money",
            currency,
            raw * _MULTIPLIERS[suffix],
            tokens=tokens,
            start=begin,
            end=i + 1,
            raw=raw,
        )
    if suffix in _UNITS:
        dimension, factor = _UNITS[suffix]
        per = _per_at(tokens, i + 1)
        end = i + 1 + (2 if per else 0)
        return _make(
            "quantity",
            dimension,
            suffix,
            raw * factor,
            tokens=tokens,
            start=begin,
            end=end,
            raw=raw,
            per=per,
        )
    if suffix in _RATES:
        return _make("quantity", "rate", suffix, raw, tokens=tokens, start=begin, end=i + 1)
    return None


def _currency_before(tokens: Sequence[str], i: int) -> str | None:
    if i == 0:
        return None
    word = tokens[i - 1]
    return _CURRENCY_WORDS.get(word) if len(word) == 3 else _CURRENCY_SIGNS.get(word)  # noqa: PLR2004


def _per_at(tokens: Sequence[str], i: int) -> str:
    """Return the canonical denominator when tokens[i:] reads `per <unit>` or `a <unit>`."""
    if i + 1 >= len(tokens) or tokens[i] not in {"per", "a", "an", "each", "every", "/"}:
        return ""
    word = _singular(tokens[i + 1])
    if word in _UNITS:
        return f"{_UNITS[word][0]}:{_UNITS[word][1]}"
    return stem(word) if tokens[i] == "per" and word.isalpha() else ""


def _bare_at(tokens: Sequence[str], i: int) -> Value | None:
    token = tokens[i]
    if token in _TIMEZONES:
        return _make(
            "unit", "timezone", _TIMEZONES[token], Fraction(0), tokens=tokens, start=i, end=i + 1
        )
    if token not in _BARE_UNITS:
        return None
    if _adjacent_number(tokens, i):
        return None  # "USD 1,200": the currency belongs to the number
    word = _singular(token)
    if word in _CURRENCY_WORDS:
        return _make(
            "unit", "money", _CURRENCY_WORDS[word], Fraction(0), tokens=tokens, start=i, end=i + 1
        )
    dimension = _UNITS[word][0] if word in _UNITS else _BARE_SYSTEMS.get(token, token)
    return _make("unit", dimension, token, Fraction(0), tokens=tokens, start=i, end=i + 1)


def _adjacent_number(tokens: Sequence[str], i: int) -> bool:
    before = tokens[i - 1] if i > 0 else ""
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    return bool(_NUMBER.match(before) or _NUMBER.match(after))


def _range_at(tokens: Sequence[str], i: int) -> Value | None:
    left, _, right = tokens[i].partition("-")
    if not left or not right:
        return None
    first = _value_at([left], 0)
    second = _value_at([right], 0)
    if first is None or second is None:
        return None
    amount = first.amount * 10**6 + second.amount
    return _make(
        first.kind,
        first.dimension + "-range",
        first.unit,
        amount,
        tokens=tokens,
        start=i,
        end=i + 1,
    )


def values_equal(left: Value, right: Value) -> bool:
    """Return True when two values state the same quantity, whatever their spelling.

    A plain number equals a money, percent or quantity value with the same written
    amount (`500` and `$500`); two stated units must agree. Counts ignore the counted
    noun (`3 retries`, `3 times`).
    """
    if left.kind == "number" and right.kind == "number":
        return left.amount == right.amount and left.per == right.per
    if left.kind == "number" or right.kind == "number":
        plain, other = (left, right) if left.kind == "number" else (right, left)
        return not plain.unit and not plain.per and plain.amount == other.raw
    if left.kind == "date" == right.kind and {left.unit, right.unit} == {"md", "ymd"}:
        return left.amount % 10000 == right.amount % 10000
    return (left.kind, left.dimension, left.unit if left.kind in _UNIT_KINDS else "") == (
        right.kind,
        right.dimension,
        right.unit if right.kind in _UNIT_KINDS else "",
    ) and (left.amount, left.per) == (right.amount, right.per)


_UNIT_KINDS = {"money", "version", "unit"}


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
    """
    if _IP.match(token):
        return True
    if _value_at((token,), 0) is not None:
        return False
    if _ID_MARK.search(token) and any(ch.isalnum() for ch in token):
        return True
    return bool(_LETTER_DIGIT.match(token))


def is_soft_identifier(token: str) -> bool:
    """Return True for a hyphenated word (`payments-staging`, `third-party`).

    It is compared whole when it is replaced, but a summary that writes it with a space
    or without the hyphen still carries it.
    """
    return bool(_HYPHENATED.match(token))


def identifier_parts(token: str) -> tuple[str, ...]:
    """Return the pieces of an identifier split at its joiners, empty pieces dropped."""
    return tuple(part for part in _PARTS.split(token) if part)


def are_siblings(wanted: str, found: str) -> bool:
    """Return True when `found` looks like an edited version of identifier `wanted`.

    Siblings extend or truncate one another (`orders_prod` / `orders_prod_archive`,
    `.env` / `.env.example`) or share a leading or trailing part (`payments-staging` /
    `payments-sandbox`, `eu-west-1` / `eu-west-2`).
    """
    if wanted == found:
        return False
    if found.startswith(wanted) or wanted.startswith(found):
        return True
    left, right = identifier_parts(wanted), identifier_parts(found)
    if not left or not right or (len(left) == 1 and len(right) == 1):
        return False
    if left[0] == right[0] and (len(left[0]) >= _MIN_PART or left[:2] == right[:2]):
        return True
    return left[-1] == right[-1] and len(left[-1]) > _MIN_PART
