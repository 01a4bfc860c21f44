"""The order the tests are handed out in under pytest-xdist's `worksteal`: the `serial` tests first,
then each worker's share begins with its part of the test files that take longest.

`worksteal` splits the collected tests into one contiguous share per worker, in collection order,
and a worker that runs out takes the second half of the longest queue left (from its end). A test
that takes ten or twenty seconds and happens to sit near the end of a share starts late, and the
run ends with one worker still on it while the others have nothing left: 10-15 s of a run on two
cores. Here each share begins with some of the longest files (dealt longest first to the share
with the least so far, the share that begins with the `serial` tests counting those), so they start
early, and what is left at the end of every share, and so what is stolen last, is quick.

Only whole files move, in their own order, so a module's fixtures are still made once per worker
that runs it. Without xdist, or with another distribution, the tests keep their collection order
(with the `serial` tests first).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

LONGEST: dict[str, float] = {
    "tests/docs/test_commands.py": 60,
    "tests/triage/test_exactly_once.py": 30,
    "tests/ui/test_terminal.py": 25,
    "tests/offline/test_planner_suite.py": 25,
    "tests/github/test_sync.py": 25,
    "tests/adversarial/test_wire.py": 20,
    "tests/triage/test_drafts_real_backlog.py": 20,
    "tests/github/test_tracker_team.py": 20,
    "tests/mcp/test_trust_and_lifecycle.py": 20,
    "tests/triage/test_verdicts.py": 15,
    "tests/commands/test_eval_faults.py": 15,
    "tests/test_bench.py": 15,
    "tests/triage/test_tools.py": 15,
    "tests/tracker/test_tracker.py": 15,
    "tests/mcp/test_cli_mcp.py": 15,
    "tests/state/test_postgres.py": 15,
    "tests/llm/test_results_reach_the_model.py": 15,
    "tests/triage/test_fit_threads.py": 10,
    "tests/adversarial/test_hostile_issues.py": 10,
    "tests/triage/test_drafts.py": 10,
    "tests/adversarial/test_bounded_reads.py": 10,
    "tests/test_dataset_build.py": 10,
    "tests/github/test_tracker_trust.py": 8,
}
"""The test files that take longest (seconds of wall time on two busy cores, roughly: only their
order matters), each holding a test of several seconds or many tests of one."""

SERIAL_S = 10
"""About how long the `serial` tests take, one after another, at the start of the first share."""


def shares(count: int, workers: int) -> list[int]:
    """How many of `count` tests each worker's first share holds, as `worksteal` splits them."""
    sizes = []
    for index in range(workers):
        sizes.append(count // (workers - index))
        count -= sizes[-1]
    return sizes


def worksteal_order(items: Sequence[T], workers: int, path: Callable[[T], str], serial: Callable[[T], bool]) -> list[T]:
    """`items` in the order that starts each worker's share with its part of the `LONGEST` files."""
    firsts = [item for item in items if serial(item)]
    files: dict[str, list[T]] = {}
    rest: list[T] = []
    for item in items:
        if serial(item):
            continue
        if path(item) in LONGEST:
            files.setdefault(path(item), []).append(item)
        else:
            rest.append(item)
    heads: list[list[T]] = [[] for _ in range(workers)]
    heads[0] = list(firsts)
    loads = [float(SERIAL_S if firsts else 0)] + [0.0] * (workers - 1)
    for name in sorted(files, key=lambda name: -LONGEST[name]):
        least = loads.index(min(loads))
        heads[least] += files[name]
        loads[least] += LONGEST[name]
    ordered: list[T] = []
    taken = 0
    for head, size in zip(heads, shares(len(items), workers), strict=True):
        fill = max(0, size - len(head))
        ordered += head + rest[taken : taken + fill]
        taken += fill
    return ordered + rest[taken:]
