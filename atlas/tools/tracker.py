"""The mock tracker: the only side effects Atlas has, recorded in `$ATLAS_HOME/tracker_actions.jsonl`.

Each action is one JSON line, written under a file lock by a single `os.write` on an O_APPEND
descriptor and fsync'd, so concurrent processes never interleave records. A line torn by a
crash is skipped (and counted) by readers, and the next append starts on a fresh line. The file
and its lock are opened through `atlas.statefiles`: a link planted in their place is refused.

`open_tracker` is the backend seam: with `ATLAS_TRACKER=github:OWNER/REPO` the tools write to
GitHub first (`atlas.github.tracker`), and this file keeps what GitHub confirmed.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import filelock
from pydantic import BaseModel, ConfigDict, Field

from atlas import statefiles
from atlas.errors import PermanentToolError, ToolError, TransientToolError, printable
from atlas.tools.orbitdb import IssueBrief, IssueId, issue_brief
from atlas.tools.registry import ToolContext, tool

ACTIONS_FILE = "tracker_actions.jsonl"
LOCK_TIMEOUT_S = 5.0
KNOWN_LABELS = (
    *(f"comp:{c}" for c in ("core", "scheduler", "worker", "broker-redis", "broker-postgres", "api", "cli", "docs")),
    *(f"type:{t}" for t in ("bug", "feature", "question", "docs")),
    *(f"severity:S{n}" for n in range(1, 5)),
)
_LABELS_BY_FOLDED = {label.casefold(): label for label in KNOWN_LABELS}
_warned: set[tuple[Path, int]] = set()
_refusals_told: set[str] = set()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def canonical_label(label: str) -> str:
    """The known label a user or model meant (case and spaces forgiven), or a PermanentToolError."""
    found = _LABELS_BY_FOLDED.get(label.strip().replace(" ", "").casefold())
    if found is None:
        raise PermanentToolError(f"unknown label {label!r}; known labels: {', '.join(KNOWN_LABELS)}")
    return found


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: nested too deeply to read
        return None
    if not isinstance(record, dict) or not isinstance(record.get("issue_id"), int):
        return None
    if record.get("action") not in ("add_label", "remove_label", "post_comment"):
        return None
    return record


def open_tracker(ctx: ToolContext) -> MockTracker:
    """The mock tracker (an imported project's labels for its data), or with `ATLAS_TRACKER=github:OWNER/REPO`
    one that writes to GitHub first."""
    backend = os.environ.get("ATLAS_TRACKER", "").strip()
    if backend in ("", "mock"):
        from atlas.github.labels import ProjectTracker, is_project_dataset  # an imported project's labels

        return ProjectTracker(ctx) if is_project_dataset(ctx) else MockTracker(ctx.home)
    from atlas.github.tracker import open_github_tracker  # httpx only when GitHub is the tracker

    return open_github_tracker(backend, ctx)


class MockTracker:
    """Append-only store of tracker actions under one state folder."""

    where = ""
    """Where actions go beyond this file, for previews: empty for the mock alone."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = home / ACTIONS_FILE
        self.skipped = 0
        """How many torn or corrupt lines the last `records()` skipped."""
        self.lock_path = home / f"{ACTIONS_FILE}.lock"

    def canonical_label(self, label: str) -> str:
        return canonical_label(label)

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
            else:
                found.append(record)
        self.skipped = skipped
        if skipped and (self.path, skipped) not in _warned:
            _warned.add((self.path, skipped))
            where = printable(self.path)
            print(f"atlas: warning: skipped {skipped} torn or corrupt line(s) in {where}", file=sys.stderr)
        return found

    def added_labels(self, issue_id: int) -> list[str]:
        """Labels added through the tracker to one issue, in the order they were added."""
        return _labels_added(self.records(), issue_id)

    def labels_of(self, issue: IssueBrief) -> list[str]:
        """The issue's dataset labels followed by those the tracker added."""
        return issue.labels + [x for x in self.added_labels(issue.id) if x not in issue.labels]

    def additions(self, issue_id: int) -> tuple[list[str], list[dict[str, Any]]]:
        """Labels added and comments posted (oldest first) through the tracker on one issue, from one read."""
        records = self.records()
        comments = [
            {"body": str(record.get("body", "")), "ts": record.get("ts"), "session": record.get("session")}
            for record in records
            if record["action"] == "post_comment" and record["issue_id"] == issue_id
        ]
        return _labels_added(records, issue_id), comments

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
        return [record for record in found if record is not None and record.get("key") == key]

    def _read(self) -> bytes | None:
        """The file's bytes, or None when there is none yet."""
        try:
            return statefiles.read_bytes(self.path)
        except statefiles.UnsafeStateFile as exc:
            raise refused(exc) from None
        except OSError as exc:
            raise PermanentToolError(f"cannot read {self.path}: {exc}") from None

    @contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            self.home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PermanentToolError(f"cannot create the state folder {self.home}: {exc}") from None
        held = ExitStack()
        try:
            held.enter_context(statefiles.locked(self.lock_path, timeout=LOCK_TIMEOUT_S))
        except filelock.Timeout:
            raise TransientToolError("the tracker file is locked by another process; try again") from None
        except statefiles.UnsafeStateFile as exc:
            refusal = refused(exc)
            _tell_the_person(refusal)
            raise refusal from None
        except OSError as exc:
            raise PermanentToolError(f"cannot lock {self.lock_path}: {exc}; nothing was written") from None
        with held:
            try:
                yield
            except RefusedStateFile as refusal:
                _tell_the_person(refusal)
                raise

    def _append(self, record: dict[str, Any]) -> None:
        """Write one whole line; the caller holds the lock."""
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
        print(f"atlas: warning: {exc}", file=sys.stderr)


def _labels_added(records: list[dict[str, Any]], issue_id: int) -> list[str]:
    labels: list[str] = []
    for record in records:
        label = record.get("label")
        if record["action"] != "add_label" or record["issue_id"] != issue_id or not isinstance(label, str):
            continue
        if label not in labels:
            labels.append(label)
    return labels


def _comment_result(record: dict[str, Any]) -> dict[str, Any]:
    return {"issue_id": record["issue_id"], "posted": True, "ts": record["ts"]}


class AddLabelArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    issue_id: IssueId
    label: str = Field(description=f"One of: {', '.join(KNOWN_LABELS)}.")


class PostCommentArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    issue_id: IssueId
    body: str = Field(min_length=1, max_length=4000, description="The comment, in Markdown.")


def preview_add_label(args: AddLabelArgs, ctx: ToolContext) -> str:
    """`#41 labels: [comp:core, type:bug] → [comp:core, type:bug, severity:S1]`."""
    try:
        tracker = open_tracker(ctx)
        label = tracker.canonical_label(args.label)
        before = tracker.labels_of(issue_brief(ctx.data, ctx.home, args.issue_id))
    except (LookupError, ToolError) as exc:
        return f"add label {args.label!r} to #{args.issue_id} (will be refused: {exc})"
    after = before if label in before else [*before, label]
    change = "" if after != before else f" (already labelled {label}: nothing changes)"
    return f"#{args.issue_id} labels: [{', '.join(before)}] → [{', '.join(after)}]{change}{tracker.where}"


def preview_post_comment(args: PostCommentArgs, ctx: ToolContext) -> str:
    """The whole comment and the issue it goes to."""
    try:
        title = issue_brief(ctx.data, ctx.home, args.issue_id).title
        where = open_tracker(ctx).where
    except (LookupError, ToolError) as exc:
        return f"comment on #{args.issue_id} (will be refused: {exc}):\n{args.body}"
    return f"comment on #{args.issue_id} (“{title}”){where}:\n{args.body}"


@tool(AddLabelArgs, side_effect=True, idempotent=True, timeout_s=10.0, preview=preview_add_label)
def add_label(args: AddLabelArgs, ctx: ToolContext) -> dict[str, Any]:
    """Add one label to an Orbit issue. If the issue already has it, nothing changes (changed: false)."""
    tracker = open_tracker(ctx)
    label = tracker.canonical_label(args.label)
    issue = issue_brief(ctx.data, ctx.home, args.issue_id)
    key = ctx.idempotency_key or f"auto-{uuid.uuid4().hex}"
    return tracker.add_label(issue, label, key=key, session=ctx.session)


@tool(PostCommentArgs, side_effect=True, idempotent=False, timeout_s=10.0, preview=preview_post_comment)
def post_comment(args: PostCommentArgs, ctx: ToolContext) -> dict[str, Any]:
    """Post a comment on an Orbit issue. Only when the user asked for it; the user approves the exact text."""
    if not ctx.idempotency_key:
        raise PermanentToolError("post_comment needs an idempotency key so it can never post twice; nothing was posted")
    if not args.body.strip():
        raise PermanentToolError("the comment is empty; nothing was posted")
    issue = issue_brief(ctx.data, ctx.home, args.issue_id)
    return open_tracker(ctx).post_comment(issue, args.body, key=ctx.idempotency_key, session=ctx.session)
