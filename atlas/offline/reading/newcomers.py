"""Issues for a newcomer, said in words: `a first contribution`, `something for beginners`, `easy issues`.

GitHub gives every repository a `good first issue` label, and projects name their own alike (`beginner`,
`first-timers-only`, `starter`, `easy`). Said in words, such issues are those of that label, when the project has
one; without one the words stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from atlas.offline.reading.lazy import lazy

_FOR_NEWCOMERS_RE = lazy(
    r"\b(?:as\s+)?(?:(?:my|a|an|the|our)\s+)?first\s+(?:contribution|pr|pull\s+request)\b"
    r"|\b(?:for|to)\s+(?:a\s+|the\s+)?(?:beginners?|newcomers?|new\s+contributors?|first[- ]timers?|new\s+folks)\b"
    r"|\bbeginner[- ]friendly\b|\b(?:easy|starter)\s+(?=(?:ones?|issues?|tickets?|tasks?|bugs?)\b)"
    r"|\b(?:(?:what'?s|what\s+is|which\s+is|what\s+are)\s+)?(?:an?\s+|some\s+)?(?:good|easy|simple|small)\s+(?:issues?|tasks?|tickets?|bugs?|things?)\s+(?:for\s+(?:me|us|someone)\s+)?"
    r"to\s+(?:pick\s+up|start\s+(?:with|on)|tackle|grab|take\s+on)\b",
    re.I,
)
"""Words that ask for issues a newcomer can take: `as a first contribution`, `for beginners`, `easy issues`, `a good
issue for me to pick up`."""
_NEWCOMER_LABEL_RE = lazy(r"good[\s_-]+first|first[\s_-]*timers?|beginner|newcomer|starter|\beasy\b", re.I)
"""A label that marks such issues, whatever the project calls it."""


def newcomer_label(labels: Sequence[str]) -> str | None:
    """The project's label for issues a newcomer can take (GitHub's `good first issue` first); None without one."""
    found = [label for label in labels if _NEWCOMER_LABEL_RE.search(label)]
    return min(found, key=lambda label: (not re.match(r"good[\s_-]+first", label, re.I), len(label)), default=None)


def newcomers_meant(text: str, labels: Sequence[str]) -> str:
    """`what open issue could I pick up as a first contribution?` -> `… labelled good first issue?`: the words for a
    newcomer's issues as the project's label for them."""
    said = _FOR_NEWCOMERS_RE.search(text)
    if said is None or (label := newcomer_label(labels)) is None:
        return text
    if label.lower() in text.lower():  # `… labelled good first issue, I want one for my first PR`: said already
        return f"{text[: said.start()]} {text[said.end() :]}"
    issues = "issues " if re.search(r"\b(?:issues?|tasks?|tickets?|bugs?|things?)\b", said.group(0), re.I) else ""
    if re.search(r"\bto\s+(?:pick|start|tackle|grab|take)\b", said.group(0), re.I):
        issues = f"open {issues}"  # one to take up is one still open
    return f"{text[: said.start()]} {issues}labelled {label} {text[said.end() :]}"  # `a good issue to pick up`
