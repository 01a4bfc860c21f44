"""`python -m bench.route`: the route of `atlas ask`'s options, as the files it walks through.

The command runs in this process (offline, the seed question, `--deadline` and `--timeout` set)
under `sys.setprofile`, from `atlas.cli.root.ask` to its answer. Every call into a module of
`atlas/` is a step; nested calls within one file are one visit of it. The route is the walk
through the packages an option travels (`HOUSE`: the command line, the commands, the runtime,
the loop, the models); a step into any other package is the last of that branch of the route,
as the work is done there. A climb is
the walk going back up to a file already on its path and down again from there: a return to a
visit that had already called into another file (the command coming back for its next part), or
a call into a file already open higher up (a callback).
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ATLAS = str(Path(__file__).resolve().parent.parent / "atlas") + os.sep
ENTRY = ("cli/root.py", "ask")
COMMAND = "commands/ask.py"
HOUSE = ("cli", "commands", "runtime", "conversation", "llm")
"""The packages an option travels through from the command line to a call; the others do the work."""
SEED = "Compare issues #41 and #87 and check what the error-codes doc says about ORB-1101."
ARGV = ["ask", "--model", "offline", "--deadline", "30", "--timeout", "5", "--max-rounds", "5", SEED]


@dataclass
class Visit:
    file: str
    frames: int = 1
    last: str | None = None
    """The file this visit last called into."""


@dataclass
class Walk:
    """The route as (depth, file) steps, and its climbs back up."""

    steps: list[tuple[int, str]] = field(default_factory=list)
    command_parts: int = 0
    """Steps from the command's body (`COMMAND`) into the house: how often it goes back for a part."""
    climbs: int = 0
    path: list[Visit] = field(default_factory=list)

    def call(self, file: str) -> None:
        if self.path and self.path[-1].file == file:
            self.path[-1].frames += 1
            return
        callback = any(visit.file == file for visit in self.path)
        depth = len({visit.file for visit in self.path})
        if all(_in_house(visit.file) for visit in self.path):
            parent = self.path[-1] if self.path else None
            repeat = parent is not None and parent.last == file  # the same helper again: one step
            if not repeat:
                self.climbs += callback or (parent is not None and parent.last is not None)
                self.steps.append((depth, file))
                self.command_parts += parent is not None and parent.file == COMMAND and _in_house(file)
            if parent is not None:
                parent.last = file
        self.path.append(Visit(file))

    def back(self) -> None:
        self.path[-1].frames -= 1
        if not self.path[-1].frames:
            self.path.pop()

    def files(self) -> list[str]:
        return list(dict.fromkeys(file for _, file in self.steps))


def _in_house(file: str) -> bool:
    return file.split("/", 1)[0] in HOUSE


def walk_ask(argv: list[str]) -> Walk:
    """The route of `atlas ARGV` (an `ask`), its output discarded."""
    from atlas.cli.root import app

    walk = Walk()
    frames: set[int] = set()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        name = frame.f_code.co_filename
        if event not in ("call", "return") or not name.startswith(ATLAS) or frame.f_code.co_name == "<module>":
            return
        file = name[len(ATLAS) :]
        if event == "call" and (frames or (file, frame.f_code.co_name) == ENTRY):
            frames.add(id(frame))
            walk.call(file)
        elif event == "return" and id(frame) in frames:
            frames.discard(id(frame))
            walk.back()

    sys.setprofile(profile)
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            app(argv, standalone_mode=False)
    finally:
        sys.setprofile(None)
    return walk


def main() -> None:
    verbose = "-v" in sys.argv[1:]
    with tempfile.TemporaryDirectory() as home:
        os.environ["ATLAS_HOME"] = home
        walk_ask(ARGV)  # first, for the imports: a module's first import is no part of the route
        walk = walk_ask(ARGV)
    if verbose:
        for depth, file in walk.steps:
            print(f"{'  ' * depth}{file}")
    print(
        f"atlas {' '.join(ARGV[:-1])} QUESTION: {len(walk.files())} files, {walk.climbs} climbs back; "
        f"{COMMAND} calls into the house {walk.command_parts} times"
    )


if __name__ == "__main__":
    main()
