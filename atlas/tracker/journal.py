"""The mock tracker: the only side effects Atlas has, recorded in a journal every process shares.

The journal (`atlas.tracker.store.Journal`) is `$ATLAS_HOME/tracker_actions.jsonl`
(`file_journal.py`), or a shared database when one is set (`atlas.state`). Every write checks and
records under the journal's one lock: a label already there is not added again, a comment's key
is not posted twice, and what the write must still meet (`WriteLimits`: a rule's counts, a drafted
comment's "not commented yet") is checked over every process's records as it is recorded.

Every record names its dataset (`dataset`: a synced or imported project's identity, `orbit` for
the bundled data; a record without it is the bundled dataset's), and a tracker sees only its own
dataset's records, so one project's labels never show on another's issue of the same number.
Each record also names who wrote it (`person`) and where (`machine`).
A GitHub comment's marker record (`comment_marker`) keeps the random key its comment carries.

`atlas.tracker.open_tracker` is the backend seam: with `ATLAS_TRACKER=github:OWNER/REPO` the tools write to
GitHub first (`atlas.tracker.github`), and the journal keeps what GitHub confirmed.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from atlas.dataset.source import BUNDLED, same_dataset
from atlas.foundation.errors import PermanentToolError
from atlas.state.who import author
from atlas.tools.registry import WriteLimits
from atlas.tracker.file_journal import ACTIONS_FILE, RefusedStateFile, forget_warnings, refused
from atlas.tracker.labels import dataset_labels, known_label
from atlas.tracker.store import Journal, Refusal, open_journal, refusal

__all__ = ["ACTIONS_FILE", "MockTracker", "RefusedStateFile", "forget_warnings", "refused"]

ACTIONS = ("add_label", "remove_label", "post_comment")
"""What the records people see are; `comment_marker` records are the GitHub tracker's bookkeeping."""


class IssueBrief(NamedTuple):
    """What a side effect needs to know about its target issue."""

    id: int
    title: str
    labels: list[str]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class MockTracker:
    """Append-only store of tracker actions under one state folder (or the team's shared database)."""

    where = ""
    """Where actions go beyond the journal, for previews: empty for the mock alone."""
    decided_by: str | None = None
    """Who approved the actions this tracker writes; kept in each record."""
    limits: WriteLimits = WriteLimits()
    """What each write must still meet as it is recorded (set from the call's context)."""

    def __init__(
        self,
        home: Path,
        dataset: str = BUNDLED,
        *,
        data: Path | None = None,
        project: str = "",
        journal: Journal | None = None,
    ) -> None:
        self.home = home
        self.dataset = dataset.casefold()
        """Whose records this tracker reads and writes."""
        self.data = data
        """The data folder whose labels writes are checked against (None: a tracker that only reads records)."""
        self.project = project or "this project"
        self.journal = journal if journal is not None else open_journal(home)
        self.skipped = 0
        """How many torn or corrupt records the last `records()` skipped."""

    @property
    def path(self) -> str:
        """Where the records are, for a person."""
        return self.journal.where

    def canonical_label(self, label: str) -> str:
        """A label the dataset uses, as it spells it; any other is refused (GitHub would create it silently)."""
        if self.data is None:
            raise PermanentToolError("this tracker reads records only; it has no dataset to check labels against")
        return known_label(dataset_labels(self.data, self.home), label, self.project)

    def records(self) -> list[dict[str, Any]]:
        """Every whole record of this dataset, oldest first; torn or corrupt ones are skipped and counted."""
        found = self.journal.read()
        self.skipped = self.journal.skipped
        return [r for r in found if r["action"] in ACTIONS and same_dataset(r, self.dataset)]

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
            {
                "body": str(record.get("body", "")),
                "ts": record.get("ts"),
                "session": record.get("session"),
                "person": record.get("person"),
            }
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
            records = self.records()
            current = label_changes(records, issue.id).applied_to(issue.labels)
            changed = label not in current
            if changed:
                self._check(records, "add_label", issue.id, key, session)
                record = {"ts": now_iso(), "key": key, "action": "add_label", "issue_id": issue.id, "label": label}
                self._append({**record, "session": session})
                current = [*current, label]
        return {"issue_id": issue.id, "label": label, "changed": changed, "labels": current}

    def remove_label(self, issue: IssueBrief, label: str, *, key: str, session: str) -> dict[str, Any]:
        """Remove a label if the issue has it (in the dataset or through the tracker); else nothing changes."""
        with self._locked():
            records = self.records()
            current = label_changes(records, issue.id).applied_to(issue.labels)
            changed = label in current
            if changed:
                self._check(records, "remove_label", issue.id, key, session)
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
            refused_now = self._refusal(self.records(), "post_comment", issue.id, key, session)
            if refused_now is not None and refused_now.settled:
                return {"issue_id": issue.id, "posted": False, "changed": False, "note": refused_now.message}
            if refused_now is not None:
                raise PermanentToolError(refused_now.message)
            record = {"ts": now_iso(), "key": key, "action": "post_comment", "issue_id": issue.id, "body": body}
            self._append({**record, "session": session})
        return _comment_result(record)

    def _refusal(
        self, records: list[dict[str, Any]], action: str, issue_id: int, key: str, session: str
    ) -> Refusal | None:
        """Why this write may not be recorded now, over every process's records (the caller holds the lock)."""
        return refusal(self.limits, records, action=action, issue_id=issue_id, key=key, session=session)

    def _check(self, records: list[dict[str, Any]], action: str, issue_id: int, key: str, session: str) -> None:
        refused_now = self._refusal(records, action, issue_id, key, session)
        if refused_now is not None:
            raise PermanentToolError(refused_now.message)

    def _records_with_key(self, key: str) -> list[dict[str, Any]]:
        """Records written under one idempotency key, of this dataset."""
        return [r for r in self.journal.with_key(key) if same_dataset(r, self.dataset)]

    def _locked(self) -> contextlib.AbstractContextManager[None]:
        """The journal's lock: held for a read-then-append, never across a network call."""
        return self.journal.locked()

    def issue_lock(self, issue_id: int) -> contextlib.AbstractContextManager[None]:
        """One issue's lock, across processes: a check on GitHub and the write it decides are one step."""
        return self.journal.issue_lock(f"{self.dataset}#{issue_id}")

    def _append(self, record: dict[str, Any]) -> None:
        """Keep one record, naming this tracker's dataset, who approved it and who wrote it where; the
        caller holds the lock."""
        record = {**record, "dataset": self.dataset}
        if self.decided_by:
            record = {**record, "decided_by": self.decided_by}
        self.journal.append({**record, **author(self.home)})


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
