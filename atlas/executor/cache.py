"""Reads answered from a cache within one conversation, for as long as their tool says they stay fresh.

A read tool declares `cache_ttl_s` (0: never cached, a decision like any other) and may declare
`cache_tags(args)`, what its result depends on (`issue:41`); a side effect declares
`invalidates(args)`, the tags it changes. A write that happened, or may have, drops every cached
read sharing a tag with it; a write that declares nothing drops them all. Only successful
results are kept. A hit is answered with the kept envelope, its untrusted sources named again,
and logged with the message `cached`.
"""

from __future__ import annotations

import json
import time
from typing import Any, NamedTuple

from atlas.executor.outcomes import Outcome
from atlas.executor.turn import Turn
from atlas.foundation.errors import ErrorKind
from atlas.tools.arguments import arguments_data
from atlas.tools.registry import ToolSpec

CACHED = "cached"
"""The message a call answered from the cache is logged with."""


class _Entry(NamedTuple):
    expires: float
    envelope: dict[str, Any]
    tags: frozenset[str]


class ReadCache:
    """One conversation's cached reads, by tool and arguments."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], _Entry] = {}

    @staticmethod
    def _key(spec: ToolSpec[Any], args: object) -> tuple[str, str]:
        return spec.name, json.dumps(arguments_data(args), sort_keys=True, default=str)

    def get(self, spec: ToolSpec[Any], args: object, turn: Turn) -> Outcome | None:
        """The kept result of this read, while it is fresh; None when there is none."""
        if spec.side_effect or not spec.cache_ttl_s:
            return None
        key = self._key(spec, args)
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry.expires <= time.monotonic():
            del self._entries[key]
            return None
        if spec.untrusted is not None:
            try:
                turn.add_sources(list(spec.untrusted(args, entry.envelope.get("data"))))
            except Exception:  # naming the source is best effort; the text stays marked untrusted
                turn.add_sources([f"{spec.name} (cached)"])
        return Outcome(ErrorKind.OK, entry.envelope, message=CACHED)

    def after(self, spec: ToolSpec[Any], args: object, outcome: Outcome, done: object) -> None:
        """Keep a fresh read; after a write that happened (or may have), drop the reads it changes."""
        if spec.side_effect:
            if done is not False:
                self.invalidate(None if spec.invalidates is None else set(spec.invalidates(args)))
            return
        if outcome.kind is ErrorKind.OK and spec.cache_ttl_s:
            tags = frozenset(spec.cache_tags(args)) if spec.cache_tags is not None else frozenset()
            expires = time.monotonic() + spec.cache_ttl_s
            self._entries[self._key(spec, args)] = _Entry(expires, outcome.envelope, tags)

    def invalidate(self, tags: set[str] | None) -> None:
        """Drop the reads sharing a tag with `tags` (None: every read)."""
        if tags is None:
            self._entries.clear()
            return
        for key in [key for key, entry in self._entries.items() if entry.tags & tags or not entry.tags]:
            del self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)
