"""Build `orbit.db` from `issues.jsonl`: streamed, in one transaction, into a temp file renamed into place.

Issues are inserted in batches as they are read, so memory does not grow with the file. Each batch's
full-text rows go in with it, and the index's segments are merged once, at the end. (A thread reading
the next batch does not pay: `executemany` takes the GIL back for every row, so the two threads mostly
wait on each other.) The secondary indexes are built once at the end, which is much faster than
maintaining them row by row. The temp file carries this process's id in its name: it is removed on
every way out (error, Ctrl-C, SIGTERM, SIGHUP), and one left by a killed build is removed by the next
build in that folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import IO, Any

from atlas.dataset.records import RecordStream
from atlas.foundation import statefiles
from atlas.foundation.errors import DataError
from atlas.foundation.processes import pid_alive

SCHEMA_VERSION = 3
BATCH = 2000
STALE_UNNAMED_S = 600.0
"""A temp file from before builds named their process is taken as abandoned after this long."""

Progress = Callable[[int, int, str], None]
"""Called with (bytes read, bytes in all, what is happening now) while a build runs."""

# The full-text index's tokenizer, chosen on purpose: `porter` folds inflections onto one stem (expired,
# expires, expiring and expiration are all "expir"), `unicode61 remove_diacritics 2` folds case and
# accents. Derived forms that stem apart (porter makes a final y an i: expiry is "expiri") are joined at
# query time, where such a word also matches as a prefix (see `match_terms` in orbit/fts_match.py).
# Trigrams were weighed and rejected: about three times the index, and still no stemming. The index
# keeps no copy of the text (external content, read through the `issue_text` view for snippets): half the db.
TABLES = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE issues (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    author TEXT,
    created_at TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE issue_labels (
    issue_id INTEGER NOT NULL REFERENCES issues(id),
    label_id INTEGER NOT NULL REFERENCES labels(id),
    PRIMARY KEY (issue_id, label_id)
) WITHOUT ROWID;
CREATE TABLE comments (
    id INTEGER PRIMARY KEY,
    issue_id INTEGER NOT NULL REFERENCES issues(id),
    position INTEGER NOT NULL,
    author TEXT,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE VIEW issue_text AS SELECT i.id AS id, i.title AS title, i.body AS body,
    coalesce((SELECT group_concat(c.body, char(10, 10))
              FROM (SELECT body FROM comments WHERE issue_id = i.id ORDER BY position) AS c), '') AS comments
    FROM issues AS i;
CREATE VIRTUAL TABLE issues_fts USING fts5(
    title, body, comments, content = 'issue_text', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO issues_fts (issues_fts, rank) VALUES ('automerge', 0);
"""
COMMENTS_JOINED = "\n\n"
"""How `issue_text` joins an issue's comments (group_concat's separator): a build inserts the
full-text rows as that view reads them."""
INDEXES = """
CREATE INDEX comments_by_issue ON comments(issue_id, position);
CREATE INDEX issue_labels_by_label ON issue_labels(label_id);
CREATE INDEX issues_by_created ON issues(created_at);
CREATE INDEX issues_by_author ON issues(author COLLATE NOCASE);
INSERT INTO issues_fts (issues_fts, rank) VALUES ('automerge', 4);
"""


def temp_prefix(target: Path) -> str:
    return f".{target.stem}-build-"


def remove_stale_temps(target: Path) -> None:
    """Remove temp files of builds that died (their process is gone) in `target`'s folder."""
    for path in target.parent.glob(f".{target.stem}-*.db*"):
        pid = _pid_of(path.name, temp_prefix(target))
        if pid is None:
            # Named by an older Atlas (no process id): abandoned once it has not changed for a while.
            with contextlib.suppress(OSError):
                if time.time() - path.stat().st_mtime > STALE_UNNAMED_S:
                    path.unlink()
        elif pid != os.getpid() and not pid_alive(pid):
            with contextlib.suppress(OSError):
                path.unlink()


def _pid_of(name: str, prefix: str) -> int | None:
    if not name.startswith(prefix):
        return None
    head = name[len(prefix) :].split("-", 1)[0]
    return int(head) if head.isdigit() else None


def build_db(jsonl: Path, target: Path, progress: Progress | None = None) -> Path:
    """Build a db from the JSONL into `target`, atomically (readers never see half a db)."""
    try:
        source = statefiles.open_regular(jsonl, limit=statefiles.ISSUES_FILE_LIMIT, what="an issues file")
        stat = os.fstat(source.fileno())
    except FileNotFoundError:
        raise DataError(f"no issues file at {jsonl}") from None
    except statefiles.RefusedFile as exc:
        raise DataError(str(exc)) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(target)
    named = f"{temp_prefix(target)}{os.getpid()}-{secrets.token_hex(4)}.db"  # found again if this process dies
    signals = _Signals()
    try:
        with source, signals.unwind(), statefiles.replacing_at(target, name=named) as tmp:
            _build_into(tmp, jsonl, source, stat, progress or _silent)
            # A shared data folder's db must stay readable by all.
            tmp.chmod(0o644)
    except statefiles.RefusedFile as exc:
        raise DataError(str(exc)) from None  # a link or a folder where the db goes
    except BaseException:
        signals.reraise()
        raise
    return target


def _silent(done: int, total: int, stage: str) -> None:
    pass


def _build_into(tmp: Path, jsonl: Path, source: IO[bytes], stat: os.stat_result, progress: Progress) -> None:
    """Tables, every issue, the indexes and the freshness stamp, all in one transaction."""
    stream = RecordStream(source)
    conn = _open_for_build(tmp)
    try:
        conn.execute("BEGIN")
        _run_script(conn, TABLES)
        labels: dict[str, int] = {}
        count = 0
        for batch in _batches(iter(stream)):
            _insert_batch(conn, batch, labels)
            count += len(batch)
            progress(stream.bytes_read, stat.st_size, "reading issues")
        if count == 0:
            # An empty tracker would answer "no such issue" to every question: name the file instead.
            raise DataError(f"{jsonl} holds no issues")
        progress(stat.st_size, stat.st_size, "indexing")
        _finish(conn, stat, stream.sha256.hexdigest(), count)
        conn.execute("COMMIT")
    finally:
        conn.close()


def _open_for_build(tmp: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(tmp, isolation_level=None)
    # No journal and no fsync while building: a crash leaves only a temp file, never a db in use.
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA cache_size = -32000")
    # A Python callback now and then lets a signal's handler run inside a long statement (the
    # full-text index takes seconds): Ctrl-C or SIGTERM then stops the build at once.
    conn.set_progress_handler(_let_signals_in, 20_000)
    return conn


def _let_signals_in() -> int:
    return 0


def _batches(records: Iterator[tuple[int, dict[str, Any]]]) -> Iterator[list[tuple[int, dict[str, Any]]]]:
    batch: list[tuple[int, dict[str, Any]]] = []
    for record in records:
        batch.append(record)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _insert_batch(conn: sqlite3.Connection, batch: list[tuple[int, dict[str, Any]]], labels: dict[str, int]) -> None:
    _refuse_duplicates(conn, batch)
    conn.executemany(
        "INSERT INTO issues VALUES (?, ?, ?, ?, ?, ?)",
        [(i["id"], i["title"], i["state"], i["author"], i["created_at"], i["body"]) for _, i in batch],
    )
    pairs: set[tuple[int, int]] = set()
    for _, issue in batch:
        for label in issue["labels"]:
            if label not in labels:
                labels[label] = len(labels) + 1
                conn.execute("INSERT INTO labels VALUES (?, ?)", (labels[label], label))
            pairs.add((issue["id"], labels[label]))
    conn.executemany("INSERT INTO issue_labels VALUES (?, ?)", sorted(pairs))
    conn.executemany(
        "INSERT INTO comments (issue_id, position, author, body, created_at) VALUES (?, ?, ?, ?, ?)",
        [
            (issue["id"], position, c["author"], c["body"], c["created_at"])
            for _, issue in batch
            for position, c in enumerate(issue["comments"])
        ],
    )
    conn.executemany(
        "INSERT INTO issues_fts (rowid, title, body, comments) VALUES (?, ?, ?, ?)",
        [(i["id"], i["title"], i["body"], COMMENTS_JOINED.join(c["body"] for c in i["comments"])) for _, i in batch],
    )


def _refuse_duplicates(conn: sqlite3.Connection, batch: list[tuple[int, dict[str, Any]]]) -> None:
    """A DataError naming the line of the first id seen before (in this batch or an earlier one)."""
    ids = [issue["id"] for _, issue in batch]
    found = conn.execute("SELECT id FROM issues WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))
    earlier = {row[0] for row in found}
    for line_no, issue in batch:
        if issue["id"] in earlier:
            raise DataError(f"issues.jsonl line {line_no}: issue #{issue['id']} appears twice")
        earlier.add(issue["id"])


def _finish(conn: sqlite3.Connection, stat: os.stat_result, sha256: str, count: int) -> None:
    """The indexes and the freshness stamp (size, mtime, hash of the JSONL)."""
    _run_script(conn, INDEXES)
    conn.executemany(
        "INSERT INTO meta VALUES (?, ?)",
        [
            ("jsonl_sha256", sha256),
            ("jsonl_size", str(stat.st_size)),
            ("jsonl_mtime_ns", str(stat.st_mtime_ns)),
            ("issue_count", str(count)),
        ],
    )
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    # Statement by statement: `executescript` would commit the open transaction first.
    for statement in script.split(";\n"):
        if statement.strip():
            conn.execute(statement)


class _Signals:
    """While building in the main thread, SIGINT, SIGTERM and SIGHUP unwind (so the temp file goes).

    A handler that runs inside SQLite's progress callback has its exception replaced by SQLite's
    "interrupted" error; `reraise` restores what the signal meant, so the caller never takes an
    interrupted build for a failed one (and starts another in the state folder).
    """

    def __init__(self) -> None:
        self.signum: int | None = None

    @contextlib.contextmanager
    def unwind(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        wanted = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        previous = {sig: signal.getsignal(sig) for sig in wanted}
        for sig in wanted:
            if sig == signal.SIGINT and previous[sig] is not signal.default_int_handler:
                continue  # Ctrl-C is someone else's to handle (ignored, or a custom handler)
            signal.signal(sig, self._caught)
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler if handler is not None else signal.SIG_DFL)

    def _caught(self, signum: int, frame: FrameType | None) -> None:
        self.signum = signum
        self.reraise()

    def reraise(self) -> None:
        if self.signum == signal.SIGINT:
            raise KeyboardInterrupt
        if self.signum is not None:
            raise SystemExit(128 + self.signum)


SignalUnwind = _Signals
"""For other writers that build in temporary places: SIGINT, SIGTERM and SIGHUP unwind through `finally`."""
