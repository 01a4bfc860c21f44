"""A small GitHub REST client on httpx: auth, Link pagination, ETags, rate-limit waits, one error tree.

Reads are retried (they are safe to repeat): a 5xx, a dropped connection or a timeout up to
`READ_ATTEMPTS` times, and a rate limit by waiting for its reset when that is at most `max_wait_s`
away. Writes are sent once: whatever happens to them is the caller's to report, since a write
that timed out may still have taken effect.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from atlas import __version__
from atlas.foundation import limits
from atlas.foundation.config import github_concurrency
from atlas.foundation.errors import ConfigError
from atlas.foundation.redact import redact_secrets, redact_url, url_secrets
from atlas.foundation.tls import shared_context
from atlas.github.errors import (
    GitHubError,
    GitHubRateLimitedError,
    GitHubTimeoutError,
    GitHubUnavailableError,
    GitHubUnreachable,
    clock_time,
    error_for,
    header_number,
)

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
PER_PAGE_MAX = 100
READ_ATTEMPTS = 3
MAX_PAGES = 20_000
"""Pages one listing may take: 2,000,000 items at 100 a page, more than any repository holds."""
RETRY_PAUSE_S = 1.0
WAIT_SLICE_S = 0.2
"""The longest single wait inside a pause: how late a Ctrl-C can be seen at worst."""
REPO_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")

WaitNotice = Callable[[str], None]


def parse_repo(text: str) -> str:
    """`OWNER/REPO` as GitHub spells it, or a ConfigError."""
    repo = text.strip().removeprefix("https://github.com/").removesuffix(".git").strip("/")
    if not REPO_RE.match(repo) or repo.split("/")[1] in (".", ".."):
        raise ConfigError(f"{text!r} is not a repository: expected OWNER/REPO, e.g. octo-org/octo-repo")
    return repo


def api_url() -> str:
    """`GITHUB_API_URL` (set by GitHub Actions and for GitHub Enterprise), else api.github.com."""
    value = os.environ.get("GITHUB_API_URL", "").strip().rstrip("/")
    if not value:
        return DEFAULT_API_URL
    if not value.startswith(("https://", "http://")):
        raise ConfigError(f"GITHUB_API_URL must be an http(s) URL, got {redact_secrets(value)!r}")
    return value


def find_token(base_url: str = DEFAULT_API_URL) -> str | None:
    """`GITHUB_TOKEN`, else what `gh auth token` prints for the API's host, else None (public data only)."""
    token = os.environ.get("GITHUB_TOKEN", "").strip() or os.environ.get("GH_TOKEN", "").strip()
    if token:
        return token
    gh = shutil.which("gh")
    if gh is None:
        return None
    host = httpx.URL(base_url).host
    # gh keeps one token per host: a GitHub Enterprise API needs that host's, not github.com's.
    where = [] if host in ("api.github.com", "github.com") else ["--hostname", host]
    try:
        done = subprocess.run([gh, "auth", "token", *where], capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


@dataclass(frozen=True)
class Page:
    """One answer: its JSON (None for 304 Not Modified), its ETag and the next page's URL."""

    status: int
    data: Any
    etag: str | None
    next_url: str | None
    last_url: str | None = None

    @property
    def not_modified(self) -> bool:
        return self.status == 304


class GitHubClient:
    """Requests to one GitHub API; `transport` is where tests put the fake server's address or a fault."""

    def __init__(
        self,
        *,
        token: str | None,
        base_url: str = DEFAULT_API_URL,
        timeout_s: float = 10.0,
        max_wait_s: float = 900.0,
        read_attempts: int = READ_ATTEMPTS,
        max_pages: int = MAX_PAGES,
        on_wait: WaitNotice | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"atlas-orbit/{__version__}",
        }
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.base_url = base_url.rstrip("/")
        self.shown_url = redact_url(self.base_url)
        """The API as messages may show it: without the credentials a URL can carry."""
        self._secrets = [token, *url_secrets(self.base_url)]
        self.timeout_s = timeout_s
        self.concurrency = github_concurrency()
        """Requests at once to GitHub from the whole process (`atlas.foundation.limits`), not from this client alone."""
        self.max_wait_s = max_wait_s
        self.read_attempts = max(1, read_attempts)
        self.max_pages = max_pages
        self.on_wait = on_wait
        self._stopped = threading.Event()
        # Waits end early when the client is stopped, so Ctrl-C never sits out a rate-limit reset.
        self._sleep = sleep or self._stoppable_wait
        self._announced: float | None = None
        self._spent_until = 0.0
        """Epoch seconds until which a success said `x-ratelimit-remaining: 0`."""
        self.requests = 0
        """Requests sent, retries and 304s included."""
        self._http = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=timeout_s,
            transport=transport,
            follow_redirects=False,
            verify=shared_context(httpx.create_ssl_context),
        )

    def stop(self) -> None:
        """End every wait now; requests still running finish, none starts."""
        self._stopped.set()

    def _stoppable_wait(self, seconds: float) -> None:
        """Wait `seconds`, or until the client is stopped. In short waits: the main thread runs a
        signal's Python handler only between them, so a Ctrl-C that lands just before one long wait
        begins would otherwise be held until all of it has passed."""
        ends = time.monotonic() + seconds
        while not self._stopped.is_set() and (left := ends - time.monotonic()) > 0:
            self._stopped.wait(min(left, WAIT_SLICE_S))

    def close(self) -> None:
        self.stop()
        self._http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, url: str, what: str, *, params: dict[str, Any] | None = None, etag: str | None = None) -> Page:
        """A GET, retried on transient failures; `etag` makes it conditional (a 304 costs no rate limit)."""
        headers = {"If-None-Match": etag} if etag else {}
        for attempt in range(1, self.read_attempts + 1):
            try:
                response = self._send("GET", url, what, params=params, headers=headers)
            except GitHubRateLimitedError as exc:
                self._wait_for_reset(exc)
                continue
            except (GitHubUnavailableError, GitHubTimeoutError):
                if attempt == self.read_attempts:
                    raise
                self._pause(RETRY_PAUSE_S * attempt)
                continue
            return self._page(response)
        raise GitHubUnavailableError(f"GitHub kept failing on {what}; try again later")

    def pages(self, url: str, what: str, *, params: dict[str, Any], etag: str | None = None) -> Iterator[Page]:
        """The first page (conditional on `etag`), then each page its Link header names."""
        page = self.get(url, what, params=params, etag=etag)
        yield page
        seen: set[str] = set()
        while page.next_url is not None:
            # A link back to a page already read (itself, or a loop) would never end.
            if page.next_url in seen or len(seen) + 1 >= self.max_pages:
                why = (
                    "links back to a page already read"
                    if page.next_url in seen
                    else f"runs past {self.max_pages:,} pages"
                )
                raise GitHubError(f"GitHub's listing of {what} {why}; stopped there")
            seen.add(page.next_url)
            page = self.get(page.next_url, what)
            yield page

    def write(self, method: str, url: str, what: str, *, json: Any = None) -> Any:
        """A POST, PUT, PATCH or DELETE, sent once; its JSON answer (None when it has none)."""
        response = self._send(method, url, what, json=json)
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise GitHubError(f"GitHub's answer to {what} was not JSON") from None

    def _send(self, method: str, url: str, what: str, **kwargs: Any) -> httpx.Response:
        try:
            return self._send_once(method, url, what, **kwargs)
        except GitHubError as exc:
            # A server may echo the token, or the URL's credentials, back in its message.
            exc.args = (redact_secrets(str(exc), self._secrets),)
            raise

    def _send_once(self, method: str, url: str, what: str, **kwargs: Any) -> httpx.Response:
        if self._stopped.is_set():
            raise GitHubError(f"stopped before {what}")
        if self._spent_until > time.time():
            # The last answer said the quota is spent: a request now would only earn a 403.
            raise GitHubRateLimitedError(
                f"GitHub's rate limit was reached; it resets at {clock_time(self._spent_until)}",
                reset_at=self._spent_until,
            )
        self.requests += 1
        try:
            with limits.slot(limits.GITHUB, self.concurrency, timeout=self.timeout_s):
                response = self._http.request(method, url, **kwargs)
        except limits.SourceBusy as exc:
            raise GitHubUnreachable(f"{what} was not sent: {exc}") from None
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise GitHubUnreachable(f"cannot connect to {self.shown_url}: {type(exc).__name__}") from None
        except httpx.TimeoutException:
            raise GitHubTimeoutError(f"GitHub did not answer {what} in time") from None
        except (httpx.TransportError, httpx.DecodingError) as exc:
            raise GitHubUnavailableError(f"the connection to GitHub failed on {what}: {type(exc).__name__}") from None
        self._note_quota(response)
        if response.status_code >= 400:
            raise error_for(response, what)
        if response.status_code >= 300 and response.status_code != 304:
            raise GitHubError(f"GitHub redirected {what} ({response.status_code}); check GITHUB_API_URL")
        if response.status_code == 304 and "If-None-Match" not in kwargs.get("headers", {}):
            raise GitHubError(f"GitHub answered 304 Not Modified to {what}, which asked for no ETag")
        return response

    def _note_quota(self, response: httpx.Response) -> None:
        if response.headers.get("x-ratelimit-remaining") == "0" and response.status_code < 400:
            reset = header_number(response.headers.get("x-ratelimit-reset"))
            self._spent_until = reset if reset is not None else time.time() + 60.0

    def _page(self, response: httpx.Response) -> Page:
        if response.status_code == 304:
            return Page(304, None, response.headers.get("etag"), None)
        try:
            data = response.json()
        except ValueError:
            raise GitHubError(f"GitHub's answer to {response.request.url.path} was not JSON") from None
        etag = response.headers.get("etag")
        return Page(response.status_code, data, etag, self._link(response, "next"), self._link(response, "last"))

    def _link(self, response: httpx.Response, rel: str) -> str | None:
        """A page the Link header names, followed only on the same API: a token is never sent elsewhere."""
        url = response.links.get(rel, {}).get("url")
        if not url:
            return None
        relative = self._on_this_api(url)
        if relative is None:
            raise GitHubError(f"GitHub's next-page link points outside {self.shown_url}; stopped there")
        return relative

    def _on_this_api(self, url: str) -> str | None:
        """The link relative to the API (so it is sent as the API is, credentials included), or None
        when it leaves it: another scheme, host, port or path, or credentials of its own."""
        try:
            link, base = httpx.URL(url), httpx.URL(self.base_url)
        except httpx.InvalidURL:
            return None
        prefix = base.raw_path.split(b"?")[0].rstrip(b"/")
        same_place = (link.scheme, link.host, link.port) == (base.scheme, base.host, base.port)
        if not same_place or link.userinfo or not link.raw_path.startswith(prefix + b"/"):
            return None
        return link.raw_path[len(prefix) :].decode("ascii")

    def _wait_for_reset(self, exc: GitHubRateLimitedError) -> None:
        wait = max(0.0, exc.reset_at - time.time())
        if wait > self.max_wait_s:
            raise exc
        # Parallel requests meet the same limit: one message per reset, not one per request.
        if self.on_wait is not None and (self._announced is None or abs(self._announced - exc.reset_at) > 1):
            self._announced = exc.reset_at
            self.on_wait(
                f"GitHub's rate limit was reached: waiting {wait:.0f} s, until {clock_time(exc.reset_at)} "
                "(Ctrl-C stops; nothing is written until the sync ends)"
            )
        self._pause(wait)
        if self._spent_until <= exc.reset_at:
            self._spent_until = 0.0  # waited out: the next answer says how much is left

    def _pause(self, seconds: float) -> None:
        self._sleep(seconds)
        if self._stopped.is_set():
            raise GitHubError("stopped while waiting")
