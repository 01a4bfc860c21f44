"""The user's search words as an FTS5 match: quoted, so nothing typed acts as FTS5 syntax; inflections and a
final y folded; two words the issues also write as one (`permission error`, `PermissionError`) matched either way.

An identifier joins words (`PermissionError`, `WebDataset`) that a person types apart, and the index keeps it as one
word. Each two neighbouring words of letters that two issues or more hold joined are matched either way:
`(("permission" AND "error") OR "permissionerror")`. One index lookup per pair of words; one word pays nothing.
"""

from __future__ import annotations

import re
import sqlite3

from atlas.orbit.spelling import held

SEARCH_WORDS_MAX = 24
FTS_OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})
_WORD = re.compile(r"\w+")
MIN_PART = 3
"""Shorter words join too easily into an unrelated word (`a` + `sync` → `async`)."""


def all_words_match(conn: sqlite3.Connection, terms: list[str]) -> str:
    """The FTS5 match for issues holding every term (quoted, as `search_terms` gives them), a pair of neighbouring
    words also as the one word the issues hold."""
    matched: list[str] = []
    at = 0
    while at < len(terms):
        pair = [term.strip('"') for term in terms[at : at + 2]]
        if len(pair) == 2 and all(re.fullmatch(rf"[^\W\d_]{{{MIN_PART},}}", word) for word in pair):
            joined = "".join(pair).lower()
            if held(conn, joined):
                first, second = match_terms(terms[at : at + 2])
                matched.append(f'(({first} AND {second}) OR "{joined}")')
                at += 2
                continue
        matched += match_terms([terms[at]])
        at += 1
    return " AND ".join(matched)


def search_terms(text: str) -> list[str]:
    """The user's words as quoted FTS5 strings: nothing they type can act as FTS5 syntax.

    A chunk like `ORB-1101` or `comp:core` becomes the phrase "ORB 1101", which is how the
    tokenizer indexed it; bare AND/OR/NOT/NEAR are dropped, as the user meant them as operators.
    """
    terms: list[str] = []
    for chunk in text.split():
        words = [w for w in _WORD.findall(chunk) if w not in FTS_OPERATORS]
        term = '"' + " ".join(words) + '"'
        if words and term not in terms:
            terms.append(term)
    return terms[:SEARCH_WORDS_MAX]


def match_terms(terms: list[str]) -> list[str]:
    """Each quoted term as FTS5 matches it: a word ending in a consonant and "y" also as a prefix without it.

    The index stems with porter, which folds inflections (expired, expires, expiring → "expir") but
    turns a final y into i, so "expiry" ("expiri") would miss "expired": `("expiry" OR "expir"*)`
    finds both. Only such words get a prefix, so the others cost no more than a plain lookup.
    """
    matched = []
    for term in terms:
        word = term.strip('"')
        if len(word) >= 5 and word.isalpha() and word[-1] in "yY" and word[-2] not in "aeiouAEIOU":
            matched.append(f'({term} OR "{word[:-1]}"*)')
        else:
            matched.append(term)
    return matched
