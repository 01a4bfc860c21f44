"""A second real project, of another label shape, checked with no configuration: rails/rails's REST export.

Its labels name components (`activerecord`, `railties`) and none means a bug; 49 issues have no label
and the export holds no comments. Nothing in Atlas was written against it: what works here works by
capability.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.run import Run, invoke

EXPORT = Path(__file__).resolve().parents[1] / "fixtures" / "component-labels-issues.json"
ISSUES = json.loads(EXPORT.read_text(encoding="utf-8"))


def atlas(*args: str, **env: str) -> Run:
    return invoke(*args, env={**os.environ, "COLUMNS": "160", **env})


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("held-back") / "rails-data"
    done = atlas("data", "import", str(EXPORT), "--to", str(target))
    assert done.returncode == 0, done.stderr
    assert "bug label: none found" in done.stdout and "comments: not in the export" in done.stdout
    return target


def calls(project: Path, question: str) -> list[tuple[str, dict[str, object]]]:
    answer = json.loads(atlas("ask", "--json", question, ORBIT_DATA=str(project)).stdout)
    return [(call["name"], call["arguments"]) for call in answer["calls"]]


def test_the_project_is_named_by_its_repository(project: Path) -> None:
    doctor = json.loads(atlas("doctor", "--json", ORBIT_DATA=str(project)).stdout)
    (facts,) = [check["facts"] for check in doctor["checks"] if check["name"] == "project"]
    assert facts["bug_label"] is None and facts["comments_known"] is False
    listed = json.dumps(json.loads(atlas("tools", "--json", ORBIT_DATA=str(project)).stdout))
    assert "rails/rails" in listed and "Orbit" not in listed


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("label #48979 activerecord", "activerecord"),
        ("label #48979 `ActiveRecord`", "activerecord"),
        ('label #48979 "attached PR"', "attached PR"),
        ("label #48979 with reproduction steps", "With reproduction steps"),
    ],
)
def test_a_label_is_named_as_the_project_spells_it(project: Path, question: str, label: str) -> None:
    assert calls(project, question) == [("add_label", {"issue_id": 48979, "label": label})]


def test_an_unknown_label_gets_the_nearest_of_the_projects_own(project: Path) -> None:
    said = json.loads(atlas("ask", "--json", "label #48979 active", ORBIT_DATA=str(project)).stdout)["answer"]
    assert "no label 'active'; did you mean 'actionview' or 'activemodel'" in said  # a typo of none: refused


def test_a_small_typo_of_one_label_is_that_label_and_the_answer_says_so(project: Path) -> None:
    said = json.loads(atlas("ask", "--json", "label #48979 activerecrod", ORBIT_DATA=str(project)).stdout)["answer"]
    assert "no label “activerecrod”: I took `activerecord`" in said
    assert "you did not approve `add_label` activerecord on #48979. Nothing was changed." in said


def test_unlabelled_open_issues_are_untriaged_and_comments_unknown(project: Path) -> None:
    listed = atlas("inbox", "--json", "--only", "untriaged", ORBIT_DATA=str(project))
    found = {json.loads(line)["id"] for line in listed.stdout.splitlines()}
    unlabelled = {i["number"] for i in ISSUES if i["state"] == "open" and not i["labels"]}
    assert len(unlabelled) == 11 and unlabelled <= found
    everything = [json.loads(line) for line in atlas("inbox", "--json", ORBIT_DATA=str(project)).stdout.splitlines()]
    assert everything and all(item["answered"] is None for item in everything)
    shown = atlas("issue", "48979", ORBIT_DATA=str(project)).stdout
    assert "comments unknown" in shown and "0 comments" not in shown


def test_issues_about_a_topic_are_found_by_their_words(project: Path) -> None:
    (name, arguments), *_ = calls(project, "the activerecord ones")
    assert name == "search_issues" and arguments["label"] == "activerecord"


def test_the_word_issues_is_not_a_label(project: Path) -> None:
    (_, arguments), *_ = calls(project, "open issues labelled activerecord")
    assert arguments.get("label") == "activerecord" and not arguments.get("labels")


def test_bugs_without_a_bug_label_are_searched_by_meaning(project: Path) -> None:
    answer = json.loads(atlas("ask", "--json", "what are the open bugs?", ORBIT_DATA=str(project)).stdout)
    (name, arguments), *_ = [(call["name"], call["arguments"]) for call in answer["calls"]]
    assert name == "search_issues" and arguments["state"] == "open" and arguments.get("query") == "bug"
    assert "no label that means bugs" in answer["answer"]


def test_a_spaced_name_finds_its_label(project: Path) -> None:
    assert calls(project, "label #48979 active record") == [("add_label", {"issue_id": 48979, "label": "activerecord"})]


def test_issues_with_no_label_are_counted_by_a_filter(project: Path) -> None:
    answer = json.loads(atlas("ask", "--json", "how many open issues have no label?", ORBIT_DATA=str(project)).stdout)
    ((name, arguments),) = [(call["name"], call["arguments"]) for call in answer["calls"]]
    assert name == "search_issues" and not arguments["query"]
    assert arguments["unlabelled"] is True and arguments["state"] == "open" and arguments["count_only"] is True
    unlabelled = sum(1 for issue in ISSUES if issue["state"] == "open" and not issue["labels"])
    assert f"{unlabelled} issues match" in answer["answer"]


def test_a_labels_words_in_the_plural_ask_for_its_issues(project: Path) -> None:
    (name, arguments), *_ = calls(project, "closed regressions")
    assert name == "search_issues" and arguments["label"] == "regression" and arguments["state"] == "closed"
