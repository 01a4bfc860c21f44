"""The offline planner's folders are its steps: each imports only the steps below it, never one above.

The message is read (`reading`), each request given an act (`acts`), the reads the rest name planned
(`lookups`), and the answer written (`answer`); `compose` runs them in that order and `model` is the loop's
side. The plan and the results handed between the steps sit just above the reading.
"""

from __future__ import annotations

import pytest

from tests.test_architecture import import_graph, modules, within

OFFLINE = "atlas.offline"
STEPS: tuple[tuple[str, ...], ...] = (
    # Top first; a part imports only the parts listed below its own.
    ("atlas.offline.model",),
    ("atlas.offline.compose",),
    ("atlas.offline.answer",),
    ("atlas.offline.acts",),
    ("atlas.offline.lookups",),
    ("atlas.offline.readings",),
    ("atlas.offline.plan",),
    ("atlas.offline.reading",),
)


def step_of(name: str) -> int:
    return next(index for index, parts in enumerate(STEPS) if any(within(name, part) for part in parts))


def planner_modules() -> list[str]:
    return [name for name, _ in modules() if within(name, OFFLINE) and name != OFFLINE]


def test_every_module_of_the_planner_is_in_one_step() -> None:
    for name in planner_modules():
        assert [part for parts in STEPS for part in parts if within(name, part)], f"{name} is in no step"


@pytest.mark.parametrize("name", planner_modules())
def test_a_step_imports_only_the_steps_below_it(name: str) -> None:
    own = step_of(name)
    wrong = sorted(
        target
        for target in import_graph()[name]
        if within(target, OFFLINE) and target != OFFLINE and step_of(target) < own
    )
    assert not wrong, f"{name} imports {wrong}, a step above it"


def test_the_folders_are_the_four_steps_and_the_top_level_what_runs_and_joins_them() -> None:
    top = {name.rsplit(".", 1)[1] for name in planner_modules() if name.count(".") == 2}
    assert top == {"reading", "acts", "lookups", "answer", "model", "compose", "plan", "readings"}
