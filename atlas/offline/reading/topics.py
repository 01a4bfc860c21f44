"""Doc sections by topic: the section that holds the most of a question's distinctive words.

Each word weighs by how rare it is among the sections (its inverse document frequency in the docs'
FTS index, so `systemd` outweighs `run` and `orbit`), and a word in a section's heading counts again,
weighted by how rare it is among headings: `the web dashboard` finds `The dashboard` rather than
a section that mentions the dashboard in passing. Words the docs never use weigh nothing. Nothing
is listed here: the weights come from the docs themselves.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass

from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.sections import content_words
from atlas.offline.reading.vocabulary import Section, Vocabulary

HEADING_WEIGHT = 2.0
"""A word in the heading counts this much more than a word in the text: a heading says what a section is about."""
MIN_SHARE = 0.5
"""The share of the question's weight a section must hold to answer it, unless its heading holds a word."""
MIN_HEADING_SHARE = 0.3
"""... and the share it must hold when its heading does."""
NAMING_HEADINGS = 3
"""A heading word held by at most this many headings can name one."""
MIN_NAMED = 0.5
"""A section whose heading's words the question half holds is answered whatever else the question says: a
docs' weight says little of words they rarely use (`behaves`, `holds`), which are the asker's English."""
_TERM_RE = lazy(r"[a-z0-9][a-z0-9._-]*")


@dataclass(frozen=True)
class Ranked:
    section: Section
    score: float
    share: float
    """The part of the question's word weight that the section holds."""
    in_heading: bool
    named: float = 0.0
    """The part of the heading's own words the question holds: 1.0 for `the dashboard` and `The dashboard`."""

    @property
    def relevant(self) -> bool:
        if self.in_heading and self.named >= MIN_NAMED:
            return True
        return self.share >= (MIN_HEADING_SHARE if self.in_heading else MIN_SHARE)


def ranked_sections(
    words: list[str], vocabulary: Vocabulary, doc_id: str | None = None, limit: int = 3
) -> list[Ranked]:
    """The sections (of `doc_id`, or of every doc) best holding the words, best first."""
    terms = [t for t in dict.fromkeys(w.lower() for w in words) if _TERM_RE.fullmatch(t)]
    index = vocabulary.index
    if index is None or not terms or not vocabulary.sections:
        return []
    total = len(vocabulary.sections)
    scores: dict[int, float] = {}
    held: dict[int, float] = {}
    headed: dict[int, int] = {}
    weight = 0.0
    for term in terms[:24]:  # a pasted paragraph is not a topic: its first words are enough
        anywhere, in_headings = _rows(index, term, vocabulary)
        if not anywhere:
            # A word the docs never use (`faster`) is something none of them covers: it weighs against all.
            weight += math.log(1 + total)
            continue
        idf = math.log(1 + total / len(anywhere))
        # A word in one section's prose only (`behaves`, `send`) is as likely the asker's English as a topic:
        # it adds to that section's score but not to the weight a section must hold.
        weight += idf if len(anywhere) > 1 or in_headings else 0.0
        for row in anywhere:
            scores[row] = scores.get(row, 0.0) + idf
            held[row] = held.get(row, 0.0) + idf
        heading_idf = math.log(1 + total / len(in_headings)) if in_headings else 0.0
        for row in in_headings:
            scores[row] = scores.get(row, 0.0) + HEADING_WEIGHT * heading_idf
            # Only a word few headings share names a heading: `dashboard` does, `jobs` (in a dozen) does not.
            headed[row] = headed.get(row, 0) + (len(in_headings) <= NAMING_HEADINGS)
    rows = [row for row in scores if doc_id is None or vocabulary.sections[row - 1].doc_id == doc_id]
    rows.sort(key=lambda row: (-scores[row], row))  # ties: the order of the docs
    return [
        Ranked(
            vocabulary.sections[row - 1],
            scores[row],
            min(1.0, held[row] / weight) if weight else 1.0,
            row in headed,
            headed.get(row, 0) / max(1, len(content_words(vocabulary.sections[row - 1].heading))),
        )
        for row in rows[:limit]
    ]


def best_section(
    words: list[str], vocabulary: Vocabulary, doc_id: str | None = None, *, errors: bool = True, headed: bool = False
) -> Section | None:
    """The section that answers the words, when one holds enough of them; error sections only with `errors`;
    `headed`: only a section whose heading holds one of the words."""
    for ranked in ranked_sections(words, vocabulary, doc_id, limit=4):
        if ranked.section.doc_id == "error-codes" and not errors and doc_id != "error-codes":
            continue
        return ranked.section if ranked.relevant and (ranked.in_heading or not headed) else None
    return None


def _hyphenated_in_headings(term: str, vocabulary: Vocabulary) -> frozenset[int]:
    """The sections whose heading holds the term written with hyphens (`catchup` and `catch-up`, `setup` and
    `set-up`), which the index keeps as two words."""
    if "-" in term:
        return frozenset()
    return frozenset(
        row
        for row, section in enumerate(vocabulary.sections, start=1)
        if term in (word.replace("-", "") for word in _HYPHENATED_RE.findall(section.heading.lower()))
    )


_HYPHENATED_RE = lazy(r"[a-z0-9]+(?:-[a-z0-9]+)+")


_ABBREVIATED_RE = lazy(r"([a-z]{3,4})s?")
"""A short word the docs never use, read as the start of theirs (`env`, `vars`: environment, variables)."""


def _matching(index: sqlite3.Connection, query: str) -> frozenset[int]:
    """The rows of the sections the full-text query matches."""
    return frozenset(r for (r,) in index.execute("SELECT rowid FROM sections WHERE sections MATCH ?", [query]))


def _rows(index: sqlite3.Connection, term: str, vocabulary: Vocabulary) -> tuple[frozenset[int], frozenset[int]]:
    """The sections holding the term anywhere, and in their heading (porter-stemmed, as the index is; a heading's
    hyphenated word also as one word), once per term."""
    cached = vocabulary.term_rows.get(term)
    if cached is not None:
        return cached
    try:
        said = f'"{term}"'
        anywhere, headings = _matching(index, said), _matching(index, f"heading : {said}")
        if not anywhere and (short := _ABBREVIATED_RE.fullmatch(term)):  # `env vars`: environment variables
            said = f'"{short.group(1)}"*'
            anywhere, headings = _matching(index, said), _matching(index, f"heading : {said}")
    except sqlite3.Error:
        anywhere = headings = frozenset()
    if joined := _hyphenated_in_headings(term, vocabulary):  # `catchup` names `Misfires and catch-up`
        anywhere, headings = anywhere | joined, headings | joined
    vocabulary.term_rows[term] = (anywhere, headings)
    return anywhere, headings
