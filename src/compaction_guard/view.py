"""The text the detectors read: rendered context pieces attributed to where they live.

See docs/DESIGN.md, "Diff and sites".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compaction_guard.taxonomy import Site

__all__ = ["Passage", "Segment", "SummaryView"]


@dataclass(frozen=True, slots=True)
class Segment:
    """One piece of text rendered from a context by a codec.

    `message` is the index of the message or item in the context (0 for a plain str),
    `role` the provider role ("text" for plain strings), and `tool` is True for tool
    results and tool-call arguments, which the block may never live in.
    """

    text: str
    message: int
    role: str
    tool: bool = False


@dataclass(frozen=True, slots=True)
class Passage:
    """A piece of the compacted context with the guard's own blocks already stripped.

    `site` is SUMMARY for text the compactor wrote and RETAINED for text it kept verbatim.
    """

    text: str
    site: Site
    message: int
    tool: bool = False


@dataclass(frozen=True, slots=True)
class SummaryView:
    """Everything a detector may read about one compaction.

    `passages` are in context order. `carried` holds the invariant ids whose exact
    registered text sits in a well-formed guard block found in the compactor's output;
    detectors may use it only through an explicit echo rule.
    """

    passages: tuple[Passage, ...]
    carried: frozenset[str] = frozenset()
    notes: tuple[str, ...] = field(default=())

    @classmethod
    def from_summary(cls, text: str) -> SummaryView:
        """Build the view `Guard.check` uses: one summary passage and nothing else."""
        return cls(passages=(Passage(text=text, site=Site.SUMMARY, message=0),))

    def text_at(self, site: Site) -> str:
        """Return the passages at `site` joined by blank lines."""
        return "\n\n".join(p.text for p in self.passages if p.site is site)
