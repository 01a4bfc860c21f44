"""A search word that no issue holds, read as the nearest word the issues do hold: `webdatset` → `webdataset`.

Only a whole word of letters, five or more long, that fewer than two issues hold is read again, when the search found
nothing; the nearest is one edit away
(two for a word of nine letters or more) among the words at least two issues hold, from the full-text index's own
list of terms. A search that finds anything is never respelled.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter

MIN_LENGTH = 5
"""Shorter words are too often a real word of their own one edit from another (`cache`, `catch`)."""


def respelled(conn: sqlite3.Connection, words: list[str]) -> dict[str, str]:
    """Each word no issue holds → the nearest term the issues hold; words with no near term are left out."""
    from rapidfuzz import process  # only a search that found nothing pays for the library
    from rapidfuzz.distance import Levenshtein

    found: dict[str, str] = {}
    for word in dict.fromkeys(word.lower() for word in words):
        if len(word) < MIN_LENGTH or not re.fullmatch(r"[a-z]+", word) or _held(conn, word):
            continue
        allowed = 2 if len(word) >= 9 else 1
        near = _terms(conn, len(word) - allowed, len(word) + allowed)
        best = process.extractOne(word, near, scorer=Levenshtein.distance, score_cutoff=allowed)
        if best is not None:
            found[word] = str(best[0])
    return found


def _held(conn: sqlite3.Connection, word: str) -> bool:
    """Whether two issues or more hold the word: one alone may hold the same typo."""
    query = "SELECT count(*) FROM (SELECT 1 FROM issues_fts WHERE issues_fts MATCH ? LIMIT 2)"
    return int(conn.execute(query, (f'"{word}"',)).fetchone()[0]) >= 2


def _terms(conn: sqlite3.Connection, shortest: int, longest: int) -> list[str]:
    """The words of about that length that two issues or more hold (a word of one issue may be a typo too): the
    index's terms, which are stems (`stream`), and the titles' words as written (`streaming`)."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.issue_terms USING fts5vocab(main, issues_fts, row)")
    rows = conn.execute(
        "SELECT term FROM temp.issue_terms WHERE doc >= 2 AND length(term) BETWEEN ? AND ?", (shortest, longest)
    )
    titled = Counter(word for (title,) in conn.execute("SELECT title FROM issues") for word in _words(str(title)))
    written = [word for word, count in titled.items() if count >= 2 and shortest <= len(word) <= longest]
    return list(dict.fromkeys([*(str(term) for (term,) in rows), *written]))


def _words(title: str) -> set[str]:
    return set(re.findall(r"[a-z]+", title.lower()))


def respelled_query(conn: sqlite3.Connection, query: str) -> tuple[str, str] | None:
    """The query with each word no issue holds respelled, and the sentence that says so; None when none is."""
    spelled = respelled(conn, re.findall(r"\w+", query))
    if not spelled:
        return None
    words = [spelled.get(word.lower(), word) for word in query.split()]
    said = ", ".join(f"“{typed}” as “{meant}”" for typed, meant in spelled.items())
    return " ".join(words), f"No issue holds the words as typed; read {said}, the nearest words the issues hold."
