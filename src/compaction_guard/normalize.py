"""The detection normal form: case, width and invisible characters folded, values kept.

Detectors compare text in this form; sentences and whole tokens are cut from it here.
See docs/DESIGN.md, "Detection normal form".
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = [
    "contains_token",
    "detection_form",
    "fold_whitespace",
    "sentence_spans",
    "split_sentences",
    "stem",
    "tokenize",
]

_INVISIBLE = "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
_INVISIBLE += "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
# NFKC leaves typographic quotes and dashes alone; fold them (U+2011 read-only is read-only).
_FOLD = str.maketrans(
    {
        **dict.fromkeys(_INVISIBLE, None),
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        "\u00a0": " ",
        "\u2264": "<=",
        "\u2265": ">=",
    },
)

# One token: a URL, an email, or a word with value-bearing joiners inside it
# ($1,200.50, eu-west-1, orders_prod, v2.3.1, 10.0.0.0/8, 09:00) and its prefix
# (--force, #channel, @user, ~/.ssh, ./run.sh, .env). Thousands commas join digits only.
_TOKEN = re.compile(
    r"""
    [a-z][a-z0-9+.-]{0,15}://[^\s<>"'`]*[^\s<>"'`.,;:!?)\]]
    | [\w.+-]+@\w[\w-]*(?:\.\w[\w-]*)+
    | (?:--?|[#@]|~?/\.?|\.{1,2}/|\.(?=\w))?
      [$\u20ac\u00a3\u00a5]?\w+
      (?:(?:[._/:@+'-]|,(?=\d{3}(?!\d)))\w+)*
      (?:%|\+\+?)?
    | [<>]=?|[$\u20ac\u00a3\u00a5%~]
    """,
    re.VERBOSE,
)

_LIST_MARKER = re.compile(r"^\s*(?:[-*\u2022+>]+|\d{1,3}[.)]|[a-z][.)]|#{1,6})\s+")
_ALNUM = re.compile(r"[^\W_]")
_TERMINATOR = re.compile(r"[.!?]+[\"')\]]*(?=\s|$)")
_ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "etc", "vs", "approx", "incl", "cf", "al", "mr", "mrs", "ms", "dr", "no"},
)


def detection_form(text: str) -> str:
    """Return `text` folded for detection: NFKC, casefold, invisible characters removed.

    Typographic quotes and dashes become ASCII; line breaks and all value-bearing
    punctuation (`$ . , - _ @ / : %`) are kept. Whitespace is not folded here.
    """
    if text.isascii():
        return text.lower()
    folded = unicodedata.normalize("NFKC", text.translate(_FOLD)).casefold()
    return unicodedata.normalize("NFKC", folded).translate(_FOLD)


def fold_whitespace(text: str) -> str:
    """Return `text` with every run of whitespace replaced by one space, ends stripped."""
    return " ".join(text.split())


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Return (start, end) offsets of the sentences of `text`, list markers excluded.

    A line break always ends a sentence (bullets and headings are statements of their
    own); inside a line, `.`, `!` or `?` followed by whitespace ends one, except after
    common abbreviations. Empty sentences are skipped.
    """
    spans: list[tuple[int, int]] = []
    line_start = 0
    length = len(text)
    while line_start <= length:
        line_end = text.find("\n", line_start)
        if line_end < 0:
            line_end = length
        _line_spans(text, line_start, line_end, spans)
        line_start = line_end + 1
    return spans


def _line_spans(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    line = text[start:end]
    marker = _LIST_MARKER.match(line)
    cursor = marker.end() if marker else 0
    begin = cursor
    for match in _TERMINATOR.finditer(line, cursor):
        word = line[begin : match.start()].rsplit(None, 1)
        if word and word[-1].lstrip("(\"'").rstrip(".") in _ABBREVIATIONS:
            continue
        _push(line, start, begin, match.end(), out)
        begin = match.end()
    _push(line, start, begin, len(line), out)


def _push(line: str, offset: int, begin: int, end: int, out: list[tuple[int, int]]) -> None:
    piece = line[begin:end]
    stripped = piece.strip()
    if _ALNUM.search(stripped):
        lead = len(piece) - len(piece.lstrip())
        out.append((offset + begin + lead, offset + begin + lead + len(stripped)))


def split_sentences(text: str) -> list[str]:
    """Return the sentences of `text` (see `sentence_spans`), whitespace folded."""
    return [fold_whitespace(text[a:b]) for a, b in sentence_spans(text)]


def tokenize(text: str) -> list[str]:
    """Return the whole tokens of `text`, in order; punctuation between tokens is dropped.

    Call it on detection-form text. `orders_prod_archive`, `.env.example` and
    `--force-with-lease` are single tokens, so they never equal `orders_prod`, `.env`
    or `--force`.
    """
    return _TOKEN.findall(text)


def contains_token(text: str, needle: str) -> bool:
    """Return True when the tokens of `needle` occur in `text` contiguously and whole.

    Both are compared in detection form, so case and width do not matter, but an
    identifier extended by a suffix (`payments-staging-eu`) does not contain the shorter one.
    """
    wanted = tokenize(detection_form(needle))
    if not wanted:
        return False
    haystack = detection_form(text)
    if wanted[0] not in haystack:
        return False
    tokens = tokenize(haystack)
    width = len(wanted)
    first = wanted[0]
    return any(
        tokens[i] == first and tokens[i : i + width] == wanted
        for i in range(len(tokens) - width + 1)
    )


@functools.lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """Return a light stem of an alphabetic token: plural, tense and a few suffixes removed.

    Tokens with digits or joiners are returned unchanged: identifiers are compared whole.
    """
    token = token.removesuffix("'s")
    if token in _IRREGULAR:
        return _IRREGULAR[token]
    if not token.isalpha() or len(token) <= 3:  # noqa: PLR2004 - short words stay whole
        return token
    word = _strip_suffix(token)
    if len(word) > 3 and word.endswith("e"):  # noqa: PLR2004
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":  # noqa: PLR2004
        word = word[:-1]
    return word


_IRREGULAR = {
    "used": "use",
    "using": "use",
    "wrote": "writ",
    "written": "writ",
    "sent": "send",
    "kept": "keep",
    "made": "mak",
    "gave": "giv",
    "given": "giv",
    "chosen": "choos",
    "chose": "choos",
    "went": "go",
    "gone": "go",
    "took": "tak",
    "taken": "tak",
    "held": "hold",
    "told": "tell",
    "paid": "pay",
    "spent": "spend",
    "ran": "run",
}

_SUFFIXES = (
    ("ational", "ate"),
    ("ments", ""),
    ("ment", ""),
    ("ation", "ate"),
    ("ition", "ite"),
    ("ions", ""),
    ("ion", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ing", ""),
    ("ed", ""),
    ("ly", ""),
    ("al", ""),
    ("es", "e"),
    ("s", ""),
)


def _keeps_suffix(word: str, suffix: str) -> bool:
    if suffix == "al":
        return len(word) < 7  # noqa: PLR2004 - "signal", "total" stay whole
    if suffix == "ly":
        return len(word) < 6 or word.endswith("ply")  # noqa: PLR2004 - "apply", "daily"
    return suffix == "ed" and word.endswith("eed")


def _strip_suffix(word: str) -> str:
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix):
            base = word[: len(word) - len(suffix)] + replacement
            if len(base) < 3 or _keeps_suffix(word, suffix):  # noqa: PLR2004
                continue
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            return base
    return word
