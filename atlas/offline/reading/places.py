"""A place pointed at (`what's still open there?`) is the label the request before named.

`How exposed are we on the Postgres broker? What's still open there?`: the second request names no label of its
own; `there` stands for the component the first one named by its words. Only a label is such a place: an issue
pointed at (`post it there`) is read as the issue named before, by the requests that take one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from atlas.offline.reading.entities import label_refs
from atlas.offline.reading.lazy import lazy

_PLACE_RE = lazy(
    r"\s+(?:there|in\s+(?:that|this)\s+(?:area|component|part)|on\s+(?:that|this)(?:\s+(?:one|front))?)(?=\s*[?.!]*\s*$)",
    re.I,
)


def place_meant(text: str, said_before: str | None, labels: Sequence[str]) -> str:
    """The words with a place pointed at at their end said as the one label the request before named (`… open
    labelled comp:broker-postgres?`); as they are when this request names a label or the one before named none."""
    if said_before is None or not (place := _PLACE_RE.search(text)):
        return text
    if any(ref.known for ref in label_refs(text, labels, distinctive=True)):
        return text
    named = list(dict.fromkeys(ref.label for ref in label_refs(said_before, labels, distinctive=True) if ref.known))
    if len(named) != 1:
        return text
    return f"{text[: place.start()]} labelled {named[0]}{text[place.end() :]}"
