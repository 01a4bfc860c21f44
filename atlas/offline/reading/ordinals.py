"""In a chat, "comment on the first one: ..." after a list of issues: the ordinal becomes that issue.

The list is the latest answer that named issues (a search, a comparison), read in the order it
named them; "the last one" is its last. Without such an answer the words are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from atlas.offline.reading.issue_refs import issue_ids_in
from atlas.offline.reading.lazy import lazy

_PLACES = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "last": -1}
_ORDINAL_RE = lazy(r"\bthe (first|second|third|fourth|fifth|last)(?: one| issue| result)?\b", re.IGNORECASE)


def _content(item: Mapping[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return ""


def with_ordinals(question: str, items: Sequence[Mapping[str, Any]]) -> str:
    """`question` with its first "the first one" replaced by `#N` from the latest answer listing issues."""
    match = _ORDINAL_RE.search(question)
    if match is None or issue_ids_in(question):
        return question  # an issue named outright wins: "comment on #41: the first one failed" is text
    for item in reversed(items):
        if item.get("role") != "assistant":
            continue
        listed = issue_ids_in(_content(item))
        place = _PLACES[match.group(1).lower()]
        if listed and place < len(listed):
            return f"{question[: match.start()]}#{listed[place]}{question[match.end() :]}"
    return question
