"""Before/after diff: which text the compactor kept verbatim and which it wrote.

Builds the SummaryView the detectors read. See docs/DESIGN.md, "Diff and sites".
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from compaction_guard.block import MARKER, block_checksum, parse_blocks, strip_current_blocks
from compaction_guard.taxonomy import Site
from compaction_guard.view import Passage, SummaryView

if TYPE_CHECKING:
    from collections.abc import Hashable, Mapping

    from compaction_guard.codec import Rendering

__all__ = ["build_view", "carried_ids"]

def build_view(
    before: Rendering | None,
    after: Rendering,
    registry: Mapping[str, str],
) -> SummaryView:
    """Attribute every piece of `after` to SUMMARY or RETAINED and strip the current block.

    A message of `after` that renders exactly like a message of `before` is RETAINED
    (matched as a multiset, so a repeated message is retained only as often as it was
    there). Plain-string contexts are compared line by line instead. `registry` maps
    invariant ids to their registered text, in registration order: the block it renders
    is the only one stripped (and echoed through `carried`); any other guard-format text,
    a forged or stale block or a bare entry line, stays in the view as ordinary prose.
    """
    current = block_checksum(list(registry.items())) if registry else None
    if before is None:
        retained_keys: Counter[Hashable] = Counter()
    else:
        retained_keys = Counter(before.keys)
    retained_messages = _retained_messages(after, retained_keys)
    before_lines = _line_set(before, current) if after.shape == "str" else frozenset()
    passages: list[Passage] = []
    carried: set[str] = set()
    for segment in after.segments:
        text = segment.text
        if MARKER in text:
            if not segment.tool:
                carried |= carried_ids(text, registry)
            text = strip_current_blocks(text, current)
        if not text.strip():
            continue
        if after.shape == "str":
            passages.extend(_line_passages(text, before_lines, segment.message))
            continue
        site = Site.RETAINED if segment.message in retained_messages else Site.SUMMARY
        passages.append(Passage(text=text, site=site, message=segment.message, tool=segment.tool))
    return SummaryView(passages=tuple(passages), carried=frozenset(carried), notes=after.notes)


def carried_ids(text: str, registry: Mapping[str, str]) -> set[str]:
    """Return ids whose registered text sits in an intact current block inside `text`.

    Only the block the registry renders now counts: a forged block that reuses an id and
    its text cannot vouch for anything.
    """
    found: set[str] = set()
    current = block_checksum(list(registry.items())) if registry else None
    for block in parse_blocks(text):
        if not block.intact or block.header_checksum != current:
            continue
        for entry_id, entry_text in block.entries:
            if registry.get(entry_id) == entry_text:
                found.add(entry_id)
    return found


def _retained_messages(after: Rendering, before_keys: Counter[Hashable]) -> set[int]:
    retained: set[int] = set()
    for index, key in enumerate(after.keys):
        if before_keys[key] > 0:
            before_keys[key] -= 1
            retained.add(index)
    return retained


def _line_set(rendering: Rendering | None, current: str | None) -> frozenset[str]:
    if rendering is None:
        return frozenset()
    lines: set[str] = set()
    for segment in rendering.segments:
        text = strip_current_blocks(segment.text, current)
        lines.update(line.strip() for line in text.splitlines())
    lines.discard("")
    return frozenset(lines)


def _line_passages(text: str, before_lines: frozenset[str], message: int) -> list[Passage]:
    """Split a plain-string context into runs of kept and written lines."""
    passages: list[Passage] = []
    run: list[str] = []
    run_site: Site | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            run.append(line)
            continue
        site = Site.RETAINED if stripped in before_lines else Site.SUMMARY
        if run_site is not None and site is not run_site:
            passages.append(Passage(text="\n".join(run), site=run_site, message=message))
            run = []
        run_site = site
        run.append(line)
    if run_site is not None and any(line.strip() for line in run):
        passages.append(Passage(text="\n".join(run), site=run_site, message=message))
    return passages
