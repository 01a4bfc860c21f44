"""The issues JSONL read as a stream: each record checked against the field contract, line by line.

Memory does not grow with the file: a record is decoded, checked and handed on, and the bytes
read so far feed the SHA-256 that the built db stores as part of its freshness stamp.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from atlas.foundation import statefiles
from atlas.foundation.errors import DataError

STATES = ("open", "closed")
LABEL_PREFIXES = ("comp:", "type:", "severity:")
ISSUE_FIELDS = ("id", "title", "state", "labels", "author", "created_at", "body", "comments")
COMMENT_FIELDS = ("author", "body", "created_at")
_ISSUE_KEYS = frozenset(ISSUE_FIELDS)
_COMMENT_KEYS = frozenset(COMMENT_FIELDS)
MAX_SQLITE_INT = 2**63 - 1
"""SQLite stores integers in 64 signed bits: a larger id cannot be a row's key."""


def check_issue(issue: Any, line_no: int) -> dict[str, Any]:
    """One decoded record, checked; a DataError naming its line when it breaks the contract."""
    # Written for speed (every record of a 100,000-issue file passes here): direct checks, no
    # generator per record, the message built only when one is raised.
    if type(issue) is not dict or issue.keys() != _ISSUE_KEYS:
        raise _broken(line_no, f"an issue must have exactly the fields {', '.join(ISSUE_FIELDS)}")
    issue_id = issue["id"]
    if type(issue_id) is not int or issue["state"] not in STATES:
        raise _broken(line_no, "bad id or state")
    if not 1 <= issue_id <= MAX_SQLITE_INT:
        digits = str(issue_id)
        shown = digits if len(digits) <= 24 else f"{digits[:12]}… ({len(digits)} digits)"
        raise _broken(line_no, f"the id {shown} is not a whole number from 1 to {MAX_SQLITE_INT}")
    if not (
        isinstance(issue["title"], str) and isinstance(issue["created_at"], str) and isinstance(issue["body"], str)
    ):
        raise _broken(line_no, "title, created_at and body must be text")
    if not isinstance(issue["author"], str | None):
        raise _broken(line_no, "the author must be text, or null when unknown")
    labels = issue["labels"]
    if not isinstance(labels, list) or not _TEXT_ONLY.issuperset(map(type, labels)):
        raise _broken(line_no, "labels must be a list of strings")
    comments = issue["comments"]
    if not isinstance(comments, list):
        raise _broken(line_no, "comments must be a list")
    for comment in comments:
        if type(comment) is not dict or comment.keys() != _COMMENT_KEYS:
            raise _broken(line_no, f"a comment must have exactly the fields {', '.join(COMMENT_FIELDS)}")
        if not (type(comment["body"]) is type(comment["created_at"]) is str) or not isinstance(
            comment["author"], str | None
        ):
            raise _broken(line_no, "a comment's body and created_at must be text, its author text or null")
    return issue


_TEXT_ONLY = frozenset({str})


def _broken(line_no: int, what: str) -> DataError:
    return DataError(f"issues.jsonl line {line_no}: {what}")


@dataclass
class RecordStream:
    """Reads checked issues from an open binary JSONL file; `sha256` and `bytes_read` follow along."""

    source: IO[bytes]
    sha256: Any = field(default_factory=hashlib.sha256)
    bytes_read: int = 0

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line number, issue) for every non-blank line."""
        # Iterating a binary file splits only at b"\n": a U+2028 or \x85 inside a string stays put.
        for line_no, raw in enumerate(self.source, 1):
            self.sha256.update(raw)
            self.bytes_read += len(raw)
            if not raw.strip():
                continue
            yield line_no, check_issue(_decode(raw, line_no), line_no)


def _decode(raw: bytes, line_no: int) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise DataError(f"issues.jsonl line {line_no} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"issues.jsonl line {line_no} is not JSON: {exc.msg}") from None
    except ValueError:  # an integer of more than 4,300 digits: Python refuses to convert it
        raise DataError(f"issues.jsonl line {line_no} holds a number too long to read") from None
    except RecursionError:
        raise DataError(f"issues.jsonl line {line_no} is nested too deeply to read") from None


def read_issues(path: Path) -> list[dict[str, Any]]:
    """Every issue of a JSONL file, checked (all in memory: for tests and small files)."""
    issues, seen = [], set[int]()
    try:
        with statefiles.open_regular(path, limit=statefiles.ISSUES_FILE_LIMIT, what="an issues file") as source:
            for line_no, issue in RecordStream(source):
                if issue["id"] in seen:
                    raise DataError(f"issues.jsonl line {line_no}: issue #{issue['id']} appears twice")
                seen.add(issue["id"])
                issues.append(issue)
    except FileNotFoundError:
        raise DataError(f"no issues file at {path}") from None
    except statefiles.RefusedFile as exc:
        raise DataError(str(exc)) from None
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc}") from None
    return issues


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in chunks (memory stays flat however large it is)."""
    digest = hashlib.sha256()
    with statefiles.open_regular(path, limit=statefiles.ISSUES_FILE_LIMIT, what="an issues file") as source:
        while chunk := source.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
