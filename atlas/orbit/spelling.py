"""A search word that no issue holds, read as the nearest word the issues do hold: `webdatset` → `webdataset`.

Only when a search found nothing, and only a whole word of letters, five or more long, that fewer than two issues
hold: the nearest is a word of the titles of two issues or more, one edit away (two for a word of nine letters or
more; two letters swapped are one edit), the commoner of two as near. About a tenth of a second at 100,000 issues; a
search that finds anything pays nothing.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter

MIN_LENGTH = 5
"""Shorter words are too often a real word of their own one edit from another (`cache`, `catch`)."""
TITLES_READ = 20_000
"""The newest issues whose titles hold the words a typo is read as: a tenth of a second at most."""


def respelled(conn: sqlite3.Connection, words: list[str]) -> dict[str, str]:
    """Each word no issue holds → the nearest word the titles hold (the commoner of two as near); words with no near
    word are left out."""
    from rapidfuzz.distance import OSA  # only a search that found nothing pays for the library

    typed = [
        word
        for word in dict.fromkeys(word.lower() for word in words)
        if len(word) >= MIN_LENGTH and re.fullmatch(r"[a-z]+", word) and not held(conn, word)
    ]
    titled = _title_words(conn) if typed else Counter[str]()
    found: dict[str, str] = {}
    for word in typed:
        allowed = 2 if len(word) >= 9 else 1
        near = [
            (distance, -count, held)
            for held, count in titled.items()
            if count >= 2
            and abs(len(held) - len(word)) <= allowed
            and (distance := OSA.distance(word, held, score_cutoff=allowed)) <= allowed
        ]
        if near:
            found[word] = min(near)[2]
    return found


def held(conn: sqlite3.Connection, word: str) -> bool:
    """Whether two issues or more hold the word: one alone may hold the same typo."""
    query = "SELECT count(*) FROM (SELECT 1 FROM issues_fts WHERE issues_fts MATCH ? LIMIT 2)"
    return int(conn.execute(query, (f'"{word}"',)).fetchone()[0]) >= 2


def _title_words(conn: sqlite3.Connection) -> Counter[str]:
    """How many of the newest `TITLES_READ` titles hold each word: a title names what an issue is about, and reading
    no more bounds the cost."""
    rows = conn.execute("SELECT title FROM issues ORDER BY created_at DESC LIMIT ?", (TITLES_READ,))
    return Counter(word for (title,) in rows for word in set(re.findall(r"[a-z]+", str(title).lower())))


def respelled_query(conn: sqlite3.Connection, query: str) -> tuple[str, str] | None:
    """The query with each word no issue holds respelled, and the sentence that says so; None when none is."""
    spelled = respelled(conn, re.findall(r"\w+", query))
    if not spelled:
        return None
    words = [spelled.get(word.lower(), word) for word in query.split()]
    said = ", ".join(f"“{typed}” as “{meant}”" for typed, meant in spelled.items())
    return " ".join(words), f"No issue holds the words as typed; read {said}, the nearest words the issues hold."
