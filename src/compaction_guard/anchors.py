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
    "rate_of",
    "values_equal",
    "with_rate",
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


def _words(text: str) -> list[str]:
    return text.split()


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
# Region codes ("the US" only after "the": otherwise it is the pronoun).
_REGIONS = {"eu", "eea", "uk", "us", "usa", "emea", "apac", "latam", "amer", "anz", "mena"}
_BARE_SYSTEMS = {"celsius": "temperature", "fahrenheit": "temperature"}
_BARE_SYSTEMS |= {"metric": "system", "imperial": "system"}
_WORD_NUMBERS = {
    word: n
    for n, word in enumerate(
        _words(
            """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty
    """,
        )
    )
}
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
_HOUR = re.compile(r"^(\d{1,2})(am|pm)$")


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
_NOISE_NOUNS = {"the", "a", "an", "of", "to", "in", "on", "for", "and", "or", "per", "at", "from"}
_NOISE_NOUNS |= {"with", "by", "into", "than", "before", "after", "during", "under", "over"}
_NOISE_NOUNS |= {"is", "are", "was", "be", "this", "that", "it", "as", "if", "when", "then"}


# Words that can belong to a value; a token outside this set without a digit or a
# currency sign never starts one.
VALUE_WORDS = frozenset(
    {*_UNITS, *(unit + "s" for unit in _UNITS), *_CURRENCY_WORDS}
    | {word + "s" for word in _CURRENCY_WORDS}
    | {*_MULTIPLIERS, *_PERCENT, *_TIMEZONES, *_BARE_UNITS, *_WORD_NUMBERS, *_TIMES_WORDS}
    | _REGIONS
    | {*_MONTHS, *_WEEKDAYS, *(day + "s" for day in _WEEKDAYS)}
    | {"am", "pm", "a.m", "p.m", "noon", "midday", "midnight", "per", "inches", "times"},
)


def _could_start(token: str) -> bool:
    return (
        token in VALUE_WORDS
        or token[0] in "$\u20ac\u00a3\u00a5"
        or any(ch.isdigit() for ch in token)
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
    reader = _Reader(tokens, i)
    for parse in (reader.date, reader.clock, reader.version, reader.number, reader.words):
        value = parse()
        if value is not None:
            return value
    value = reader.bare()
    if value is None and "-" in tokens[i]:
        return reader.range()
    return value


class _Reader:
    """Reads one value starting at tokens[i]; each method returns None when it does not fit."""

    def __init__(self, tokens: Sequence[str], i: int) -> None:
        self.tokens, self.i, self.word = tokens, i, tokens[i]

    def at(self, index: int) -> str:
        return self.tokens[index] if index < len(self.tokens) else ""

    def make(
        self,
        kind: str,
        dimension: str,
        unit: str,
        amount: Fraction,
        end: int,
        *,
        raw: Fraction | None = None,
        per: str = "",
        start: int | None = None,
    ) -> Value:
        begin = self.i if start is None else start
        written = amount if raw is None else raw
        surface = " ".join(self.tokens[begin:end])
        return Value(kind, dimension, unit, amount, written, per, surface, begin, end)

    def date(self) -> Value | None:
        i, word = self.i, self.word
        if match := _ISO_DATE.match(word):
            return self.ymd(i + 1, *(int(part) for part in match.groups()))
        match = _YEAR_MONTH.match(word)
        if match and 1 <= int(match.group(2)) <= 12:  # noqa: PLR2004
            amount = Fraction(int(match.group(1)) * 100 + int(match.group(2)))
            return self.make("date", "date", "ym", amount, i + 1)
        if match := _SLASH_DATE.match(word):
            amount = Fraction(int("".join(part.zfill(2) for part in match.groups())))
            return self.make("date", "date", "slash", amount, i + 1)
        return self.written_date()

    def written_date(self) -> Value | None:
        i, nxt = self.i, self.at(self.i + 1)
        month = _MONTHS.get(self.word.rstrip("."))
        if month is not None:
            day = _ORDINAL.match(nxt)
            if day and 1 <= int(day.group(1)) <= 31:  # noqa: PLR2004
                year = self.at(i + 2) if _YEAR.match(self.at(i + 2)) else ""
                return self.ymd(i + (3 if year else 2), int(year or 0), month, int(day.group(1)))
            if _YEAR.match(nxt):
                return self.make("date", "date", "ym", Fraction(int(nxt) * 100 + month), i + 2)
            if self.word != "may" and len(self.word) > 3:  # noqa: PLR2004 - "may" is a verb
                return self.make("month", "month", "", Fraction(month), i + 1)
            return None
        day = _ORDINAL.match(self.word)
        skip = 1 if nxt == "of" else 0
        month = _MONTHS.get(self.at(i + 1 + skip))
        if day and month is not None and 1 <= int(day.group(1)) <= 31:  # noqa: PLR2004
            after = i + 2 + skip
            year = self.at(after) if _YEAR.match(self.at(after)) else ""
            return self.ymd(after + (1 if year else 0), int(year or 0), month, int(day.group(1)))
        return self.weekday()

    def ymd(self, end: int, year: int, month: int, day: int) -> Value:
        amount = Fraction(year * 10000 + month * 100 + day)
        return self.make("date", "date", "ymd" if year else "md", amount, end)

    def weekday(self) -> Value | None:
        word = self.word
        index = _WEEKDAYS.get(word, _WEEKDAYS.get(word[:-1]) if word.endswith("s") else None)
        if index is None:
            return None
        # "weekdays" and "weekends" compare with each other, not with one named day.
        dimension = "weekday" if index < 7 else "dayset"  # noqa: PLR2004
        return self.make("weekday", dimension, "", Fraction(index), self.i + 1)

    def clock(self) -> Value | None:
        word, nxt, end = self.word, self.at(self.i + 1), self.i + 1
        if match := _CLOCK.match(word):
            hour, minute, half = int(match.group(1)), int(match.group(2)), match.group(3)
        elif match := _HOUR.match(word):
            hour, minute, half = int(match.group(1)), 0, match.group(2)
        elif word.isdigit() and nxt in {"am", "pm", "a.m", "p.m"} and int(word) <= 12:  # noqa: PLR2004
            hour, minute, half, end = int(word), 0, nxt[0] + "m", end + 1
        elif word in {"noon", "midday", "midnight"}:
            hour, minute, half = (0 if word == "midnight" else 12), 0, None
        else:
            return None
        hour += 12 if half == "pm" and hour < 12 else 0  # noqa: PLR2004
        hour = 0 if half == "am" and hour == 12 else hour  # noqa: PLR2004
        if hour > 24 or minute > 59:  # noqa: PLR2004
            return None
        return self.make("time", "clock", "", Fraction(hour * 60 + minute), end)

    def version(self) -> Value | None:
        if _IP.match(self.word) or not _VERSION.match(self.word):
            return None
        return self.make("version", "version", self.word.lstrip("v"), Fraction(0), self.i + 1)

    def number(self) -> Value | None:
        match = _NUMBER.match(self.word)
        if not match:
            return None
        sign, whole, frac, suffix = match.groups()
        raw = Fraction(whole.replace(",", "") + ("." + frac if frac else ""))
        return self.quantify(self.i, raw, sign, suffix)

    def words(self) -> Value | None:
        word, nxt = self.word, self.at(self.i + 1)
        if word in _TIMES_WORDS:
            per, end = self.per(self.i + 1)
            if word == "once" and not per:
                return None  # "once they are old": a conjunction, not a count
            return self.make("number", "count", "time", Fraction(_TIMES_WORDS[word]), end, per=per)
        if word not in _WORD_NUMBERS:
            return None
        if word in {"one", "zero"} and (not nxt.isalpha() or nxt in _NOT_COUNTED):
            return None  # "one of", "no one", "the one that": not a count
        raw = Fraction(_WORD_NUMBERS[word])
        if nxt in {"hundred", "thousand"}:
            return self.quantify(self.i + 1, raw * (100 if nxt == "hundred" else 1000), None, "")
        return self.quantify(self.i, raw, None, "")

    def quantify(self, i: int, raw: Fraction, sign: str | None, suffix: str) -> Value | None:
        """Read what follows a number at tokens[i]: multiplier, percent, currency, unit."""
        currency = _CURRENCY_SIGNS.get(sign or "")
        if currency is None and (currency := self.currency_before()) is not None:
            self.i -= 1  # "USD 1,200": the code belongs to the value's span
        if suffix and suffix not in _PERCENT and suffix not in _MULTIPLIERS:
            return self.suffixed(i, raw, suffix, currency)
        amount, end = raw * _MULTIPLIERS.get(suffix, 1), i + 1
        if len(self.at(end)) > 1 and self.at(end) in _MULTIPLIERS:
            amount, end = amount * _MULTIPLIERS[self.at(end)], end + 1
        if suffix in _PERCENT or self.at(end) in _PERCENT:
            per, stop = self.per(end + (suffix == ""))
            return self.make("percent", "percent", "", raw, stop, per=per)
        word = _singular(self.at(end))
        if currency is None and word in _CURRENCY_WORDS:
            currency, end = _CURRENCY_WORDS[word], end + 1
        if currency is not None:
            per, end = self.per(end)
            return self.make("money", "money", currency, amount, end, raw=raw, per=per)
        if word in _UNITS and self.at(end):
            dimension, factor = _UNITS[word]
            per, stop = self.per(end + 1)
            return self.make("quantity", dimension, word, amount * factor, stop, raw=raw, per=per)
        if word in _RATES:
            return self.make("quantity", "rate", word, amount, end + 1, raw=raw)
        following = self.at(end)
        noun = stem(following) if following.isalpha() and following not in _NOISE_NOUNS else ""
        per, stop = self.per(end + (1 if noun else 0))
        return self.make("number", "count", noun, amount, stop, raw=raw, per=per)

    def suffixed(self, i: int, raw: Fraction, suffix: str, currency: str | None) -> Value | None:
        """Read a number with letters attached: `500ms`, `2gb`, `1.5k`, `3x`, `1st`."""
        if suffix in {"st", "nd", "rd", "th"}:
            return self.make("number", "ordinal", "", raw, i + 1)
        if suffix == "x":
            return self.make("number", "factor", "x", raw, i + 1)
        if suffix not in _UNITS and suffix[0] in "kmb" and suffix[1:] in _UNITS and not currency:
            raw, suffix = raw * _MULTIPLIERS[suffix[0]], suffix[1:]
        if currency is not None and suffix in _MULTIPLIERS:
            return self.make("money", "money", currency, raw * _MULTIPLIERS[suffix], i + 1, raw=raw)
        if suffix in _UNITS:
            dimension, factor = _UNITS[suffix]
            per, end = self.per(i + 1)
            return self.make("quantity", dimension, suffix, raw * factor, end, raw=raw, per=per)
        if suffix in _RATES:
            return self.make("quantity", "rate", suffix, raw, i + 1)
        return None

    def currency_before(self) -> str | None:
        word = self.tokens[self.i - 1] if self.i > 0 else ""
        return _CURRENCY_WORDS.get(word) if len(word) == 3 else _CURRENCY_SIGNS.get(word)  # noqa: PLR2004

    def per(self, i: int) -> tuple[str, int]:
        """Read `per minute`, `a day`, `per 24 hours` at tokens[i]; return (denominator, end)."""
        if self.at(i) not in {"per", "a", "an", "each", "every", "/"} or not self.at(i + 1):
            return "", i
        count, at = Fraction(1), i + 1
        if _NUMBER.match(self.at(at)) and self.at(at).isdigit():
            count, at = Fraction(self.at(at)), at + 1
        word = _singular(self.at(at))
        if word in _UNITS:
            dimension, factor = _UNITS[word]
            return f"{dimension}:{factor * count}", at + 1
        if self.at(i) == "per" and word.isalpha() and count == 1:
            return stem(word), at + 1
        return "", i

    def bare(self) -> Value | None:
        """Read a unit, currency, time zone or region code standing alone ("kg, cm")."""
        word, end = self.word, self.i + 1
        if word in _TIMEZONES:
            return self.make("unit", "timezone", _TIMEZONES[word], Fraction(0), end)
        if word in _REGIONS and (word != "us" or (self.i > 0 and self.tokens[self.i - 1] == "the")):
            return self.make("unit", "region", word, Fraction(0), end)
        if word not in _BARE_UNITS or _NUMBER.match(self.at(self.i + 1)):
            return None
        if self.i > 0 and _NUMBER.match(self.tokens[self.i - 1]):
            return None  # "1,200 USD": the currency belongs to the number
        word = _singular(word)
        if word in _CURRENCY_WORDS:
            return self.make("unit", "money", _CURRENCY_WORDS[word], Fraction(0), end)
        dimension = _UNITS[word][0] if word in _UNITS else _BARE_SYSTEMS.get(word, word)
        return self.make("unit", dimension, word, Fraction(0), end)

    def range(self) -> Value | None:
        """Two values joined by a hyphen in one word: `9am-5pm`, `09:00-17:00`."""
        left, _, right = self.word.partition("-")
        first = _value_at([left], 0) if left else None
        second = _value_at([right], 0) if right else None
        if first is None or second is None:
            return None
        amount = first.amount * 10**6 + second.amount
        return self.make(first.kind, first.dimension + "-range", first.unit, amount, self.i + 1)


# Adverbs that state a rate for the amount they go with ("daily spend of $250").
_RATE_ADVERBS = {"hourly": "hour", "daily": "day", "nightly": "day", "weekly": "week"}
_RATE_ADVERBS |= {"monthly": "month", "yearly": "year", "annually": "year", "annual": "year"}
_RATED_KINDS = frozenset({"money", "number", "percent"})


def rate_of(token: str) -> str | None:
    """Return the rate denominator an adverb states (`daily` is `per day`), or None."""
    unit = _RATE_ADVERBS.get(token)
    if unit is None:
        return None
    dimension, factor = _UNITS[unit]
    return f"{dimension}:{factor}"


def with_rate(value: Value, per: str) -> Value:
    """Return `value` read as a rate per `per`, when it is an amount stated without one.

    "Daily API spend may not go above $250" states $250 per day. Durations, dates and
    values that already carry a rate are returned unchanged.
    """
    if (
        value.per
        or value.kind not in _RATED_KINDS
        or value.dimension not in {"money", "count", "percent"}
    ):
        return value
    return Value(
        value.kind,
        value.dimension,
        value.unit,
        value.amount,
        value.raw,
        per,
        value.surface,
        value.start,
        value.end,
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


@functools.lru_cache(maxsize=65536)
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
    return left[0] == right[0] and (len(left[0]) > _MIN_PART or left[:2] == right[:2])
