"""The GitHub tracker: approved labels and comments sent to a repository, and recorded in the mock too.

Only what GitHub confirmed is appended to the local file (with GitHub's answer: the comment's URL,
the labels after), so the audit trail never claims a write that may not exist. Labels are
idempotent by nature; a comment carries its idempotency key in a hidden `<!-- atlas:KEY -->`
marker, looked for among the issue's recent comments before posting, so a retry of the same call
never posts twice. A write that got no answer is reported as "may have taken effect" and is
never sent again by this module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from atlas.config import env_number
from atlas.errors import ConfigError, PermanentToolError, TransientToolError
from atlas.github.client import PER_PAGE_MAX, GitHubClient, api_url, find_token, parse_repo
from atlas.github.errors import GitHubError, GitHubNotFound, GitHubRateLimited, GitHubTimeout, clock_time
from atlas.github.folder import read_state
from atlas.orbit.db import IssueBrief
from atlas.tools.registry import ToolContext
from atlas.tracker.journal import now_iso
from atlas.tracker.project import ProjectTracker

DEFAULT_TIMEOUT_S = 4.0
"""Per request; a call is a lookup and a write, and both must fit in the tool's 10 s."""
KEY_RE = re.compile(r"[A-Za-z0-9._:-]{1,200}")
"""What a key may hold inside the marker: nothing that could close the HTML comment early."""

ClientFactory = Callable[[], GitHubClient]


def marker(key: str) -> str:
    """The hidden line that carries a comment's idempotency key."""
    if not KEY_RE.fullmatch(key):
        raise PermanentToolError("this call's idempotency key cannot be carried in a comment; nothing was posted")
    return f"<!-- atlas:{key} -->"


def open_github_tracker(setting: str, ctx: ToolContext) -> GitHubTracker:
    """The tracker `ATLAS_TRACKER=github:OWNER/REPO` names, checked against the dataset's own repo."""
    if not setting.startswith("github:"):
        raise PermanentToolError(f"ATLAS_TRACKER={setting!r} is not a tracker: use github:OWNER/REPO or mock")
    try:
        repo = parse_repo(setting.removeprefix("github:"))
        base_url = api_url()
        timeout_s = env_number("ATLAS_GITHUB_TIMEOUT", DEFAULT_TIMEOUT_S, unit="seconds", positive=True)
    except ConfigError as exc:
        raise PermanentToolError(f"ATLAS_TRACKER: {exc}; nothing was sent") from None
    synced = read_state(ctx.data).get("repo")
    if isinstance(synced, str) and synced.casefold() != repo.casefold():
        raise PermanentToolError(f"the dataset is {synced} but ATLAS_TRACKER names {repo}; nothing was sent")
    token = find_token(base_url)
    if not token:
        raise PermanentToolError(
            "the GitHub tracker needs a token: set GITHUB_TOKEN or run `gh auth login`; nothing was sent"
        )
    # No waiting and no retries inside a tool call: its deadline is the executor's, and so are retries.
    return GitHubTracker(
        ctx,
        repo,
        lambda: GitHubClient(token=token, base_url=base_url, timeout_s=timeout_s, max_wait_s=0, read_attempts=1),
    )


class GitHubTracker(ProjectTracker):
    """Writes go to GitHub first; what GitHub confirmed is appended to the mock's file."""

    def __init__(self, ctx: ToolContext, repo: str, client_factory: ClientFactory) -> None:
        super().__init__(ctx, repo)
        self.repo = repo
        self.where = f" (on GitHub: {repo})"
        self._client_factory = client_factory

    def add_label(self, issue: IssueBrief, label: str, *, key: str, session: str) -> dict[str, Any]:
        url = f"/repos/{self.repo}/issues/{issue.id}/labels"
        after = self._write("POST", url, f"adding {label!r} to #{issue.id}", {"labels": [label]})
        labels = _names(after)
        return self._record("add_label", issue, key, session, {"label": label}, {"labels": labels})

    def remove_label(self, issue: IssueBrief, label: str, *, key: str, session: str) -> dict[str, Any]:
        """Remove a label; one the issue does not have changes nothing (GitHub answers 404 for it)."""
        url = f"/repos/{self.repo}/issues/{issue.id}/labels/{quote(label, safe='')}"
        with self._client_factory() as client:
            try:
                after = client.write("DELETE", url, f"removing {label!r} from #{issue.id} of {self.repo}")
            except GitHubNotFound:
                # No such label on the issue, or no such issue: reading the issue tells which.
                current = self._fetch(client, f"/repos/{self.repo}/issues/{issue.id}", f"issue #{issue.id}")
                labels = _names(current.get("labels") if isinstance(current, dict) else [])
                return {"issue_id": issue.id, "label": label, "changed": False, "labels": labels}
            except GitHubError as exc:
                raise _tool_error(exc, write=True) from None
        return self._record("remove_label", issue, key, session, {"label": label}, {"labels": _names(after)})

    def post_comment(self, issue: IssueBrief, body: str, *, key: str, session: str) -> dict[str, Any]:
        for record in self._records_with_key(key):
            if record["action"] == "post_comment" and record["issue_id"] == issue.id and record.get("body") == body:
                return _comment_result(record)
            raise PermanentToolError("this call's idempotency key was already used for a different action")
        url = f"/repos/{self.repo}/issues/{issue.id}/comments"
        posted = self._find_marker(url, issue.id, key)
        if posted is None:
            posted = self._write("POST", url, f"the comment on #{issue.id}", {"body": f"{body}\n\n{marker(key)}"})
        github = {"url": posted.get("html_url"), "id": posted.get("id")} if isinstance(posted, dict) else {}
        return _comment_result(self._record("post_comment", issue, key, session, {"body": body}, github))

    def _find_marker(self, url: str, issue_id: int, key: str) -> dict[str, Any] | None:
        """This key's comment if an earlier attempt posted it: searched on the first and the last page."""
        what = f"the comments of #{issue_id}"
        with self._client_factory() as client:
            try:
                first = client.get(url, what, params={"per_page": PER_PAGE_MAX})
                pages = [first]
                if last_url := first.last_url:
                    pages.append(client.get(last_url, what))
            except GitHubError as exc:
                raise _tool_error(exc, write=False) from None
        for page in reversed(pages):
            for comment in reversed(page.data if isinstance(page.data, list) else []):
                text = comment.get("body") if isinstance(comment, dict) else None
                if isinstance(text, str) and marker(key) in text:
                    return dict(comment)
        return None

    def _fetch(self, client: GitHubClient, url: str, what: str) -> Any:
        try:
            return client.get(url, what).data
        except GitHubError as exc:
            raise _tool_error(exc, write=False) from None

    def _write(self, method: str, url: str, what: str, payload: Any) -> Any:
        with self._client_factory() as client:
            try:
                return client.write(method, url, f"{what} of {self.repo}", json=payload)
            except GitHubError as exc:
                raise _tool_error(exc, write=True) from None

    def _record(
        self, action: str, issue: IssueBrief, key: str, session: str, fields: dict[str, Any], github: dict[str, Any]
    ) -> dict[str, Any]:
        """Append what GitHub confirmed; the result the tool returns."""
        record = {"ts": now_iso(), "key": key, "action": action, "issue_id": issue.id, **fields, "github": github}
        with self._locked():
            known_before = self.labels_of(issue) if action == "add_label" else []
            self._append({**record, "session": session})
        if action == "post_comment":
            return record
        labels = github.get("labels", [])
        changed = action == "remove_label" or fields["label"] not in known_before
        return {"issue_id": issue.id, "label": fields["label"], "changed": changed, "labels": labels}


def _comment_result(record: dict[str, Any]) -> dict[str, Any]:
    github = record.get("github")
    url = github.get("url") if isinstance(github, dict) else None
    return {"issue_id": record["issue_id"], "posted": True, "ts": record["ts"], "url": url}


def _names(labels: Any) -> list[str]:
    """Label names from GitHub's `[{name, ...}]`."""
    if not isinstance(labels, list):
        return []
    return [str(label["name"]) for label in labels if isinstance(label, dict) and isinstance(label.get("name"), str)]


def _tool_error(exc: GitHubError, *, write: bool) -> Exception:
    """GitHub's failure as the executor classifies it: transient, permanent, or a timeout not to retry."""
    message = str(exc)
    if isinstance(exc, GitHubRateLimited):
        return TransientToolError(f"{message}; try again after {clock_time(exc.reset_at)}")
    if write and isinstance(exc, GitHubTimeout):
        # A timeout is never retried by the executor; the note tells the user to look before redoing it.
        return TimeoutError(f"{message}: it may have taken effect; check on GitHub before doing it again")
    if write and exc.maybe_sent:
        return TransientToolError(
            f"{message}: it may have taken effect; check on GitHub before doing it again", maybe_done=True
        )
    if exc.transient:
        return TransientToolError(message)
    return PermanentToolError(message)
