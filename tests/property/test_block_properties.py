from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from compaction_guard.block import (
    block_checksum,
    format_block,
    is_standalone_block,
    parse_blocks,
    strip_blocks,
    transport_form,
)
from compaction_guard.codec import AutoCodec
from tests.property.strategies_block import (
    ASCII_VISIBLE,
    INVISIBLE,
    TRANSPORT_WHITESPACE,
    constraint_texts,
    entries,
    entry_ids,
    transported,
)
from tests.property.strategies_trim import conversations, texts

if TYPE_CHECKING:
    from collections.abc import Callable

pytestmark = pytest.mark.property

CODEC = AutoCodec()
Entries = list[tuple[str, str]]


def interior_positions(block: str, keep: Callable[[str], bool]) -> list[int]:
    """Offsets of the characters between the header and the footer that `keep` accepts."""
    return [i for i in range(block.index(">>") + 2, block.rindex("<<END-")) if keep(block[i])]


def visible(char: str) -> bool:
    return char not in TRANSPORT_WHITESPACE


def tampered(block: str, position: int, replacement: str, *, length: int = 1) -> str:
    return block[:position] + replacement + block[position + length :]


def breaks(block: str) -> bool:
    return not any(parsed.intact for parsed in parse_blocks(block))


@given(entries)
def test_format_block_parses_back_to_the_same_entries(pairs: Entries) -> None:
    block = format_block(pairs)
    (parsed,) = parse_blocks(block)
    assert parsed.intact
    assert parsed.entries == tuple(pairs)
    assert parsed.header_checksum == block_checksum(pairs)
    assert is_standalone_block(block)


@given(entries, st.data())
def test_transport_changes_keep_the_block_intact(pairs: Entries, data: st.DataObject) -> None:
    moved = data.draw(transported(format_block(pairs)))
    (parsed,) = parse_blocks(moved)
    assert parsed.intact
    assert [transport_form(t) for _, t in parsed.entries] == [transport_form(t) for _, t in pairs]
    assert [i for i, _ in parsed.entries] == [i for i, _ in pairs]


@given(entries, st.data())
def test_changing_letter_case_breaks_the_block(pairs: Entries, data: st.DataObject) -> None:
    block = format_block(pairs)
    letters = interior_positions(block, lambda c: c.isascii() and c.isalpha())
    position = data.draw(st.sampled_from(letters))
    assert breaks(tampered(block, position, block[position].swapcase()))


@given(entries, st.data())
def test_replacing_a_visible_character_breaks_the_block(
    pairs: Entries, data: st.DataObject
) -> None:
    """A word, digit, punctuation or value edit: any non-whitespace character swapped."""
    block = format_block(pairs)
    position = data.draw(st.sampled_from(interior_positions(block, visible)))
    new = data.draw(st.sampled_from(ASCII_VISIBLE).filter(lambda c: c != block[position]))
    assert breaks(tampered(block, position, new))


@given(entries, st.data())
def test_deleting_a_visible_character_breaks_the_block(pairs: Entries, data: st.DataObject) -> None:
    block = format_block(pairs)
    position = data.draw(st.sampled_from(interior_positions(block, visible)))
    assert breaks(tampered(block, position, ""))


@given(entries, st.data())
def test_inserting_an_invisible_character_breaks_the_block(
    pairs: Entries, data: st.DataObject
) -> None:
    block = format_block(pairs)
    position = data.draw(st.integers(block.index(">>") + 2, block.rindex("<<END-")))
    char = data.draw(st.sampled_from(INVISIBLE))
    assert breaks(tampered(block, position, char, length=0))


@given(entries, st.data())
def test_changing_an_id_breaks_the_block(pairs: Entries, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(pairs) - 1))
    new_id = data.draw(entry_ids.filter(lambda i: i not in {p[0] for p in pairs}))
    edited = [(new_id if n == index else i, t) for n, (i, t) in enumerate(pairs)]
    header, *_, footer = format_block(pairs).split("\n")
    body = format_block(edited).split("\n")[1:-1]
    assert breaks("\n".join([header, *body, footer]))


@given(entries, st.data())
def test_changing_a_text_breaks_the_block(pairs: Entries, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(pairs) - 1))
    new_text = data.draw(constraint_texts)
    assume(transport_form(new_text) != transport_form(pairs[index][1]))
    edited = [(i, new_text if n == index else t) for n, (i, t) in enumerate(pairs)]
    header = format_block(pairs).split("\n")[0]
    footer = format_block(pairs).rsplit("\n", 1)[1]
    forged = format_block(edited)
    assert breaks(header + forged[forged.index("\n") : forged.rindex("\n") + 1] + footer)


@given(entries, texts.filter(str.strip))
def test_strip_blocks_leaves_only_the_surrounding_prose(pairs: Entries, prose: str) -> None:
    stripped = strip_blocks(f"{prose}\n{format_block(pairs)}\n{prose}")
    assert stripped == f"{prose}\n\n\n{prose}"


@given(conversations, entries, entries)
def test_inject_twice_leaves_exactly_one_block(
    context: list[dict[str, object]], first: Entries, second: Entries
) -> None:
    block = format_block(second)
    result = CODEC.inject(CODEC.inject(context, format_block(first)), block)
    found = [
        parsed for segment in CODEC.marked_segments(result) for parsed in parse_blocks(segment.text)
    ]
    assert len(found) == 1
    assert found[0].intact
    assert found[0].header_checksum == block_checksum(second)
    assert CODEC.inject(result, block) == result


@given(st.one_of(texts, st.lists(texts)), entries, entries)
def test_inject_twice_leaves_exactly_one_block_in_strings(
    context: str | list[str], first: Entries, second: Entries
) -> None:
    block = format_block(second)
    result = CODEC.inject(CODEC.inject(context, format_block(first)), block)
    rendered = CODEC.render(result)
    found = [p for segment in rendered.segments for p in parse_blocks(segment.text)]
    assert [p.header_checksum for p in found] == [block_checksum(second)]
    assert CODEC.inject(result, block) == result


@given(conversations, entries)
def test_marked_segments_agree_with_render(
    context: list[dict[str, object]], pairs: Entries
) -> None:
    injected = CODEC.inject(context, format_block(pairs))
    for candidate in (context, injected):
        rendered = CODEC.render(candidate).segments
        assert CODEC.marked_segments(candidate) == [
            s for s in rendered if "COMPACTION-GUARD" in s.text
        ]
