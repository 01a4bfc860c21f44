"""Several labels named together, for the offline planner's search reading (`search_labels.py`).

After a label word (`labelled bug or enhancement`, `tagged both docs and cli`), before the word label (`with the bug
and the streaming labels`), or joined by `or` before the noun they qualify (`open speech or vision issues`): the
labels as the project spells them, and whether one of them will do (an `or`) or all must.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from atlas.foundation.label_names import resolve_label
from atlas.offline.reading.lazy import lazy

LABEL_LEAD = r"\b(?:labell?ed|tagged|with\s+(?:the\s+)?labels?|having\s+(?:the\s+)?labels?|labels?)\s*[:=]?\s*"
"""The words before a label named as a filter: `labelled`, `tagged`, `with the label`."""
_NAME = r"(?:\"[^\"]+\"|'[^']+'|`[^`]+`|[\w.:-]+)"
LABEL_LIST_RE = lazy(
    LABEL_LEAD
    + rf"(?:both\s+|either\s+)?(?P<names>{_NAME}(?:(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and/or|and|or)\s+){_NAME})+)",
    re.IGNORECASE,
)
"""`labelled bug or enhancement`, `tagged both docs and cli`, `with labels a, b and c`: several labels at once."""
_LIST_LEAD_RE = lazy(LABEL_LEAD + r"(?:both\s+|either\s+)?", re.IGNORECASE)
_LIST_BEFORE_WORD_RE = lazy(r"\b(?:have|has|having|with|carrying)\s+(?:both\s+|either\s+)?(?:the\s+)?", re.IGNORECASE)
"""Before labels named ahead of the word label: `with the bug and the streaming labels`."""
_JOIN_RE = lazy(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and/or|and|or)\s+", re.IGNORECASE)
_LIST_WORD_RE = lazy(r"(?P<quoted>\"[^\"]+\"|'[^']+'|`[^`]+`)|[\w.:-]+")


def label_list(text: str, labels: Sequence[str]) -> tuple[list[str], bool, str]:
    """Several labels named together after a label word, as the project spells them (`labelled good first issue
    or help wanted`), or joined by `or` before the noun (`speech or vision issues`); whether one of them will do
    (joined by `or`) rather than all; and the words left. The list ends at the first name that is no label."""
    for lead in _LIST_LEAD_RE.finditer(text):
        names, either, end = _joined_labels(text, lead.end(), labels)
        chosen = list(dict.fromkeys(names))
        if len(names) > 1:
            return chosen, either and len(chosen) > 1, text[: lead.start()] + " " + text[end:]
    for lead in _LIST_BEFORE_WORD_RE.finditer(text):  # `that have both the bug and the streaming label`
        names, either, end = _joined_labels(text, lead.end(), labels)
        chosen = list(dict.fromkeys(names))
        if len(names) > 1 and (word := re.match(r"\s+labels?\b", text[end:])):
            return chosen, either and len(chosen) > 1, text[: lead.start()] + " " + text[end + word.end() :]
    for lead in _WORD_START_RE.finditer(text):  # `open speech or vision issues`: either label, before the noun
        names, either, end = _joined_labels(text, lead.end(), labels)
        chosen = list(dict.fromkeys(names))
        if either and len(chosen) > 1 and _ISSUE_NOUN_AFTER_RE.match(text, end):
            return chosen, True, text[: lead.start()] + " " + text[end:]
    return [], False, text


_WORD_START_RE = lazy(r"(?<![\w.:'\"`-])(?=[\w\"'`])")
_ISSUE_NOUN_AFTER_RE = lazy(r"\s+(?:issues|bugs|tickets|reports|ones)\b", re.I)
"""Labels joined by `or` before the noun they qualify: one of them will do, as after a label word."""


def _joined_labels(text: str, at: int, labels: Sequence[str]) -> tuple[list[str], bool, int]:
    """The labels named one after another from `at`, joined by commas, `and` or `or`; whether an `or` joined
    them; and where the last one ends."""
    names: list[str] = []
    either, end = False, at
    while (named := _label_at(text, at, labels)) is not None:
        names.append(named[0])
        end = named[1]
        join = _JOIN_RE.match(text, end)
        if join is None:
            break
        either = either or bool(re.search(r"\bor\b", join.group(0), re.I))
        at = (
            join.end() + len(article.group(0))
            if (article := re.match(r"the\s+", text[join.end() :], re.I))
            else join.end()
        )
    return names, either, end


def _label_at(text: str, at: int, labels: Sequence[str]) -> tuple[str, int] | None:
    """The label named at `at` and where its name ends: a quoted name, or the most words (up to four) that
    name one of the project's labels."""
    ends: list[int] = []
    pos = at
    while len(ends) < 4 and (word := _LIST_WORD_RE.match(text, pos)):
        ends.append(word.end())
        gap = re.match(r"[ \t]+", text[word.end() :])
        if word.group("quoted") or gap is None:
            break
        pos = word.end() + gap.end()
    for end in reversed(ends):
        if label := resolve_label(text[at:end], labels):
            return label, end
    return None
