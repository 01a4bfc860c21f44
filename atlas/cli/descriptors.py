"""A process's standard descriptors, made safe at its start whichever way the command line runs."""

from __future__ import annotations

import os


def fill_closed_descriptors() -> None:
    """Point a standard descriptor that was closed at start at /dev/null. Left closed, it would be
    the next file Atlas opens (a journal, a lock), and a child it starts would take that file for
    its own standard input or output. Python has already made the stream None, which Atlas reads
    as closed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: this one
