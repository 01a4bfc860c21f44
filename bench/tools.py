"""Tools: get_issue and search_issues latency over the bundled dataset, called in-process.

Each tool function is called directly (the work a worker thread does, without the executor)
a few hundred times over every issue id and over queries drawn from the issues' own titles,
some filtered by state or label, with a fixed seed so runs compare.
"""

from __future__ import annotations

import random
import re
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from atlas.dataset.read import db_for
from atlas.foundation.config import data_dir
from atlas.orbit import issues as issue_tools
from atlas.tools.registry import ToolContext, strict_arguments
from bench.core import Figure

CALLS = 300
WARM_UP = 5
SEED = 11


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


def timed_ms(call: Callable[[], Any], count: int) -> list[float]:
    for _ in range(WARM_UP):
        call()
    durations = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        durations.append((time.perf_counter() - started) * 1000)
    return durations


def dataset(ctx: ToolContext) -> tuple[list[int], list[str], list[str]]:
    """Issue ids, title words and labels of the dataset the tools read."""
    with sqlite3.connect(db_for(ctx.data, ctx.home)) as conn:
        ids = [row[0] for row in conn.execute("SELECT id FROM issues ORDER BY id")]
        titles = [row[0] for row in conn.execute("SELECT title FROM issues")]
        labels = [row[0] for row in conn.execute("SELECT name FROM labels ORDER BY name")]
    words = sorted({word for title in titles for word in re.findall(r"[A-Za-z][\w-]{3,}", title)})
    return ids, words, labels


def search_args(rng: random.Random, words: list[str], labels: list[str]) -> issue_tools.SearchArgs:
    arguments: dict[str, str] = {"query": " ".join(rng.sample(words, rng.randint(1, 3)))}
    roll = rng.random()
    if roll < 0.2:
        arguments["state"] = rng.choice(["open", "closed"])
    elif roll < 0.4:
        arguments["label"] = rng.choice(labels)
    return strict_arguments(issue_tools.SearchArgs, arguments)


def latency_figure(name: str, durations: list[float], note: str) -> Figure:
    p50, p95 = percentile(durations, 50), percentile(durations, 95)
    return Figure(
        name=f"{name} p50 / p95",
        measured=f"{p50:.2f} ms / {p95:.2f} ms",
        ratio=p95 / p50,
        target="—",
        met=None,
        note=f"{len(durations)} calls in-process; ratio p95/p50; mean {statistics.fmean(durations):.2f} ms; {note}",
        values={"p50_ms": p50, "p95_ms": p95, "max_ms": max(durations)},
    )


def run() -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="atlas-bench-") as home:
        ctx = ToolContext(data=data_dir(), home=Path(home), session="bench")
        ids, words, labels = dataset(ctx)
        issue_args = iter(
            [
                issue_tools.IssueArgs(
                    issue_id=ids[index % len(ids)], comments_offset=0, comments_limit=issue_tools.COMMENTS_PAGE
                )
                for index in range(CALLS + WARM_UP)
            ]
        )
        rng = random.Random(SEED)
        queries = iter([search_args(rng, words, labels) for _ in range(CALLS + WARM_UP)])
        issues = timed_ms(lambda: issue_tools.get_issue(next(issue_args), ctx), CALLS)
        searches = timed_ms(lambda: issue_tools.search_issues(next(queries), ctx), CALLS)
    return [
        latency_figure("get_issue", issues, f"every one of {len(ids)} ids in turn"),
        latency_figure("search_issues", searches, "1-3 title words; 20% by state, 20% by label"),
    ]
