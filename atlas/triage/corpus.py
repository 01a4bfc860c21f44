"""The issues as triage reads them: text, state, labels now (the dataset's plus what Atlas changed), thread facts.

Read row by row from the read-only db, so memory holds what a caller keeps, not the whole backlog.
Labels removed through Atlas (the tracker journal) are remembered per issue: a person took them off,
and a proposal never puts one back.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter
from pathlib import Path

from atlas.dataset.ensure import stored_digest
from atlas.dataset.read import comments_known, connect, db_for
from atlas.dataset.source import dataset_identity
from atlas.foundation.errors import ToolError
from atlas.github.folder import read_state
from atlas.orbit.db import labels_of
from atlas.tracker.journal import LabelChanges, MockTracker

TEXT_LIMIT = 4000
"""Characters of a body a model reads: the start says what the issue is; a pasted log adds little."""


@dataclass(frozen=True)
class Issue:
    id: int
    title: str
    body: str
    state: str
    author: str
    created_at: str
    labels: tuple[str, ...]
    removed: tuple[str, ...] = ()
    """Labels a person removed through Atlas: never proposed again for this issue."""

    @property
    def text(self) -> str:
        """What a model reads: the title counts twice, as a person reads it first."""
        return f"{self.title}\n{self.title}\n{self.body[:TEXT_LIMIT]}"


@dataclass(frozen=True)
class Thread:
    """Who said what when, for the inbox and the fingerprint of an issue."""

    authors: tuple[str, ...] = ()
    times: tuple[str, ...] = ()
    last_body: str = ""


@dataclass
class Corpus:
    """One dataset as triage sees it, with Atlas's own label changes applied."""

    data: Path
    home: Path
    changes: dict[int, LabelChanges] = field(default_factory=dict)

    @classmethod
    def open(cls, data: Path, home: Path) -> Corpus:
        try:
            changes = MockTracker(home, dataset_identity(data)).label_changes_by_issue()
        except ToolError:
            changes = {}
        return cls(data, home, changes)

    def identity(self) -> str:
        """Which project this is, whatever its issues say today: a synced repository, else its data folder.

        A plan made for another project is refused; one made before a sync is re-checked item by item."""
        try:
            repo = read_state(self.data).get("repo")
        except (OSError, ValueError, AttributeError):
            repo = None
        return f"github:{repo}" if isinstance(repo, str) and repo else f"folder:{self.data.resolve()}"

    def stamp(self) -> str:
        """The version of the data: the digest of its JSONL (a fitted model is kept per version)."""
        digest = stored_digest(db_for(self.data, self.home))
        return digest or hashlib.sha256(str(self.data.resolve()).encode()).hexdigest()

    def _issue(self, row: sqlite3.Row, labels: list[str]) -> Issue:
        change = self.changes.get(row["id"], LabelChanges())
        return Issue(
            id=row["id"],
            title=row["title"],
            body=row["body"],
            state=row["state"],
            author=row["author"],
            created_at=row["created_at"],
            labels=tuple(change.applied_to(labels)),
            removed=tuple(change.removed),
        )

    def get(self, issue_id: int) -> Issue | None:
        with connect(self.data, self.home) as conn:
            row = conn.execute(_SELECT + " WHERE id = ?", (issue_id,)).fetchone()
            if row is None:
                return None
            return self._issue(row, labels_of(conn, [issue_id])[issue_id])

    def many(self, ids: list[int]) -> dict[int, Issue]:
        found: dict[int, Issue] = {}
        with connect(self.data, self.home) as conn:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(_SELECT + f" WHERE id IN ({marks})", chunk).fetchall()
                labels = labels_of(conn, [row["id"] for row in rows])
                found.update({row["id"]: self._issue(row, labels[row["id"]]) for row in rows})
        return found

    def newest(self, limit: int, *, state: str | None = None, before: str | None = None) -> Iterator[Issue]:
        """Up to `limit` issues, newest first (filed before `before`, in `state`), read in pages."""
        where, params = _where(state, before)
        with connect(self.data, self.home) as conn:
            cursor = conn.execute(_SELECT + where + " ORDER BY created_at DESC, id DESC LIMIT ?", [*params, limit])
            while rows := cursor.fetchmany(500):
                labels = _labels_of_rows(conn, rows)
                yield from (self._issue(row, labels[row["id"]]) for row in rows)

    def threads(self, ids: list[int]) -> dict[int, Thread]:
        found: dict[int, Thread] = {issue_id: Thread() for issue_id in ids}
        with connect(self.data, self.home) as conn:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT issue_id, author, created_at, body FROM comments WHERE issue_id IN ({marks})"
                    " ORDER BY issue_id, position",
                    chunk,
                ).fetchall()
                for row in rows:
                    old = found[row["issue_id"]]
                    found[row["issue_id"]] = Thread(
                        (*old.authors, row["author"]), (*old.times, row["created_at"]), row["body"]
                    )
        return found

    def bodies(self, ids: list[int]) -> dict[int, list[str]]:
        """The comments' bodies of each issue, oldest first."""
        found: dict[int, list[str]] = {}
        with connect(self.data, self.home) as conn:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for issue_id, body in conn.execute(
                    f"SELECT issue_id, body FROM comments WHERE issue_id IN ({marks}) ORDER BY issue_id, position",
                    chunk,
                ):
                    found.setdefault(issue_id, []).append(body)
        return found

    def labels(self) -> list[str]:
        """Every label the project has (its dataset's labels table)."""
        with connect(self.data, self.home) as conn:
            return [str(name) for (name,) in conn.execute("SELECT name FROM labels ORDER BY name")]

    def label_sets(self) -> Iterator[tuple[str, ...]]:
        """Every issue's labels now, one tuple an issue (unlabelled issues yield an empty one)."""
        with connect(self.data, self.home) as conn:
            # One row a label, never names joined by a separator: a label may hold any character, a newline too.
            rows = conn.execute(
                "SELECT i.id, l.name FROM issues i LEFT JOIN issue_labels il ON il.issue_id = i.id"
                " LEFT JOIN labels l ON l.id = il.label_id ORDER BY i.id"
            )
            for issue_id, named in groupby(rows, key=itemgetter(0)):
                labels = [name for _, name in named if name is not None]
                change = self.changes.get(issue_id)
                yield tuple(change.applied_to(labels) if change else labels)

    def comments_known(self) -> bool:
        """Whether the data holds the threads (an export may carry none: then who answered is unknown)."""
        with connect(self.data, self.home) as conn:
            return comments_known(conn, self.data)

    def count(self) -> int:
        with connect(self.data, self.home) as conn:
            return int(conn.execute("SELECT count(*) FROM issues").fetchone()[0])

    def newest_activity(self) -> str:
        """The time of the newest issue or comment: "now" for a snapshot of a tracker."""
        with connect(self.data, self.home) as conn:
            issue = conn.execute("SELECT max(created_at) FROM issues").fetchone()[0] or ""
            comment = conn.execute("SELECT max(created_at) FROM comments").fetchone()[0] or ""
        return max(str(issue), str(comment))


_SELECT = "SELECT id, title, body, state, author, created_at FROM issues"


def _where(state: str | None, before: str | None) -> tuple[str, list[str]]:
    clauses, params = [], []
    if state is not None:
        clauses.append("state = ?")
        params.append(state)
    if before is not None:
        clauses.append("created_at < ?")
        params.append(before)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def _labels_of_rows(conn: sqlite3.Connection, rows: list[sqlite3.Row]) -> dict[int, list[str]]:
    return labels_of(conn, [row["id"] for row in rows])
