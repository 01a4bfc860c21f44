"""Asks about the project's own labels as a whole: `which labels does this project use?`, `list the labels`.

One issue's labels are read with the issue, and labels that would fit an issue are a triage read; this
act is the project's vocabulary itself, from `list_labels`.
"""

from __future__ import annotations

import re

from atlas.offline.acts.act import ISSUE_PRONOUN_RE, Act, Intent
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.lazy import lazy

_LABEL_LIST_RE = lazy(
    r"\b(?:which|what)\s+(?:labels|tags)\s+(?:does|do|are|exist|can|there|have|has)\b"
    r"|\b(?:list|show|see|give)\s+(?:me\s+)?(?:the\s+|all\s+(?:the\s+)?|every\s+)?(?:project'?s\s+|our\s+)?"
    r"(?:labels|(?<=every\s)label)\b"
    r"|^\W*(?:all\s+)?(?:the\s+)?labels\s*[?.!]*\s*$",
    re.I,
)


def label_list_act(text: str, typed: str, names_issues: bool) -> Act | None:
    """The act when the words ask which labels the project has; None when they ask about one issue's."""
    # `which labels fit it` asks about one issue's labels, not the project's.
    # `every label with its count`: the count is the label's.
    said_of_issues = ISSUE_PRONOUN_RE.search(re.sub(r"\b(?:its|their)\s+(?:counts?|numbers?|uses?|usage)\b", " ", text))
    if names_issues or not _LABEL_LIST_RE.search(text) or said_of_issues:
        return None
    return Act(Intent.LABEL_LIST, typed, reads=[PlannedCall("list_labels", {})])
