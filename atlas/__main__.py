"""`python -m atlas` and the `atlas` script: the same command line, in a process set up to start fast."""

from __future__ import annotations

import gc
import os
import sys

FIRST_COLLECTION_AFTER = 100_000
"""New container objects between two collections of the youngest generation (Python's default is 700).

A command's start builds about 70,000 objects (modules, classes, schemas), and all of them live as
long as the process: with the default, the collector walks each of them twice on the way to the
oldest generation and frees nothing, about 50 ms of a 450 ms `atlas ask`. Cycles of garbage are
still collected, only later: a long chat collects as before, every 100,000 new objects."""


def collect_less_often() -> None:
    """The youngest generation's threshold raised to `FIRST_COLLECTION_AFTER`; the others as they were."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(FIRST_COLLECTION_AFTER, older, oldest)


def main() -> None:
    """Tune the collector before anything is imported, then run the command line: a plain
    `atlas ask WORDS...` without Typer (`atlas.cli.fast`), anything else through it."""
    collect_less_often()
    from atlas.cli.fast import ask_plainly, plain_question

    words = plain_question(sys.argv[1:], os.environ)
    if words is not None:
        ask_plainly(words)
    from atlas.cli.root import entry_point

    entry_point()


if __name__ == "__main__":
    main()
