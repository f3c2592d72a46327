"""The units a rule's slot is measured in, and another unit of the same slot.

"Show all amounts in euros": the slot is money and its unit is the euro. A copy that goes
on "and dollars", or a statement that "US invoices are fine in dollars", puts another unit
of that slot beside the rule's own: the rule's one unit is no longer the only one. A unit
of another dimension ("in euros, rounded to the nearest metre") is about something else,
and a sub-unit of the rule's own ("in USD and cents") is the same currency.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compaction_guard.anchors import unit_word

if TYPE_CHECKING:
    from collections.abc import Sequence

    from compaction_guard.detectors.lexical.align import Part

__all__ = ["other_unit", "rule_units"]


def rule_units(part: Part) -> frozenset[tuple[str, str]]:
    """Return the (dimension, unit) of every unit word and unit value of the rule."""
    found = {u for t in part.analysis.tokens if (u := unit_word(t)) is not None}
    found |= {("money", v.unit) for v in part.analysis.values if v.kind == "money"}
    return frozenset(found)


def other_unit(part: Part, tokens: Sequence[str], start: int, stop: int) -> int | None:
    """Return where a unit of the rule's slot that the rule does not name stands, or None.

    Only `tokens[start:stop]` are read; the unit must measure what one of the rule's units
    measures (money for money), and be neither that unit nor a sub-unit of it ("cents").
    """
    own = rule_units(part)
    if not own:
        return None
    money = any(d == "money" for d, _ in own)
    for index in range(max(0, start), min(stop, len(tokens))):
        unit = _money_word(tokens[index]) if money else None
        unit = unit or unit_word(tokens[index])
        if unit is None or unit in own:
            continue
        dimension, name = unit
        same_slot = [u for (d, u) in own if d == dimension]
        if same_slot and not any(_related(name, u) for u in same_slot):
            return index
    return None


def _money_word(token: str) -> tuple[str, str] | None:
    """Read a currency word beside a money slot: "pounds sterling" is no weight there.

    Other currency words are the value reader's own (`unit_word`); only "pound" needs the
    slot, since elsewhere it is a weight.
    """
    return ("money", "gbp") if token.lower() in _STERLING else None


_STERLING = frozenset({"pound", "pounds", "sterling", "quid"})


def _related(left: str, right: str) -> bool:
    """Tell whether two units of one slot are one currency ("usd" and "usd-cent").

    A cent is the hundredth of any currency ("in euros and cents"), whatever its table says.
    """
    if left.endswith("cent") or right.endswith("cent"):
        return True
    return left.partition("-")[0] == right.partition("-")[0]
