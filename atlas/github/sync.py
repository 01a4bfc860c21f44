"""`atlas data sync`: a repository's issues from the REST API into a dataset folder, incrementally.

The folder's state file keeps the watermark (the newest `updated_at` GitHub sent, so the next
sync asks only `since` then, by GitHub's clock and not ours), the first list page's ETag (an
unchanged repository answers 304, which costs no rate limit), and each issue's `updated_at` and
comments ETag, so an issue GitHub lists again but that did not change costs nothing more.
Comments are fetched per changed issue, in parallel under a bound.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from atlas.dataset.ensure import jsonl_path, read_issues
from atlas.foundation.errors import DataError
from atlas.foundation.redact import redact_url
from atlas.foundation.sanitize import clean_line
from atlas.github.client import PER_PAGE_MAX, GitHubClient
from atlas.github.convert import RecordError, is_pull_request, to_issue
from atlas.github.folder import check_target, markdown_files, write_dataset, write_state

PER_PAGE = PER_PAGE_MAX
COMMENT_FETCHES = 8
"""Comment lists fetched at once: enough to hide latency, few enough to stay clear of GitHub's
secondary rate limit on concurrent requests."""

MAX_LISTED = 1_000_000
"""More issues than any repository has: a server that keeps listing is stopped, memory bounded."""

STAMP_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
"""GitHub's timestamps, which also sort as text."""

Progress = Callable[[str, int, int | None], None]
"""Called with a stage ("issue pages" or "comment lists"), how many are done, and how many there
are (None while unknown)."""


@dataclass
class SyncReport:
    """What a sync changed."""

    repo: str
    listed: int = 0
    new: int = 0
    updated: int = 0
    pull_requests: int = 0
    comment_fetches: int = 0
    skipped: list[str] = field(default_factory=list)
    not_modified: bool = False
    total: int = 0


@dataclass
class _Plan:
    """Where the last sync left off."""

    issues: dict[int, dict[str, Any]]
    since: str | None
    list_etag: dict[str, Any]
    updated: dict[str, str]
    comment_etags: dict[str, str]


def _load(target: Path, repo: str, *, full: bool) -> _Plan:
    state = check_target(target) or {}
    if state and state.get("repo") not in (None, repo):
        raise DataError(f"{clean_line(target)} holds {state.get('repo')}, not {repo}; choose another folder")
    if full or state.get("repo") != repo or not jsonl_path(target).is_file():
        return _Plan({}, None, {}, {}, {})
    issues = {issue["id"]: issue for issue in read_issues(jsonl_path(target))}
    if not issues:
        return _Plan({}, None, {}, {}, {})  # nothing here to be incremental on: a first sync again
    return _Plan(
        issues,
        state.get("since") if isinstance(state.get("since"), str) else None,
        _dict(state.get("list_etag")),
        _dict(state.get("updated")),
        _dict(state.get("comment_etags")),
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def sync_repo(
    client: GitHubClient,
    repo: str,
    target: Path,
    *,
    docs: Path | None = None,
    full: bool = False,
    progress: Progress | None = None,
    workers: int = COMMENT_FETCHES,
) -> SyncReport:
    """Fetch what changed since the last sync into `target`; nothing is written when nothing changed."""
    plan = _load(target, repo, full=full)
    report = SyncReport(repo=repo)
    url, what = f"/repos/{repo}/issues", f"the issues of {repo}"
    params: dict[str, Any] = {"state": "all", "sort": "updated", "direction": "asc", "per_page": PER_PAGE}
    if plan.since:
        params["since"] = plan.since
    # A 304 says "as you have it": only worth asking for when there is something here to keep.
    etag = plan.list_etag.get("etag") if plan.issues and plan.list_etag.get("since") == plan.since else None
    items: list[Any] = []
    first_etag: str | None = None
    for number, page in enumerate(client.pages(url, what, params=params, etag=etag), 1):
        if progress is not None:
            progress("issue pages", number, _last_page(page.last_url) or number)
        if page.not_modified:
            report.not_modified, report.total = True, len(plan.issues)
            return report
        first_etag = first_etag or page.etag
        if not isinstance(page.data, list):
            raise DataError(f"GitHub's answer for {what} is not a list of issues")
        items.extend(page.data)
        if len(items) > MAX_LISTED:
            raise DataError(f"GitHub listed more than {MAX_LISTED:,} issues for {repo}; stopped there")
    report.listed = len(items)
    changed = _changed_issues(items, plan, report)
    _fetch_comments(client, repo, changed, plan, report, progress, workers)
    since = max((str(item["updated_at"]) for item in items if _has_updated(item)), default=plan.since)
    if report.new or report.updated or not plan.issues or docs is not None:
        doc_files = markdown_files(docs) if docs else None  # None: the folder's docs stay as they are
        state = {
            "source": "sync",
            "repo": repo,
            "dataset": repo.casefold(),
            "api": redact_url(client.base_url),
            "synced_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "since": since,
            "list_etag": {"since": plan.since, "etag": first_etag} if first_etag else {},
            "updated": plan.updated,
            "comment_etags": plan.comment_etags,
        }
        write_dataset(target, sorted(plan.issues.values(), key=lambda i: i["id"]), docs=doc_files, state=state)
    else:
        _remember_etag(target, plan, first_etag)
    report.total = len(plan.issues)
    return report


def _last_page(url: str | None) -> int | None:
    """The page number in GitHub's `rel="last"` link, for the progress bar's total."""
    found = re.search(r"[?&]page=(\d+)", url or "")
    return int(found.group(1)) if found else None


def _has_updated(item: Any) -> bool:
    """Whether an item has a timestamp fit to be the next `since` (one bad value must not stop all syncs)."""
    return (
        isinstance(item, dict) and isinstance(item.get("updated_at"), str) and bool(STAMP_RE.match(item["updated_at"]))
    )


def _changed_issues(items: list[Any], plan: _Plan, report: SyncReport) -> list[tuple[dict[str, Any], int]]:
    """The listed issues that are new or changed since their stored `updated_at`, with comments to fetch
    (and how many GitHub counts)."""
    changed = []
    for index, item in enumerate(items, 1):
        if isinstance(item, dict) and is_pull_request(item):
            report.pull_requests += 1
            continue
        try:
            issue = to_issue(item, comments=[])
        except RecordError as exc:
            report.skipped.append(f"listed item {index}: {exc}")
            continue
        key = str(issue["id"])
        if item.get("updated_at") is not None and plan.updated.get(key) == item.get("updated_at"):
            continue
        report.new += issue["id"] not in plan.issues
        report.updated += issue["id"] in plan.issues
        if issue["id"] in plan.issues:
            issue["comments"] = plan.issues[issue["id"]]["comments"]
        plan.issues[issue["id"]] = issue
        plan.updated[key] = str(item.get("updated_at", ""))
        count = item.get("comments")
        if isinstance(count, int) and count > 0:
            changed.append((issue, count))
        else:
            issue["comments"] = []
    return changed


def _fetch_comments(
    client: GitHubClient,
    repo: str,
    issues: list[tuple[dict[str, Any], int]],
    plan: _Plan,
    report: SyncReport,
    progress: Progress | None,
    workers: int,
) -> None:
    """Each changed issue's comments, `workers` lists at a time; an unchanged list answers 304."""

    def fetch(issue: dict[str, Any], count: int) -> None:
        key, url = str(issue["id"]), f"/repos/{repo}/issues/{issue['id']}/comments"
        # An issue can change (a label, an edit) while its comments do not: then this is a free 304.
        # Only for a list on one page, as stored: a 304 on page one says nothing of page two.
        same = len(issue["comments"]) == count < PER_PAGE
        etag = plan.comment_etags.get(key) if same else None
        comments: list[Any] = []
        pages = client.pages(url, f"the comments of #{issue['id']}", params={"per_page": PER_PAGE}, etag=etag)
        for number, page in enumerate(pages):
            if page.not_modified:
                return
            if number == 0 and page.etag:
                plan.comment_etags[key] = page.etag
            if not isinstance(page.data, list):
                raise DataError(f"GitHub's answer for the comments of #{issue['id']} is not a list")
            comments.extend(page.data)
        try:
            issue["comments"] = to_issue(_stub(issue), comments=comments)["comments"]
        except RecordError as exc:
            report.skipped.append(f"comments of #{issue['id']}: {exc}")
            issue["comments"] = []

    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="atlas-github")
    try:
        for future in as_completed([pool.submit(fetch, issue, count) for issue, count in issues]):
            future.result()
            report.comment_fetches += 1
            if progress is not None:
                progress("comment lists", report.comment_fetches, len(issues))
    except BaseException:
        client.stop()  # the first failure (or Ctrl-C) ends the others' waits; nothing is written
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _stub(issue: dict[str, Any]) -> dict[str, Any]:
    """An issue in GitHub's shape, enough for `to_issue` to read a comment list against."""
    return {"number": issue["id"], "title": issue["title"], "state": issue["state"], "created_at": issue["created_at"]}


def _remember_etag(target: Path, plan: _Plan, etag: str | None) -> None:
    """Nothing changed: only the list's ETag is new, so the next unchanged sync is a free 304."""
    state = check_target(target)
    if not state or not etag:
        return
    state["list_etag"] = {"since": plan.since, "etag": etag}
    state["synced_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    write_state(target, state)
