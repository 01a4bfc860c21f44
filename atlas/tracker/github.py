"""The GitHub tracker: approved labels and comments sent to a repository, and recorded in the mock too.

Only what GitHub confirmed is appended to the local file (with GitHub's answer: the comment's URL,
the labels after), so the audit trail never claims a write that may not exist. A comment carries
a hidden `<!-- atlas:KEY -->` marker whose KEY is random (192 bits), made when the approved call is
first journalled (a `comment_marker` record) and reused by every retry or replay of that call;
before posting, Atlas looks for it among the issue's recent comments written by the token's own
account (`GET /user`), so a retry never posts twice and a stranger's comment, marker or not,
never stands in for Atlas's. Each issue's check and write run under a lock shared by every
process, with the journal consulted inside it, so one approved action is sent once; a rule that
counts per run adds its run's lock, so racing writes on other issues cannot overspend it. A write that
got no answer is reported as "may have taken effect" and is never sent again by this module.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

from atlas.dataset.source import dataset_identity, source_state
from atlas.foundation.config import env_number
from atlas.foundation.errors import ConfigError, PermanentToolError, TransientToolError
from atlas.github.client import PER_PAGE_MAX, GitHubClient, api_url, find_token, parse_repo
from atlas.github.errors import GitHubError, GitHubNotFoundError, GitHubRateLimitedError, GitHubTimeoutError, clock_time
from atlas.github.label_history import issue_events, removed_by_others
from atlas.tools.registry import ToolContext
from atlas.tracker.journal import IssueBrief, MockTracker, now_iso

DEFAULT_TIMEOUT_S = 4.0
"""Per request; a call is a lookup and a write, and both must fit in the tool's 10 s."""
KEY_RE = re.compile(r"[A-Za-z0-9._:-]{1,200}")
"""What a key may hold inside the marker: nothing that could close the HTML comment early."""
MARKER_BYTES = 24
"""192 random bits: a marker no one can guess before Atlas posts it."""

ClientFactory = Callable[[], GitHubClient]
_logins: dict[tuple[str, str], str] = {}
"""The token's own login, per API and token (hashed), asked once per process."""
_logins_lock = threading.Lock()


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
    state = source_state(ctx.data)
    synced = state.get("repo")
    if not isinstance(synced, str):
        # The same number on another repository is another issue: never write there.
        what = "imported from a file that names no GitHub repository" if state else "the bundled Orbit data"
        raise PermanentToolError(
            f"ATLAS_TRACKER names {repo} but the dataset is {what}; nothing was sent "
            f"(sync it first: atlas data sync {repo} --to DIR, then ORBIT_DATA=DIR)"
        )
    if synced.casefold() != repo.casefold():
        raise PermanentToolError(f"the dataset is {synced} but ATLAS_TRACKER names {repo}; nothing was sent")
    token = find_token(base_url)
    if not token:
        raise PermanentToolError(
            "the GitHub tracker needs a token: set GITHUB_TOKEN or run `gh auth login`; nothing was sent"
        )
    # No waiting and no retries inside a tool call: its deadline is the executor's, and so are retries.
    tracker = GitHubTracker(
        ctx,
        repo,
        lambda: GitHubClient(token=token, base_url=base_url, timeout_s=timeout_s, max_wait_s=0, read_attempts=1),
    )
    tracker.account = (base_url, hashlib.sha256(token.encode()).hexdigest())
    return tracker


class GitHubTracker(MockTracker):
    """Writes go to GitHub first; what GitHub confirmed is appended to the mock's file."""

    account: tuple[str, str] = ("", "")
    """The API and the token's hash: whose login `GET /user` answered (cached per process)."""

    def __init__(self, ctx: ToolContext, repo: str, client_factory: ClientFactory) -> None:
        super().__init__(ctx.home, dataset_identity(ctx.data), data=ctx.data, project=repo)
        self.repo = repo
        self.where = f" (on GitHub: {repo})"
        self._client_factory = client_factory

    def add_label(self, issue: IssueBrief, label: str, *, key: str, session: str) -> dict[str, Any]:
        """Add a label once: another process's approved add of it, or a replay of this call, sends nothing."""
        with self._write_locks(issue.id, session):
            done = self._done(key, issue, "add_label", label)
            if done is not None:
                return done
            current = self.labels_of(issue)
            if label in current:
                return {"issue_id": issue.id, "label": label, "changed": False, "labels": current}
            self._check(self.records(), "add_label", issue.id, key, session)
            url = f"/repos/{self.repo}/issues/{issue.id}/labels"
            after = self._write("POST", url, f"adding {label!r} to #{issue.id}", {"labels": [label]})
            return self._record("add_label", issue, key, session, {"label": label}, {"labels": _names(after)})

    def remove_label(self, issue: IssueBrief, label: str, *, key: str, session: str) -> dict[str, Any]:
        """Remove a label; one the issue does not have changes nothing (GitHub answers 404 for it)."""
        url = f"/repos/{self.repo}/issues/{issue.id}/labels/{quote(label, safe='')}"
        with self._write_locks(issue.id, session):
            done = self._done(key, issue, "remove_label", label)
            if done is not None:
                return done
            if label not in (current := self.labels_of(issue)):
                return {"issue_id": issue.id, "label": label, "changed": False, "labels": current}
            self._check(self.records(), "remove_label", issue.id, key, session)
            with self._client_factory() as client:
                try:
                    after = client.write("DELETE", url, f"removing {label!r} from #{issue.id} of {self.repo}")
                except GitHubNotFoundError:
                    # No such label on the issue, or no such issue: reading the issue tells which.
                    current = self._fetch(client, f"/repos/{self.repo}/issues/{issue.id}", f"issue #{issue.id}")
                    labels = _names(current.get("labels") if isinstance(current, dict) else [])
                    return {"issue_id": issue.id, "label": label, "changed": False, "labels": labels}
                except GitHubError as exc:
                    raise _tool_error(exc, write=True) from None
            return self._record("remove_label", issue, key, session, {"label": label}, {"labels": _names(after)})

    def post_comment(self, issue: IssueBrief, body: str, *, key: str, session: str) -> dict[str, Any]:
        """Post once per approved call: its random marker is journalled first and looked for before posting."""
        url = f"/repos/{self.repo}/issues/{issue.id}/comments"
        with self._write_locks(issue.id, session):
            done, token = self._comment_marker(key, issue, body, session)
            if done is not None:
                return _comment_result(done)
            # Under the issue's lock: no other process can post on this issue between this check and the record.
            refused_now = self._refusal(self.records(), "post_comment", issue.id, key, session)
            if refused_now is not None and refused_now.settled:
                return {"issue_id": issue.id, "posted": False, "changed": False, "note": refused_now.message}
            if refused_now is not None:
                raise PermanentToolError(refused_now.message)
            posted = self._find_marker(url, issue.id, token)
            if posted is None:
                posted = self._write("POST", url, f"the comment on #{issue.id}", {"body": f"{body}\n\n{marker(token)}"})
            if not isinstance(posted, dict) or not isinstance(posted.get("id"), int):
                raise TransientToolError(
                    f"GitHub's answer to the comment on #{issue.id} was not a comment: it may have taken effect; "
                    "check on GitHub before doing it again"
                )
            github = {"url": posted.get("html_url"), "id": posted["id"]}
            return _comment_result(self._record("post_comment", issue, key, session, {"body": body}, github))

    @contextlib.contextmanager
    def _write_locks(self, issue_id: int, session: str) -> Iterator[None]:
        """The issue's lock and, for a write a rule counts per run, the rule's run's lock: held across
        the check, the network call and the record, so writes racing on other issues (other threads,
        processes or machines of the team) cannot all pass a `max_per_run` only one of them fits in.
        Always taken in this order, so two writers never wait on each other."""
        with contextlib.ExitStack() as held:
            held.enter_context(self.issue_lock(issue_id))
            if self.limits.rule and self.limits.max_per_run is not None:
                name = f"{self.dataset} rule {self.limits.rule} run {session}"
                held.enter_context(self.journal.issue_lock(name))
            yield

    def removed_elsewhere(self, issue_id: int) -> set[str]:
        """The labels (casefolded) someone other than the token's account last removed from the issue
        on GitHub (`label_history.py`); a ToolError when GitHub cannot say."""
        with self._client_factory() as client:
            try:
                login: str | None = self._login(client)
            except PermanentToolError:
                login = None  # an app's token may not ask whose it is: then every removal is someone else's
            try:
                return removed_by_others(issue_events(client, self.repo, issue_id), login)
            except GitHubError as exc:
                raise _tool_error(exc, write=False) from None

    def _done(self, key: str, issue: IssueBrief, action: str, label: str) -> dict[str, Any] | None:
        """A replay of a label change already confirmed: the journal's answer, nothing sent."""
        for record in self._records_with_key(key):
            if record["action"] == action and record["issue_id"] == issue.id and record.get("label") == label:
                labels = record.get("github", {}).get("labels", []) if isinstance(record.get("github"), dict) else []
                return {"issue_id": issue.id, "label": label, "changed": True, "labels": labels}
        return None

    def _comment_marker(
        self, key: str, issue: IssueBrief, body: str, session: str
    ) -> tuple[dict[str, Any] | None, str]:
        """The journalled result of this call, or the random marker its comment carries (made now if new)."""
        digest = hashlib.sha256(body.encode()).hexdigest()
        with self._locked():
            token = None
            for record in self._records_with_key(key):
                same = record["issue_id"] == issue.id
                if same and record["action"] == "post_comment" and record.get("body") == body:
                    return record, ""
                if same and record["action"] == "comment_marker" and record.get("body_sha256") == digest:
                    token = record.get("marker")
                    continue
                raise PermanentToolError("this call's idempotency key was already used for a different action")
            if isinstance(token, str) and KEY_RE.fullmatch(token):
                return None, token
            token = secrets.token_urlsafe(MARKER_BYTES)
            entry = {"ts": now_iso(), "key": key, "action": "comment_marker", "issue_id": issue.id}
            self._append({**entry, "marker": token, "body_sha256": digest, "session": session})
        return None, token

    def _login(self, client: GitHubClient) -> str:
        """The account the token belongs to: only its comments can be Atlas's."""
        with _logins_lock:
            known = _logins.get(self.account)
        if known is not None:
            return known
        user = self._fetch(client, "/user", "the token's account (GET /user)")
        login = user.get("login") if isinstance(user, dict) else None
        if not isinstance(login, str) or not login:
            raise PermanentToolError("GitHub did not say whose token this is (GET /user); nothing was posted")
        with _logins_lock:
            _logins[self.account] = login
        return login

    def _find_marker(self, url: str, issue_id: int, token: str) -> dict[str, Any] | None:
        """The comment an earlier attempt of this call posted, by the token's own account: searched on
        the first and the last page."""
        what = f"the comments of #{issue_id}"
        with self._client_factory() as client:
            login = self._login(client)
            try:
                first = client.get(url, what, params={"per_page": PER_PAGE_MAX})
                pages = [first]
                if last_url := first.last_url:
                    pages.append(client.get(last_url, what))
            except GitHubError as exc:
                raise _tool_error(exc, write=False) from None
        for page in reversed(pages):
            for comment in reversed(page.data if isinstance(page.data, list) else []):
                if isinstance(comment, dict) and _by(comment, login) and marker(token) in str(comment.get("body")):
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


def _by(comment: dict[str, Any], login: str) -> bool:
    user = comment.get("user")
    author = user.get("login") if isinstance(user, dict) else None
    return isinstance(author, str) and author.casefold() == login.casefold()


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
    if isinstance(exc, GitHubRateLimitedError):
        return TransientToolError(f"{message}; try again after {clock_time(exc.reset_at)}")
    if write and isinstance(exc, GitHubTimeoutError):
        # A timeout is never retried by the executor; the note tells the user to look before redoing it.
        return TimeoutError(f"{message}: it may have taken effect; check on GitHub before doing it again")
    if write and exc.maybe_sent:
        return TransientToolError(
            f"{message}: it may have taken effect; check on GitHub before doing it again", maybe_done=True
        )
    if exc.transient:
        return TransientToolError(message)
    return PermanentToolError(message)
