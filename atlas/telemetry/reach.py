"""Whether the OTLP endpoint can be reached, learnt while the question is answered, so that the end
of a run knows how long the spans are worth waiting for.

As the tracer starts, a daemon thread sends the endpoint an empty export (an empty
`ExportTraceServiceRequest`, which a collector takes and answers, as `atlas doctor` sends it),
through the exporter's own HTTP session, which keeps the connection warm for the spans. By the
time the answer is out, the endpoint has answered, cannot be reached (refused, an unknown host,
no route), or has been silent: only the first is waited for, and never past `SHUTDOWN_S`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import requests

SHUTDOWN_S = 0.2
"""The longest the end of a run waits for its spans to leave, counted for a silent endpoint from the
moment it was first contacted. A collector on this machine or the local network answers in a few
milliseconds, and a remote one on the connection the first contact left open."""
LAST_CHANCE_S = 0.05
"""What a first contact still unanswered at the end of a longer run gets: a moment, in case the
busy machine had not run its thread yet, not the whole `SHUTDOWN_S` a silent endpoint has had."""
CONTACT_TIMEOUT_S = 5.0
"""How long the first contact may wait for an answer in the background (the export's own limit)."""


class Reachability(Enum):
    UNKNOWN = "unknown"
    """Nothing heard yet: the first contact is on its way or was never answered."""
    LISTENING = "listening"
    """A server answered (any HTTP status, or a TLS handshake of its own)."""
    UNREACHABLE = "unreachable"
    """Nothing listens there: the connection was refused, the host is unknown, or there is no route."""


class Reach:
    """What is known of the endpoint; safe to read from any thread."""

    def __init__(self, state: Reachability = Reachability.UNKNOWN) -> None:
        self.started = time.monotonic()
        self.state = state
        self.why = ""
        """For UNREACHABLE, what happened, in words that quote nothing of the URL."""
        self.news = threading.Event()
        """Set whenever `state` changes (and by whoever else a waiter should wake for)."""

    def contact(self, session: requests.Session, endpoint: str, headers: Mapping[str, str]) -> None:
        """Send the first contact from a daemon thread, which a process that ends leaves behind."""
        self.started = time.monotonic()
        threading.Thread(
            target=self._contact, args=(session, endpoint, dict(headers)), name="atlas-telemetry-contact", daemon=True
        ).start()

    def _contact(self, session: requests.Session, endpoint: str, headers: dict[str, str]) -> None:
        import requests

        try:
            session.post(
                endpoint,
                data=b"",
                headers={"Content-Type": "application/x-protobuf", **headers},
                timeout=CONTACT_TIMEOUT_S,
            ).close()
        except requests.exceptions.SSLError:
            self._learn(Reachability.LISTENING)  # a server is there; the exporter's TLS settings may suit it
        except requests.exceptions.ConnectionError as exc:
            self._learn(Reachability.UNREACHABLE, _why(exc))
        except Exception:  # a silent endpoint (a read timeout) or anything else: nothing learnt
            return
        else:
            self._learn(Reachability.LISTENING)

    def note_export(self, succeeded: bool) -> None:
        """An export reached the endpoint: whatever the first contact found, it listens now."""
        if succeeded and self.state is not Reachability.LISTENING:
            self._learn(Reachability.LISTENING)

    def _learn(self, state: Reachability, why: str = "") -> None:
        if self.state is Reachability.LISTENING and state is Reachability.UNREACHABLE:
            return  # an export got through since: a refused first contact no longer says anything
        self.state, self.why = state, why
        self.news.set()

    def wait_until(self, closing: float) -> float:
        """Until when a run that began to close at `closing` may wait for its spans, as far as the
        endpoint goes (read again whenever `news` is set: what is learnt meanwhile counts)."""
        if self.state is Reachability.UNREACHABLE:
            return closing
        if self.state is Reachability.LISTENING:
            return closing + SHUTDOWN_S
        return max(self.started + SHUTDOWN_S, closing + LAST_CHANCE_S)

    def flushed(self, flush: Callable[[], bool]) -> bool:
        """Whether `flush` (the SDK's, which may wait for the exporter's whole timeout) finished while
        the endpoint was worth waiting for. It runs in a daemon thread, which the process leaves
        behind when the endpoint is not."""
        done = threading.Event()

        def run() -> None:
            if flush():
                done.set()
                self.news.set()

        threading.Thread(target=run, name="atlas-telemetry-flush", daemon=True).start()
        closing = time.monotonic()
        while not done.is_set():
            now = time.monotonic()
            until = min(closing + SHUTDOWN_S, self.wait_until(closing))
            if until <= now:
                break
            self.news.wait(until - now)
            self.news.clear()  # the state is read again above: a change in between is not lost
        return done.is_set()


def _why(exc: Exception) -> str:
    """A refused connection or an unknown host in plain words; the client's own text quotes the URL."""
    text = str(exc).lower()
    if "refused" in text:
        return "refused the connection"
    if "resolve" in text or "name or service not known" in text or "nodename nor servname" in text:
        return "names a host that cannot be found"
    if "timed out" in text or "timeout" in text:
        return "could not be connected to in time"
    return "cannot be reached"
