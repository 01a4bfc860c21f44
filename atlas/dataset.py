"""The Orbit dataset on disk: build `orbit.db` from `issues.jsonl`, and find a fresh db to read.

`python -m atlas.dataset [DATA_DIR]` rebuilds the committed db. At run time `ensure_db()` uses
the db beside the JSONL when it was built from exactly that JSONL (its SHA-256 is stored in the
db), and otherwise builds one: in the data folder, or in the state folder when that is read-only.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from atlas.errors import DataError, is_busy

SCHEMA_VERSION = 1
BUSY_WAIT_S = 0.25
"""How long a freshness check waits for a db that another process holds locked."""
STATES = ("open", "closed")
LABEL_PREFIXES = ("comp:", "type:", "severity:")

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE issues (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    author TEXT NOT NULL,
    created_at TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE issue_labels (
    issue_id INTEGER NOT NULL REFERENCES issues(id),
    label_id INTEGER NOT NULL REFERENCES labels(id),
    PRIMARY KEY (issue_id, label_id)
);
CREATE TABLE comments (
    id INTEGER PRIMARY KEY,
    issue_id INTEGER NOT NULL REFERENCES issues(id),
    position INTEGER NOT NULL,
    author TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX comments_by_issue ON comments(issue_id, position);
CREATE INDEX issue_labels_by_label ON issue_labels(label_id);
CREATE VIRTUAL TABLE issues_fts USING fts5(title, body, comments, tokenize = 'porter unicode61');
"""

ISSUE_FIELDS = ("id", "title", "state", "labels", "author", "created_at", "body", "comments")
COMMENT_FIELDS = ("author", "body", "created_at")


def jsonl_path(data: Path) -> Path:
    return data / "issues" / "issues.jsonl"


def db_path(data: Path) -> Path:
    return data / "issues" / "orbit.db"


def require_dataset(data: Path) -> None:
    """Refuse to start without a readable dataset: one error naming it, not a failure per tool call."""
    named = "ORBIT_DATA" if os.environ.get("ORBIT_DATA", "").strip() else "the bundled dataset (ORBIT_DATA unset)"
    if not data.is_dir():
        raise DataError(f"the Orbit dataset folder {data} does not exist ({named}); set ORBIT_DATA to a dataset folder")
    sources = [path for path in (db_path(data), jsonl_path(data)) if path.is_file()]
    if not sources:
        raise DataError(
            f"the Orbit dataset folder {data} has neither issues/orbit.db nor issues/issues.jsonl ({named})"
        )
    if not any(os.access(path, os.R_OK) for path in sources):
        raise DataError(f"the Orbit dataset in {data} cannot be read: permission denied ({named})")


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _check_issue(issue: Any, line_no: int) -> dict[str, Any]:
    where = f"issues.jsonl line {line_no}"
    if not isinstance(issue, dict) or tuple(sorted(issue)) != tuple(sorted(ISSUE_FIELDS)):
        raise DataError(f"{where}: an issue must have exactly the fields {', '.join(ISSUE_FIELDS)}")
    if type(issue["id"]) is not int or issue["state"] not in STATES:
        raise DataError(f"{where}: bad id or state")
    if not all(isinstance(issue[name], str) for name in ("title", "author", "created_at", "body")):
        raise DataError(f"{where}: title, author, created_at and body must be text")
    if not isinstance(issue["labels"], list) or not all(isinstance(label, str) for label in issue["labels"]):
        raise DataError(f"{where}: labels must be a list of strings")
    if not isinstance(issue["comments"], list):
        raise DataError(f"{where}: comments must be a list")
    for comment in issue["comments"]:
        if not isinstance(comment, dict) or tuple(sorted(comment)) != tuple(sorted(COMMENT_FIELDS)):
            raise DataError(f"{where}: a comment must have exactly the fields {', '.join(COMMENT_FIELDS)}")
        if not all(isinstance(comment[name], str) for name in COMMENT_FIELDS):
            raise DataError(f"{where}: a comment's {', '.join(COMMENT_FIELDS)} must be text")
    return issue


def read_issues(path: Path) -> list[dict[str, Any]]:
    """Every issue of a JSONL file, checked against the field contract."""
    try:
        # Only "\n" ends a record: splitlines() would also split inside strings at U+2028 or \x85.
        lines = path.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise DataError(f"no issues file at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read {path}: {exc}") from None
    issues = []
    seen: set[int] = set()
    for line_no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            issue = _check_issue(json.loads(line), line_no)
        except json.JSONDecodeError as exc:
            raise DataError(f"issues.jsonl line {line_no} is not JSON: {exc.msg}") from None
        except RecursionError:
            raise DataError(f"issues.jsonl line {line_no} is nested too deeply to read") from None
        if issue["id"] in seen:
            raise DataError(f"issues.jsonl line {line_no}: issue #{issue['id']} appears twice")
        seen.add(issue["id"])
        issues.append(issue)
    return issues


def build_db(jsonl: Path, target: Path) -> Path:
    """Build a db from the JSONL into `target`, atomically (readers never see half a db)."""
    issues = read_issues(jsonl)
    if not issues:
        # An empty tracker would answer "no such issue" to every question: name the file instead.
        raise DataError(f"{jsonl} holds no issues")
    digest = file_sha256(jsonl)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=".orbit-", suffix=".db", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        conn = sqlite3.connect(tmp)
        try:
            conn.executescript(SCHEMA)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [("jsonl_sha256", digest), ("issue_count", str(len(issues)))],
            )
            label_ids: dict[str, int] = {}
            for issue in issues:
                conn.execute(
                    "INSERT INTO issues VALUES (?, ?, ?, ?, ?, ?)",
                    (issue["id"], issue["title"], issue["state"], issue["author"], issue["created_at"], issue["body"]),
                )
                for label in issue["labels"]:
                    if label not in label_ids:
                        label_ids[label] = len(label_ids) + 1
                        conn.execute("INSERT INTO labels VALUES (?, ?)", (label_ids[label], label))
                    conn.execute("INSERT INTO issue_labels VALUES (?, ?)", (issue["id"], label_ids[label]))
                for position, comment in enumerate(issue["comments"]):
                    conn.execute(
                        "INSERT INTO comments (issue_id, position, author, body, created_at) VALUES (?, ?, ?, ?, ?)",
                        (issue["id"], position, comment["author"], comment["body"], comment["created_at"]),
                    )
                conn.execute(
                    "INSERT INTO issues_fts (rowid, title, body, comments) VALUES (?, ?, ?, ?)",
                    (issue["id"], issue["title"], issue["body"], "\n\n".join(c["body"] for c in issue["comments"])),
                )
            conn.commit()
            conn.execute("VACUUM")
        finally:
            conn.close()
        # mkstemp makes the file private (0600); a shared data folder's db must stay readable by all.
        tmp.chmod(0o644)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def stored_digest(db: Path) -> str | None:
    """The SHA-256 of the JSONL a db was built from, or None when it is missing or unreadable."""
    if not db.is_file():
        return None
    try:
        return _read_digest(db)
    except sqlite3.Error:
        return None


def _read_digest(db: Path) -> str | None:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=BUSY_WAIT_S)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'jsonl_sha256'").fetchone()
    finally:
        conn.close()
    return str(row[0]) if row else None


def freshness(db: Path, digest: str) -> bool | None:
    """Whether the db was built from this JSONL; None when another process holds it locked."""
    if not db.is_file():
        return False
    try:
        return _read_digest(db) == digest
    except sqlite3.Error as exc:
        return None if is_busy(exc) else False


def ensure_db(data: Path, home: Path) -> Path:
    """A db built from the data folder's current JSONL, building one only when needed."""
    jsonl, db = jsonl_path(data), db_path(data)
    if not jsonl.is_file():
        if db.is_file():
            return db  # a db shipped alone is taken as it is
        raise DataError(f"no Orbit dataset at {data} (expected issues/issues.jsonl or issues/orbit.db)")
    try:
        digest = file_sha256(jsonl)
    except OSError as exc:
        raise DataError(f"cannot read {jsonl}: {exc}") from None
    fresh = freshness(db, digest)
    if fresh:
        return db
    cached = home / f"orbit-{digest[:16]}.db"
    if freshness(cached, digest):
        return cached
    # A db another process holds locked is not replaced under it: the state folder gets the build.
    if fresh is False and os.access(db.parent, os.W_OK) and (not db.exists() or os.access(db, os.W_OK)):
        try:
            return build_db(jsonl, db)
        except (OSError, sqlite3.Error):
            pass  # fall back to the state folder (a read-only or full data folder)
    try:
        return build_db(jsonl, cached)
    except (OSError, sqlite3.Error) as exc:
        raise DataError(f"cannot build the issues db from {jsonl}: {exc}") from None


def main(argv: list[str]) -> int:
    from atlas.config import bundled_data_dir

    data = Path(argv[0]) if argv else bundled_data_dir()
    target = build_db(jsonl_path(data), db_path(data))
    print(f"built {target} from {jsonl_path(data)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
