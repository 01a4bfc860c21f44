"""The issues said first, then what is asked of them: `of the dataset request issues opened in 2024, how many are
still open?` is `how many dataset request issues opened in 2024 are still open?`; `among the open bugs, which
mention parquet?` is `which open bugs mention parquet?`."""

from __future__ import annotations

import re

from atlas.offline.reading.lazy import lazy

_SAID_FIRST_RE = lazy(
    r"^\s*(?:of|among(?:st)?|out\s+of)\s+(?:all\s+)?(?:the|our|those|these)\s+(?P<what>[^,?;]{3,80}?)\s*,\s*"
    r"(?P<ask>how\s+many|which|what)(?:\s+(?:ones?|of\s+(?:them|those|these)))?\s+(?P<rest>[^,;]+)$",
    re.I,
)


def said_first(text: str) -> str:
    """The question with the issues it asks about said where they belong; the words as they are otherwise."""
    found = _SAID_FIRST_RE.match(text)
    if found is None:
        return text
    return f"{found['ask']} {found['what']} {found['rest']}"
