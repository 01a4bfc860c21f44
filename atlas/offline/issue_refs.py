"""Issue numbers and error codes as people write them: `#41`, `issues 41 and 87`, `ORB-1101`.

A leaf of the planner: the frame parser's entities and the plan both read references here.
"""

from __future__ import annotations

import re

from atlas.offline.lazy import lazy

CODE_RE = lazy(r"\bORB[-_ ]?(\d{4})\b", re.IGNORECASE)
_ISSUE_WORD = r"(?:issues?|tickets?|bugs?)"
_ISSUE_LIST_RE = lazy(
    rf"\b{_ISSUE_WORD}\s+#?(\d+)\b((?:\s*(?:,|\band\b|&|\bor\b|\bvs\.?|\bversus\b|\bwith\b)\s*(?:{_ISSUE_WORD}\s+)?#?\d+\b)*)",
    re.IGNORECASE,
)
_HASH_RE = lazy(r"(?<![\w&])#(\d+)\b")
_BARE_PAIR_RE = lazy(r"\b(?:compare|between)\s+(\d+)\s*(?:,|and|with|to|vs\.?|versus)\s*(\d+)\b", re.I)
_SHOW_BARE_IDS_RE = lazy(
    r"^\s*(?:show|open|read|get|display|fetch|pull\s+up)\s+(?:me\s+)?(\d+(?:\s*(?:,|and|&)\s*\d+)*)\s*[?.!]?\s*$", re.I
)
"""`show me 41 and 87`: bare numbers are issue ids only when they are all the question asks for."""


def issue_ids_in(text: str) -> list[int]:
    """`#41`, `issue 41`, `issues 41 and 87`, `#41, #87 and #92`: ids in order, once each."""
    hits: list[tuple[int, int]] = [(m.start(), int(m.group(1))) for m in _HASH_RE.finditer(text)]
    for match in _BARE_PAIR_RE.finditer(text):
        hits += [(match.start(group), int(match.group(group))) for group in (1, 2)]
    for match in [*_ISSUE_LIST_RE.finditer(text), *_SHOW_BARE_IDS_RE.finditer(text)]:
        hits += [(match.start() + d.start(), int(d.group())) for d in re.finditer(r"\d+", match.group(0))]
    ids: list[int] = []
    for _, issue_id in sorted(hits):
        if issue_id not in ids:
            ids.append(issue_id)
    return ids
