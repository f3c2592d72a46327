"""The stdlib lexical tier: a package cut by concept.

Reading (`text`, `index`, `marks`, `frame`), aligning (`align`), the window of facts about
one constraint (`context`), the rules (`rules`, `damage`, `mutation`, `world`), the verdict
(`detector`), and the catalogue of rules (`catalogue`, `switches`). Certification is
closed-world (`world`): an Abstain carries `closed_world: "departure"` and forbids
certification when something on the topic departs or could not be accounted for, and
`closed_world: "clean"` with nothing forbidden when every statement read was clean but the
restatement could not be proven. See docs/DESIGN.md, "Lexical layer", and docs/lexical-rules.md.
"""

from compaction_guard.detectors.lexical.detector import LexicalDetector

__all__ = ["LexicalDetector"]
