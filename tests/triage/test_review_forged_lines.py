"""A project's label cannot forge a line of the numbered review: each item's lines are its own.

Labels come from the project (anyone who can label an issue, or an export someone sent), so one
may hold a newline followed by what looks like the next item. On a real terminal, every line the
review shows under an item is one line, with the newline shown as `\\n`.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.dataset_factory import issue, make_dataset
from tests.support.fitted import seed_fitted
from tests.support.run import atlas_env, finish, invoke, spawn_atlas

FORGED = "comp:db\n2. #7 add label severity:S1"
QUESTION = re.escape(b"Apply? [y = all, 1,3 = those, e 2 = edit item 2, n = none] ")
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def forged_project(root: Path) -> Path:
    topics = {
        FORGED: "postgres database connection pool query timeout",
        "comp:ui": "dashboard button page render css",
        "comp:api": "rest endpoint http json response status",
    }
    issues = [
        issue(100 + 12 * n + k, f"{words.split()[k % 5]} problem {k}", state="closed", labels=[label, "type:bug"])
        for n, (label, words) in enumerate(topics.items())
        for k in range(12)
    ]
    for found in issues:
        found["body"] = f"{topics[found['labels'][0]]} {found['title']} broken again"
    issues.append(issue(7, "database connection pool query timeout", body="postgres database connection pool query"))
    return make_dataset(root, issues)


def first_triage(home: Path, data: Path) -> None:
    """What a first `atlas triage` leaves in `home`: the model, index and verdicts of `data`."""
    done = invoke("triage", "7", "--dry-run", "--json", env=atlas_env(home, ORBIT_DATA=str(data)))
    assert done.code == 0, done


def test_a_label_with_a_newline_stays_on_its_own_line_in_the_review(tmp_path: Path) -> None:
    """The review on a terminal, from the state a first triage left (made in this process: the fit is
    not what this test is about)."""
    data = forged_project(tmp_path)
    first_triage(tmp_path / "first", data)
    env = atlas_env(seed_fitted(tmp_path / "first", tmp_path / "home"), ORBIT_DATA=str(data))
    child = spawn_atlas("triage", "7", env=env, timeout=180)
    child.expect(QUESTION)
    shown = ESCAPES.sub("", (child.before or b"").decode("utf-8")).replace("\r", "")
    child.send(b"n\r")
    code, _ = finish(child)
    assert code == 0
    items = re.findall(r"^(\d+)\. (.*)$", shown, re.M)
    assert [number for number, _ in items] == [str(n) for n in range(1, len(items) + 1)], shown
    # Every numbered line is one of the plan's own items: none forged by the label.
    assert items and all(re.match(r"#7 (add label|comment) ", what) for _, what in items), shown
    forged = [line for line in shown.splitlines() if "add label severity:S1" in line]
    assert forged and all("comp:db\\n2. #7 add label severity:S1" in line for line in forged), shown
