"""Items made ahead in a thread while the caller works on the ones before.

A build reads and checks JSON in Python while SQLite tokenises the previous batch for the full-text
index with the GIL released: on two cores the two overlap. What the producer raises is raised in
the caller, at the item where it happened; when the caller stops early (an error, Ctrl-C), the
producer stops at its next item and is waited for, so nothing reads a file after it is closed.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

_POLL_S = 0.05
"""How often a producer with a full queue looks whether the caller has stopped."""


class _End:
    """The producer's last entry: done, or the exception it raised."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error


class _Producer(Generic[T]):
    def __init__(self, items: Iterator[T], depth: int) -> None:
        self.items = items
        self.made: queue.Queue[T | _End] = queue.Queue(maxsize=depth)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="atlas-read-ahead", daemon=True)

    def _run(self) -> None:
        try:
            for item in self.items:
                if not self._put(item):
                    return
        except BaseException as exc:  # handed to the caller, raised there
            self._put(_End(exc))
            return
        self._put(_End())

    def _put(self, entry: T | _End) -> bool:
        while not self.stopped.is_set():
            try:
                self.made.put(entry, timeout=_POLL_S)
                return True
            except queue.Full:
                continue
        return False


def read_ahead(items: Iterator[T], depth: int = 2) -> Iterator[T]:
    """`items`, made in another thread up to `depth` ahead of the caller."""
    producer = _Producer(items, depth)
    producer.thread.start()
    try:
        while True:
            entry = producer.made.get()
            if isinstance(entry, _End):
                if entry.error is not None:
                    raise entry.error
                return
            yield entry
    finally:
        producer.stopped.set()
        producer.thread.join()
