"""One request's act, for the offline planner's frame parser: what it reads, does and leaves for round two.

`LEAD` is what may stand before a request's verb; `targets` are the issues an action is about.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from atlas.offline.acts.later import Later
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.entities import action_targets
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.search import Search

LEAD = (
    # Each word is taken whole (an atomic group): a run of digits or spaces is never split two ways,
    # so a pasted line of numbers costs linear time, not exponential backtracking.
    r"^\s*(?>(?:hi|hey|ok|okay|so|now|also|and|then|please|pls|kindly|just|quickly|atlas|can\s+you|could\s+you|"
    r"would\s+you|will\s+you|can\s+u|could\s+u|go\s+ahead\s+and|i'?d\s+like\s+you\s+to|i\s+want\s+you\s+to|"
    r"let'?s|we\s+should|you\s+can|(?:#?\d+\s*[:,-]?\s*)|(?:on\s+)?(?:it|this|that)\s*[:,-]|[^\w\s\"'`#+(\[:-]+)"
    r"[\s,!]*)*"
)
"""What may stand before a request's verb: politeness, a greeting, the issue it is about (`41: …`), an emoji."""
QUESTION_RE = lazy(
    r"^\s*(?:what|which|should|would|does|do|is|are|how|why|who|when|has|have|did)\b|\b(?:what|which)\s+labels?\b", re.I
)
"""A request said as a question: answered by reading, never by an action."""
SUGGEST_RE = lazy(
    # `what labels does 41 have?`, `which labels are on 41`: the labels it carries, read with the issue.
    r"\b(?:what|which)\s+labels?\b(?!\s+(?:does|do|did)\s+\S+(?:\s+\S+)?\s+(?:have|has|carry)\b|\s+(?:are|is)\s+(?:on|already)\b)"
    r"|\blabels?\s+(?:fit|suit|apply|would|should)|\bhow\s+(?:would|should)\s+(?:you|we|i)\s+"
    r"(?:label|tag|triage)\b|\b(?:suggest|propose)\s+(?:some\s+)?labels?\b|\bwhat\s+(?:should|would|do)\s+(?:i|we|you)\s+(?:label|tag)\b"
    r"|\b(?:how|what)\s+(?:should|would|could)\s+(?:#?\d+|it|this|that)\s+be\s+(?:labell?ed|tagged|triaged|classified)\b"
    r"|\bis\s+(?:#?\d+|it|this|that)\s+an?\s+[\w-]+\s+or\s+an?\s+[\w-]+",
    re.I,
)
"""Labels asked for an issue: `what labels fit #130?`, `is 7418 a bug or a question?`."""
PRONOUN_RE = lazy(
    r"\b(?:it|this|that(?:\s+one)?|(?<!are\s)(?<!is\s)(?<!were\s)(?<!was\s)there(?!\s+(?:are|is|were|was)\b)|them|both(?!\s+(?:the\s+)?[\w:.-]+\s+and\b)"
    r"|these|those|the\s+same)\b",
    re.I,
)
"""Words pointing at an issue named before; `there` only as a place (`post it there`), not in `are there …`."""
ISSUE_PRONOUN_RE = lazy(
    r"\b(?:it|its|them|both(?!\s+(?:the\s+)?[\w:.-]+\s+and\b)|that\s+one|this\s+one|this\s+issue)\b", re.I
)
"""Words that mean the issue just named, never a place or a count: `the codes it cites`, `labels for this one`."""
RELATIVE_RE = lazy(
    r"\b(?:issues?|tickets?|bugs?|reports?|ones|requests?|anything|something)\s+(?:that|which)\b(?!\s+(?:one|issue)\b)"
    r"|\b(?:that|which)\s+(?=(?:(?:are|is|were|was|have|has|had|do|does|did)n'?t|never"
    r"|are|is|were|was|have|has|had|still|mention|mentions|say|says|cite|cites)\b)"
    r"|\bthat'?s\s+(?=(?:still|now|already|open|closed|been)\b)"
    r"|\b(?:that|which)\s+(?=(?:nobody|no[\s-]?one|anyone|anybody|someone|somebody|everyone|(?:we|i|you|they)\s+\w+ed)\b)",
    re.I,
)
"""`issues that mention …`, `… component that are open`, `… that nobody labelled`: a `that` opening what is said
of the issues sought, not one talked of before."""


class Intent(Enum):
    """What a request asks for: each kind of request has one intent, recognised in one place
    (`acts.table.RECOGNISERS`)."""

    NOTHING = "nothing"
    """A closing remark, a verb the request before already served, or a request answered by a note alone."""
    CONDITIONAL = "conditional"
    COMMENT = "comment"
    LABELS = "labels"
    INBOX = "inbox"
    TRIAGE = "triage"
    LABEL_MEANING = "label meaning"
    LABEL_LIST = "label list"
    TALLY = "tally"
    """Issues counted by author, label, state, year or month."""
    DOC = "doc"
    ORDERED = "ordered"
    """Issues in an order said in words: the newest, the oldest, the least recently active …"""
    COUNT = "count"
    SYMPTOM = "symptom"
    SEARCH = "search"
    LOOKUP = "lookup"
    """Read issues, compare them, explain their errors, read docs or codes: planned by the lookup reader."""


@dataclass
class Act:
    intent: Intent
    text: str
    issue_ids: list[int] = field(default_factory=list)
    """The issues read in round one."""
    targets: list[int] = field(default_factory=list)
    """The issues acted on: what a later request's `it` means."""
    labels: list[tuple[int, str]] = field(default_factory=list)
    removals: list[tuple[int, str]] = field(default_factory=list)
    comments: list[tuple[int, str]] = field(default_factory=list)
    reads: list[PlannedCall] = field(default_factory=list)
    later: list[Later] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    search: Search | None = None
    codes: list[str] = field(default_factory=list)
    explains_before: bool = False
    """The request before was only this one's reason (`this is a redis thing, label 111 accordingly`)."""
    narrows_before: bool = False
    """The search just before, said again narrower (`issues about shuffle, open only`): this one alone is searched."""
    wants_text: bool = False
    """A comment asked for with no text (`can you reply to alexgrant on #90?`): a sentence after it that asks
    nothing of its own is the text."""


def targets(text: str, context: Sequence[int]) -> list[int]:
    """The issues an action is about: those it names, else the last ones named (`it`: the first of them)."""
    named = action_targets(text)
    if named or re.search(r"\b(?:them|both|all|each|these|those|ones)\b", text, re.I):
        return named or list(context)
    return list(context) if len(context) == 1 else []  # `it` after several issues: which one is not said
