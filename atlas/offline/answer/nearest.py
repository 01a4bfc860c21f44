"""When nothing in a message was understood: the nearest requests the planner does understand.

Each suggestion is built from the message's own words that the project knows (its docs' and issue
titles' words, its labels, its doc headings) and is kept only when planning it gives calls, so
"did you mean" never offers a phrasing that would not be understood either.
"""

from __future__ import annotations

from collections.abc import Callable

from atlas.offline.reading.entities import label_refs
from atlas.offline.reading.sections import content_words, heading_name
from atlas.offline.reading.topics import ranked_sections
from atlas.offline.reading.vocabulary import Vocabulary

MAX_SUGGESTIONS = 3
QUERY_WORDS = 4
"""A search of a few of the message's words: enough to find something, few enough to read as a request."""


def nearest_requests(question: str, vocabulary: Vocabulary, understood: Callable[[str], bool]) -> list[str]:
    """Up to three requests near the question that `understood` (planning them) accepts, best first."""
    words = [w for w in content_words(question) if w in vocabulary.words and not any(c.isdigit() for c in w)]
    candidates: list[str] = []
    labels = [ref.label for ref in label_refs(question, vocabulary.labels) if ref.known]
    if labels:
        candidates.append(f"open issues labelled {labels[0]}")
    if words:
        candidates.append("find issues about " + " ".join(dict.fromkeys(words[:QUERY_WORDS])))
    for ranked in ranked_sections(words, vocabulary, limit=2):
        if ranked.in_heading and ranked.section.doc_id != "error-codes":
            heading = heading_name(ranked.section, vocabulary)
            candidates.append(f"the section on {heading} in {ranked.section.doc_id}")
    kept: list[str] = []
    for candidate in dict.fromkeys(candidates):
        if understood(candidate):
            kept.append(candidate)
        if len(kept) == MAX_SUGGESTIONS:
            break
    return kept
