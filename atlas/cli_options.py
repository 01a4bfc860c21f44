"""What the command-line modules share: bounds-checked options and the Examples section of help."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import typer

T = TypeVar("T", int, float)


def within(option: str) -> Callable[[T | None], T | None]:
    """A callback that refuses a value outside `option`'s bounds in `atlas.config.BOUNDS` (a usage error)."""

    def check(value: T | None) -> T | None:
        from atlas.config import BOUNDS

        why = None if value is None else BOUNDS[option].check(float(value))
        if why is not None:
            raise typer.BadParameter(f"{why}, got {value:g}", param_hint=option)
        return value

    return check


def examples(*lines: str) -> str:
    """The `Examples` section of a command's help, kept as written (`\b` stops click rewrapping it)."""
    return "\b\nExamples:\n" + "\n".join(f"  $ {line}" for line in lines)
