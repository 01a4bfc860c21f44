"""In a chat, the issues an `it`, `them` or `both` means: those the user's own earlier messages named last."""

from __future__ import annotations

import re

from atlas.offline.reading.issue_refs import MAX_ISSUES, bare_issue_ids, issue_ids_in
from atlas.offline.reading.lazy import lazy

COMPARE_RE = lazy(
    r"\b(?:compare|comparison|contrast|differences?|differ|versus|vs\.?|side[- ]by[- ]side|(?:the\s+)?same\s+as"
    r"|the\s+same(?:\s+(?:issue|bug|thing|problem|report|root\s+cause|cause))?|dup(?:e|licate)?s?(?:\s+of)?|related)\b"
    r"|\bsame(?:\s+(?:issue|bug|thing|problem|report|root\s+cause|cause))?\s*\?",
    re.I,
)
"""Issues set side by side: `compare #41 and #87`, and whether two are one (`is 109 a duplicate of 41?`, `are 41 and
109 the same issue?`, `#29/#79 same root cause?`)."""
_REFERENCE_RE = lazy(
    r"\b(?:that issue|this issue|the same issue|these issues|those issues|both of them"
    r"|both(?!\s+[\w:.-]+\s+and\b)|them|its|it)\b",
    re.I,
)


def with_references(question: str, earlier: list[str]) -> str:
    """In a chat, "label it comp:core" after "#41": the pronoun becomes the issues the user last named.

    Only the user's own earlier messages are read, newest first.
    """
    named_here = issue_ids_in(question)
    if not (match := _REFERENCE_RE.search(question)):
        return question
    # With an id in the question, a pronoun is only a reference in "compare them with #87";
    # elsewhere ("comment on #41: it works now") it belongs to the user's own text.
    if named_here and not (len(named_here) == 1 and COMPARE_RE.search(question) and "comment" not in question):
        return question
    for message in reversed(earlier):
        ids = [issue_id for issue_id in issue_ids_in(message) if issue_id not in named_here]
        if ids:
            named = " and ".join(f"#{issue_id}" for issue_id in ids[:MAX_ISSUES])
            return question[: match.start()] + named + question[match.end() :]
    return question


def last_named(earlier: list[str]) -> list[int]:
    """The issues the newest of the user's earlier messages that named any named (`#41`, or a number read as an
    issue as the planner reads it: `is 6535 a duplicate of 2988?`)."""
    return next((ids for message in reversed(earlier) if (ids := issue_ids_in(message) or bare_issue_ids(message))), [])
