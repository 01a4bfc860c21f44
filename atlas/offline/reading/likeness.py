"""Words that ask for the issues most like one: `similar to #41`, `duplicates of 41`, `reported before`.

A leaf of the planner: the act that plans `find_similar` reads them here.
"""

from __future__ import annotations

import re

from atlas.offline.reading.lazy import lazy

SIMILAR_RE = lazy(
    r"\b(?:duplicates?|dupes?|dups?|similar|same\s+as|related\s+(?:issues?|tickets?|bugs?|reports?|to)"
    r"|already\s+(?:reported|filed)\s+as"
    r"|(?:other|more|any)\s+(?:issues?|tickets?|bugs?|reports?|ones?)\s+like\s+(?:this|that|it)(?:\s+one)?)\b",
    re.I,
)
"""The issues like one asked for: `similar to 41`, `duplicates of #41`, `related tickets to 41`, `#6836 — is there
other reports like this one?`."""
ABOUT_THE_ONE_BEFORE_RE = lazy(
    r"\b(?:similar|related|duplicate|dupe)\s+(?:ones?|issues?|tickets?|reports?|bugs?)\b|\bany\s+(?:duplicates|dupes|dups)\b"
    r"|\b(?:duplicates|dupes|dups)\s*\??\s*$|\b(?:ones?|issues?)\s+like\s+(?:it|this|that)\b"
    r"|^\s*(?:and\s+)?(?:(?:find|show|get|list)\s+(?:me\s+)?(?:the\s+)?|any(?:thing)?\s+|something\s+)?similar"
    r"(?:\s+ones)?\s*[?.!]*\s*$"
    r"|\b(?:labels?\s+(?:would|should)\s+(?:fit|suit|apply)|suggest(?:ed)?\s+labels?)\s*\??\s*$",
    re.I,
)
"""A similar-issues or label question that names no issue (`any similar?`, `find similar`): about the one talked of just
before."""
REPORTED_BEFORE_RE = lazy(
    r"\b(?:something|anything|ones?|issues?|reports?|others?)\s+like\s+(?:issue\s+|ticket\s+)?#?\d"
    r"|\b(?:reported|filed|raised|seen|opened|asked)\b[^.?!]{0,40}\bbefore\s*[?.!]*\s*$"
    r"|\balready\s+(?:been\s+)?(?:reported|filed|raised|tracked)\b",
    re.I,
)
"""`has anyone reported something like #6936 before`, `was #41 already filed?`: whether the issue named was
reported before, which the issues most like it answer."""
