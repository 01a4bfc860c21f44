"""How many calls one source takes at once from this process: GitHub, and each MCP server.

A semaphore per source, shared by every caller in the process — `atlas ask`'s executor, a sync's
comment fetches, the calls an MCP host sends to `atlas mcp serve` — so a burst of tool calls
never becomes a burst on the source. The first limit given for a source holds for the process.
A call that cannot get a slot within its own deadline fails as transient (nothing was sent).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

GITHUB = "github"
GITHUB_DEFAULT = 8
"""GitHub asks integrations not to make many requests at once (its secondary rate limits)."""
MCP_DEFAULT = 4
"""A stdio MCP server is one process, often answering one request at a time."""


class SourceBusy(TimeoutError):
    """No slot of the source came free within the call's deadline; nothing was sent."""


@dataclass
class _Source:
    limit: int
    slots: threading.BoundedSemaphore
    running: int = 0
    most: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


_sources: dict[str, _Source] = {}
_sources_lock = threading.Lock()


def _source(name: str, limit: int) -> _Source:
    with _sources_lock:
        found = _sources.get(name)
        if found is None:
            limit = max(1, int(limit))
            found = _sources[name] = _Source(limit, threading.BoundedSemaphore(limit))
        return found


@contextmanager
def slot(name: str, limit: int, *, timeout: float | None = None) -> Iterator[None]:
    """Hold one of the source's slots while the body talks to it; SourceBusy when none came free in time."""
    source = _source(name, limit)
    if not source.slots.acquire(timeout=timeout):
        raise SourceBusy(f"{name} already has {source.limit} calls running from this process; none finished in time")
    with source.lock:
        source.running += 1
        source.most = max(source.most, source.running)
    try:
        yield
    finally:
        with source.lock:
            source.running -= 1
        source.slots.release()


def limit_of(name: str) -> int | None:
    """The limit the source runs under in this process, once it has been used."""
    found = _sources.get(name)
    return None if found is None else found.limit


def most_at_once(name: str) -> int:
    """The most calls the source ever had running at once in this process."""
    found = _sources.get(name)
    return 0 if found is None else found.most
