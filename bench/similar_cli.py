"""`atlas similar N` as a person runs it, a whole process: at 100,000 issues vs on the bundled dataset.

Both state folders already hold what a first run leaves (the similarity index, the label groups):
the warm-up round builds the bundled one's, and the triage group's in-process queries the big one's.
What is left is the cost of a command's start on a large backlog, which should not grow with it.
"""

from __future__ import annotations

from pathlib import Path

from atlas.foundation.config import bundled_data_dir
from bench.core import Figure, atlas_argv, busy_note, quiet_env, ratio_figure
from bench.inbox import interleaved

RUNS = 5
LIMIT = 1.5
BUNDLED_ISSUE = 41


def similar_figure(big: Path, big_home: Path, scratch: Path, issue_id: int) -> Figure:
    """Best of RUNS interleaved `atlas similar` processes on `big` (issue `issue_id`) vs on the bundled data."""
    commands = {
        "100k": (atlas_argv("similar", str(issue_id)), quiet_env(big_home, ORBIT_DATA=str(big))),
        "bundled": (
            atlas_argv("similar", str(BUNDLED_ISSUE)),
            quiet_env(scratch / "home-bundled", ORBIT_DATA=str(bundled_data_dir())),
        ),
    }
    best = interleaved(commands, scratch, RUNS)
    return busy_note(
        ratio_figure(
            "atlas similar N (a process): 100k issues vs bundled",
            best["100k"],
            best["bundled"],
            limit=LIMIT,
            against="bundled",
            note=f"best of {RUNS}, interleaved; index and label groups kept from an earlier run; output to a pipe",
        )
    )
