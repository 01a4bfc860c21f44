"""The route of `atlas ask` (`bench/route.py`): the command hands its question to the runtime once,
nothing calls back up into the command line or the commands, and the walk is the same every run."""

from __future__ import annotations

import pytest

from bench.route import ARGV, COMMAND, Walk, walk_ask

CLIMBS_AT_MOST = 24
"""The climbs the route took when it last changed: more means a part went back up again."""


@pytest.fixture(scope="module")
def walks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Walk, Walk]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATLAS_HOME", str(tmp_path_factory.mktemp("route-home")))
        walk_ask(ARGV)  # the imports' first run is no part of the route
        return walk_ask(ARGV), walk_ask(ARGV)


def test_the_command_hands_its_question_to_the_runtime_once(walks: tuple[Walk, Walk]) -> None:
    walk = walks[0]
    assert walk.command_parts == 1
    at = next(index for index, (_, file) in enumerate(walk.steps) if file == COMMAND)
    below = walk.steps[at + 1 :]
    assert below[0][1] == "ui/ask_screen.py" and below[1][1] == "runtime/session.py", below[:2]
    assert not [file for _, file in below if file.startswith(("cli/", "commands/"))]
    assert walk.climbs <= CLIMBS_AT_MOST


def test_the_loop_calls_the_model_and_the_executor_below_the_session(walks: tuple[Walk, Walk]) -> None:
    steps = walks[0].steps
    loop_depth = next(depth for depth, file in steps if file == "conversation/loop.py")
    below_loop = {file for depth, file in steps if depth > loop_depth}
    assert {"offline/model.py", "executor/executor.py"} <= below_loop
    session_depth = next(depth for depth, file in steps if file == "runtime/session.py")
    assert loop_depth > session_depth


def test_the_walk_is_the_same_every_run(walks: tuple[Walk, Walk]) -> None:
    first, second = walks
    assert first.steps == second.steps and first.climbs == second.climbs


def test_a_waiting_coroutine_is_no_new_step() -> None:
    """Walked by hand: a visit that waits and resumes takes no step; its next call is a climb only
    when it called elsewhere before it waited."""
    walk = Walk()
    walk.call("commands/ask.py")
    walk.call("conversation/loop.py")
    loop = walk.path[-1]
    walk.call("offline/model.py")
    walk.back()
    walk.back()  # the loop waits
    assert walk.resume(loop) and len(walk.steps) == 3
    walk.call("executor/executor.py")
    assert walk.climbs == 1 and walk.steps[-1] == (2, "executor/executor.py")
