"""Unit, currency, region and calendar tables the value reader reads.

Private to the anchors: `anchors` is the public face. See docs/DESIGN.md, "Anchors".
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

__all__ = [
    "ARTICLES",
    "ARTICLE_UNITS",
    "BARE_SYSTEMS",
    "BARE_UNITS",
    "CLOCK",
    "COMPOUND",
    "CURRENCY_SIGNS",
    "CURRENCY_WORDS",
    "HOUR",
    "INTENSIFIERS",
    "IP",
    "ISO_DATE",
    "MONTHS",
    "MULTIPLIERS",
    "NOISE_NOUNS",
    "NOT_COUNTED",
    "NUMBER",
    "ORDINAL",
    "ORDINAL_WORDS",
    "PERCENT",
    "PER_WORDS",
    "RATED_KINDS",
    "RATES",
    "RATE_ADVERBS",
    "REGIONS",
    "REGION_NAMES",
    "SECOND_AS_TIME",
    "SHORT_WEEKDAYS",
    "SLASH_DATE",
    "TEMPERATURES",
    "TIMES_WORDS",
    "TIMEZONES",
    "UNITS",
    "VALUE_WORDS",
    "VERSION",
    "WEEKDAYS",
    "WORD_NUMBERS",
    "YEAR",
    "YEAR_MONTH",
    "singular",
]


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
_LENGTH |= {"millimeter": 0.001, "millimetre": 0.001, "centimeter": 0.01, "centimetre": 0.01}
_LENGTH |= {"kilometer": 1000, "kilometre": 1000}
_LENGTH |= {"feet": 0.3048, "foot": 0.3048, "mile": 1609.344, "mi": 1609.344, "inch": 0.0254}
_MASS = {"mg": 0.001, "g": 1, "gram": 1, "kg": 1000, "kilogram": 1000, "lb": 453.59237}
_MASS |= {"lbs": 453.59237, "oz": 28.349523125, "tonne": 10**6, "milligram": 0.001}
_MASS |= {"pound": 453.59237, "ounce": 28.349523125}
UNITS: dict[str, tuple[str, Fraction]] = {}
for _dimension, _table in (("time", _TIME), ("data", _DATA), ("length", _LENGTH), ("mass", _MASS)):
    for _name, _factor in _table.items():
        UNITS[_name] = (_dimension, Fraction(str(_factor)))
RATES = {"rps": "s", "qps": "s", "tps": "s", "rpm": "m", "rph": "h"}
CURRENCY_SIGNS = {"$": "usd", "\u20ac": "eur", "\u00a3": "gbp", "\u00a5": "jpy"}
CURRENCY_WORDS = {"usd": "usd", "dollar": "usd", "buck": "usd", "eur": "eur", "euro": "eur"}
CURRENCY_WORDS |= {"gbp": "gbp", "jpy": "jpy", "yen": "jpy", "cad": "cad", "aud": "aud"}
CURRENCY_WORDS |= {"chf": "chf", "inr": "inr", "rupee": "inr", "cent": "usd-cent"}
CURRENCY_WORDS |= {"franc": "chf", "yuan": "cny", "renminbi": "cny", "peso": "mxn"}
CURRENCY_WORDS |= {"krona": "sek", "kronor": "sek", "krone": "nok", "kroner": "nok"}
CURRENCY_WORDS |= {"zloty": "pln", "lira": "try", "dirham": "aed", "ruble": "rub"}
CURRENCY_WORDS |= {"rouble": "rub", "baht": "thb", "ringgit": "myr", "shekel": "ils"}
CURRENCY_WORDS |= {"forint": "huf", "rupiah": "idr"}
MULTIPLIERS = {"k": 10**3, "thousand": 10**3, "m": 10**6, "mn": 10**6, "million": 10**6}
MULTIPLIERS |= {"b": 10**9, "bn": 10**9, "billion": 10**9}
PERCENT = {"%", "percent", "pct"}
# Temperature scales after a number ("2°C" reads "2 c"; the degree sign is no token).
TEMPERATURES = {"c": "c", "celsius": "c", "centigrade": "c", "f": "f", "fahrenheit": "f"}
TIMEZONES = {"utc": "utc", "gmt": "utc", "z": "utc", "pst": "pst", "pdt": "pdt", "est": "est"}
TIMEZONES |= {"edt": "edt", "cet": "cet", "cest": "cest", "ist": "ist", "jst": "jst"}
TIMEZONES |= {"aest": "aest", "bst": "bst", "cst": "cst", "cdt": "cdt", "mst": "mst"}
# Unit words that are anchors even without a number ("report in kg, cm").
BARE_UNITS = {"ms", "kb", "mb", "gb", "tb", "pb", "kib", "mib", "gib", "tib", "mm", "cm"}
BARE_UNITS |= {"mi", "km", "kg", "mg", "lb", "lbs", "oz", "ft", "usd", "eur", "gbp", "jpy", "cad"}
BARE_UNITS |= {"aud", "chf", "inr", "celsius", "fahrenheit", "metric", "imperial"}
BARE_UNITS |= {"millimeter", "millimetre", "centimeter", "centimetre", "kilometer", "kilometre"}
BARE_UNITS |= {"kilogram", "gram", "milligram", "pound", "ounce", "megabyte", "gigabyte"}
BARE_UNITS |= {"kilobyte", "terabyte", "inch", "foot", "feet", "mile", "meter", "metre"}
# Region codes ("the US" only after "the": otherwise it is the pronoun).
REGIONS = {"eu", "eea", "uk", "us", "usa", "emea", "apac", "latam", "amer", "anz", "mena"}
# Region names written out; each reads as its code.
REGION_NAMES = {
    ("european", "union"): "eu",
    ("european", "economic", "area"): "eea",
    ("united", "kingdom"): "uk",
    ("united", "states"): "us",
    ("great", "britain"): "uk",
}
BARE_SYSTEMS = {"celsius": "temperature", "fahrenheit": "temperature"}
BARE_SYSTEMS |= {"metric": "system", "imperial": "system"}
WORD_NUMBERS = {
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
WORD_NUMBERS |= {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}
WORD_NUMBERS |= {"eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12}
TIMES_WORDS = {"once": 1, "twice": 2, "thrice": 3}
# Ordinal words from "third" on ("first" and "second" say other things too).
ORDINAL_WORDS = {
    word: n
    for n, word in enumerate(
        _words("third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"),
        start=3,
    )
}
MONTHS = {
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
WEEKDAYS = {
    name: index
    for index, name in enumerate(
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    )
} | {"weekday": 7, "weekend": 8, "business day": 9}
# Short day names, read as days only in a list of days (`_Reader.listed_day`).
SHORT_WEEKDAYS = {
    "mon": 0,
    "tue": 1,
    "tues": 1,
    "wed": 2,
    "thu": 3,
    "thur": 3,
    "thurs": 3,
    "fri": 4,
    "sat": 5,
    "sun": 6,
}

NUMBER = re.compile(
    r"^([$\u20ac\u00a3\u00a5])?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?([a-z%]*)$",
)
ISO_DATE = re.compile(r"^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$")
YEAR_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
SLASH_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{2,4})$")
CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::\d{2})?(am|pm)?$")
VERSION = re.compile(r"^(?:v\d+(?:\.\d+)*|\d+\.\d+\.\d+(?:[.-]\w+)*)$")
IP = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?$")
ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?$")
YEAR = re.compile(r"^(19|20)\d{2}$")
HOUR = re.compile(r"^(\d{1,2})(am|pm)$")


@functools.lru_cache(maxsize=65536)
def singular(token: str) -> str:
    """Return the unit-table spelling of `token`: plural `s` / `es` removed when known.

    Keyed by the token (the vocabulary bounds the cache): a number's reader asks it of
    the words after the number, several times a value.
    """
    if token in UNITS or token in CURRENCY_WORDS or len(token) < 3:  # noqa: PLR2004
        return token
    for cut in ("es", "s"):
        base = token.removesuffix(cut)
        if base != token and (base in UNITS or base in CURRENCY_WORDS):
            return base
    return token


NOT_COUNTED = {"of", "or", "and", "another", "that", "which", "who", "more", "by", "to", "is"}
NOT_COUNTED |= {"was", "thing", "way", "time", "in", "on", "at", "for", "with", "the", "a"}
NOISE_NOUNS = {"the", "a", "an", "of", "to", "in", "on", "for", "and", "or", "per", "at", "from"}
NOISE_NOUNS |= {"with", "by", "into", "than", "before", "after", "during", "under", "over"}
NOISE_NOUNS |= {"is", "are", "was", "be", "this", "that", "it", "as", "if", "when", "then"}
NOISE_NOUNS |= {"which", "who", "so"}  # "1200, which is fine", "400 so far"
NOISE_NOUNS |= {"each", "every"}  # "four each week" counts no "each"


# Words that can belong to a value; a token outside this set without a digit or a
# currency sign never starts one.
# Words between a number and its unit that change nothing ("10 straight minutes").
INTENSIFIERS = frozenset({"straight", "full", "whole", "solid", "entire", "sustained"})
VALUE_WORDS = frozenset(
    {*UNITS, *(unit + "s" for unit in UNITS), *CURRENCY_WORDS}
    | {word + "s" for word in CURRENCY_WORDS}
    | {*MULTIPLIERS, *PERCENT, *TIMEZONES, *BARE_UNITS, *WORD_NUMBERS, *TIMES_WORDS}
    | {unit + "s" for unit in BARE_UNITS}
    | set(RATES)
    | set(ORDINAL_WORDS)
    | REGIONS
    | {*MONTHS, *WEEKDAYS, *(day + "s" for day in WEEKDAYS)}
    | {"am", "pm", "a.m", "p.m", "noon", "midday", "midnight", "per", "inches", "times"}
    | {word for words in REGION_NAMES for word in words}
    | {"half"}
    | {*TEMPERATURES, "degree", "degrees", "deg", "morning", "afternoon", "evening"}
    | INTENSIFIERS,
)


COMPOUND = 3
PER_WORDS = frozenset({"per", "a", "an", "each", "every", "/"})


# "an hour", "a day", "half an hour": an article before a unit of time is one of it.
ARTICLES = frozenset({"a", "an"})
ARTICLE_UNITS = frozenset({"second", "minute", "hour", "day", "week", "month", "year"})
# Words after "a second" that keep it a unit of time ("a second later", "100 a second per
# user", "a second delay"); before any other word it is the ordinal ("a second reminder",
# "a second one", "a second time").
SECOND_AS_TIME = frozenset(
    {
        "ago",
        "later",
        "earlier",
        "before",
        "after",
        "or",
        "and",
        "to",
        "of",
        "per",
        "between",
        "each",
        "every",
        "for",
        "in",
        "on",
        "at",
        "from",
        "with",
        "than",
        "longer",
        "more",
        "less",
        "late",
        "early",
        "delay",
        "delays",
        "pause",
        "wait",
        "timeout",
        "window",
        "interval",
        "gap",
        "lag",
        "sleep",
        "is",
        "was",
        "are",
        "were",
    }
)

# Adverbs that state a rate for the amount they go with ("daily spend of $250").
RATE_ADVERBS = {"hourly": "hour", "daily": "day", "nightly": "day", "weekly": "week"}
RATE_ADVERBS |= {"monthly": "month", "yearly": "year", "annually": "year", "annual": "year"}
RATED_KINDS = frozenset({"money", "number", "percent"})
