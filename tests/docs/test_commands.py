"""Every command the README and the documentation site show runs as shown (with the stand-ins of
`tests/docs/sandbox.py` for what lies outside this machine), block by block in the order a reader
types them; a command that is not Atlas's is named below with the reason it is not run here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.docs.sandbox import Sandbox, Services
from tests.docs.shown import CHECKOUT, Block, Command, every_block
from tests.support.run import Run, assert_no_traceback

OUTSIDE = {
    "python3 -m venv": "makes the virtual environment; `.ci/run` runs the set-up command itself",
    ". .venv/bin/activate": "activates that environment",
    "pip install": "installs from the package index; `.ci/run` installs the dev extra",
    "pytest": "the suite itself, which `.ci/run` runs",
    "createdb": "PostgreSQL's own client; the postgres tests make their databases on the server the run starts",
    "git clone": "clones GitBugs from GitHub, which this machine does not reach",
    "python -m bench": "the benchmarks: minutes each, and NLBSE's and GitBugs' data are not in the repository",
    "python -m atlas.dataset": "rewrites the committed db; tests/test_dataset_build.py builds one from its JSONL",
    "ruff": "the lint, run before each commit",
    "mypy": "the type check, run before each commit (minutes of CPU)",
}
"""What a page shows that is not Atlas's, by its first words, and why this test does not run it."""

ELSEWHERE = {
    "atlas state push": ("tests/triage/test_shared_state.py", ['"state", "push"']),
    "atlas eval evals/planner.jsonl": ("tests/offline/test_planner_suite.py", ['"planner.jsonl"', '"eval"']),
    "atlas eval evals/planner_heldout.jsonl --min 0.9": (
        "tests/offline/test_planner_suite.py",
        ['"planner_heldout.jsonl"', '"--min"'],
    ),
    "atlas eval evals/faults.jsonl": ("tests/commands/test_eval_faults.py", ['"faults.jsonl"', '"eval"']),
    "atlas eval evals/faults.jsonl --faults --min 1.0": (
        "tests/commands/test_eval_faults.py",
        ['"--faults", "--min", "1.0"'],
    ),
    "atlas triage --eval": ("tests/triage/test_tools.py", ['"triage", "--eval"']),
    "python datasets/orbit/generate_issues.py --check": ("tests/test_dataset.py", ["generate_issues"]),
}
"""Commands another test runs already (each seconds of CPU), with what that test's source must hold
for it to run that command."""

EXPECTED = {
    "atlas policy revoke granted-add-label-3f2a": (2, "no rule granted at the prompt is named"),
}
"""Commands whose shown form ends otherwise than in success here, with the line that says why: a
fresh state folder holds no rule granted at the prompt (tests/policy/test_scopes.py revokes one)."""

RUN_HERE = ("atlas", "gh")


def shown_as(command: Command) -> str:
    return " ".join(command.words)


def outside_reason(command: Command) -> str | None:
    text = shown_as(command)
    return next((why for start, why in OUTSIDE.items() if text == start or text.startswith(start + " ")), None)


def runnable(block: Block) -> list[Command]:
    return [c for c in block.commands if c.program in RUN_HERE and shown_as(c) not in ELSEWHERE]


BLOCKS = [block for block in every_block() if runnable(block)]


def test_the_pages_show_commands() -> None:
    assert len(BLOCKS) >= 15, [block.name for block in BLOCKS]


def test_every_command_shown_is_run_here_or_named() -> None:
    """A new command on a page runs below, or is named here with why not; no name outlives its command."""
    shown = [command for block in every_block() for command in block.commands]
    unnamed = [
        c.line
        for c in shown
        if c.program not in RUN_HERE and shown_as(c) not in ELSEWHERE and outside_reason(c) is None
    ]
    assert not unnamed, f"commands shown but neither run nor named in OUTSIDE: {unnamed}"
    texts = [shown_as(c) for c in shown]
    stale = [start for start in OUTSIDE if not any(t == start or t.startswith(start + " ") for t in texts)]
    stale += [text for text in [*ELSEWHERE, *EXPECTED] if text not in texts]
    assert not stale, f"named, but no page shows them any more: {stale}"


@pytest.mark.parametrize("text", sorted(ELSEWHERE))
def test_the_commands_run_elsewhere_are_run_there(text: str) -> None:
    test_file, holds = ELSEWHERE[text]
    source = (CHECKOUT / test_file).read_text(encoding="utf-8")
    assert all(needle in source for needle in holds), f"{test_file} no longer runs `{text}`"


def check(command: Command, ran: Run) -> None:
    assert_no_traceback(ran)
    code, says = EXPECTED.get(shown_as(command), (0, ""))
    assert ran.code == code and says in ran.output, f"`{command.line}`: {ran}"
    if command.piped_to[:1] == ("jq",):  # jq '{a, b}': every line an object holding those keys
        keys = re.findall(r"\w+", command.piped_to[1])
        rows = [json.loads(line) for line in ran.stdout.splitlines() if line.strip()]
        assert rows and all(set(keys) <= set(row) for row in rows), f"`{command.line}`: {ran.stdout[:500]}"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: block.name)
def test_a_block_of_commands_runs_as_shown(
    block: Block, stand_ins: Services, fitted_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox = Sandbox(tmp_path, stand_ins, fitted_home)
    monkeypatch.chdir(sandbox.cwd)
    for command in runnable(block):
        check(command, sandbox.run(command))
