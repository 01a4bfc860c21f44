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

The event loop is no part of the route. A coroutine that waits is suspended, not returned: when
it resumes, its visit goes on where it stopped (no step, no climb). Work the loop starts on its
own (a task's first step, a callback) continues the latest waiting visit of the file that made
it: the coroutine's creator, or the callback's own file; a callback outside the house with no such
visit (a worker thread handing a tool's result back) is that package's work, no step. Without this, each
wake-up of a waiting coroutine counted as the runner calling down again, and the figure varied
from run to run with the threads' timing.
"""

from __future__ import annotations

import asyncio
import dis
import inspect
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

    def resume(self, visit: Visit) -> bool:
        """A waiting visit goes on, back on the path without a step; False when it is open lower on the
        path (a generator its own file drives from below is called again, as any call is)."""
        if self.path and self.path[-1] is visit:
            visit.frames += 1
            return True
        if any(open_visit is visit for open_visit in self.path):
            return False
        visit.frames = 1
        self.path.append(visit)
        return True

    def files(self) -> list[str]:
        return list(dict.fromkeys(file for _, file in self.steps))


def _in_house(file: str) -> bool:
    return file.split("/", 1)[0] in HOUSE


SUSPENDABLE = inspect.CO_COROUTINE | inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE
ASYNCIO = str(Path(asyncio.__file__).parent) + os.sep
YIELD = dis.opmap["YIELD_VALUE"]


def _suspends(frame: FrameType) -> bool:
    """Whether this return event is a coroutine or generator waiting (it will resume), not ending."""
    code = frame.f_code
    return bool(code.co_flags & SUSPENDABLE) and frame.f_lasti >= 0 and code.co_code[frame.f_lasti] == YIELD


def _started_by_loop(frame: FrameType) -> bool:
    caller = frame.f_back
    return caller is None or caller.f_code.co_filename.startswith(ASYNCIO)


def _maker(frame: FrameType) -> str:
    """The file that made the work the event loop starts: a task's coroutine's creator, or the callback's own."""
    task = asyncio.current_task() if frame.f_code.co_flags & inspect.CO_COROUTINE else None
    coro = task.get_coro() if task is not None else None
    origin = getattr(coro, "cr_origin", None) if getattr(coro, "cr_frame", None) is frame else None
    return origin[0][0] if origin else frame.f_code.co_filename


class Tracer:
    """The profile hook: call and return events of `atlas/`'s frames, as the walk's steps."""

    def __init__(self, walk: Walk) -> None:
        self.walk = walk
        self.frames: set[int] = set()
        self.waiting: dict[int, Visit] = {}
        """A suspended frame's visit, by the frame's id."""
        self.held: dict[int, FrameType] = {}
        """The frames seen, held so that no id is reused (a generator dropped while waiting never returns)."""
        self.contexts: dict[int, Visit] = {}
        """The visit a frame the event loop started continues, by the frame's id."""
        self.unrouted: int | None = None
        """The frame of a callback that is no part of the route, while it runs."""

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        name = frame.f_code.co_filename
        if event not in ("call", "return") or not name.startswith(ATLAS) or frame.f_code.co_name == "<module>":
            return
        key = id(frame)
        if self.unrouted is not None:
            if event == "return" and key == self.unrouted:
                self.unrouted = None
            return
        if event == "call":
            self.held[key] = frame
            self._enter(frame, key, name[len(ATLAS) :])
        elif key in self.frames:
            if _suspends(frame):
                self.waiting[key] = self.walk.path[-1]
            else:
                self.frames.discard(key)
            self.walk.back()
            context = self.contexts.get(key)
            if context is not None:
                self.walk.back()
                if key not in self.waiting:
                    del self.contexts[key]

    def _enter(self, frame: FrameType, key: int, file: str) -> None:
        if key in self.waiting:
            context = self.contexts.get(key)
            if context is not None and not self.walk.resume(context):
                del self.contexts[key]
            if not self.walk.resume(self.waiting.pop(key)):
                self.walk.call(file)
            return
        if not (self.frames or (file, frame.f_code.co_name) == ENTRY):
            return
        by_loop = _started_by_loop(frame)
        context = self._latest_waiting(_maker(frame)) if by_loop else None
        if by_loop and context is None and not frame.f_code.co_flags & SUSPENDABLE and not _in_house(file):
            self.unrouted = key
            return
        self.frames.add(key)
        if context is not None:
            self.contexts[key] = context
            self.walk.resume(context)
        self.walk.call(file)

    def _latest_waiting(self, maker: str) -> Visit | None:
        if not maker.startswith(ATLAS):
            return None
        file = maker[len(ATLAS) :]
        open_visits = {id(visit) for visit in self.walk.path}
        waiting = (visit for visit in reversed(self.waiting.values()) if id(visit) not in open_visits)
        return next((visit for visit in waiting if visit.file == file), None)


def walk_ask(argv: list[str]) -> Walk:
    """The route of `atlas ARGV` (an `ask`), its output discarded."""
    from atlas.cli.root import app

    walk = Walk()
    sys.set_coroutine_origin_tracking_depth(1)  # a coroutine knows where it was made (`cr_origin`)
    sys.setprofile(Tracer(walk))
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            app(argv, standalone_mode=False)
    finally:
        sys.setprofile(None)
        sys.set_coroutine_origin_tracking_depth(0)
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
