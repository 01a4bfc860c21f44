"""The inbox: open issues that need a maintainer, and why, sorted by severity (`severity.py`) then age.

Untriaged (an expected label group is empty, or no label at all), unanswered (nobody but the author
has spoken), waiting on the reporter (the last word, someone else's, asked them something), new since
the last inbox, stale (no activity for a while: shown, never closed). "Now" is the newest activity in
the data, so a snapshot of a tracker reads as it did the day it was taken. Where the data holds no
threads (an export without comments), nothing is said of answers or activity: it is not known.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from atlas.triage.corpus import Issue, Thread
from atlas.triage.groups import missing_groups
from atlas.triage.inbox_order import OPEN_MAX as OPEN_MAX
from atlas.triage.inbox_order import InboxOrder, open_by_date, open_in_order, pages, severity_judge
from atlas.triage.project import Project
from atlas.triage.severity import Severity

THREAD_REASONS = ("unanswered", "waiting", "stale")
"""What only the comments can show."""
COMMENTS_UNKNOWN = (
    "This project's data holds no comments (the export carried none), so whether an issue was answered, is "
    "waiting or is stale is unknown; `atlas data sync` fetches the comments."
)


@dataclass(frozen=True)
class InboxItem:
    issue: Issue
    reasons: tuple[str, ...]
    severity: Severity
    age_days: int
    idle_days: int | None
    """None where the data holds no threads: the last activity is unknown."""
    new: bool

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.issue.id,
            "title": self.issue.title,
            "severity": self.severity.label,
            "severity_unknown": self.severity.unknown,
            "age_days": self.age_days,
            "idle_days": self.idle_days,
            "labels": list(self.issue.labels),
            "reasons": list(self.reasons),
            "new": self.new,
            "answered": None if self.idle_days is None else "unanswered" not in self.reasons,
        }


def days_between(earlier: str, later: str) -> int:
    try:
        return max(0, (_when(later) - _when(earlier)).days)
    except ValueError:
        return 0


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def reasons_for(project: Project, issue: Issue, thread: Thread | None, now: str, seen_until: str | None) -> list[str]:
    """Why `issue` needs a look; `thread` None: the data holds no threads, so answers and activity are unknown."""
    settings = project.settings
    found = []
    missing = missing_groups(project.groups, issue.labels)
    if missing:
        found.append("untriaged: no " + ", ".join(g.short for g in missing))
    elif not issue.labels:
        found.append("untriaged: no label")
    if thread is None:
        return found + (["new"] if seen_until is not None and issue.created_at > seen_until else [])
    others = [who for who in thread.authors if who != issue.author]
    if not others:
        found.append("unanswered")
    elif thread.authors[-1] != issue.author and "?" in thread.last_body:
        waited = days_between(thread.times[-1], now)
        if waited >= settings.waiting_days:
            found.append(f"waiting on the reporter for {waited} day{'' if waited == 1 else 's'}")
    if seen_until is not None and issue.created_at > seen_until:
        found.append("new")
    idle = days_between(max([issue.created_at, *thread.times]), now)
    if idle >= settings.stale_days:
        found.append(f"stale: no activity for {idle} day{'' if idle == 1 else 's'}")
    return found


def inbox_items(
    project: Project,
    *,
    seen_until: str | None,
    commented: set[int] | None = None,
    order: InboxOrder = "urgent",
    within: frozenset[int] | None = None,
) -> Iterator[InboxItem]:
    """Every open issue with a reason to look at it: the most severe first (an unknown severity right after
    the known worst), then the oldest; or, by `order`, the newest or the oldest opened first. `within`: only
    these issues (`InboxFilter.issue_ids`), None for all. One item at a time: the order comes from labels
    and dates (`inbox_order`), and an issue's reasons are worked out only when the reader gets to it."""
    now = project.corpus.newest_activity()
    severity = severity_judge(project.groups)
    known = project.corpus.comments_known()
    ordered = open_in_order(project, severity) if order == "urgent" else open_by_date(project, newest=order == "newest")
    if within is not None:
        ordered = [issue_id for issue_id in ordered if issue_id in within]
    for ids in pages(ordered):
        issues = project.corpus.many(ids)
        threads = project.corpus.threads(ids)
        for issue in (issues.get(issue_id) for issue_id in ids):
            if issue is None:  # gone since the order was read: the data was rebuilt meanwhile
                continue
            thread = threads[issue.id]
            if commented and issue.id in commented:
                thread = Thread((*thread.authors, "atlas"), thread.times, thread.last_body)
            reasons = reasons_for(project, issue, thread if known else None, now, seen_until)
            if not reasons:
                continue
            idle = days_between(max([issue.created_at, *thread.times]), now) if known else None
            yield InboxItem(
                issue,
                tuple(reasons),
                severity(issue.labels),
                days_between(issue.created_at, now),
                idle,
                "new" in reasons,
            )
