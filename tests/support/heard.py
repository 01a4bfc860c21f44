"""A listener that keeps every event it hears, for the tests of what produces a session's events."""

from __future__ import annotations

from typing import TypeVar

from atlas.protocol.events import SessionEvent, TextDelta

E = TypeVar("E")


class Heard:
    """Every event, in the order heard; `texts` and `of` pick out the ones a test asserts on."""

    def __init__(self) -> None:
        self.events: list[SessionEvent] = []

    def __call__(self, event: SessionEvent, /) -> None:
        self.events.append(event)

    def texts(self) -> list[str]:
        """The text deltas, as the model sent them."""
        return [event.text for event in self.events if isinstance(event, TextDelta)]

    def of(self, kind: type[E]) -> list[E]:
        return [event for event in self.events if isinstance(event, kind)]
