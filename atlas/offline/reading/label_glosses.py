"""The word a project's docs give each label: `| severity:S2 | major: a core feature is broken … |`.

A triage doc's table of labels often starts each label's meaning with the word maintainers say for it
(`critical`, `major`, `minor`, `trivial`). Said before issues (`the open major bugs`, `critical issues`), that
word names the label, as the label's own name would. Nothing here lists any project's words: they are read
from the docs' tables, a word only when it names one label.
"""

from __future__ import annotations

import re
import sqlite3

from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.vocabulary import Vocabulary

_ROW_RE = lazy(r"^\|\s*`(?P<label>[^`|\n]+)`\s*\|\s*(?P<gloss>[A-Za-z][A-Za-z -]{1,24}?)\s*:", re.M)
"""A table row naming a label in its first cell, its meaning starting `word:` in the second."""
_BEFORE_ISSUES = r"(?=\s+(?:(?:open|closed|new|old|remaining)\s+)?(?:issues?|bugs?|tickets?|reports?|ones|problems?)\b)"


def label_glosses(vocabulary: Vocabulary) -> dict[str, str]:
    """Each word the docs' label tables give a label (lower case) → that label; a word given two labels is none.
    Read once per vocabulary."""
    if vocabulary.glosses is None:
        vocabulary.glosses = _read_glosses(vocabulary)
    return vocabulary.glosses


def _read_glosses(vocabulary: Vocabulary) -> dict[str, str]:
    if vocabulary.index is None or not vocabulary.labels:
        return {}
    try:
        bodies = vocabulary.index.execute("SELECT body FROM sections WHERE body LIKE '%|%`%'").fetchall()
    except sqlite3.Error:  # a locked or broken index: no glosses, the words stay words
        return {}
    known = set(vocabulary.labels)
    found: dict[str, set[str]] = {}
    for (body,) in bodies:
        for row in _ROW_RE.finditer(str(body)):
            if row["label"] in known and len(row["gloss"].split()) <= 2:
                found.setdefault(row["gloss"].strip().lower(), set()).add(row["label"])
    return {gloss: next(iter(labels)) for gloss, labels in found.items() if len(labels) == 1}


def glossed(text: str, glosses: dict[str, str]) -> str:
    """`the open major bugs` -> `the open severity:S2 bugs`: a label's word, said before issues, as the label."""
    if not glosses:
        return text
    words = "|".join(re.escape(gloss) for gloss in sorted(glosses, key=len, reverse=True))
    return re.sub(rf"\b({words})\b{_BEFORE_ISSUES}", lambda said: glosses[said.group(1).lower()], text, flags=re.I)
