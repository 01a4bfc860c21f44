"""In a chat, "comment on the first one: ..." after a list of issues: the ordinal becomes that issue.

The list is the latest answer that named issues (a search, a comparison), read in the order it
named them; "the last one" is its last. Without such an answer the words are left as they are.
"""

from __future__ import annotations

import json
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
    place = _PLACES[match.group(1).lower()]
    for listed in reversed(_listings(items)):
        if place < len(listed):
            return f"{question[: match.start()]}#{listed[place]}{question[match.end() :]}"
    return question


def _listings(items: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """The issues each answer named, in its order, for the answers made from tool results: an answer with
    none (the help for a request not understood) names its examples, not issues the person has seen."""
    listings: list[list[int]] = []
    called = False
    for item in items:
        if item.get("role") == "user":
            called = False
        elif item.get("type") == "function_call_output":
            called = True
        elif item.get("role") == "assistant" and called and (listed := issue_ids_in(_content(item))):
            listings.append(listed)
    return listings


def with_issue_read(message: str, turn: Sequence[Mapping[str, Any]]) -> str:
    """`what's the DVC one about?`, then `label it bug`: a message that named no issue, whose answer read one
    (found by a search), is read as naming it."""
    if issue_ids_in(message):
        return message
    read = {issue_id for item in turn if (issue_id := _issue_read(item)) is not None}
    return f"{message} (#{read.pop()})" if len(read) == 1 else message


def _issue_read(item: Mapping[str, Any]) -> int | None:
    if item.get("type") != "function_call" or item.get("name") != "get_issue":
        return None
    try:
        arguments = json.loads(str(item.get("arguments") or "{}"))
    except ValueError:
        return None
    issue_id = arguments.get("issue_id") if isinstance(arguments, dict) else None
    return issue_id if isinstance(issue_id, int) and not isinstance(issue_id, bool) else None
