"""Deadlines and exit: a stuck tool costs its deadline, not its sleep, in the executor and in the process.

Three measurements of a tool that hangs for 10 s under a 0.5 s deadline: `run_one` in this
process; a whole `python -m atlas ask` process replaying a script that calls it (the tool comes
from a module loaded through ATLAS_TOOL_MODULES, in a temp dir); and, for contrast, the naïve
`asyncio.run` + `asyncio.to_thread` + `wait_for` program, whose exit waits for the stuck thread.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from atlas.executor.executor import ToolExecutor
from atlas.protocol.messages import ToolCall
from atlas.tools.registry import Registry, ToolContext, ToolSpec
from bench.core import PYTHON, REPO, Figure, absolute_figure, busy_note, quiet_env, ratio_figure, run_timed

STUCK_S = 10.0
DEADLINE_S = 0.5
PROCESS_RUNS = 3


class StuckArgs(BaseModel):
    seconds: float


def stuck(args: StuckArgs, ctx: ToolContext) -> None:
    time.sleep(args.seconds)


def in_process() -> float:
    # Not `bench.stuck_tool`: importing that module adds its tool to every registry loaded afterwards.
    registry = Registry([ToolSpec(name="stuck", fn=stuck, args_model=StuckArgs, description="")])
    executor = ToolExecutor(registry, timeout_s=DEADLINE_S)

    async def one() -> dict[str, object]:
        return await executor.run_one(ToolCall.make("stuck", {"seconds": STUCK_S}, "stuck_1"))

    started = time.perf_counter()
    asyncio.run(one())
    elapsed = time.perf_counter() - started
    if executor.log[0].kind != "timeout":
        raise RuntimeError(f"the stuck call should time out; it ended {executor.log[0].kind}")
    return elapsed


def ask_process(folder: Path, seconds: float) -> float:
    """Best wall time of `python -m atlas ask` replaying one call of `stuck` for `seconds`."""
    script = folder / f"stuck-{seconds:g}.json"
    turns = [{"calls": [{"name": "stuck", "arguments": {"seconds": seconds}}]}, {"text": "Checked."}]
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    env = quiet_env(folder / "home", ATLAS_TOOL_MODULES="stuck_tool", PYTHONPATH=str(folder))
    argv = [PYTHON, "-m", "atlas", "ask", "Is the source answering?", "--model", f"replay:{script}"]
    argv += ["--timeout", str(DEADLINE_S), "--json"]
    best = float("inf")
    for _ in range(PROCESS_RUNS):
        elapsed, done = run_timed(argv, env=env, cwd=folder)
        kind = json.loads(done.stdout)["calls"][0]["kind"]
        if kind != ("timeout" if seconds > DEADLINE_S else "ok"):
            raise RuntimeError(f"the replayed stuck call ({seconds:g} s) ended {kind}")
        best = min(best, elapsed)
    return best


def run() -> list[Figure]:
    returned = in_process()
    with tempfile.TemporaryDirectory(prefix="atlas-bench-") as name:
        folder = Path(name)
        shutil.copy(REPO / "bench" / "stuck_tool.py", folder / "stuck_tool.py")
        quick = ask_process(folder, 0.0)
        stuck_exit = ask_process(folder, STUCK_S)
        naive_exit, done = run_timed([PYTHON, str(REPO / "bench" / "naive_exit.py")], env=quiet_env(folder), cwd=folder)
    return [
        absolute_figure(
            f"{STUCK_S:g} s tool under {DEADLINE_S} s deadline: run_one returns",
            returned,
            limit=0.55,
            unit="s",
            baseline=DEADLINE_S,
            against="deadline",
            note="kind timeout; the thread is left behind as a daemon",
        ),
        busy_note(
            absolute_figure(
                "`atlas ask` with that stuck tool: process exit",
                stuck_exit,
                limit=1.5,
                unit="s",
                baseline=quick,
                against="same ask, tool answers at once",
                note=f"python -m atlas, replay script + ATLAS_TOOL_MODULES; best of {PROCESS_RUNS}",
            )
        ),
        ratio_figure(
            "naïve asyncio.run + to_thread: process exit",
            naive_exit,
            stuck_exit,
            limit=None,
            against="atlas ask",
            note=f"wait_for {done.stdout.strip() or 'did not give up'}, then asyncio.run joins the stuck thread",
        ),
    ]
