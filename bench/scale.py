"""Scale: a 100,000-issue project, a 500-turn chat and a 1M-call log cost what a small one does.

One run measures each target as a ratio against the small case measured alongside it:
- building the db of a synthetic 100,000-issue dataset (`bench/synthetic.py`): seconds, peak RSS;
- offline `atlas ask` with that db built vs on the bundled dataset: time (best of several,
  interleaved) and peak RSS;
- search_issues p50 and get_issue p50 in-process at 100,000 issues vs the bundled 130;
- a 500-turn chat in a fresh process (`bench/scale_chat.py`): turns 491-500 vs 1-10, RSS at 500 vs 10;
- `atlas log --stats` over 1,000,000 logged calls vs 10,000 (best of several, interleaved).
"""

from __future__ import annotations

import json
import random
import sqlite3
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from atlas.calllog import CallLog
from atlas.foundation.config import bundled_data_dir
from atlas.foundation.errors import ErrorKind
from atlas.orbit import issues as issue_tools
from atlas.protocol.events import CallRecord
from atlas.tools.registry import ToolContext
from bench import log_scale, tools
from bench.core import PYTHON, Figure, absolute_figure, atlas_argv, busy_note, quiet_env, ratio_figure, run_timed
from bench.startup import SEED_QUESTION, peak_rss_mb
from bench.synthetic import write_dataset

ISSUES = 100_000
CALLS = 200
CHAT_TURNS = 500
LOG_ROWS = (10_000, 1_000_000)
RUNS = 5


BUILD_PROBE = """
import os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_pid, status, usage = os.wait4(child.pid, 0)
cpu = usage.ru_utime + usage.ru_stime
print(os.waitstatus_to_exitcode(status), time.perf_counter() - started, cpu, usage.ru_maxrss)
"""
"""Wall time, CPU time and peak RSS of one child, read by a small fresh parent (see `bench/startup.py`)."""


def build(data: Path, home: Path) -> tuple[float, float, float]:
    """Seconds, CPU seconds and peak MB of `python -m atlas.dataset DATA` (what a first `atlas ask` pays)."""
    argv = [PYTHON, "-m", "atlas.dataset", str(data)]
    probe = subprocess.run(
        [PYTHON, "-c", BUILD_PROBE, *argv], env=quiet_env(home), cwd=data, capture_output=True, text=True, timeout=900
    )
    code, wall, cpu, kib = probe.stdout.split()
    if code != "0":
        raise RuntimeError(f"{' '.join(argv)} exited {code}")
    return float(wall), float(cpu), int(kib) / 1024


def interleaved(commands: dict[str, tuple[list[str], dict[str, str]]], cwd: Path) -> dict[str, float]:
    """Best wall time of each (argv, env) over RUNS interleaved rounds, after one warm-up round."""
    for argv, env in commands.values():
        run_timed(argv, env=env, cwd=cwd)
    best = {name: float("inf") for name in commands}
    for _ in range(RUNS):
        for name, (argv, env) in commands.items():
            best[name] = min(best[name], run_timed(argv, env=env, cwd=cwd)[0])
    return best


def tool_p50s(data: Path, home: Path) -> tuple[float, float]:
    """search_issues and get_issue p50 in ms, in-process, queries drawn as `bench/tools.py` draws them."""
    ctx = ToolContext(data=data, home=home, session="bench")
    ids, words, labels = tools.dataset(ctx)
    rng = random.Random(tools.SEED)
    queries = iter([tools.search_args(rng, words, labels) for _ in range(CALLS + tools.WARM_UP)])
    issue_args = iter(
        [
            issue_tools.IssueArgs(issue_id=rng.choice(ids), comments_offset=0, comments_limit=issue_tools.COMMENTS_PAGE)
            for _ in range(CALLS + tools.WARM_UP)
        ]
    )
    searches = tools.timed_ms(lambda: issue_tools.search_issues(next(queries), ctx), CALLS)
    issues = tools.timed_ms(lambda: issue_tools.get_issue(next(issue_args), ctx), CALLS)
    return tools.percentile(searches, 50), tools.percentile(issues, 50)


def issue_figures(folder: Path) -> list[Figure]:
    started = time.perf_counter()
    big = write_dataset(folder / "orbit-100k", ISSUES)
    made_s = time.perf_counter() - started
    size_mb = (big / "issues" / "issues.jsonl").stat().st_size / 1e6
    build_s, build_cpu_s, build_mb = build(big, folder / "home-build")
    small, home = bundled_data_dir(), folder / "home-ask"
    small_issues = sum(
        1 for line in (small / "issues" / "issues.jsonl").read_text(encoding="utf-8").splitlines() if line
    )
    ask = atlas_argv("ask", SEED_QUESTION)
    envs = {"bundled": quiet_env(home, ORBIT_DATA=str(small)), "100k": quiet_env(home, ORBIT_DATA=str(big))}
    best = interleaved({name: (ask, env) for name, env in envs.items()}, cwd=folder)
    rss = {name: peak_rss_mb(ask, env=env, cwd=folder) for name, env in envs.items()}
    search_small, get_small = tool_p50s(small, folder / "home-tools")
    search_big, get_big = tool_p50s(big, folder / "home-tools")
    note = f"{build_cpu_s:.1f} s of CPU; synthetic dataset, {size_mb:.0f} MB of JSONL made in {made_s:.0f} s"
    return [
        busy_note(absolute_figure(f"build the db of {ISSUES:,} issues", build_s, limit=10, unit="s", note=note)),
        absolute_figure(f"build the db of {ISSUES:,} issues: peak RSS", build_mb, limit=250, unit="MB"),
        busy_note(
            ratio_figure(
                "atlas ask (offline, db built): 100k issues vs bundled",
                best["100k"],
                best["bundled"],
                limit=1.3,
                against=f"bundled ({small_issues:,} issues)",
                note=f"best of {RUNS}, interleaved; seed question",
            )
        ),
        Figure(
            name="atlas ask (offline): peak RSS, 100k issues vs bundled",
            measured=f"{rss['100k']:.1f} MB vs {rss['bundled']:.1f} MB",
            ratio=rss["100k"] / rss["bundled"],
            target="ratio ≤ 1.5",
            met=rss["100k"] / rss["bundled"] <= 1.5,
            note="ru_maxrss from os.wait4 in a small fresh parent process",
            values={"rss_100k_mb": rss["100k"], "rss_bundled_mb": rss["bundled"]},
        ),
        busy_note(
            absolute_figure(
                f"search_issues p50 at {ISSUES:,} issues",
                search_big,
                limit=15,
                unit="ms",
                baseline=search_small,
                against="bundled",
                note=f"{CALLS} calls in-process; 1-3 title words, 20% by state, 20% by label",
            )
        ),
        busy_note(
            Figure(
                name=f"get_issue p50 at {ISSUES:,} issues vs bundled",
                measured=f"{get_big:.2f} ms vs {get_small:.2f} ms",
                ratio=get_big / get_small,
                target="flat (ratio ≤ 1.5)",
                met=get_big / get_small <= 1.5,
                note=f"{CALLS} random ids in-process",
                values={"p50_100k_ms": get_big, "p50_bundled_ms": get_small},
            )
        ),
    ]


def chat_figures(folder: Path) -> list[Figure]:
    argv = [PYTHON, "-m", "bench.scale_chat", str(CHAT_TURNS), str(bundled_data_dir()), str(folder / "home-chat")]
    _elapsed, done = run_timed(argv, env=quiet_env(folder / "home-chat"), cwd=Path(__file__).parent.parent, timeout=600)
    result = json.loads(done.stdout)
    seconds, cpu, rss = result["seconds"], result["cpu_seconds"], result["rss_mb"]
    medians = (
        f"median turn {statistics.median(seconds[:10]) * 1000:.1f} → {statistics.median(seconds[-10:]) * 1000:.1f} ms"
    )
    return [
        ratio_figure(
            f"chat: turns {CHAT_TURNS - 9}-{CHAT_TURNS} vs 1-10, CPU time",
            sum(cpu[-10:]),
            sum(cpu[:10]),
            limit=1.5,
            against="turns 1-10",
            note="process CPU time: what a turn costs, whatever else the machine runs",
        ),
        busy_note(
            ratio_figure(
                f"chat: turns {CHAT_TURNS - 9}-{CHAT_TURNS} vs 1-10, wall time",
                sum(seconds[-10:]),
                sum(seconds[:10]),
                limit=1.5,
                against="turns 1-10",
                note=f"offline planner, real tools and log, one process; {medians}",
            )
        ),
        Figure(
            name=f"chat: RSS at turn {CHAT_TURNS} vs turn 10",
            measured=f"{rss[str(CHAT_TURNS)]:.1f} MB vs {rss['10']:.1f} MB",
            ratio=rss[str(CHAT_TURNS)] / rss["10"],
            target="ratio ≤ 1.3",
            met=rss[str(CHAT_TURNS)] / rss["10"] <= 1.3,
            note=f"VmRSS; the conversation kept {result['history_items']} items",
            values={"rss_last_mb": rss[str(CHAT_TURNS)], "rss_10_mb": rss["10"]},
        ),
    ]


def fill_log(home: Path, rows: int) -> None:
    log = CallLog.at_home(home)
    log.record_call(
        CallRecord(round=0, call_id="first", name="list_docs", arguments={}, kind=ErrorKind.OK, ms=1.0, attempts=1),
        session="s",
        turn=1,
    )
    log.close()
    conn = sqlite3.connect(log.path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(log_scale.INSERT, log_scale.rows(rows - 1, now=time.time()))
    conn.execute("COMMIT")
    conn.close()


def log_figures(folder: Path) -> list[Figure]:
    small, big = (folder / f"log-{rows}" for rows in LOG_ROWS)
    for home, rows in zip((small, big), LOG_ROWS, strict=True):
        fill_log(home, rows)
    stats = atlas_argv("log", "--stats")
    first_s, _done = run_timed(stats, env=quiet_env(big), cwd=folder)  # brings the summary up to date once
    commands = {name: (stats, quiet_env(home)) for name, home in (("small", small), ("big", big))}
    best = interleaved(commands, cwd=folder)
    return [
        busy_note(
            ratio_figure(
                f"atlas log --stats: {LOG_ROWS[1]:,} calls vs {LOG_ROWS[0]:,}",
                best["big"],
                best["small"],
                limit=1.2,
                against=f"{LOG_ROWS[0]:,} calls",
                note=f"best of {RUNS}, interleaved; the first --stats summarized the 1M-call log in {first_s:.1f} s",
            )
        )
    ]


def run() -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="atlas-bench-") as name:
        folder = Path(name)
        return [*issue_figures(folder), *chat_figures(folder), *log_figures(folder)]
