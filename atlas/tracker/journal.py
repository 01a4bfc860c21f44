"""The mock tracker: the only side effects Atlas has, recorded in `$ATLAS_HOME/tracker_actions.jsonl`.

Each action is one JSON line, written under a file lock by a single `os.write` on an O_APPEND
descriptor and fsync'd, so concurrent processes never interleave records. A line torn by a
crash is skipped (and counted) by readers, and the next append starts on a fresh line. The file
and its lock are opened through `atlas.statefiles`: a link planted in their place is refused.

Every record names its dataset (`dataset`: a synced or imported project's identity, `orbit` for
the bundled data; a record without it is the bundled dataset's), and a tracker sees only its own
dataset's records, so one project's labels never show on another's issue of the same number.
A GitHub comment's marker record (`comment_marker`) keeps the random key its comment carries.

`atlas.tracker.open_tracker` is the backend seam: with `ATLAS_TRACKER=github:OWNER/REPO` the tools write to
GitHub first (`atlas.tracker.github`), and this file keeps what GitHub confirmed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from atlas import statefiles
from atlas.dataset_source import BUNDLED, same_dataset
from atlas.errors import PermanentToolError, TransientToolError
from atlas.notices import warn
from atlas.sanitize import clean_line
from atlas.tracker.labels import dataset_labels, known_label

ACTIONS_FILE = "tracker_actions.jsonl"
ACTIONS = ("add_label", "remove_label", "post_comment")
"""What the records people see are; `comment_marker` records are the GitHub tracker's bookkeeping."""
LOCK_TIMEOUT_S = 5.0
_warned: set[tuple[Path, int]] = set()
_refusals_told: set[str] = set()


@dataclass(frozen=True)
class IssueBrief:
    """What a side effect needs to know about its target issue."""

    id: int
    title: str
    labels: list[str]


def forget_warnings() -> None:
    """Let the warnings said once per process be said again (for a process that runs many commands)."""
    _warned.clear()
    _refusals_told.clear()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: nested too deeply to read
        return None
    if not isinstance(record, dict) or not isinstance(record.get("issue_id"), int):
        return None
    if record.get("action") not in (*ACTIONS, "comment_marker"):
        return None
    return record


class MockTracker:
    """Append-only store of tracker actions under one state folder."""

    where = ""
    """Where actions go beyond this file, for previews: empty for the mock alone."""
    decided_by: str | None = None
    """Who approved the actions this tracker writes; kept in each record."""

    def __init__(self, home: Path, dataset: str = BUNDLED, *, data: Path | None = None, project: str = "") -> None:
        self.home = home
        self.dataset = dataset.casefold()
        """Whose records this tracker reads and writes."""
        self.data = data
        """The data folder whose labels writes are checked against (None: a tracker that only reads records)."""
        self.project = project or "this project"
        self.path = home / ACTIONS_FILE
        self.skipped = 0
        """How many torn or corrupt lines the last `records()` skipped."""
        self.lock_path = home / f"{ACTIONS_FILE}.lock"

    def canonical_label(self, label: str) -> str:
        """A label the dataset uses, as it spells it; any other is refused (GitHub would create it silently)."""
        if self.data is None:
            raise PermanentToolError("this tracker reads records only; it has no dataset to check labels against")
        return known_label(dataset_labels(self.data, self.home), label, self.project)

    def records(self) -> list[dict[str, Any]]:
        """Every whole record, oldest first; torn or corrupt lines are skipped and counted."""
        raw = self._read()
        if raw is None:
            self.skipped = 0
            return []
        lines = raw.split(b"\n")
        # The part after the last newline is a record still being written, or one a crash tore.
        tail = lines.pop()
        found: list[dict[str, Any]] = []
        skipped = 1 if tail.strip() else 0
        for line in lines:
            if not line.strip():
                continue
            record = _parse(line)
            if record is None:
                skipped += 1
            elif record["action"] in ACTIONS and same_dataset(record, self.dataset):
                found.append(record)
        self.skipped = skipped
        if skipped and (self.path, skipped) not in _warned:
            _warned.add((self.path, skipped))
            where = clean_line(self.path)
            warn(f"skipped {skipped} torn or corrupt line(s) in {where}")
        return found

    def added_labels(self, issue_id: int) -> list[str]:
        """Labels added through the tracker to one issue (and not removed since), in the order they were added."""
        return label_changes(self.records(), issue_id).added

    def removed_elsewhere(self, issue_id: int) -> set[str]:
        """Labels (casefolded) someone removed from the issue outside Atlas; the records alone know
        nothing of that (the GitHub tracker asks GitHub)."""
        return set()

    def labels_of(self, issue: IssueBrief) -> list[str]:
        """The issue's dataset labels, less those the tracker removed, followed by those it added."""
        return label_changes(self.records(), issue.id).applied_to(issue.labels)

    def additions(self, issue_id: int) -> tuple[LabelChanges, list[dict[str, Any]]]:
        """Label changes and comments posted (oldest first) through the tracker on one issue, from one read."""
        records = self.records()
        comments = [
            {"body": str(record.get("body", "")), "ts": record.get("ts"), "session": record.get("session")}
            for record in records
            if record["action"] == "post_comment" and record["issue_id"] == issue_id
        ]
        return label_changes(records, issue_id), comments

    def label_changes_by_issue(self) -> dict[int, LabelChanges]:
        """Every issue's label changes through the tracker, from one read (for lists of issues)."""
        records = self.records()
        return {issue_id: label_changes(records, issue_id) for issue_id in {r["issue_id"] for r in records}}

    def add_label(self, issue: IssueBrief, label: str, *, key: str, session: str) -> dict[str, Any]:
        """Add a label unless the issue has it already (in the dataset or through the tracker)."""
        with self._locked():
            current = self.labels_of(issue)
            changed = label not in current
            if changed:
                record = {"ts": now_iso(), "key": key, "action": "add_label", "issue_id": issue.id, "label": label}
                self._append({**record, "session": session})
                current = [*current, label]
        return {"issue_id": issue.id, "label": label, "changed": changed, "labels": current}

    def remove_label(self, issue: IssueBrief, label: str, *, key: str, session: str) -> dict[str, Any]:
        """Remove a label if the issue has it (in the dataset or through the tracker); else nothing changes."""
        with self._locked():
            current = self.labels_of(issue)
            changed = label in current
            if changed:
                record = {"ts": now_iso(), "key": key, "action": "remove_label", "issue_id": issue.id, "label": label}
                self._append({**record, "session": session})
                current = [x for x in current if x != label]
        return {"issue_id": issue.id, "label": label, "changed": changed, "labels": current}

    def post_comment(self, issue: IssueBrief, body: str, *, key: str, session: str) -> dict[str, Any]:
        """Post a comment once per idempotency key; a replay of the same call returns the stored result."""
        with self._locked():
            for record in self._records_with_key(key):
                if record["action"] == "post_comment" and record["issue_id"] == issue.id and record.get("body") == body:
                    return _comment_result(record)
                raise PermanentToolError(
                    "this call's idempotency key was already used for a different action; nothing was posted"
                )
            record = {"ts": now_iso(), "key": key, "action": "post_comment", "issue_id": issue.id, "body": body}
            self._append({**record, "session": session})
        return _comment_result(record)

    def _records_with_key(self, key: str) -> list[dict[str, Any]]:
        """Records written under one idempotency key; only lines that can hold it are parsed."""
        raw = self._read()
        if raw is None:
            return []
        needle = json.dumps(key, ensure_ascii=False).encode("utf-8")
        found = (_parse(line) for line in raw.split(b"\n") if needle in line)
        return [
            record
            for record in found
            if record is not None and record.get("key") == key and same_dataset(record, self.dataset)
        ]

    def _read(self) -> bytes | None:
        """The file's bytes, or None when there is none yet."""
        try:
            return statefiles.read_bytes(self.path)
        except statefiles.UnsafeStateFile as exc:
            raise refused(exc) from None
        except OSError as exc:
            raise PermanentToolError(f"cannot read {self.path}: {exc}") from None

    def _locked(self) -> contextlib.AbstractContextManager[None]:
        """The journal's lock: held for a read-then-append, never across a network call."""
        return self._lock(self.lock_path)

    def issue_lock(self, issue_id: int) -> contextlib.AbstractContextManager[None]:
        """One issue's lock, across processes: a check on GitHub and the write it decides are one step."""
        digest = hashlib.sha256(f"{self.dataset}#{issue_id}".encode()).hexdigest()[:16]
        return self._lock(self.home / f"{ACTIONS_FILE}.{digest}.lock")

    @contextmanager
    def _lock(self, lock_path: Path) -> Iterator[None]:
        import filelock  # here, not at the top: a question that writes nothing takes no lock

        try:
            self.home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PermanentToolError(f"cannot create the state folder {self.home}: {exc}") from None
        held = ExitStack()
        try:
            held.enter_context(statefiles.locked(lock_path, timeout=LOCK_TIMEOUT_S))
        except filelock.Timeout:
            raise TransientToolError("the tracker file is locked by another process; try again") from None
        except statefiles.UnsafeStateFile as exc:
            refusal = refused(exc)
            _tell_the_person(refusal)
            raise refusal from None
        except OSError as exc:
            raise PermanentToolError(f"cannot lock {lock_path}: {exc}; nothing was written") from None
        with held:
            try:
                yield
            except RefusedStateFile as refusal:
                _tell_the_person(refusal)
                raise

    def _append(self, record: dict[str, Any]) -> None:
        """Write one whole line, naming this tracker's dataset; the caller holds the lock."""
        record = {**record, "dataset": self.dataset}
        if self.decided_by:
            record = {**record, "decided_by": self.decided_by}
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        try:
            fd = statefiles.open_fd(self.path, os.O_RDWR | os.O_APPEND, create=True)
        except statefiles.UnsafeStateFile as exc:
            raise refused(exc) from None
        except OSError as exc:
            raise PermanentToolError(f"cannot open {self.path}: {exc}") from None
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # a torn last line stays alone, so this record is whole
            written = os.write(fd, line)
            os.fsync(fd)
        except OSError as exc:
            raise PermanentToolError(f"cannot write {self.path}: {exc}") from None
        finally:
            os.close(fd)
        if written != len(line):
            raise TransientToolError(f"only {written} of {len(line)} bytes reached {self.path}; try again")


class RefusedStateFile(PermanentToolError):
    """A tracker file or its lock is a planted link (or not a plain file); nothing was written anywhere."""


def refused(exc: statefiles.UnsafeStateFile) -> RefusedStateFile:
    return RefusedStateFile(f"refused {exc}; nothing was written")


def _tell_the_person(exc: RefusedStateFile) -> None:
    """A refused write is said on stderr too (once per message), whatever the model makes of it."""
    if str(exc) not in _refusals_told:
        _refusals_told.add(str(exc))
        warn(f"{exc}")


@dataclass(frozen=True)
class LabelChanges:
    """What the tracker's records did to one issue's labels: added (in order) and removed."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def applied_to(self, labels: list[str]) -> list[str]:
        """`labels` (the dataset's) less the removed ones, followed by the added ones."""
        return [x for x in labels if x not in self.removed] + [x for x in self.added if x not in labels]


def label_changes(records: list[dict[str, Any]], issue_id: int) -> LabelChanges:
    """Replays the add_label and remove_label records of one issue, oldest first: the last word wins."""
    added: list[str] = []
    removed: list[str] = []
    for record in records:
        label = record.get("label")
        if record["issue_id"] != issue_id or not isinstance(label, str):
            continue
        if record["action"] == "add_label":
            removed = [x for x in removed if x != label]
            added = [*(x for x in added if x != label), label]
        elif record["action"] == "remove_label":
            added = [x for x in added if x != label]
            removed = [*(x for x in removed if x != label), label]
    return LabelChanges(added, removed)


def _comment_result(record: dict[str, Any]) -> dict[str, Any]:
    # The body that was posted (an edit at the approval may have changed it), for every reader to show.
    return {"issue_id": record["issue_id"], "posted": True, "ts": record["ts"], "body": record.get("body")}
