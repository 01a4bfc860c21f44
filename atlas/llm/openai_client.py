"""What both OpenAI-wire adapters share: the client's key and base URL, and SDK errors as one line.

Every SDK or stream failure of either API (Responses or Chat Completions) is translated here into
an Atlas `ModelError`, so the two adapters cannot word or classify a failure differently.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TypeVar

import openai

from atlas.foundation.config import base_url_setting, env_number
from atlas.foundation.errors import (
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelProtocolError,
    RateLimitedError,
    cap,
)
from atlas.foundation.url_safety import hide, redact_url, url_secrets
from atlas.llm.server_time import transport_for
from atlas.llm.wait import OutOfTime, Retry

DEFAULT_TIMEOUT_S = 60.0
MAX_RETRIES = 2
DEFAULT_BASE_URL = "https://api.openai.com/v1"
NO_KEY = "set OPENAI_API_KEY or use --model offline"
PLACEHOLDER_KEY = "atlas-no-key"
"""Sent to a server named by a base URL when there is no key: local servers ask for none."""


def model_timeout() -> float:
    """`ATLAS_MODEL_TIMEOUT`: the seconds one model request may take in all, its stream included."""
    return env_number("ATLAS_MODEL_TIMEOUT", DEFAULT_TIMEOUT_S, unit="seconds", positive=True)


def client_endpoint(api_key: str | None = None, base_url: str | None = None) -> tuple[str, str]:
    """The key and base URL to use: given ones, else the environment; a placeholder key for a named server."""
    url = (base_url or base_url_setting() or DEFAULT_BASE_URL).rstrip("/")
    key = api_key or os.environ.get("OPENAI_API_KEY", "").strip()
    if not key:
        if url == DEFAULT_BASE_URL:
            raise ModelAuthError(NO_KEY, url=url)
        key = PLACEHOLDER_KEY
    return key, url


E = TypeVar("E", bound=ModelError)


@dataclass(frozen=True)
class Refusal:
    """What an HTTP refusal told beyond its text."""

    status: int
    retry_after: float | None


@dataclass(frozen=True)
class Wire:
    """Where one adapter's requests go, for naming it in every error."""

    model: str
    base_url: str
    path: str
    """The endpoint the adapter posts to: `responses` or `chat/completions`."""
    timeout_s: float
    max_retries: int
    keyless: bool = False
    """No key was set and the placeholder was sent: a refusal then says to set one."""
    hidden: tuple[str, ...] = ()
    """Secrets of the real base URL (`base_url` is its redacted form): never in a message."""

    def translate(self, exc: openai.OpenAIError) -> ModelError:
        """One line a maintainer can act on, for every SDK exception."""
        if isinstance(exc, openai.APITimeoutError):
            return self.made(
                ModelConnectionError,
                f"{self.base_url} did not answer within {self.timeout_s:g} s "
                "(set ATLAS_MODEL_TIMEOUT to wait longer, or use --model offline)",
            )
        if isinstance(exc, openai.APIConnectionError):
            return self.made(
                ModelConnectionError,
                f"could not reach {self.base_url}{cause(exc)} (check the base URL, or use --model offline)",
            )
        if isinstance(exc, openai.APIStatusError):
            return self._status(exc)
        if isinstance(exc, openai.APIError):
            return self.made(ModelProtocolError, f"the model {self.model!r} failed: {one_line(exc.message)}")
        return self.made(ModelError, f"the OpenAI client failed: {one_line(str(exc)) or type(exc).__name__}")

    def made(self, error: type[E], message: str, refusal: Refusal | None = None) -> E:
        """An error of this wire: the model asked for, the base URL and what a refusal told, as fields."""
        status, retry_after = (refusal.status, refusal.retry_after) if refusal is not None else (None, None)
        # The SDK's and the server's words may quote the URL with its credentials.
        shown = hide(message, self.hidden)
        return error(shown, model=self.model, url=self.base_url, status=status, retry_after=retry_after)

    def _status(self, exc: openai.APIStatusError) -> ModelError:
        message = server_message(exc)
        status = exc.status_code
        refusal = Refusal(status, retry_after_s(exc.response.headers))
        if status in (401, 403):
            missing = " (no OPENAI_API_KEY is set: this server needs one)" if self.keyless else ""
            return self.made(
                ModelAuthError, f"{self.base_url} refused the API key ({status}){missing}: {message}", refusal
            )
        if status == 404:
            return self._not_found(exc, message, refusal)
        if status == 429:
            return self.made(
                RateLimitedError,
                f"rate limited by {self.base_url} (429), still after {self.max_retries} retries: {message}",
                refusal,
            )
        return self.made(ModelError, f"{self.base_url} answered {status}: {message}", refusal)

    def _not_found(self, exc: openai.APIStatusError, message: str, refusal: Refusal) -> ModelError:
        """A 404 names the model, unless the endpoint itself is missing (a server of the other API)."""
        body = exc.body
        # The SDK hands over the error object itself (`{"message", "type", "code"}`); a server
        # without the endpoint answers in its framework's shape (`{"detail": ...}`) or in plain text.
        error = body.get("error", body) if isinstance(body, dict) else None
        if (isinstance(error, dict) and "message" in error) or (self.model and self.model in message):
            hint = "; if the server speaks only Chat Completions, use --api chat" if self.path == "responses" else ""
            return self.made(
                ModelNotFoundError, f"model {self.model!r} was not found at {self.base_url}: {message}{hint}", refusal
            )
        if self.path == "responses":
            return self.made(
                ModelNotFoundError,
                f"{self.base_url} has no /responses endpoint (404): it probably speaks only Chat Completions; "
                "use --api chat (or ATLAS_API=chat)",
                refusal,
            )
        return self.made(
            ModelNotFoundError,
            f"{self.base_url} has no /{self.path} endpoint (404): check ATLAS_BASE_URL (it usually ends in /v1)",
            refusal,
        )

    def stalled(self) -> ModelConnectionError:
        return self.made(
            ModelConnectionError,
            f"the model's stream from {self.base_url} stalled: not done within {self.timeout_s:g} s "
            "(set ATLAS_MODEL_TIMEOUT to wait longer)",
        )

    def out_of_time(self, exc: OutOfTime) -> ModelConnectionError:
        """The question's deadline ran out before the model was done."""
        return self.made(
            ModelConnectionError,
            f"the question's deadline (--deadline {exc.deadline.seconds:g} s) ran out "
            f"while waiting for the model at {self.base_url}",
        )

    def dropped(self, exc: BaseException) -> ModelConnectionError:
        return self.made(
            ModelConnectionError, f"the connection to {self.base_url} dropped while the model was answering{cause(exc)}"
        )

    def malformed(self, exc: BaseException) -> ModelProtocolError:
        return self.made(
            ModelProtocolError, f"the model's stream from {self.base_url} sent a malformed chunk ({one_line(str(exc))})"
        )

    def ended_early(self, what: str) -> ModelProtocolError:
        return self.made(ModelProtocolError, f"the model's stream from {self.base_url} ended early, without {what}")


def server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return one_line(error["message"])
    return one_line(exc.message)


def open_client(
    name: str, path: str, api_key: str | None, base_url: str | None, timeout_s: float | None, max_retries: int
) -> tuple[Wire, openai.AsyncOpenAI]:
    """The wire an adapter names in its errors, and the SDK client it sends through.

    Each request gets `ATLAS_MODEL_TIMEOUT` for its headers and as much again, in all, for its
    whole stream (`server_time.ServerTime`): a stream that dribbles or sends only keep-alives ends too. The
    SDK does not retry (`max_retries=0`): `atlas.llm.wait.with_retries` does, where each wait can be seen.
    """
    key, url = client_endpoint(api_key, base_url)
    timeout = timeout_s if timeout_s is not None else model_timeout()
    wire = Wire(name, redact_url(url), path, timeout, max_retries, key == PLACEHOLDER_KEY, tuple(url_secrets(url)))
    http = openai.DefaultAsyncHttpxClient(transport=transport_for(url, timeout))
    return wire, openai.AsyncOpenAI(api_key=key, base_url=url, timeout=timeout, max_retries=0, http_client=http)


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """How long the server asked to wait: `retry-after-ms`, `Retry-After` in seconds or as a date; None if unsaid."""
    try:
        if (millis := headers.get("retry-after-ms")) is not None:
            return max(0.0, float(millis) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        with suppress(ValueError):
            return max(0.0, float(value))
        when = parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    except (ValueError, TypeError, OverflowError):  # the header is the server's to get wrong
        return None


def cause(exc: BaseException) -> str:
    """`: <what the transport said>`, or nothing when it said nothing."""
    reason = exc.__cause__ or exc.__context__
    return f": {one_line(str(reason))}" if reason is not None and str(reason).strip() else ""


def one_line(text: str) -> str:
    return cap(" ".join(text.split()))


RETRY_STATUSES = {408: "request timeout", 409: "conflict", 429: "rate limited"}


def sdk_retry(exc: Exception) -> Retry | None:
    """Whether an SDK failure to open a response is worth another attempt, as the SDK itself decides.

    Timeouts, dropped connections, 408, 409, 429 and 5xx are, unless the server says otherwise
    (`x-should-retry`); the reason is a few words for the person watching.
    """
    if isinstance(exc, openai.APITimeoutError):
        return Retry("no answer in time")
    if isinstance(exc, openai.APIConnectionError):
        return Retry("connection failed")
    if not isinstance(exc, openai.APIStatusError):
        return None
    headers = exc.response.headers
    status, should = exc.status_code, headers.get("x-should-retry")
    if should == "false" or (should != "true" and status not in RETRY_STATUSES and status < 500):
        return None
    return Retry(f"{status} {RETRY_STATUSES.get(status, 'server error')}", retry_after_s(headers))
