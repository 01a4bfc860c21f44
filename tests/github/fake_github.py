"""A fake GitHub REST API on loopback: one repository's issues, comments and labels, with faults on demand.

It answers with GitHub's documented shapes and headers: `Link` (next/last, absolute URLs),
`ETag` with `If-None-Match` → 304 (which leaves the rate limit alone), `x-ratelimit-*`,
`retry-after`, and GitHub's error bodies (`{"message", "errors"}`). Faults are queued per
route and each is used once: a primary or secondary rate limit, a 5xx, a slow answer, a dropped
connection (before or after the write took effect), a 422, a 403 for a missing scope. Each
issue's events (`GET .../issues/{n}/events`, oldest first, paged like every listing) record its
`labeled` and `unlabeled` changes: by the token's account when made through the API, by whoever
`unlabel` names when a person does it on the web.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.support.loopback import Loopback, QuietHandler, QuietServer

REPO = "quill-org/quill"
TOKEN = "ghp_fake_token_for_tests"


@dataclass
class Fault:
    """One injected failure for the next request whose method and path match."""

    method: str
    path: str
    """A regex matched against the path (no query)."""
    kind: str
    """rate_limit, secondary, server_error, slow, drop, drop_after, invalid, scope, gone, not_modified,
    inf_reset (a primary limit resetting at `inf`), nan_retry (a secondary one with `retry-after: nan`),
    echo (a 422 whose message repeats the request's credentials)."""
    seconds: float = 0.0


@dataclass
class FakeGitHub:
    """The repository's state, what was asked of it, and the faults still to come."""

    repo: str = REPO
    token: str | None = TOKEN
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    """REST issue objects (pull requests too), by number."""
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    events: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """Each issue's events, oldest first, as `GET /repos/{owner}/{repo}/issues/{n}/events` lists them."""
    repo_labels: set[str] = field(default_factory=set)
    faults: list[Fault] = field(default_factory=list)
    log: list[tuple[str, str, int]] = field(default_factory=list)
    """(method, path?query, status) of every request answered or dropped."""
    rate_remaining: int = 5000
    rate_reset_in: float = 3600.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    base_url: str = ""
    login: str = "atlas-user"
    """Whose token `token` is: `GET /user` answers it, and comments posted with the token are by it."""
    extra_headers: dict[str, str] = field(default_factory=dict)
    """Sent with every answer, over the usual ones (a hostile `Link`, odd rate-limit headers)."""
    endless: bool = False
    """Every list page links to one more (a server that never ends)."""
    latency_s: float = 0.0
    """Every answer takes at least this long: requests overlap, and `most_in_flight` shows how many did."""
    in_flight: int = 0
    most_in_flight: int = 0
    _next_comment_id: int = 900_000
    _next_event_id: int = 500_000

    def add_issue(self, issue: dict[str, Any], comments: list[dict[str, Any]] | None = None) -> None:
        self.issues[issue["number"]] = issue
        self.comments[issue["number"]] = list(comments or [])
        self.events[issue["number"]] = []
        self.repo_labels.update(label["name"] for label in issue.get("labels", []))

    def touch(self, number: int, when: str) -> None:
        """An edit on GitHub: the issue's `updated_at` moves."""
        self.issues[number]["updated_at"] = when

    def label_event(self, number: int, kind: str, label: str, login: str | None) -> None:
        """A `labeled` or `unlabeled` event in GitHub's shape; `login` None: a deleted account (`actor: null`)."""
        with self.lock:
            self._next_event_id += 1
            event_id = self._next_event_id
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        actor = None if login is None else {"login": login, "id": 7, "type": "User"}
        self.events.setdefault(number, []).append(
            {
                "id": event_id,
                "node_id": f"LE_{event_id}",
                "url": f"{self.base_url}/repos/{self.repo}/issues/events/{event_id}",
                "actor": actor,
                "event": kind,
                "commit_id": None,
                "commit_url": None,
                "created_at": now,
                "label": {"name": label, "color": "ededed"},
                "performed_via_github_app": None,
            }
        )

    def unlabel(self, number: int, label: str, login: str | None) -> None:
        """Someone takes a label off an issue on the web."""
        issue = self.issues[number]
        issue["labels"] = [existing for existing in issue["labels"] if existing["name"] != label]
        self.label_event(number, "unlabeled", label, login)
        issue["updated_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

    def inject(self, method: str, path: str, kind: str, seconds: float = 0.0) -> None:
        self.faults.append(Fault(method, path, kind, seconds))

    def requests(self, method: str = "", contains: str = "") -> list[tuple[str, str, int]]:
        return [entry for entry in self.log if entry[0].startswith(method) and contains in entry[1]]

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.method == method and re.fullmatch(fault.path, path):
                    self.faults.remove(fault)
                    return fault
        return None

    def new_comment(self, number: int, body: str, login: str) -> dict[str, Any]:
        with self.lock:
            self._next_comment_id += 1
            comment_id = self._next_comment_id
            now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            comment = {
                "id": comment_id,
                "html_url": f"https://github.com/{self.repo}/issues/{number}#issuecomment-{comment_id}",
                "user": {"login": login},
                "body": body,
                "created_at": now,
                "updated_at": now,
            }
            self.comments[number].append(comment)
            self.issues[number]["comments"] = len(self.comments[number])
            self.issues[number]["updated_at"] = now
        return comment


class _Handler(QuietHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    _in_flight = False
    """Whether the request being served still counts in `FakeGitHub.in_flight`."""

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        fake = self.server.fake
        with fake.lock:
            fake.in_flight += 1
            fake.most_in_flight = max(fake.most_in_flight, fake.in_flight)
        self._in_flight = True
        try:
            time.sleep(fake.latency_s)
            self._answer(method)
        finally:
            self._landed()

    def _landed(self) -> None:
        """The request is no longer in flight once its answer starts out: the client can read it and
        send its next request before this thread runs again, so counting until after the answer was
        written would count one request that the client already saw finish."""
        if self._in_flight:
            self._in_flight = False
            with self.server.fake.lock:
                self.server.fake.in_flight -= 1

    def _answer(self, method: str) -> None:
        fake = self.server.fake
        url = urlsplit(self.path)
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        fault = fake.take_fault(method, url.path)
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.seconds)
        elif fault is not None and fault.kind != "drop_after":
            return self._fail(fault, method)
        if fake.token and not self._authorized(fake.token):
            return self._send(method, 401, {"message": "Bad credentials"})
        status, payload, headers = route(fake, method, url.path, parse_qs(url.query), body)
        if fault is not None and fault.kind == "drop_after":
            fake.log.append((method, self.path, 0))
            self.close_connection = True  # the write happened; its answer never arrives
            return
        etag = headers.get("ETag")
        if status == 200 and method == "GET" and etag and self.headers.get("if-none-match") == etag:
            return self._send(method, 304, None, {"ETag": etag})  # free: the rate limit is not touched
        fake.rate_remaining -= 1
        self._send(method, status, payload, {**headers, **fake.extra_headers})

    def _authorized(self, token: str) -> bool:
        """GitHub takes the token as a bearer token, or as the password of Basic auth (`x-access-token:TOKEN@`)."""
        sent = self.headers.get("authorization") or ""
        if sent == f"Bearer {token}":
            return True
        if sent.startswith("Basic "):
            try:
                return base64.b64decode(sent[6:]).decode().partition(":")[2] == token
            except ValueError:
                return False
        return False

    def _fail(self, fault: Fault, method: str) -> None:
        reset = str(int(time.time() + fault.seconds))
        if fault.kind == "drop":
            self.server.fake.log.append((method, self.path, 0))
            self.close_connection = True
            return
        answers: dict[str, tuple[int, dict[str, Any], dict[str, str]]] = {
            "rate_limit": (
                403,
                {"message": "API rate limit exceeded for user ID 1.", "documentation_url": "https://docs.github.com"},
                {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset, "x-ratelimit-limit": "5000"},
            ),
            "secondary": (
                429,
                {"message": "You have exceeded a secondary rate limit."},
                {"retry-after": str(int(fault.seconds))},
            ),
            "server_error": (502, {"message": "Server Error"}, {}),
            "invalid": (
                422,
                {
                    "message": "Validation Failed",
                    "errors": [
                        {"resource": "IssueComment", "code": "custom", "field": "body", "message": "body is too long"}
                    ],
                },
                {},
            ),
            "scope": (
                403,
                {"message": "Resource not accessible by personal access token"},
                {"x-accepted-oauth-scopes": "repo"},
            ),
            "gone": (410, {"message": "Issues are disabled for this repo"}, {}),
            "not_modified": (304, None, {}),
            "inf_reset": (
                403,
                {"message": "API rate limit exceeded for user ID 1."},
                {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "inf"},
            ),
            "nan_retry": (429, {"message": "You have exceeded a secondary rate limit."}, {"retry-after": "nan"}),
            "echo": (422, {"message": f"Validation Failed for {self.headers.get('authorization')}"}, {}),
        }
        status, payload, headers = answers[fault.kind]
        self._send(method, status, payload, headers)

    def _send(self, method: str, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self._landed()
        fake = self.server.fake
        fake.log.append((method, self.path, status))
        data = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        sent = {
            "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": str(max(fake.rate_remaining, 0)),
            "x-ratelimit-reset": str(int(time.time() + fake.rate_reset_in)),
            **(headers or {}),
        }
        for name, value in sent.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


Answer = tuple[int, Any, dict[str, str]]


def route(fake: FakeGitHub, method: str, path: str, query: dict[str, list[str]], body: Any) -> Answer:
    if path == "/user" and method == "GET":
        if not fake.token:
            return 401, {"message": "Requires authentication"}, {}
        return 200, {"login": fake.login, "id": 1, "type": "User"}, {}
    prefix = f"/repos/{fake.repo}/issues"
    if not path.startswith(prefix):
        return 404, {"message": "Not Found"}, {}
    rest = path[len(prefix) :]
    if method == "GET" and rest == "":
        return _list_issues(fake, query, path)
    match = re.fullmatch(r"/(\d+)(/comments|/events|/labels(?:/(.+))?)?", rest)
    if not match or int(match.group(1)) not in fake.issues:
        return 404, {"message": "Not Found"}, {}
    number, sub, label = int(match.group(1)), match.group(2), match.group(3)
    issue = fake.issues[number]
    if sub is None and method == "GET":
        return 200, issue, {}
    if sub == "/comments" and method == "GET":
        return _paged(fake, fake.comments[number], query, path)
    if sub == "/events" and method == "GET":
        return _paged(fake, fake.events.get(number, []), query, path)
    if sub == "/comments" and method == "POST":
        return 201, fake.new_comment(number, body["body"], fake.login), {}
    if sub == "/labels" and method == "POST":
        names = [label["name"] for label in issue["labels"]]
        for name in body["labels"]:
            if name not in names:
                issue["labels"].append({"name": name, "color": "ededed"})
                fake.label_event(number, "labeled", name, fake.login)
        fake.repo_labels.update(body["labels"])
        return 200, issue["labels"], {}
    if sub and label is not None and method == "DELETE":
        name = unquote(label)
        if name not in [existing["name"] for existing in issue["labels"]]:
            return 404, {"message": "Label does not exist"}, {}
        issue["labels"] = [existing for existing in issue["labels"] if existing["name"] != name]
        fake.label_event(number, "unlabeled", name, fake.login)
        return 200, issue["labels"], {}
    return 404, {"message": "Not Found"}, {}


def _list_issues(fake: FakeGitHub, query: dict[str, list[str]], path: str) -> Answer:
    since = query.get("since", [""])[0]
    items = sorted(
        (issue for issue in fake.issues.values() if issue["updated_at"] >= since),
        key=lambda issue: (issue["updated_at"], issue["number"]),
    )
    return _paged(fake, items, query, path)


def _paged(fake: FakeGitHub, items: list[Any], query: dict[str, list[str]], path: str) -> Answer:
    per_page = int(query.get("per_page", ["30"])[0])
    page = int(query.get("page", ["1"])[0])
    pages = max(1, -(-len(items) // per_page))
    chunk = items[(page - 1) * per_page : page * per_page]
    headers = {"ETag": 'W/"' + hashlib.sha256(json.dumps(chunk, sort_keys=True).encode()).hexdigest()[:32] + '"'}
    links = []
    kept = {key: values[0] for key, values in query.items() if key != "page"}
    base = fake.base_url + path + "?" + "&".join(f"{key}={value}" for key, value in kept.items())
    if fake.endless:
        links.append(f'<{base}&page={page + 1}>; rel="next"')
    elif page < pages:
        links.append(f'<{base}&page={page + 1}>; rel="next"')
        links.append(f'<{base}&page={pages}>; rel="last"')
    if links:
        headers["Link"] = ", ".join(links)
    return 200, chunk, headers


class _Server(QuietServer):
    fake: FakeGitHub


class RunningFake(Loopback):
    """The fake served on 127.0.0.1 in a thread; `url` is its API base."""

    def __init__(self, fake: FakeGitHub) -> None:
        super().__init__(_Handler, server=_Server)
        self.fake = fake
        assert isinstance(self.server, _Server)
        self.server.fake = fake
        fake.base_url = self.url
