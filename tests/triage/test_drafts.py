"""Comment drafts fit the issue: only a bug report that lacks them is asked for its version and its log (or a
reproduction), and a likely earlier report is named. The kind comes from the project's own labels, learned
from how their issues are written, never from the labels' names.

Real issues of huggingface/datasets (`tests/fixtures/flat-labels-issues.json`, for each kind
`draft-kinds-issues.json`, and reports through its form for a hosted page, `viewer-form-issues.json`),
imported as a user imports them with an empty thread each (nobody has answered yet), and planned by
`atlas triage --dry-run --json`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from atlas.foundation.config import bundled_data_dir
from atlas.triage.corpus import Issue
from atlas.triage.drafts import LOG_WANTED, VERSION_WANTED, kind_of, missing_details
from atlas.triage.forms import form_of
from atlas.triage.issue_kinds import BUG, OTHER, QUESTION, LabelKinds, carries, kind_from_text
from atlas.triage.plan import habits_of, kinds_of
from atlas.triage.project import Project
from tests.support.fitted import seed_fitted
from tests.support.once import made_once
from tests.support.run import atlas_env, invoke

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FORM = frozenset({"### describe the bug", "### steps to reproduce the bug", "```python", "```"})


def export(tmp: Path, rename: dict[str, str] | None = None) -> Path:
    """Both fixtures as one export whose issues each carry an empty thread; labels renamed when asked."""
    issues = []
    for name in ("flat-labels-issues.json", "draft-kinds-issues.json", "viewer-form-issues.json"):
        issues += json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    for issue in issues:
        issue["comments"] = []
        for label in issue["labels"]:
            label["name"] = (rename or {}).get(label["name"], label["name"])
    path = tmp / "datasets-issues.json"
    path.write_text(json.dumps(issues), encoding="utf-8")
    return path


def imported(tmp: Path, rename: dict[str, str] | None = None) -> Path:
    target = tmp / "datasets-data"
    done = invoke("data", "import", str(export(tmp, rename)), "--to", str(target), env=atlas_env(tmp / "import"))
    assert done.code == 0, done
    return target


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixtures imported once per run, for every worker."""
    return made_once(tmp_path_factory, "drafts-project", imported) / "datasets-data"


@pytest.fixture
def triaged(project: Path, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    """This test's own state folder, starting where a second `atlas triage` on `project` starts: with the
    model, index and verdicts of a first run, made once per run (the fit is not what these tests test)."""
    first = made_once(tmp_path_factory, "drafts-triaged", lambda home: drafts(project, home, 2646))
    return seed_fitted(first, tmp_path)


def drafts(data: Path, home: Path, *ids: int) -> dict[int, str]:
    done = invoke("triage", *map(str, ids), "--dry-run", "--json", env=atlas_env(home, ORBIT_DATA=str(data)))
    assert done.code == 0, done
    actions: list[dict[str, Any]] = json.loads(done.stdout)["actions"]
    return {a["issue_id"]: a["arguments"]["body"] for a in actions if a["tool"] == "post_comment"}


def test_each_kind_of_issue_gets_the_draft_that_fits_it(project: Path, triaged: Path) -> None:
    said = drafts(project, triaged, 4061, 2746, 2646, 2347, 5951, 6894, 3854, 6515, 6363)
    # A re-report of an earlier bug, with its version and code: the earlier one is named, nothing asked.
    assert said[4061].startswith("This looks like a duplicate of #3465 (“Unable to load 'cnn_dailymail' dataset”")
    assert "please follow #3465" in said[4061] and VERSION_WANTED not in said[4061]
    # A bug report with its traceback but no version is asked for the version only.
    assert VERSION_WANTED in said[2646] and LOG_WANTED not in said[2646]
    # An unlabelled report of a hang with neither: both (its kind from the proposal or the text).
    assert VERSION_WANTED in said[6363] and LOG_WANTED in said[6363]
    # A bug with version and traceback, a feature request, a question, a docs issue, and an issue its
    # people labelled a question however much it reads like a failing load, and one whose title asks
    # whatever label the plan proposes: no draft.
    assert not {2746, 2347, 5951, 6894, 3854, 6515} & set(said)


def test_the_kind_is_learned_from_how_each_labels_issues_are_written(project: Path, tmp_path: Path) -> None:
    kinds = kinds_of(Project.open(project, tmp_path)).kinds
    assert kinds["bug"] == BUG and kinds["enhancement"] == OTHER and kinds["documentation"] == OTHER
    assert kinds["question"] == QUESTION  # outside the kind group, its titles ask
    orbit = kinds_of(Project.open(bundled_data_dir(), tmp_path / "orbit")).kinds
    assert orbit["type:bug"] == BUG and orbit["type:question"] == QUESTION
    assert orbit["type:feature"] == OTHER and orbit["type:docs"] == OTHER


HOSTED_PAGE_REPORTS = (4840, 4996, 4934)
VIEWER_WITHOUT_ERROR = 4855
"""A report through the same form of a page that fails to show ("can't view super_glue dataset on the web page"),
with no error quoted: no version to ask for, but the error the page showed is what a maintainer needs. A form's
habits excuse a version only, so no project's forms, however their reports are written, excuse a log."""
"""Reports through the form for the project's hosted page (its link, what is wrong, whether one owns the data):
bug reports by their text, none with a version, two of them with the page's error and traceback."""


def test_a_report_through_a_form_that_asks_no_version_is_not_asked_for_one(project: Path, triaged: Path) -> None:
    opened = Project.open(project, triaged)
    reports = opened.corpus.many([*HOSTED_PAGE_REPORTS, 2646])
    habits = habits_of(opened)
    # Learned from the project: its reports through this form carry a version clearly less often than the rest.
    assert {form_of(reports[n].body) for n in HOSTED_PAGE_REPORTS} <= habits.without_version
    assert form_of(reports[2646].body) not in habits.without_version
    for number in HOSTED_PAGE_REPORTS:  # bug reports lacking a version, as read alone
        assert kind_of(reports[number], [], kinds_of(opened)) == BUG and not carries(reports[number]).version
    said = drafts(project, triaged, *HOSTED_PAGE_REPORTS, 2646)
    assert not any(VERSION_WANTED in said.get(n, "") for n in HOSTED_PAGE_REPORTS)
    assert LOG_WANTED not in said.get(4996, "") and VERSION_WANTED in said[2646]  # a bug report's form asks for one


def test_a_report_through_a_form_that_asks_no_version_is_still_asked_for_the_error(
    project: Path, triaged: Path
) -> None:
    opened = Project.open(project, triaged)
    report = opened.corpus.many([VIEWER_WITHOUT_ERROR])[VIEWER_WITHOUT_ERROR]
    assert form_of(report.body) in habits_of(opened).without_version and not carries(report).log
    said = drafts(project, triaged, VIEWER_WITHOUT_ERROR, 4840)
    assert LOG_WANTED in said[VIEWER_WITHOUT_ERROR] and VERSION_WANTED not in said[VIEWER_WITHOUT_ERROR]
    assert LOG_WANTED not in said.get(4840, "")  # it quotes the page's error


def test_the_forms_are_kept_per_version_and_a_file_atlas_did_not_write_is_learned_again(
    project: Path, tmp_path: Path
) -> None:
    learned = habits_of(Project.open(project, tmp_path))
    [kept] = (tmp_path / "triage").glob("forms-*.json")
    stored = json.loads(kept.read_text(encoding="utf-8"))
    kept.write_text(json.dumps({**stored, "without_version": ["### a form", 7]}), encoding="utf-8")
    assert habits_of(Project.open(project, tmp_path)) == learned  # not what Atlas writes: learned again
    kept.write_text(json.dumps({**stored, "without_version": ["### a form"]}), encoding="utf-8")
    assert habits_of(Project.open(project, tmp_path)).without_version == {"### a form"}  # read, not learned


def test_labels_named_in_another_language_say_the_same(tmp_path: Path) -> None:
    names = {"bug": "fehler", "enhancement": "wunsch", "documentation": "doku", "dataset request": "datensatz"}
    names |= {"dataset-viewer": "anzeige", "streaming": "strom"}
    data = imported(tmp_path, names)
    kinds = kinds_of(Project.open(data, tmp_path / "home")).kinds
    assert kinds["fehler"] == BUG and kinds["wunsch"] == OTHER and kinds["doku"] == OTHER
    said = drafts(data, tmp_path / "home", 2646, 2347, *HOSTED_PAGE_REPORTS)
    assert VERSION_WANTED in said[2646] and 2347 not in said
    assert not any(VERSION_WANTED in said.get(n, "") for n in HOSTED_PAGE_REPORTS)


def report(title: str, body: str) -> Issue:
    return Issue(7, title, body, "open", "someone", "2026-02-01T10:00:00Z", ())


def test_what_a_report_carries_is_read_from_its_structure() -> None:
    bare = report("Streaming crashes on the second shard", "It fails every time I iterate.")
    assert missing_details(bare) == [VERSION_WANTED, LOG_WANTED]
    logged = report("Streaming crashes", 'Traceback (most recent call last):\n  File "a.py", line 3, in <module>')
    assert missing_details(logged) == [VERSION_WANTED]
    environment = "- `datasets` version: 2.14.1\n- Platform: Linux\n```python\nload_dataset('x', streaming=True)\n```"
    assert missing_details(report("Streaming crashes", environment)) == []
    assert carries(report("Broken with datasets==2.14", "")).version
    # A form's empty code block and its headings are the project's lines, not the reporter's.
    empty = report("Streaming crashes", "### Describe the bug\nit fails\n```python\n```\n")
    assert not carries(empty, FORM).reproduction and not carries(report("x", "took 2.5 s")).version


def test_a_title_that_asks_outweighs_a_proposed_label_but_not_a_persons() -> None:
    kinds = LabelKinds("kind", {"bug": BUG, "enhancement": OTHER})
    asking = report("Why call http_head() when fsspec_head() succeeds", "It fails with a timeout.")
    assert kind_of(asking, ["bug"], kinds) == QUESTION
    assert kind_of(replace(asking, labels=("bug",)), [], kinds) == BUG
    assert kind_of(report("Loading hangs", "stuck at 0%"), ["enhancement"], kinds) == OTHER


def test_the_kind_from_the_text_alone() -> None:
    assert kind_from_text(report("How do I stream a sharded set?", "It fails with an error")) == QUESTION
    assert kind_from_text(report("Can't load the set", "it crashes")) == BUG
    assert kind_from_text(report("Add a way to export to parquet", "It would help.")) == "request"
    filled = report("zstd files", "### Describe the bug\nI would like zstd.")
    assert kind_from_text(filled, FORM) is None


def test_a_title_tagged_as_a_question_asks_and_a_bracketed_error_does_not() -> None:
    failing = "It fails with an error"
    assert kind_from_text(report("[Question] Using a local dataset", failing)) == QUESTION
    assert kind_from_text(report("Question - loading sign language sets", failing)) == QUESTION
    assert kind_from_text(report("[Help wanted] how to cache a split", failing)) == QUESTION
    assert kind_from_text(report("[TypeError: Couldn't cast array] Can only load a subset", failing)) == BUG
    assert kind_from_text(report("Questionable cache keys", failing)) == BUG
    assert kind_from_text(report("[Feature] Add zstd", "It would help.")) == "request"
    assert kind_from_text(report("数据集数量问题？", failing)) == QUESTION  # a full-width question mark asks too


def test_a_group_of_components_is_no_kind_group(tmp_path: Path) -> None:
    target = tmp_path / "rails-data"
    export = FIXTURES / "component-labels-issues.json"
    assert invoke("data", "import", str(export), "--to", str(target), env=atlas_env(tmp_path / "import")).code == 0
    kinds = kinds_of(Project.open(target, tmp_path / "home"))
    assert kinds.group is None and kinds.of(["activerecord"]) is None  # the text decides


def test_a_form_is_the_first_heading_a_reporter_sees() -> None:
    assert form_of("<!-- ### Hidden instructions -->\r\n### Link\r\nhttps://example.org/page") == "### link"
    assert form_of("Some words first.\r\n**Describe the bug**\r\nit fails") == "**describe the bug**"
    assert form_of("no heading here\n#hashtag and **bold** inside a line") is None
