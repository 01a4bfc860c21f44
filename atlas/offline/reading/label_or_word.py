"""A label and a word joined by `or` before the issues (`open speech or audio issues`): one search cannot ask for
issues with a label or with a word, so the request is asked once for each, as two requests would ask it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from atlas.foundation.label_names import resolve_label
from atlas.offline.reading.lazy import lazy

_EITHER_BEFORE_NOUN_RE = lazy(
    r"(?<![\w:-])(?P<first>[\w:-]+)\s+or\s+(?P<second>[\w:-]+)\s+(?=(?:issues|bugs|tickets|reports|ones)\b)", re.I
)


def label_or_word(text: str, labels: Sequence[str]) -> tuple[str, str] | None:
    """The request once with the label and once about the word; None unless exactly one of the two is a label."""
    for either in _EITHER_BEFORE_NOUN_RE.finditer(text):
        first, second = either.group("first"), either.group("second")
        named = [resolve_label(word, labels) if len(word) > 2 else None for word in (first, second)]
        if (named[0] is None) == (named[1] is None):
            continue
        label, word = (first, second) if named[0] else (second, first)
        before, after = text[: either.start()], text[either.end() :]
        topic = re.search(r"[?.!]*\s*$", after)
        end = topic.start() if topic else len(after)
        return f"{before}{label} {after}", f"{before}{after[:end]} about {word}{after[end:]}"
    return None
