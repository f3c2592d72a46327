"""The detection normal form: case, width and invisible characters folded, values kept.

Detectors compare text in this form; sentences and whole tokens are cut from it here.
See docs/DESIGN.md, "Detection normal form".
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata

__all__ = [
    "contains_token",
    "detection_form",
    "fold_whitespace",
    "logical_line_end",
    "logical_line_start",
    "mask_emphasis",
    "run_tokens",
    "sentence_spans",
    "split_sentences",
    "stem",
    "tokenize",
    "words",
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
_WORD_PATTERN = r"""
    (?:--?|[#@]|~?/\.?|\.{1,2}/|\.(?=\w))?
      [$\u20ac\u00a3\u00a5]?\w+
      (?:(?:[._/:@+'-]|,(?=\d{3}(?!\d)))\w+)*
      (?:%|\+\+?)?
    | [<>]=?|[$\u20ac\u00a3\u00a5%~]
"""
_TOKEN = re.compile(
    r"""
    [a-z][a-z0-9+.-]{0,15}://[^\s<>"'`]*[^\s<>"'`.,;:!?)\]]
    | [\w.+-]+@\w[\w-]*(?:\.\w[\w-]*)+
    | """
    + _WORD_PATTERN,
    re.VERBOSE,
)
# The same without the URL and email alternatives, which need "://" or "@" to match: on
# a text holding neither it finds the same tokens in less than half the time.
_PLAIN_TOKEN = re.compile(_WORD_PATTERN, re.VERBOSE)

_LIST_MARKER = re.compile(r"^\s*(?:[-*\u2022+>]+|\d{1,3}[.)]|[a-z][.)]|#{1,6})\s+")
_ALNUM = re.compile(r"[^\W_]")
_WORD = re.compile(r"[^\W_]+")
_WRAP_WIDTH = 40
# A sentence ends at `.`, `!` or `?` (closing quotes and brackets with it) before a space;
# an inline list item ("1) ", "(b) ") starts a new one.
_STOP = re.compile(r"[.!?][.!?]*[\"')\]]*(?=\s|$)")
_ITEM = re.compile(r"(?<!\S)(\(?(?:\d{1,2}|[a-h])\))\s+")
_TITLES = frozenset({"mr", "mrs", "ms", "dr"})
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


# Markdown emphasis: a pair of `**`, `*` or backticks around a span, or `__` / `_` around
# words (a span with a space whose first and last words hold no underscore, so
# `__init__`, `_private_` and `orders_prod` stay names). The closing marker ends a
# word: `__init__.py` is no emphasis. An underscore span runs to its first space and on
# to the closing marker, crossing at most one line break; its three alternatives each
# scan once, so a lone `_id` in a long line costs linear time, not quadratic.
_EMPHASIS = re.compile(
    r"""
    (?<![\w*`])(?P<m>\*\*|\*(?=[\w"'(\[$])|`+)(?=[^\s*`])(?P<a>.+?)(?<=[^\s*`])(?P=m)
      (?=$|[\s,;:!?)\]"']|\.(?!\w))
    | (?<![\w*])(?P<u>__|_)(?=[^\s_])(?![^\s_]*_)
      (?P<b>\S*(?:[^\S\n][^\n]*?|[^\S\n][^\n]*\n[^\n]*?|\n[^\n]*?))(?<=[^\s_])(?P=u)
      (?=$|[\s,;:!?)\]"']|\.(?!\w))
    """,
    re.VERBOSE,
)


def mask_emphasis(text: str) -> str:
    """Return `text` with markdown emphasis markers replaced by spaces, lengths kept.

    `**rule**` is the rule: the markers are formatting, and left in place they hide a
    sentence end (`ms.** Next`) and glue to words (`__never`). Offsets stay valid.
    """
    if "*" not in text and "`" not in text and not _may_open_underscore(text):
        return text
    return _EMPHASIS.sub(_blank_markers, text)


def _may_open_underscore(text: str) -> bool:
    """Tell whether an underscore could open emphasis: one not right after a word character.

    `orders_prod` and `api/client_12.py` hold none; the pattern's scan of every position
    of a long text is spared when no marker could start a match.
    """
    at = text.find("_")
    while at >= 0:
        if at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_*"):
            return True
        at = text.find("_", at + 1)
    return False


def _blank_markers(match: re.Match[str]) -> str:
    marker = match.group("m") or match.group("u")
    inner = match.group("a") if match.group("m") else match.group("b")
    if not match.group("m") and "_" in inner.rsplit(None, 1)[-1]:
        return match.group(0)
    return " " * len(marker) + mask_emphasis(inner) + " " * len(marker)


def fold_whitespace(text: str) -> str:
    """Return `text` with every run of whitespace replaced by one space, ends stripped."""
    return " ".join(text.split())


def sentence_spans(text: str, cased: str | None = None) -> list[tuple[int, int]]:
    """Return (start, end) offsets of the sentences of `text`, list markers excluded.

    A line break ends a sentence (bullets and headings are statements of their own)
    unless it only wraps a sentence (see `logical_line_end`); inside a line, `.`, `!` or
    `?` followed by whitespace ends one, except after common abbreviations. `cased` is
    the text before case folding, when it has the same length: it tells wraps apart.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    while start <= len(text):
        end = logical_line_end(text, start, cased)
        _line_spans(text, start, end, spans)
        start = end + 1
    return spans


def logical_line_end(text: str, start: int, cased: str | None = None) -> int:
    """Return where the line starting at `start` ends, following wraps.

    A line break wraps when the line before it does not end a sentence and the line
    after it is no list item and does not start a new statement (a capital letter after
    a short line, as under a heading).
    """
    end = text.find("\n", start)
    while end >= 0:
        if not _wraps(text, cased, start, end):
            return end
        end = text.find("\n", end + 1)
    return len(text)


def logical_line_start(text: str, position: int, cased: str | None = None) -> int:
    """Return where the logical line holding `position` starts (see `logical_line_end`)."""
    start = text.rfind("\n", 0, position) + 1
    while start > 0:
        previous = text.rfind("\n", 0, start - 1) + 1
        if not _wraps(text, cased, previous, start - 1):
            break
        start = previous
    return start


def _wraps(text: str, cased: str | None, start: int, newline: int) -> bool:
    line = text[start:newline].rstrip().rstrip("*_`")  # "**rule.**" ends at its period
    stop = text.find("\n", newline + 1)
    following = text[newline + 1 : len(text) if stop < 0 else stop]
    body = following.lstrip()
    if not line or not body or line[-1] in ".!?:|" or _LIST_MARKER.match(following):
        return False
    if body[0] in "|#":
        return False
    first = newline + 1 + len(following) - len(body)
    letter = (cased or text)[first]
    if not letter.isalpha():
        return True  # "$500", "(see", "`name`": the sentence goes on
    return len(line) >= _WRAP_WIDTH or (cased is not None and letter.islower())


def _line_spans(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    line = text[start:end]
    marker = _LIST_MARKER.match(line)
    cursor = marker.end() if marker else 0
    begin = cursor
    for at, after, item in _breaks(line, cursor):
        if item:
            # An inline list item ("1) ... 2) ...") starts a statement of its own.
            _push(line, start, begin, at, out)
            begin = after
            continue
        words = line[begin:at].rsplit(None, 2)
        if words and _abbreviated(words):
            continue
        _push(line, start, begin, after, out)
        begin = after
    if begin < len(line):  # after a closing stop the rest is empty: nothing to push
        _push(line, start, begin, len(line), out)


def _breaks(line: str, cursor: int) -> list[tuple[int, int, bool]]:
    """Return (start, end, is item) of the sentence stops and inline items of `line`, in order.

    The stops are found by one scan that skips to the stop characters; an item is tried
    only where a `)` closes its label. Their matches share no character (a stop holds no
    label, an item no stop), so this is the leftmost scan of the two patterns as one.
    """
    found = [(match.start(), match.end(), False) for match in _STOP.finditer(line, cursor)]
    close = line.find(")", cursor)
    if close < 0:
        return found
    while close >= 0:
        for at in range(max(close - 3, cursor), close):
            match = _ITEM.match(line, at)
            if match is not None and match.end(1) == close + 1:
                found.append((match.start(), match.end(), True))
                break
        close = line.find(")", close + 1)
    found.sort()
    return found


def _abbreviated(words: list[str]) -> bool:
    word = words[-1].lstrip("(\"'").rstrip(".")
    if word not in _ABBREVIATIONS:
        return False
    # After a number a title is a unit: "800 ms." ends its sentence, "Ms. Lee" does not.
    return not (word in _TITLES and len(words) > 1 and words[-2][-1:].isdigit())


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
    return list(itertools.chain.from_iterable(map(run_tokens, text.split())))


@functools.lru_cache(maxsize=65536)
def run_tokens(word: str) -> tuple[str, ...]:
    """Return the tokens of one whitespace-free run of `tokenize`'s input.

    No token holds whitespace and no lookahead of the token pattern tells whitespace
    from the end of the text, so the tokens of a text are those of its runs in order;
    runs recur across texts ("rows.", "the"), so each is cut once, not once per sentence.
    A reader that already holds the runs of a text takes their tokens from here.
    """
    if "@" not in word and "://" not in word:
        return tuple(_PLAIN_TOKEN.findall(word))
    return tuple(_TOKEN.findall(word))


def words(text: str) -> list[str]:
    """Return the runs of letters and digits in `text`, in order, case kept.

    Unlike `tokenize`, every joiner splits (`v2.3.1` gives v2, 3, 1): for the model tiers,
    which ask whether a word occurs, not whether an identifier does.
    """
    return _WORD.findall(text)


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
    token = token.removesuffix("'s").removesuffix("'d").removesuffix("'ed")
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
    "bought": "buy",
    "sold": "sell",
    "built": "build",
    "brought": "bring",
    "caught": "catch",
    "lost": "los",
    "began": "begin",
    "begun": "begin",
    "froze": "freez",
    "frozen": "freez",
    "hidden": "hid",
    "shown": "show",
    "known": "know",
    "seen": "see",
    "got": "get",
    "gotten": "get",
    "drove": "driv",
    "driven": "driv",
    "stole": "steal",
    "stolen": "steal",
    "spoke": "speak",
    "spoken": "speak",
    "broke": "break",
    "broken": "break",
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


def _strip_suffix(word: str, *, again: bool = True) -> str:
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix):
            base = word[: len(word) - len(suffix)] + replacement
            if len(base) < 3 or _keeps_suffix(word, suffix):  # noqa: PLR2004
                continue
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            if again and suffix in _INFLECTIONS:
                # An inflected word stems like its base: "decimals" like "decimal",
                # "provisioned" like "provision".
                return _strip_suffix(base, again=False)
            return base
    return word


_INFLECTIONS = frozenset({"s", "ed", "ing"})
