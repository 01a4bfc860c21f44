"""A long chat: the time of turns 491-500 against turns 1-10, and the memory after 500 turns against 10.

Runs in a fresh process (`python -m bench.scale_chat TURNS DATA HOME`), as `atlas chat` would:
the offline planner, the real executor and read tools over the bundled dataset, the real call
log. Questions rotate through issue summaries, comparisons, searches and doc lookups, so each
turn adds a few KB of tool output and the conversation passes its budget within a few turns.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

QUESTIONS = (
    "Summarize issue #41.",
    "Compare issues #41 and #87 and check what the error-codes doc says about ORB-1101.",
    "Search the issues for lease expired.",
    "What does the leases doc say about renewal?",
    "Show #7 and #92.",
    "Explain the error in #41.",
)
WINDOW = 10


def rss_mb() -> float:
    """The resident set now (not the peak), from /proc: what the chat holds at this turn."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run_chat(turns: int, data: Path, home: Path) -> dict[str, Any]:
    from atlas.calllog import CallLog, CallLogWriter
    from atlas.conversation.loop import TurnSettings, run_turn, start_turn
    from atlas.executor.executor import ToolExecutor
    from atlas.protocol.events import Events
    from atlas.runtime.session import record_turn, resolve
    from atlas.runtime.toolset import load_registry
    from atlas.tools.registry import ToolContext

    log = CallLog.at_home(home)
    executor = ToolExecutor(
        load_registry().read_only(),
        events=Events(CallLogWriter(log, "bench")),
        session="bench",
        context=ToolContext(data=data, home=home, session="bench"),
    )
    model = resolve("offline")
    loop = asyncio.new_event_loop()
    # One turn in a conversation of its own first: imports, the db and the log are opened before timing.
    loop.run_until_complete(run_turn(QUESTIONS[0], [], model=model, executor=executor, session="warm"))
    history: list[dict[str, Any]] = []
    seconds: list[float] = []
    cpu: list[float] = []
    rss: dict[str, float] = {}
    for turn in range(1, turns + 1):
        question = QUESTIONS[turn % len(QUESTIONS)]
        started, started_cpu = time.perf_counter(), time.process_time()
        # As `atlas chat` does: the turn is answered, then priced and recorded by the caller.
        turn_state = start_turn(executor, turn, TurnSettings())
        result = loop.run_until_complete(
            run_turn(question, history, model=model, executor=executor, session="bench", turn=turn_state)
        )
        record_turn(log, question, result, price_in=0.0, price_out=0.0)
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        if turn in (WINDOW, turns):
            rss[str(turn)] = rss_mb()
    loop.close()
    log.close()
    return {"seconds": seconds, "cpu_seconds": cpu, "rss_mb": rss, "history_items": len(history)}


if __name__ == "__main__":
    count, data_dir, home_dir = int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    print(json.dumps(run_chat(count, data_dir, home_dir)))
