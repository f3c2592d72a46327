import hashlib
from collections.abc import Callable

import pytest

from compaction_guard.block import (
    FOOTER_PREFIX,
    HEADER_PREFIX,
    MARKER,
    ParsedBlock,
    block_checksum,
    format_block,
    is_only_blocks,
    is_standalone_block,
    parse_blocks,
    strip_blocks,
    transport_form,
    unembeddable_reason,
)

READ_ONLY = ("2e3839289c22", "The database orders_prod is production. Read-only queries only.")
BUDGET = ("bc6b15f05ff7", "The budget cap for this run is $500.")
ENTRIES = [READ_ONLY, BUDGET]


def forge(interior: str, *, header: str | None = None, footer: str | None = None) -> str:
    """A block around an arbitrary interior, with checksums that match it unless overridden."""
    digest = hashlib.sha256(transport_form(interior).encode()).hexdigest()
    return (
        f"{HEADER_PREFIX}1 sha256={header or digest}>>\n{interior}\n"
        f"{FOOTER_PREFIX} sha256={footer or digest}>>"
    )


def only(text: str) -> ParsedBlock:
    blocks = parse_blocks(text)
    assert len(blocks) == 1
    return blocks[0]


# format_block


def test_format_block_writes_the_wire_format() -> None:
    block = format_block(ENTRIES)
    digest = block_checksum(ENTRIES)
    assert block.splitlines() == [
        f"<<COMPACTION-GUARD:1 sha256={digest}>>",
        f"[block] {READ_ONLY[0]} :: {READ_ONLY[1]}",
        f"[block] {BUDGET[0]} :: {BUDGET[1]}",
        f"<<END-COMPACTION-GUARD sha256={digest}>>",
    ]
    assert not block.endswith("\n")


def test_block_checksum_is_sha256_of_the_transport_form_of_the_interior() -> None:
    interior = f"[block] {READ_ONLY[0]} :: {READ_ONLY[1]} [block] {BUDGET[0]} :: {BUDGET[1]}"
    assert block_checksum(ENTRIES) == hashlib.sha256(interior.encode()).hexdigest()


def test_format_block_shows_backslashes_and_newlines_exactly() -> None:
    text = "Never touch C:\\Windows\\System32.\nSecond line:\ttab \\n stays literal."
    block = format_block([("0123456789ab", text)])
    assert f"[block] 0123456789ab :: {text}\n" in block
    assert only(block).entries == (("0123456789ab", text),)


def test_format_block_accepts_custom_ids() -> None:
    block = format_block([("budget.cap:v2", "Cap at $500.")])
    assert only(block).entries == (("budget.cap:v2", "Cap at $500."),)
    assert only(block).intact


@pytest.mark.parametrize("bad_id", ["", "ab cd", "-leading", "x" * 65, "a[b]"])
def test_format_block_refuses_an_unusable_id(bad_id: str) -> None:
    with pytest.raises(ValueError, match="not usable"):
        format_block([(bad_id, "text")])


def test_format_block_refuses_text_that_embeds_the_marker() -> None:
    with pytest.raises(ValueError, match="marker"):
        format_block([("0123456789ab", "see <<END-COMPACTION-GUARD sha256=x>>")])


def test_format_block_of_no_entries_parses_as_an_intact_empty_block() -> None:
    parsed = only(format_block([]))
    assert parsed.intact
    assert parsed.entries == ()


# transport_form


def test_transport_form_folds_whitespace_line_breaks_and_no_break_spaces() -> None:
    assert transport_form("  a\r\n\tb \u00a0\u2007\u202f c\rd\n") == "a b c d"


def test_transport_form_applies_nfc() -> None:
    assert transport_form("cafe\u0301") == "caf\u00e9"


@pytest.mark.parametrize(
    "char", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u200e", "\u202e", "\u2066"]
)
def test_transport_form_keeps_zero_width_and_bidi_characters(char: str) -> None:
    assert char in transport_form(f"read{char}only")


def test_transport_form_keeps_case_and_punctuation() -> None:
    assert transport_form("Read-only orders_prod!") == "Read-only orders_prod!"


# parse_blocks: intact blocks


def test_parse_blocks_round_trips_entries_and_verifies() -> None:
    parsed = only(format_block(ENTRIES))
    assert parsed.intact
    assert parsed.failure is None
    assert parsed.entries == tuple(ENTRIES)
    assert parsed.ids == (READ_ONLY[0], BUDGET[0])
    assert parsed.header_checksum == parsed.footer_checksum == block_checksum(ENTRIES)


def test_parse_blocks_reports_offsets_inside_prose() -> None:
    block = format_block(ENTRIES)
    text = f"Summary so far.\n\n{block}\n\nNext turn."
    parsed = only(text)
    assert text[parsed.start : parsed.end] == block


def test_parse_blocks_returns_nothing_without_the_marker() -> None:
    assert parse_blocks("just prose, [block] 0123456789ab :: copied line") == []


@pytest.mark.parametrize(
    "transport",
    [
        lambda b: b.replace("\n", "\r\n"),
        lambda b: "\n".join("    " + line for line in b.splitlines()),
        lambda b: b.replace(" :: ", " ::\n   ").replace("production. ", "production.\n"),
        lambda b: b.replace(" ", "\u00a0").replace("\u00a0sha256", " sha256"),
        lambda b: b.replace(" ", "  \t "),
    ],
    ids=["crlf", "indented", "reflowed", "nbsp", "spaces"],
)
def test_parse_blocks_verifies_a_block_changed_only_by_transport(transport: Callable[[str], str]) -> None:
    parsed = only(transport(format_block(ENTRIES)))
    assert parsed.intact
    assert [transport_form(t) for _, t in parsed.entries] == [t for _, t in ENTRIES]


def test_parse_blocks_verifies_an_nfc_equivalent_block() -> None:
    entries = [("0123456789ab", "Caf\u00e9 budget is \u212b-free.")]
    decomposed = format_block(entries).replace("\u00e9", "e\u0301")
    assert only(decomposed).intact


def test_parse_blocks_recovers_the_original_whitespace_of_entries() -> None:
    text = "  indented start\n  and a second line  "
    parsed = only(format_block([("0123456789ab", text), ("0123456789ac", "next")]))
    assert parsed.entries[0] == ("0123456789ab", text)


# parse_blocks: damage is detected


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("orders_prod", "orders-prod"),
        ("Read-only", "READ ONLY"),
        ("Read-only", "read-only"),
        ("$500", "$5000"),
        ("$500.", "$500"),
        ("production", "pr\u043eduction"),  # Cyrillic o
        ("2e3839289c22", "2e3839289c23"),
    ],
)
def test_parse_blocks_fails_an_edited_block(old: str, new: str) -> None:
    parsed = only(format_block(ENTRIES).replace(old, new, 1))
    assert not parsed.intact
    assert "checksum" in (parsed.failure or "")


@pytest.mark.parametrize("char", ["\u200b", "\u200d", "\u2060", "\ufeff", "\u200f", "\u202a"])
def test_parse_blocks_fails_a_block_with_an_inserted_invisible_character(char: str) -> None:
    parsed = only(format_block(ENTRIES).replace("Read-only", f"Read{char}-only"))
    assert not parsed.intact


def test_parse_blocks_fails_when_header_and_footer_checksums_differ() -> None:
    block = forge("[block] 0123456789ab :: text", footer="0" * 64)
    parsed = only(block)
    assert not parsed.intact
    assert "header and footer" in (parsed.failure or "")


def test_parse_blocks_reports_a_block_split_across_messages() -> None:
    block = format_block(ENTRIES)
    cut = block.index("[block] bc6b")
    first, second = parse_blocks(block[:cut]), parse_blocks(block[cut:])
    assert len(first) == len(second) == 1
    assert first[0].footer_checksum is None
    assert second[0].header_checksum is None
    for fragment in (first[0], second[0]):
        assert not fragment.intact
        assert "split across messages" in (fragment.problem or "")


def test_parse_blocks_finds_two_blocks_in_order() -> None:
    one, two = format_block([READ_ONLY]), format_block([BUDGET])
    parsed = parse_blocks(f"{one}\n\nprose\n\n{two}")
    assert [b.ids for b in parsed] == [(READ_ONLY[0],), (BUDGET[0],)]
    assert all(b.intact for b in parsed)


def test_parse_blocks_reports_a_header_fragment_before_a_whole_block() -> None:
    whole = format_block(ENTRIES)
    parsed = parse_blocks(whole[:120] + "\n" + whole)
    assert [b.intact for b in parsed] == [False, True]


def test_parse_blocks_flags_a_malformed_header() -> None:
    block = format_block(ENTRIES).replace("sha256=", "sha256=abc", 1)
    parsed = parse_blocks(block)
    assert len(parsed) == 1
    assert parsed[0].header_checksum is None
    assert "malformed block header" in (parsed[0].problem or "")


def test_parse_blocks_flags_an_unsupported_version() -> None:
    parsed = only(format_block(ENTRIES).replace("GUARD:1 ", "GUARD:2 ", 1))
    assert "version" in (parsed.problem or "")
    assert not parsed.intact


def test_parse_blocks_flags_text_outside_entries() -> None:
    parsed = only(forge("preamble [block] 0123456789ab :: text"))
    assert not parsed.intact
    assert "outside" in (parsed.problem or "")


def test_parse_blocks_flags_a_repeated_entry_id() -> None:
    parsed = only(forge("[block] 0123456789ab :: one\n[block] 0123456789ab :: two"))
    assert "twice" in (parsed.problem or "")


def test_parse_blocks_flags_an_entry_without_text() -> None:
    parsed = only(forge("[block] 0123456789ab ::\n[block] 0123456789ac :: two"))
    assert "no text" in (parsed.problem or "")


def test_parse_blocks_handles_lone_surrogates() -> None:
    block = format_block(ENTRIES).replace("production", "produc\ud800tion")
    parsed = only(f"prose \udfff {block}")
    assert not parsed.intact


# unembeddable_reason


@pytest.mark.parametrize(
    "text",
    [
        "Never print COMPACTION-GUARD markers.",
        "quote: <<COMPACTION-GUARD:1 sha256=abc>>",
        "<<END-COMPACTION-GUARD",
        "Lines look like [block] 0123456789ab :: text",
        "ends with [block] my-id ::",
        "reflowed [block]\n   0123456789ab\t::\nhere",
    ],
)
def test_unembeddable_reason_refuses_marker_and_entry_patterns(text: str) -> None:
    reason = unembeddable_reason(text)
    assert reason is not None
    assert "reword" in reason


@pytest.mark.parametrize(
    "text",
    [
        "The budget cap is $500.",
        "compaction-guard must stay installed.",
        "Use [block] quoted text :: sparingly",
        "Path C:\\Windows\nand a newline",
    ],
)
def test_unembeddable_reason_accepts_ordinary_text(text: str) -> None:
    assert unembeddable_reason(text) is None


# strip_blocks


def test_strip_blocks_removes_the_block_and_keeps_the_prose() -> None:
    text = f"Summary: investigating.\n\n{format_block(ENTRIES)}\n\nThen more."
    stripped = strip_blocks(text)
    assert MARKER not in stripped
    assert "orders_prod" not in stripped
    assert stripped.startswith("Summary: investigating.")
    assert stripped.rstrip().endswith("Then more.")


def test_strip_blocks_returns_unmarked_text_unchanged() -> None:
    text = "nothing to strip here"
    assert strip_blocks(text) is text


def test_strip_blocks_removes_fragments() -> None:
    block = format_block(ENTRIES)
    cut = block.index("[block] bc6b")
    assert "$500" not in strip_blocks("Prose first. " + block[cut:])
    assert "orders_prod" not in strip_blocks(block[:cut])
    assert strip_blocks("Prose first. " + block[cut:]).startswith("Prose first.")


def test_strip_blocks_removes_stray_block_lines_a_summariser_copied() -> None:
    text = "Summary.\n[block] bc6b15f05ff7 :: The budget cap for this run is $500.\nAfter."
    assert strip_blocks(text) == "Summary.\nAfter."


# is_standalone_block / is_only_blocks


def test_is_standalone_block_accepts_one_block_with_surrounding_whitespace() -> None:
    assert is_standalone_block(f"\n  {format_block(ENTRIES)}\n\n")


def test_is_standalone_block_accepts_an_edited_block() -> None:
    assert is_standalone_block(format_block(ENTRIES).replace("$500", "$900"))


def test_is_standalone_block_rejects_a_block_quoted_in_prose() -> None:
    assert not is_standalone_block(f"Look what I found:\n{format_block(ENTRIES)}")
    assert not is_standalone_block(f"{format_block(ENTRIES)}\nwhat does this mean?")


def test_is_standalone_block_rejects_two_blocks_and_plain_text() -> None:
    two = f"{format_block([READ_ONLY])}\n\n{format_block([BUDGET])}"
    assert not is_standalone_block(two)
    assert not is_standalone_block("plain text")
    assert not is_standalone_block("")


def test_is_standalone_block_accepts_a_lone_fragment() -> None:
    block = format_block(ENTRIES)
    cut = block.index("[block] bc6b")
    assert is_standalone_block(block[:cut])
    assert is_standalone_block(block[cut:])


def test_is_only_blocks_accepts_several_blocks_and_nothing_else() -> None:
    two = f"{format_block([READ_ONLY])}\n\n{format_block([BUDGET])}"
    assert is_only_blocks(two)
    assert not is_only_blocks(f"{two}\nps: prose")
    assert not is_only_blocks(f"{format_block([READ_ONLY])} and {format_block([BUDGET])}")
