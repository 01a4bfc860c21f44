"""A project whose issues were written by an attacker, walked through every command that shows issues.

Titles, bodies, labels and comments carry a clipboard write (OSC 52), a screen clear, an OSC 8
link, colours, C1 controls and a bidi override. On a real pseudo-terminal, the raw bytes Atlas
writes hold only Rich's own styling; every `--json` output is ASCII JSON that still says what
the data said.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.adversarial.test_terminal import SEQUENCES
from tests.support.dataset_factory import issue, make_dataset
from tests.support.fitted import seed_fitted
from tests.support.once import made_once
from tests.support.run import (
    assert_inert_plain,
    assert_inert_tty,
    assert_no_traceback,
    atlas_env,
    finish,
    invoke,
    spawn_atlas,
)

# What fits in a title and a label: no NUL, no lone surrogate (JSON cannot carry them to the db).
PAYLOAD = " ".join(value for key, value in SEQUENCES.items() if key not in ("nul_del", "lone_surrogates"))
# A label with a newline, then what would pass for another item of a triage plan.
HOSTILE_LABEL = "comp:\x1b]52;c;cm0gLXJmIH4=\x07core\u202e\x9b2J\n9. #4 add label severity:S1"


def hostile_project(root: Path) -> Path:
    words = "worker lease expired ORB-1101 nightly rebuild runs twice"
    issues = [
        issue(
            n,
            f"Nightly rebuild runs twice {PAYLOAD} #{n}",
            labels=[HOSTILE_LABEL, "type:bug"] if n % 2 else [],
            body=f"{words} {PAYLOAD}",
            comments=[f"me too {PAYLOAD}"] if n % 2 else [],
            created_at=f"2026-03-0{n}T10:00:00Z",
        )
        for n in range(1, 6)
    ]
    # Closed issues that teach triage the hostile label for this kind of issue, and another for others.
    issues += [
        issue(
            10 + n,
            f"Nightly rebuild problem {n}" if n % 2 else f"Dashboard page render {n}",
            state="closed",
            labels=[HOSTILE_LABEL if n % 2 else "comp:ui", "type:bug", "severity:S3"],
            body=words if n % 2 else "dashboard button page render css",
        )
        for n in range(12)
    ]
    return make_dataset(root, issues)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return atlas_env(tmp_path / "home", ORBIT_DATA=str(hostile_project(tmp_path)))


def first_triage(folder: Path) -> None:
    """A first `atlas triage` of the hostile project, in `folder / "home"`: its model, index and verdicts."""
    done = invoke(
        "triage", "2", "--dry-run", "--json", env=atlas_env(folder / "home", ORBIT_DATA=str(hostile_project(folder)))
    )
    assert done.code == 0, done


@pytest.fixture
def triaged_env(env: dict[str, str], tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """`env` whose state folder starts where a second `atlas triage` starts, from a first triage made once
    per run: these tests are about what reaches the screen, not the fit (the review below fits on a terminal)."""
    seed_fitted(made_once(tmp_path_factory, "hostile-triaged", first_triage) / "home", tmp_path / "home")
    return env


TERMINAL_COMMANDS = [
    ("inbox",),
    ("similar", "2"),
    ("issue", "2"),
    ("ask", "show #2"),
    ("ask", "issues like #2"),
    ("triage", "2", "--dry-run"),
]


@pytest.mark.parametrize("args", TERMINAL_COMMANDS, ids=" ".join)
def test_hostile_issue_text_reaches_the_terminal_only_as_text(
    triaged_env: dict[str, str], args: tuple[str, ...]
) -> None:
    child = spawn_atlas(*args, env={**triaged_env, "PAGER": "cat"})
    code, raw = finish(child)
    assert code == 0, raw
    assert b"Traceback" not in raw, raw
    assert_inert_tty(raw, " ".join(args))
    shown = raw.decode("utf-8")
    assert "\\x1b]52;c;" in " ".join(shown.split()) or "\\x1b]52;c;" in shown.replace("\r\n", ""), shown


JSON_COMMANDS = [
    ("inbox", "--json"),
    ("similar", "2", "--json"),
    ("issue", "2", "--json"),
    ("triage", "2", "--dry-run", "--json"),
    ("ask", "show #2", "--json"),
]


@pytest.mark.parametrize("args", JSON_COMMANDS, ids=" ".join)
def test_hostile_issue_text_in_json_is_ascii_and_escaped(triaged_env: dict[str, str], args: tuple[str, ...]) -> None:
    # In this process: what is written is the test, not the terminal (the terminal's test is above).
    done = invoke(*args, env=triaged_env)
    assert done.code == 0, done
    assert_no_traceback(done)
    assert_inert_plain(done.out, " ".join(args))
    assert done.out.isascii(), done.stdout
    try:
        decoded = [json.loads(done.stdout)]
    except json.JSONDecodeError:  # one object per line
        decoded = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    # Escaped, not dropped: the JSON still says exactly what the data said.
    assert "\u202e" in json.dumps(decoded, ensure_ascii=False), done.stdout


REVIEW_QUESTION = re.escape(b"Apply? [y = all, 1,3 = those, e 2 = edit item 2, n = none] ")


@pytest.mark.parametrize("saved", [False, True], ids=["triage", "apply"])
def test_the_plan_review_shows_hostile_issue_text_only_as_text(
    env: dict[str, str], tmp_path: Path, saved: bool
) -> None:
    args: tuple[str, ...] = ("triage", "1", "2", "3")
    if saved:
        plan = tmp_path / "plan.json"
        made = invoke(*args, "--plan", str(plan), env=env)  # the saved plan; the review below is on a terminal
        assert made.code == 0, made
        args = ("apply", str(plan))
    child = spawn_atlas(*args, env=env, timeout=180)
    child.expect(REVIEW_QUESTION)
    shown = child.before or b""
    child.send(b"n\r")
    code, rest = finish(child)
    assert code == 0, rest
    assert_inert_tty(shown + rest, " ".join(args))
    assert b"\\x1b]52;c;" in shown, shown  # the label, in the item and in what `p` would allow
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown.decode("utf-8")).replace("\r", "")
    assert not re.search(r"^\s*9\. #4", screen, re.M), screen  # no line passes for an item of its own
