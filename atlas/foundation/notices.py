"""Warnings for people on standard error, all in one form: `atlas: warning: …` on one clean line.

A warning often quotes something from outside (a path, a server's message, a file's problem), so
the whole line goes through the sanitiser: it can never move the cursor or clear the screen.
"""

from __future__ import annotations

from atlas.foundation.sanitize import clean_line, write_line

PREFIX = "atlas: warning: "


def warning_line(message: object) -> str:
    """The warning as it is shown: the prefix and the message on one line, whitespace runs folded."""
    return PREFIX + " ".join(clean_line(message).split())


def warn(message: object) -> None:
    """Say `message` on standard error, where it never mixes with an answer or `--json` on stdout."""
    write_line(warning_line(message), err=True)
