"""Drafts on a real backlog, as its maintainer would judge them. An earlier report is named only where the two
are about the same thing and the reporter has not already linked it; code pasted without a code block is a
reproduction, not a reason to ask for one.

Real issues of huggingface/datasets (`tests/fixtures/flat-labels-issues.json` and
`drafts-review-issues.json`), imported as a user imports them, each with an empty thread (nobody has
answered yet), and planned by `atlas triage --dry-run --json`. Each pair scores high as `similar` ranks
them; only one is a duplicate worth a comment:
- #7100 re-reports #2921 (the same frames of the same pyarrow error): named;
- #7215 says itself it "is separate to the slowdown reported in #7206": the reporter knows #7206;
- #6992 (streaming hangs behind a proxy) matches #5727 (a missing file on Windows) on the `conda list` both
  pasted: their titles share nothing.
#7217 (`ds.map` slower than `df.apply`) and #6494 (images loaded twice) paste their code as plain lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atlas.triage.corpus import Issue
from atlas.triage.drafts import LIKELY_SAME, LOG_WANTED, likely_same, linked
from atlas.triage.issue_kinds import carries
from atlas.triage.plan import NO_THREADS
from atlas.triage.project import Project
from atlas.triage.similar import nearest
from tests.support.fitted import seed_fitted
from tests.support.once import made_once
from tests.support.run import atlas_env, invoke

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NAMED, LINKED, LISTING = (7100, 2921), (7215, 7206), (6992, 5727)
PASTED_CODE = (7217, 6494)


def imported(folder: Path, *, threads: bool = True) -> Path:
    """The fixtures as one export, each issue with an empty thread; without `threads`, as a `gh issue list`
    export without its comments (whether anyone answered is unknown)."""
    issues = []
    for name in ("flat-labels-issues.json", "drafts-review-issues.json"):
        issues += json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    export = folder / "issues.json"
    export.write_text(json.dumps([{**issue, "comments": []} if threads else issue for issue in issues]), "utf-8")
    target = folder / "datasets-data"
    done = invoke("data", "import", str(export), "--to", str(target), env=atlas_env(folder / "import"))
    assert done.code == 0, done
    return target


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return made_once(tmp_path_factory, "real-backlog-drafts-project", imported) / "datasets-data"


@pytest.fixture
def triaged(project: Path, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    """This test's own state folder, starting where a second `atlas triage` on `project` starts: with the
    model, index and verdicts of a first run, made once per run (the fit is not what these tests test)."""
    first = made_once(tmp_path_factory, "real-backlog-drafts-triaged", lambda home: planned(project, home, NAMED[0]))
    return seed_fitted(first, tmp_path / "triaged")


def planned(data: Path, home: Path, *ids: int) -> dict[str, Any]:
    done = invoke("triage", *map(str, ids), "--dry-run", "--json", env=atlas_env(home, ORBIT_DATA=str(data)))
    assert done.code == 0, done
    plan: dict[str, Any] = json.loads(done.stdout)
    return plan


def drafted(data: Path, home: Path, *ids: int) -> dict[int, str]:
    actions = planned(data, home, *ids)["actions"]
    return {a["issue_id"]: a["arguments"]["body"] for a in actions if a["tool"] == "post_comment"}


def test_only_a_likely_duplicate_the_reporter_did_not_link_and_whose_title_agrees_is_named(
    project: Path, triaged: Path
) -> None:
    opened = Project.open(project, triaged)
    for later, earlier in (NAMED, LINKED, LISTING):
        issue = opened.issue(later)
        [best] = nearest(opened, issue, limit=1, before=issue.created_at)
        assert best.id == earlier and best.score >= LIKELY_SAME  # each pair is a strong match by its texts
    said = drafted(project, triaged, NAMED[0], LINKED[0], LISTING[0])
    assert said[NAMED[0]].startswith(f"This looks like a duplicate of #{NAMED[1]} (")
    assert f"#{LINKED[1]}" not in said.get(LINKED[0], "") and f"#{LISTING[1]}" not in said.get(LISTING[0], "")


def test_why_each_match_is_or_is_not_named(project: Path, tmp_path: Path) -> None:
    opened = Project.open(project, tmp_path)
    best = {}
    for later, _ in (NAMED, LINKED, LISTING):
        issue = opened.issue(later)
        best[later] = (issue, nearest(opened, issue, limit=1, before=issue.created_at)[0])
    issue, match = best[LINKED[0]]
    assert LINKED[1] in linked(issue) and match.title_likeness > 0 and not likely_same(issue, match)
    issue, match = best[LISTING[0]]
    assert match.title_likeness == 0 and not linked(issue) & {LISTING[1]} and not likely_same(issue, match)
    issue, match = best[NAMED[0]]
    assert match.frames and likely_same(issue, match)


def test_a_link_is_a_number_after_a_hash_or_an_issue_address() -> None:
    body = "Same as #12 and https://github.com/o/r/issues/34, see o/r/pull/56 too; not &#39; nor #78x nor 9#10"
    assert linked(Issue(1, "Follows #90", body, "open", "someone", "2026-01-01T00:00:00Z", ())) == {12, 34, 56, 90}


def test_without_the_threads_no_comment_is_drafted_and_the_plan_says_why(
    project: Path, triaged: Path, tmp_path: Path
) -> None:
    assert NO_THREADS not in planned(project, triaged, NAMED[0])["needs_a_human"]
    assert drafted(project, triaged, LISTING[0])  # with its (empty) thread: a draft
    unknown = imported(tmp_path, threads=False)
    plan = planned(unknown, tmp_path / "unknown", NAMED[0], LISTING[0])
    assert not [a for a in plan["actions"] if a["tool"] == "post_comment"] and NO_THREADS in plan["needs_a_human"]
    shown = invoke("triage", str(LISTING[0]), "--dry-run", env=atlas_env(tmp_path / "unknown", ORBIT_DATA=str(unknown)))
    assert "No comment drafted: this data holds no comments" in " ".join(shown.stdout.split())


def test_code_pasted_as_plain_lines_is_a_reproduction(project: Path, triaged: Path) -> None:
    opened = Project.open(project, triaged)
    common = opened.index().common
    for number in PASTED_CODE:
        issue = opened.issue(number)
        assert "```" not in issue.body and not carries(issue, common).log and carries(issue, common).reproduction
    said = drafted(project, triaged, *PASTED_CODE)
    assert not any(LOG_WANTED in said.get(number, "") for number in PASTED_CODE)
    # Calls named in sentences, or a package pinned in a list, are no statements.
    prose = "I call `load_dataset()`, then ds.map(f) fails.\nIt used push_to_hub() before.\ndatasets==2.14\nxz==5.4"
    assert not carries(Issue(1, "Map fails", prose, "open", "someone", "2026-01-01T00:00:00Z", ())).reproduction
