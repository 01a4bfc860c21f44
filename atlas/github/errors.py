"""What a GitHub request can end in, with httpx's exceptions translated here and nowhere else::

GitHubError                 one line a person can act on; `transient` says whether later may work
├── GitHubAuthError         401, or 403 for a missing scope / forbidden repo
├── GitHubNotFoundError          404: no such repository or issue (or the token cannot see it)
├── GitHubGoneError              410: issues are switched off for the repository
├── GitHubInvalidError           422: GitHub's validation message
├── GitHubRateLimitedError       403/429 with a rate limit, and when it resets (transient)
├── GitHubUnavailableError       5xx or a dropped connection (transient)
│   └── GitHubUnreachable   no connection made: nothing was sent
└── GitHubTimeoutError           no answer in time; for a write, it may have taken effect (transient)
"""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime

import httpx

from atlas.foundation.errors import cap


class GitHubError(Exception):
    transient = False
    maybe_sent = False
    """For a write: whether GitHub may have acted on it although no answer said so."""


class GitHubAuthError(GitHubError):
    pass


class GitHubNotFoundError(GitHubError):
    pass


class GitHubGoneError(GitHubError):
    pass


class GitHubInvalidError(GitHubError):
    pass


class GitHubRateLimitedError(GitHubError):
    transient = True

    def __init__(self, message: str, *, reset_at: float) -> None:
        super().__init__(message)
        self.reset_at = reset_at
        """Epoch seconds when a request may be sent again."""


class GitHubUnavailableError(GitHubError):
    transient = True
    maybe_sent = True  # a 5xx or a dropped connection can follow the write itself


class GitHubTimeoutError(GitHubError):
    transient = True
    maybe_sent = True


class GitHubUnreachable(GitHubUnavailableError):
    """No connection was made, so nothing was sent."""

    maybe_sent = False


def clock_time(epoch: float) -> str:
    """`04:59:12 UTC`: when a wait ends, as a person reads it."""
    try:
        return datetime.fromtimestamp(epoch, UTC).strftime("%H:%M:%S UTC")
    except (ValueError, OverflowError, OSError):
        return "an unknown time"


def rate_limit_reset(response: httpx.Response, now: float | None = None) -> float | None:
    """When a rate-limited response says to come back (epoch seconds), or None if it is no rate limit.

    GitHub signals a secondary limit with `retry-after`, a primary one with
    `x-ratelimit-remaining: 0` and `x-ratelimit-reset`; either comes as 403 or 429.
    """
    if response.status_code not in (403, 429):
        return None
    now = time.time() if now is None else now
    headers = response.headers
    if (after := header_number(headers.get("retry-after"))) is not None:
        return now + after
    if headers.get("x-ratelimit-remaining") == "0":
        reset = header_number(headers.get("x-ratelimit-reset"))
        return max(now, reset) if reset is not None else now + 60.0
    if response.status_code == 429 or "secondary rate limit" in _message(response).lower():
        return now + 60.0  # GitHub's advice when a secondary limit names no time: wait a minute
    return None


def error_for(response: httpx.Response, what: str) -> GitHubError:
    """The error a failed response means; `what` names the request (`issue #41 of owner/repo`)."""
    status, message = response.status_code, _message(response)
    reset_at = rate_limit_reset(response)
    if reset_at is not None:
        message = f"GitHub's rate limit was reached; it resets at {clock_time(reset_at)}"
        return GitHubRateLimitedError(message, reset_at=reset_at)
    if status == 401:
        return GitHubAuthError("GitHub refused the token (401): set GITHUB_TOKEN or run `gh auth login`")
    if status == 403:
        scopes = response.headers.get("x-accepted-oauth-scopes", "").strip()
        needs = f" (this needs the scope: {scopes})" if scopes else ""
        return GitHubAuthError(cap(f"GitHub refused {what} (403): {message or 'forbidden'}{needs}"))
    if status == 404:
        return GitHubNotFoundError(
            f"GitHub answered 404 for {what}: no such repository or issue, or the token cannot see it"
        )
    if status == 410:
        return GitHubGoneError(f"GitHub answered 410 for {what}: issues are switched off for this repository")
    if status == 422:
        return GitHubInvalidError(cap(f"GitHub rejected {what} (422): {message or 'validation failed'}"))
    if status >= 500:
        return GitHubUnavailableError(f"GitHub failed on {what} ({status}); try again later")
    return GitHubError(cap(f"GitHub answered {status} for {what}: {message}"))


def _message(response: httpx.Response) -> str:
    """GitHub's own words: `message`, and for 422 each `errors[].message` or field/code."""
    try:
        payload = response.json()
    except ValueError:
        return ""
    if not isinstance(payload, dict):
        return ""
    parts = [str(payload.get("message", ""))]
    for error in payload.get("errors") or []:
        if isinstance(error, dict):
            parts.append(str(error.get("message") or f"{error.get('field', '?')} {error.get('code', 'invalid')}"))
        elif isinstance(error, str):
            parts.append(error)
    return "; ".join(part for part in parts if part)


MAX_HEADER_SECONDS = 10_000_000_000.0
"""Past this (the year 2286) an epoch or a wait in seconds is no time a server means."""


def header_number(value: str | None) -> float | None:
    """A rate-limit header's seconds; None when absent or not a time (negative, NaN, infinite, absurd)."""
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    if number is None or not math.isfinite(number) or not 0 <= number <= MAX_HEADER_SECONDS:
        return None
    return number
