"""The value reader: numbers, money, quantities, dates, times and regions in tokens.

Private to the anchors: `anchors` is the public face. See docs/DESIGN.md, "Anchors".
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from compaction_guard._anchor_units import (
    ARTICLE_UNITS,
    ARTICLES,
    BARE_SYSTEMS,
    BARE_UNITS,
    CLOCK,
    COMPOUND,
    CURRENCY_SIGNS,
    CURRENCY_WORDS,
    HOUR,
    INTENSIFIERS,
    IP,
    ISO_DATE,
    MONTHS,
    MULTIPLIERS,
    NOISE_NOUNS,
    NOT_COUNTED,
    NUMBER,
    ORDINAL,
    ORDINAL_WORDS,
    PER_WORDS,
    PERCENT,
    RATES,
    REGION_NAMES,
    REGIONS,
    SECOND_AS_TIME,
    SHORT_WEEKDAYS,
    SLASH_DATE,
    TEMPERATURES,
    TIMES_WORDS,
    TIMEZONES,
    UNITS,
    VALUE_WORDS,
    VERSION,
    WEEKDAYS,
    WORD_NUMBERS,
    YEAR,
    YEAR_MONTH,
    singular,
)
from compaction_guard.normalize import stem

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["Value", "value_at"]


@dataclass(frozen=True, slots=True, init=False)
class Value:
    """One value anchor found at tokens [start, end).

    `amount` is in the base unit of `dimension` (seconds, bytes, metres, grams; the
    currency itself for money); `raw` is the number as written; `per` names a rate's
    denominator. Dates store yyyymmdd (or mmdd without a year) and versions their text.
    Temperatures store degrees Celsius. A range (`2-8 °C`, `9am-5pm`) keeps its two ends
    in `ends`, each read with the unit the range was written with.
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
    ends: tuple[Value, ...] = ()

    def __init__(  # noqa: PLR0917 - one parameter per field, as the generated one takes
        self,
        kind: str,
        dimension: str,
        unit: str,
        amount: Fraction,
        raw: Fraction,
        per: str,
        surface: str,
        start: int,
        end: int,
        ends: tuple[Value, ...] = (),
    ) -> None:
        # The generated frozen __init__ sets each field through object.__setattr__; the
        # slots' own setters do the same in a third of the instructions, and a value is
        # built for every figure, date and unit of every sentence read. Still frozen: the
        # class's __setattr__ refuses any later change.
        _SET_KIND(self, kind)
        _SET_DIMENSION(self, dimension)
        _SET_UNIT(self, unit)
        _SET_AMOUNT(self, amount)
        _SET_RAW(self, raw)
        _SET_PER(self, per)
        _SET_SURFACE(self, surface)
        _SET_START(self, start)
        _SET_END(self, end)
        _SET_ENDS(self, ends)


# The slot setters `Value.__init__` uses, one per field in field order (the unpacking
# fails at import if a field is added and not set).
(
    _SET_KIND,
    _SET_DIMENSION,
    _SET_UNIT,
    _SET_AMOUNT,
    _SET_RAW,
    _SET_PER,
    _SET_SURFACE,
    _SET_START,
    _SET_END,
    _SET_ENDS,
) = (vars(Value)[field.name].__set__ for field in dataclasses.fields(Value))


# Words before a "once" that bound a count ("at most once", "more than once", "exactly once").
_ONCE_BOUNDS = frozenset({"most", "least", "than", "exactly"})


def _slashed_rate(word: str) -> tuple[str, str] | None:
    """Return the unit and the period of a unit written over a time unit ("km/h", "mb/s").

    The period is the one "per hour" gives (`_Reader.per`), so "20 km/h" and "20
    kilometres per hour" are one value.
    """
    unit, slash, period = word.partition("/")
    if not slash or unit not in UNITS:
        return None
    dimension, factor = UNITS.get(singular(period), ("", 0))
    if dimension != "time":
        return None
    return unit, f"{dimension}:{factor}"


def value_at(tokens: Sequence[str], i: int) -> Value | None:
    """Return the value that starts at tokens[i], or None.

    The readers are tried in a fixed order and the first that reads wins; only those
    `_plan` says the word can start are run (most words start none, and then no reader
    is built at all).
    """
    plan = _plan(tokens[i])
    if not plan:
        return None
    reader = _Reader(tokens, i)
    for parse in plan:
        value = parse(reader)
        if value is not None:
            return value
    return None


@functools.lru_cache(maxsize=65536)
def _plan(word: str) -> tuple[Callable[[_Reader], Value | None], ...]:
    """Return the readers, in reading order, that can read a value starting with `word`.

    Each reader first tests its own word and returns None, touching nothing, when the
    word is none it reads; a reader whose test fails here is one that would have returned
    None, so leaving it out changes no reading (`_GATES` repeats each reader's own test:
    the patterns a digit-led word must match, the tables a word must be in). One entry
    per word, so the cache is bounded by the vocabulary, not by the texts read.

    A word first seen (a new figure or path: most texts hold some) takes the plan of its
    shape, its ASCII digits written as `0` (see `_shape_plan`).
    """
    return _shape_plan(word.translate(_DIGIT_SHAPE))


# Every ASCII digit as `0`: "60,331", "1.10.5" and "svc_06" share a shape with any figure
# written the same way.
_DIGIT_SHAPE = str.maketrans(dict.fromkeys("123456789", "0"))


@functools.lru_cache(maxsize=8192)
def _shape_plan(shape: str) -> tuple[Callable[[_Reader], Value | None], ...]:
    """Return `_plan` of every word with this digit shape.

    The gates see a digit only through the digit class of their patterns and through
    `str.isdigit`, which any ASCII digit passes as `0` does, and through table lookups
    whose keys hold no digit (units, months, number words: a word with a digit is in none
    of them, whatever the digit); a digit's value is read by the readers, never by a
    gate. So the words of one shape pass the same gates, and the plan is worked out once
    per shape (tests/test_anchors.py checks the tables hold no digit).
    """
    return tuple(reader for gate, reader in _GATES if gate(shape))


def _dates(word: str) -> bool:
    if ISO_DATE.match(word) or YEAR_MONTH.match(word) or SLASH_DATE.match(word):
        return True
    if word.rstrip(".") in MONTHS or ORDINAL.match(word):
        return True
    if word in SHORT_WEEKDAYS:
        return True
    return WEEKDAYS.get(word, WEEKDAYS.get(word[:-1]) if word.endswith("s") else None) is not None


def _clocks(word: str) -> bool:
    if CLOCK.match(word) or HOUR.match(word) or word.isdigit():
        return True
    return word in WORD_NUMBERS or word in _NOON


def _versions(word: str) -> bool:
    return VERSION.match(word) is not None


def _numbers(word: str) -> bool:
    return NUMBER.match(word) is not None


def _times(word: str) -> bool:
    return word in TIMES_WORDS


def _compounds(word: str) -> bool:
    return word.partition("-")[0] in _TENS


def _number_words(word: str) -> bool:
    return word in ORDINAL_WORDS or word in WORD_NUMBERS


def _bares(word: str) -> bool:
    return word in _BARE_STARTS or singular(word) in _BARE_STARTS


def _articles(word: str) -> bool:
    return word == "half" or word in ARTICLES


def _hyphens(word: str) -> bool:
    return "-" in word


_NOON = frozenset({"noon", "midday", "midnight"})
# "per the user", "per our runbook": "per" before a determiner cites a source, it names
# no denominator ("5 per user" does).
_CITED = frozenset(
    {"the", "a", "an", "this", "that", "our", "your", "their", "his", "her", "its", "my"}
)
# A word `bare` reads: a time zone, a region code or the first word of a region name, or
# (in the unit-table spelling) a unit or currency standing alone, or the "us" of "US dollars".
_BARE_STARTS = frozenset(
    {*TIMEZONES, *REGIONS, *(words[0] for words in REGION_NAMES), *BARE_UNITS, "us"}
)


@functools.lru_cache(maxsize=8192)
def _decimal(whole: str, frac: str | None) -> Fraction:
    """Return the exact number a decimal numeral writes ("1,200", "2.5").

    From integers, which is the value `Fraction("1200.5")` parses to without its string
    parser; keyed by the numeral's two parts, so bounded like a word cache.
    """
    digits = int(whole.replace(",", ""))
    if not frac:
        return Fraction(digits)
    scale = 10 ** len(frac)
    return Fraction(digits * scale + int(frac), scale)


# Fractions are immutable: one per small integer read is shared by every value that
# states it (bounded like a word cache), instead of a Fraction built per value.
_fraction = functools.lru_cache(maxsize=8192)(Fraction)
_ZERO, _ONE, _HALF = Fraction(0), Fraction(1), Fraction(1, 2)

_SCALES = {"hundred": 100, "thousand": 1000}
_TENS = {word: n for word, n in WORD_NUMBERS.items() if n % 10 == 0 and 20 <= n <= 90}  # noqa: PLR2004
_UNITS_DIGITS = {word: n for word, n in WORD_NUMBERS.items() if 1 <= n <= 9}  # noqa: PLR2004


# "Four in the morning" is 04:00, "six in the evening" 18:00.
_DAY_PARTS = {"morning": "am", "afternoon": "pm", "evening": "pm"}


def _bare_hour(word: str) -> int | None:
    """Return the hour a bare number of a clock face states ("4", "four"), or None."""
    hour = int(word) if word.isdigit() else WORD_NUMBERS.get(word)
    return hour if hour is not None and 1 <= hour <= 12 else None  # noqa: PLR2004


def _hours_in_order(left: str, right: str) -> bool:
    """Tell whether two bare hours of one half of the day run forward ("2-4", not "11-1")."""
    return left.isdigit() and right.isdigit() and 1 <= int(left) < int(right) <= 12  # noqa: PLR2004


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
        if match := ISO_DATE.match(word):
            return self.ymd(i + 1, *(int(part) for part in match.groups()))
        match = YEAR_MONTH.match(word)
        if match and 1 <= int(match.group(2)) <= 12:  # noqa: PLR2004
            amount = _fraction(int(match.group(1)) * 100 + int(match.group(2)))
            return self.make("date", "date", "ym", amount, i + 1)
        if match := SLASH_DATE.match(word):
            amount = _fraction(int("".join(part.zfill(2) for part in match.groups())))
            return self.make("date", "date", "slash", amount, i + 1)
        return self.written_date()

    def written_date(self) -> Value | None:
        i, nxt = self.i, self.at(self.i + 1)
        month = MONTHS.get(self.word.rstrip("."))
        if month is not None:
            day = ORDINAL.match(nxt)
            if day and 1 <= int(day.group(1)) <= 31:  # noqa: PLR2004
                year = self.at(i + 2) if YEAR.match(self.at(i + 2)) else ""
                return self.ymd(i + (3 if year else 2), int(year or 0), month, int(day.group(1)))
            if YEAR.match(nxt):
                return self.make("date", "date", "ym", _fraction(int(nxt) * 100 + month), i + 2)
            if self.word != "may" and len(self.word) > 3:  # noqa: PLR2004 - "may" is a verb
                return self.make("month", "month", "", _fraction(month), i + 1)
            return None
        day = ORDINAL.match(self.word)
        skip = 1 if nxt == "of" else 0
        month = MONTHS.get(self.at(i + 1 + skip))
        if day and month is not None and 1 <= int(day.group(1)) <= 31:  # noqa: PLR2004
            after = i + 2 + skip
            year = self.at(after) if YEAR.match(self.at(after)) else ""
            return self.ymd(after + (1 if year else 0), int(year or 0), month, int(day.group(1)))
        return self.weekday()

    def ymd(self, end: int, year: int, month: int, day: int) -> Value:
        amount = _fraction(year * 10000 + month * 100 + day)
        return self.make("date", "date", "ymd" if year else "md", amount, end)

    def weekday(self) -> Value | None:
        word = self.word
        index = WEEKDAYS.get(word, WEEKDAYS.get(word[:-1]) if word.endswith("s") else None)
        if index is None and word in SHORT_WEEKDAYS and self.listed_day():
            index = SHORT_WEEKDAYS[word]
        if index is None:
            return None
        # "weekdays" and "weekends" compare with each other, not with one named day.
        dimension = "weekday" if index < 7 else "dayset"  # noqa: PLR2004
        return self.make("weekday", dimension, "", _fraction(index), self.i + 1)

    def listed_day(self) -> bool:
        """Tell whether a short day name stands in a list of days ("[mon, fri]", "tue/thu").

        Alone, "sun", "sat" and "wed" are other words; next to another day they are days.
        """
        near = [*self.tokens[max(self.i - 2, 0) : self.i], *self.tokens[self.i + 1 : self.i + 3]]
        return any(w in SHORT_WEEKDAYS or w in WEEKDAYS or w[:-1] in WEEKDAYS for w in near)

    def clock(self) -> Value | None:
        word, end = self.word, self.i + 1
        if match := CLOCK.match(word):
            hour, minute, half = int(match.group(1)), int(match.group(2)), match.group(3)
        elif match := HOUR.match(word):
            hour, minute, half = int(match.group(1)), 0, match.group(2)
        elif (bare := _bare_hour(word)) is not None and (said := self.half_of_day(end)):
            hour, minute, (half, end) = bare, 0, said
        elif word in _NOON:
            hour, minute, half = (0 if word == "midnight" else 12), 0, None
        else:
            return None
        hour += 12 if half == "pm" and hour < 12 else 0  # noqa: PLR2004
        hour = 0 if half == "am" and hour == 12 else hour  # noqa: PLR2004
        if hour > 24 or minute > 59:  # noqa: PLR2004
            return None
        return self.make("time", "clock", "", _fraction(hour * 60 + minute), end)

    def half_of_day(self, i: int) -> tuple[str, int] | None:
        """Read "am", "p.m", "in the morning", "in the evening" at tokens[i]: (half, end)."""
        word = self.at(i)
        if word in {"am", "pm", "a.m", "p.m"}:
            return word[0] + "m", i + 1
        if word == "in" and self.at(i + 1) == "the":
            half = _DAY_PARTS.get(self.at(i + 2))
            return (half, i + 3) if half else None
        return None

    def version(self) -> Value | None:
        if IP.match(self.word) or not VERSION.match(self.word):
            return None
        return self.make("version", "version", self.word.lstrip("v"), _ZERO, self.i + 1)

    def number(self) -> Value | None:
        match = NUMBER.match(self.word)
        if not match:
            return None
        sign, whole, frac, suffix = match.groups()
        return self.quantify(self.i, _decimal(whole, frac), sign, suffix)

    def times(self) -> Value | None:
        """Read "twice a day", "once per hour"; a bare "once" is a conjunction."""
        word = self.word
        if word not in TIMES_WORDS:
            return None
        per, end = self.per(self.i + 1)
        if word == "once" and not per and not self.counted_once():
            return None  # "once they are old": a conjunction, not a count
        return self.make("number", "count", "time", _fraction(TIMES_WORDS[word]), end, per=per)

    def counted_once(self) -> bool:
        """Tell whether a bare "once" counts: "at most once", "retry only once." (no clause after).

        "only once the CFO has approved" is the conjunction again.
        """
        before = self.tokens[self.i - 1] if self.i else ""
        following = self.at(self.i + 1)
        return before in _ONCE_BOUNDS or not following[:1].isalnum()

    def words(self) -> Value | None:
        word, nxt = self.word, self.at(self.i + 1)
        if word in ORDINAL_WORDS:
            return self.make("number", "ordinal", "", _fraction(ORDINAL_WORDS[word]), self.i + 1)
        if word not in WORD_NUMBERS:
            return None
        if word in {"one", "zero"} and (not nxt.isalpha() or nxt in NOT_COUNTED):
            return None  # "one of", "no one", "the one that": not a count
        if word == "zero" and nxt not in VALUE_WORDS:
            return None  # "zero DDL statements": a negation (see the modality words)
        raw = _fraction(WORD_NUMBERS[word])
        scale = _SCALES.get(nxt)
        if scale is not None or word == "hundred":
            # "one hundred fifty", "two thousand five hundred", "a hundred and twenty-five"
            at, amount = (self.i, raw) if scale is None else (self.i + 1, raw * scale)
            amount, last = self.scaled(at, amount)
            return self.quantify(last, amount, None, "")
        return self.quantify(self.i, raw, None, "")

    def scaled(self, at: int, amount: Fraction) -> tuple[Fraction, int]:
        """Read the words after a "hundred" or "thousand" at tokens[at] into `amount`.

        Returns the whole amount and the position of its last word: "thousand five hundred
        and ten" adds 510 to a thousand, "hundred fifty" 50 to a hundred.
        """
        if self.at(at) == "thousand":
            small, end = self.small(at + 1)
            if small is not None and self.at(end) == "hundred":
                amount, end = amount + small * 100, end + 1
                at = end - 1
        small, end = self.small(at + 1)
        if small is not None and small < 100:  # noqa: PLR2004
            return amount + small, end - 1
        return amount, at

    def small(self, at: int) -> tuple[int | None, int]:
        """Read a number below a hundred in words at tokens[at], after an optional "and"."""
        start = at + 1 if self.at(at) == "and" else at
        word = self.at(start)
        left, _, right = word.partition("-")
        if right and left in _TENS and right in _UNITS_DIGITS:
            return _TENS[left] + _UNITS_DIGITS[right], start + 1
        if word in _TENS:
            following = self.at(start + 1)
            if following in _UNITS_DIGITS:
                return _TENS[word] + _UNITS_DIGITS[following], start + 2
            return _TENS[word], start + 1
        number = WORD_NUMBERS.get(word)
        if number is not None and 0 < number < 20:  # noqa: PLR2004
            return number, start + 1
        return None, at

    def compound_number(self) -> Value | None:
        """Read a tens word and a units word as one number: "twenty-five", "forty two".

        Without this the hyphenated form reads as the range 20-5 and the spaced form as 20,
        so a rule of 25 written out in words could never be matched (nor told apart).
        """
        word, nxt = self.word, self.at(self.i + 1)
        left, _, right = word.partition("-")
        if right and left in _TENS and right in _UNITS_DIGITS:
            return self.quantify(self.i, _fraction(_TENS[left] + _UNITS_DIGITS[right]), None, "")
        if word in _TENS and nxt in _UNITS_DIGITS:
            return self.quantify(self.i + 1, _fraction(_TENS[word] + _UNITS_DIGITS[nxt]), None, "")
        return None

    def quantify(self, i: int, raw: Fraction, sign: str | None, suffix: str) -> Value | None:
        """Read what follows a number at tokens[i]: multiplier, percent, currency, unit."""
        currency = CURRENCY_SIGNS.get(sign or "")
        if currency is None and (currency := self.currency_before()) is not None:
            self.i -= 1  # "USD 1,200": the code belongs to the value's span
        if suffix and suffix not in PERCENT and suffix not in MULTIPLIERS:
            return self.suffixed(i, raw, suffix, currency)
        amount, end = (raw * MULTIPLIERS[suffix] if suffix in MULTIPLIERS else raw), i + 1
        following = self.at(end)  # the word at `end`, read again only when `end` moves
        if len(following) > 1 and following in MULTIPLIERS:
            amount, end = amount * MULTIPLIERS[following], end + 1
            following = self.at(end)
        if suffix in PERCENT or following in PERCENT:
            per, stop = self.per(end + (suffix == ""))
            return self.make("percent", "percent", "", raw, stop, per=per)
        if following in INTENSIFIERS and singular(self.at(end + 1)) in UNITS:
            end += 1  # "10 straight minutes", "2 full days"
            following = self.at(end)
        measured = self.measured(end, following, amount, raw, currency)
        if measured is not None:
            return measured
        noun = stem(following) if following.isalpha() and following not in NOISE_NOUNS else ""
        per, stop = self.per(end + (1 if noun else 0))
        if noun and not per:
            per, stop = self.compound_per(end + 1, stop)
        return self.make("number", "count", noun, amount, stop, raw=raw, per=per)

    def measured(
        self, end: int, following: str, amount: Fraction, raw: Fraction, currency: str | None
    ) -> Value | None:
        """Read the money, unit or rate word at tokens[end] (`following`) a number measures."""
        word = singular(following)
        if currency is None and word == "us" and singular(self.at(end + 1)) == "dollar":
            word, end = "usd", end + 1  # "3000 US dollars" is 3000 USD, not 3000 "us"
        if currency is None and word in CURRENCY_WORDS:
            currency, end = CURRENCY_WORDS[word], end + 1
        if currency is not None:
            per, end = self.per(end)
            return self.make("money", "money", currency, amount, end, raw=raw, per=per)
        temperature = self.temperature(end, amount, raw)
        if temperature is not None:
            return temperature
        if word in UNITS and following:
            dimension, factor = UNITS[word]
            per, stop = self.per(end + 1)
            return self.make("quantity", dimension, word, amount * factor, stop, raw=raw, per=per)
        slashed = _slashed_rate(following)
        if slashed is not None:  # "20 km/h" is "20 km per hour"
            unit, per = slashed
            dimension, factor = UNITS[unit]
            amount *= factor
            return self.make("quantity", dimension, unit, amount, end + 1, raw=raw, per=per)
        if word in RATES:
            return self.make("quantity", "rate", word, amount, end + 1, raw=raw)
        return None

    def temperature(self, end: int, amount: Fraction, raw: Fraction) -> Value | None:
        """Read "2 °C", "35.6 °F", "8 degrees Celsius" as degrees Celsius, converted exactly.

        The degree sign is not a token, so "2°C" reads "2 c": a letter c or f right after a
        number is the scale. 35.6 °F is then exactly 2 °C, and 2 °F is never 2 °C.
        """
        word, at = self.at(end), end
        if word in {"degree", "degrees", "deg"} and self.at(end + 1) in TEMPERATURES:
            word, at = self.at(end + 1), end + 1
        scale = TEMPERATURES.get(word)
        if scale is None:
            return None
        celsius = (amount - 32) * Fraction(5, 9) if scale == "f" else amount
        return self.make("quantity", "temperature", scale, celsius, at + 1, raw=raw)

    def compound_per(self, i: int, stop: int) -> tuple[str, int]:
        """Read the rate after a compound noun: "5,000 github api requests per hour"."""
        for at in range(i, i + COMPOUND):
            word = self.at(at)
            if word in PER_WORDS:
                per, end = self.per(at)
                return (per, end) if per else ("", stop)
            if not word.isalpha() or word in NOISE_NOUNS or word in VALUE_WORDS:
                break
        return "", stop

    def suffixed(self, i: int, raw: Fraction, suffix: str, currency: str | None) -> Value | None:
        """Read a number with letters attached: `500ms`, `2gb`, `1.5k`, `3x`, `1st`."""
        if suffix in {"st", "nd", "rd", "th"}:
            return self.make("number", "ordinal", "", raw, i + 1)
        if suffix == "x":
            return self.make("number", "factor", "x", raw, i + 1)
        if suffix not in UNITS and suffix[0] in "kmb" and suffix[1:] in UNITS and not currency:
            raw, suffix = raw * MULTIPLIERS[suffix[0]], suffix[1:]
        if currency is not None and suffix in MULTIPLIERS:
            return self.make("money", "money", currency, raw * MULTIPLIERS[suffix], i + 1, raw=raw)
        if suffix in UNITS:
            dimension, factor = UNITS[suffix]
            per, end = self.per(i + 1)
            return self.make("quantity", dimension, suffix, raw * factor, end, raw=raw, per=per)
        if suffix in RATES:
            return self.make("quantity", "rate", suffix, raw, i + 1)
        return None

    def currency_before(self) -> str | None:
        word = self.tokens[self.i - 1] if self.i > 0 else ""
        return CURRENCY_WORDS.get(word) if len(word) == 3 else CURRENCY_SIGNS.get(word)  # noqa: PLR2004

    def per(self, i: int) -> tuple[str, int]:
        """Read `per minute`, `a day`, `per 24 hours` at tokens[i]; return (denominator, end)."""
        if self.at(i) not in {"per", "a", "an", "each", "every", "/"} or not self.at(i + 1):
            return "", i
        count, at = _ONE, i + 1
        if NUMBER.match(self.at(at)) and self.at(at).isdigit():
            count, at = _fraction(self.at(at)), at + 1
        word = singular(self.at(at))
        if word in UNITS:
            dimension, factor = UNITS[word]
            return f"{dimension}:{factor * count}", at + 1
        if self.at(i) == "per" and word.isalpha() and count == 1 and word not in _CITED:
            return stem(word), at + 1
        return "", i

    def bare(self) -> Value | None:
        """Read a unit, currency, time zone or region code standing alone ("kg, cm")."""
        word, end = self.word, self.i + 1
        if word in TIMEZONES:
            return self.make("unit", "timezone", TIMEZONES[word], _ZERO, end)
        return self.region() or self.bare_unit()

    def bare_unit(self) -> Value | None:
        """Read a unit or currency word standing alone ("in kilograms")."""
        word, end = singular(self.word), self.i + 1
        if word == "us" and singular(self.at(end)) == "dollar" and not self.after_number():
            return self.make("unit", "money", "usd", _ZERO, end + 1)  # "in US dollars"
        if word not in BARE_UNITS or NUMBER.match(self.at(self.i + 1)):
            return None
        if self.after_number():
            return None  # "1,200 USD": the currency belongs to the number
        if word in CURRENCY_WORDS:
            return self.make("unit", "money", CURRENCY_WORDS[word], _ZERO, end)
        if word in UNITS:
            # "kg" and "kilograms" name one unit: compare by dimension and size.
            dimension, factor = UNITS[word]
            return self.make("unit", dimension, str(factor), _ZERO, end)
        return self.make("unit", BARE_SYSTEMS.get(word, word), word, _ZERO, end)

    def after_number(self) -> bool:
        return self.i > 0 and bool(NUMBER.match(self.tokens[self.i - 1]))

    def region(self) -> Value | None:
        """Read a region code ("EU", "the US") or a region name ("European Union")."""
        word = self.word
        if word in REGIONS and (word != "us" or (self.i > 0 and self.tokens[self.i - 1] == "the")):
            return self.make("unit", "region", word, _ZERO, self.i + 1)
        for words, code in REGION_NAMES.items():
            if tuple(self.tokens[self.i : self.i + len(words)]) == words:
                return self.make("unit", "region", code, _ZERO, self.i + len(words))
        return None

    def article(self) -> Value | None:
        """Read "an hour", "a day", "half an hour" as one (or half a) unit of time."""
        word, at, amount = self.word, self.i, _ONE
        if word == "half" and self.at(at + 1) in ARTICLES:
            at, amount = at + 1, _HALF
        elif word not in ARTICLES:
            return None
        unit = self.at(at + 1)
        if unit not in ARTICLE_UNITS:
            return None
        following = self.at(at + 2)
        ordinal = following.isalpha() and following not in SECOND_AS_TIME
        if unit == "second" and amount == _ONE and ordinal:  # "a second reminder"
            return self.make("number", "ordinal", "", _fraction(2), at + 2)
        dimension, factor = UNITS[unit]
        per, end = self.per(at + 2)
        return self.make("quantity", dimension, unit, amount * factor, end, raw=amount, per=per)

    def hyphenated(self) -> Value | None:
        """Read a number and its unit joined by a hyphen: `30-day`, `5-minute`, `two-hour`."""
        left, _, right = self.word.partition("-")
        if not left or not right or "-" in right:
            return None
        value = value_at([left, right], 0)
        if value is None or value.end != 2 or value.kind not in {"quantity", "money", "percent"}:  # noqa: PLR2004
            return None
        return dataclasses.replace(value, surface=self.word, start=self.i, end=self.i + 1)

    def range(self) -> Value | None:
        """Two values joined by a hyphen in one word: `9am-5pm`, `09:00-17:00`."""
        left, _, right = self.word.partition("-")
        half, end = self.at(self.i + 1), self.i + 1
        if half in {"am", "pm", "a.m", "p.m"} and _hours_in_order(left, right):
            # "2-4 AM" is 02:00-04:00: the trailing half of the day binds both hours.
            left, right, end = left + half[0] + "m", right + half[0] + "m", end + 1
        first = value_at([left], 0) if left else None
        if first is None:
            return None  # "ops-9649": the right side is not read when the left reads nothing
        second = value_at([right], 0) if right else None
        if second is None:
            return None
        if first.kind == second.kind == "number" and not first.unit and not second.unit:
            # "2-8 °C", "10-20 GB", "2-8 degrees Celsius": the unit measures both ends.
            for width in (3, 2, 1):
                unit = list(self.tokens[end : end + width])
                left_unit, right_unit = value_at([left, *unit], 0), value_at([right, *unit], 0)
                if (
                    unit
                    and left_unit is not None
                    and right_unit is not None
                    and left_unit.end == right_unit.end == 1 + len(unit)
                ):
                    first, second, end = left_unit, right_unit, end + len(unit)
                    break
        amount = first.amount * 10**6 + second.amount
        value = self.make(first.kind, first.dimension + "-range", first.unit, amount, end)
        return dataclasses.replace(value, ends=(first, second))


# Each reader after the test its word must pass, in the order `value_at` tries them: the
# first reading wins, and a range or a hyphenated word only when nothing else read.
_GATES: tuple[tuple[Callable[[str], bool], Callable[[_Reader], Value | None]], ...] = (
    (_dates, _Reader.date),
    (_clocks, _Reader.clock),
    (_versions, _Reader.version),
    (_numbers, _Reader.number),
    (_times, _Reader.times),
    (_compounds, _Reader.compound_number),
    (_number_words, _Reader.words),
    (_bares, _Reader.bare),
    (_articles, _Reader.article),
    (_hyphens, _Reader.range),
    (_hyphens, _Reader.hyphenated),
)
