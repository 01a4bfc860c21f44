"""The order of `search_issues`'s hits: best match (the default with words), newest or oldest opened, most or
least recently active, most commented.

An order other than relevance picks the hits in SQL, then makes snippets for those alone; relevance ranks the newest
hits (`ranked_hits`).
"""

from __future__ import annotations

import sqlite3
from typing import Any, Literal

from atlas.orbit.search_filters import LAST_ACTIVITY

Order = Literal["relevance", "newest", "oldest", "recently_updated", "least_recently_updated", "most_commented"]

_COMMENT_COUNT = "(SELECT count(*) FROM comments c WHERE c.issue_id = i.id)"
SORT_KEYS: dict[str, str] = {
    "newest": "i.created_at DESC, i.id DESC",
    "oldest": "i.created_at ASC, i.id ASC",
    "recently_updated": f"{LAST_ACTIVITY} DESC, i.id DESC",
    "least_recently_updated": f"{LAST_ACTIVITY} ASC, i.id ASC",
    "most_commented": f"{_COMMENT_COUNT} DESC, i.created_at DESC",
}
"""Each order as SQL over `issues i`; ties fall to the issue number, so a page is always the same."""
SAID: dict[str, str] = {
    "newest": "the newest first",
    "oldest": "the oldest first",
    "recently_updated": "the most recently active first",
    "least_recently_updated": "the longest inactive first",
    "most_commented": "the most commented first",
}
"""How each order is told to the reader of the hits."""
_FIELDS = "i.id, i.title, i.state, i.author, i.created_at"


def sorted_hits(
    conn: sqlite3.Connection, match: str | None, where: str, params: list[Any], order: str, limit: int
) -> list[sqlite3.Row]:
    """The first `limit` issues matching the words (as `match` joins them; None: any) and the filters, in `order`."""
    key = SORT_KEYS[order]
    if match is None:
        return conn.execute(
            f"SELECT {_FIELDS}, {LAST_ACTIVITY} AS active, substr(i.body, 1, 200) AS snippet"
            f" FROM issues i WHERE 1 = 1{where} ORDER BY {key} LIMIT ?",
            [*params, limit],
        ).fetchall()
    return conn.execute(
        "WITH best AS (SELECT i.id AS id FROM issues_fts JOIN issues i ON i.id = issues_fts.rowid"
        f" WHERE issues_fts MATCH ?{where} ORDER BY {key} LIMIT ?)"
        f" SELECT {_FIELDS}, {LAST_ACTIVITY} AS active, snippet(issues_fts, -1, '**', '**', '…', 16) AS snippet"
        " FROM best JOIN issues_fts ON issues_fts.rowid = best.id JOIN issues i ON i.id = best.id"
        f" WHERE issues_fts MATCH ? ORDER BY {key}",
        [match, *params, limit, match],
    ).fetchall()


def order_hint(order: str, *, words: bool, comments_known: bool) -> str:
    """What the reader of the hits is told of their order; empty when it is the usual one."""
    if order == "most_commented" and not comments_known:
        return (
            "This project's data came from an export that carried no comments: how many each issue has is unknown,"
            " so these are the newest, not the most commented."
        )
    if order == "relevance" or (order == "newest" and not words):
        return ""
    return f"Sorted {SAID[order]}" + (", among the issues matching every word." if words else ".")


RANK_WINDOW = 2000
"""At most this many hits, the newest, are ranked by relevance (`ranked_hits`)."""
_WINDOW_REACHED = (
    "More than {window:,} issues matched; these are the best matches among the newest {window:,}."
    " Add words or a state/label filter to narrow the search."
)


def ranked_hits(
    conn: sqlite3.Connection, match: str, where: str, params: list[Any], limit: int
) -> tuple[list[sqlite3.Row], str]:
    """One ranked query: the best `limit` of the newest RANK_WINDOW hits, fields and snippets for those alone, and
    the hint that says when the window was reached.

    Title hits weigh most, then the body, then the comments. bm25 costs a few µs a hit, so a word
    in most of 100,000 issues would take a second to rank in full; the window bounds that, and the
    `considered` column tells the caller when it was reached. Snippets are made in the outer
    query: SQLite computes a row's columns before it sorts, so there it would make one per hit.
    """
    rows = conn.execute(
        "WITH hits AS ("
        " SELECT issues_fts.rowid AS id, bm25(issues_fts, 10.0, 4.0, 1.0) AS score"
        f" FROM issues_fts JOIN issues i ON i.id = issues_fts.rowid WHERE issues_fts MATCH ?{where}"
        " ORDER BY issues_fts.rowid DESC LIMIT ?),"
        " best AS (SELECT id, score FROM hits ORDER BY score LIMIT ?)"
        " SELECT i.id, i.title, i.state, i.author, i.created_at,"
        " snippet(issues_fts, -1, '**', '**', '…', 16) AS snippet,"
        " (SELECT count(*) FROM hits) AS considered"
        " FROM best JOIN issues_fts ON issues_fts.rowid = best.id JOIN issues i ON i.id = best.id"
        " WHERE issues_fts MATCH ? ORDER BY best.score",
        [match, *params, RANK_WINDOW, limit, match],
    ).fetchall()
    reached = bool(rows) and rows[0]["considered"] >= RANK_WINDOW
    return rows, _WINDOW_REACHED.format(window=RANK_WINDOW) if reached else ""
