"""The stdlib lexical tier: a package cut by concept.

Reading (`text`, `index`, `marks`, `frame`), aligning (`align`), the window of facts
about one constraint (`context`), the rules (`rules`, `damage`, `mutation`, `world`),
and the verdict (`verdict`). See docs/DESIGN.md, "Lexical layer".
"""

from compaction_guard.detectors.lexical.detector import LexicalDetector

__all__ = ["LexicalDetector"]
