"""A real project with flat labels and no comments, imported and asked about as its maintainers would."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.run import Run, invoke

EXPORT = Path(__file__).resolve().parents[1] / "fixtures" / "flat-labels-issues.json"


def atlas(*args: str, **env: str) -> Run:
    return invoke(*args, env={**os.environ, "COLUMNS": "160", **env})


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("real") / "datasets-data"
    done = atlas("data", "import", str(EXPORT), "--to", str(target))
    assert done.returncode == 0, done.stderr
    return target


def calls(project: Path, question: str) -> list[tuple[str, dict[str, object]]]:
    asked = atlas("ask", "--json", question, ORBIT_DATA=str(project))
    answer = json.loads(asked.stdout)
    return [(call["name"], call["arguments"]) for call in answer["calls"]]


def answer_of(project: Path, question: str) -> str:
    return str(json.loads(atlas("ask", "--json", question, ORBIT_DATA=str(project)).stdout)["answer"])


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ('label #7354 "bug"', "bug"),
        ("label #7354 bug", "bug"),
        ("label #7354 `Bug`", "bug"),
        ('label #7354 "dataset request"', "dataset request"),
        ("label #7354 dataset request", "dataset request"),
        ("add 'good first issue' to #7354", "good first issue"),
    ],
)
def test_a_label_is_named_as_the_project_spells_it(project: Path, question: str, label: str) -> None:
    assert calls(project, question) == [("add_label", {"issue_id": 7354, "label": label})]


def test_an_unknown_label_gets_the_nearest_of_the_projects_own(project: Path) -> None:
    said = answer_of(project, 'label #7354 "bugg"')
    assert "no label 'bugg'; did you mean 'bug'" in said and "There is no label" not in said


@pytest.mark.parametrize(
    ("question", "label"),
    [("issues labelled duplicate", "duplicate"), ('open issues labelled "dataset request"', "dataset request")],
)
def test_a_search_filters_by_a_flat_label(project: Path, question: str, label: str) -> None:
    (name, arguments), *_ = calls(project, question)
    assert name == "search_issues" and arguments["label"] == label and not arguments.get("query")


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("what are the open bugs?", "bug"),
        ("open feature requests", "enhancement"),
        ("docs issues", "documentation"),
        ("the streaming ones", "streaming"),
        ("any questions?", "question"),
    ],
)
def test_the_projects_words_find_its_own_labels(project: Path, question: str, label: str) -> None:
    (name, arguments), *_ = calls(project, question)
    assert name == "search_issues" and arguments["label"] == label and not arguments.get("query")


def test_a_label_on_a_few_issues_is_not_taken_for_a_topic(project: Path) -> None:
    (_, arguments), *_ = calls(project, "open issues about arrow")
    assert arguments.get("label") is None and arguments["query"] == "arrow"
