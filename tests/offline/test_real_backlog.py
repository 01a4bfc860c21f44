"""The offline planner on a slice of a real backlog (huggingface/datasets's export), imported as a user would.

Its labels are flat (`bug`, `enhancement`, `streaming`, `dataset request`), it has no severity scale, and
the export holds no comments; here one open issue's author is taken out, as an export that lost it.
Nothing in the planner names these labels: it reads them from the project's own labels and their use.
"""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.support.run import Run, invoke

EXPORT = Path(__file__).resolve().parents[1] / "fixtures" / "flat-labels-issues.json"
ISSUES = json.loads(EXPORT.read_text(encoding="utf-8"))
LOST = next(issue["number"] for issue in ISSUES if issue["state"].lower() == "open" and issue["labels"])


def atlas(*args: str, **env: str) -> Run:
    return invoke(*args, env={**os.environ, "COLUMNS": "160", **env})


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("real-backlog")
    export = folder / "issues.json"
    export.write_text(json.dumps([{**i, "author": None} if i["number"] == LOST else i for i in ISSUES]), "utf-8")
    target = folder / "datasets-data"
    done = atlas("data", "import", str(export), "--to", str(target))
    assert done.returncode == 0, done.stderr
    return target


def ask(project: Path, question: str) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(atlas("ask", "--json", question, ORBIT_DATA=str(project)).stdout)
    return answer


def first_call(project: Path, question: str) -> tuple[str, dict[str, Any]]:
    call = ask(project, question)["calls"][0]
    return call["name"], call["arguments"]


def test_a_label_and_a_state_asked_as_a_question_are_a_filtered_search(project: Path) -> None:
    name, arguments = first_call(project, "any open streaming issues?")
    assert name == "search_issues" and arguments["state"] == "open" and arguments["label"] == "streaming"


def test_a_kind_the_projects_words_mean_stays_beside_the_label_named(project: Path) -> None:
    name, arguments = first_call(project, "feature requests about streaming")
    assert name == "search_issues"
    assert {arguments["label"], *arguments.get("labels", [])} == {"streaming", "enhancement"}


def test_issues_with_no_label_this_month_are_filters_not_words(project: Path) -> None:
    name, arguments = first_call(project, "open issues with no label from this month")
    assert name == "search_issues" and not arguments["query"]
    assert arguments["unlabelled"] is True and arguments["state"] == "open"
    assert arguments["created_since"] == date.today().replace(day=1).isoformat()


def test_the_unlabelled_filter_counts_the_issues_with_no_label(project: Path) -> None:
    said = ask(project, "how many closed issues have no label?")["answer"]
    unlabelled = sum(1 for issue in ISSUES if issue["state"].lower() == "closed" and not issue["labels"])
    assert unlabelled and f"{unlabelled} issues match" in said


def test_the_inbox_says_what_the_project_does_not_know(project: Path) -> None:
    answer = ask(project, "show me the inbox")
    assert [call["name"] for call in answer["calls"]] == ["list_inbox"]
    said = answer["answer"]
    assert "### Inbox" in said and "activity unknown" in said
    assert "no severity" not in said and "idle None" not in said


def test_an_author_the_export_lost_is_unknown(project: Path) -> None:
    said = ask(project, f"show #{LOST}")["answer"]
    assert "opened by unknown on" in said and "opened by  on" not in said


def test_a_doc_asked_for_where_there_are_none_lists_the_docs_and_says_so(project: Path) -> None:
    answer = ask(project, "where do the docs explain streaming?")
    assert [call["name"] for call in answer["calls"]] == ["list_docs"]
    assert "No docs were found" in answer["answer"]
    assert first_call(project, "open docs issues")[0] == "search_issues"


def test_the_oldest_open_bug_is_read_from_the_oldest_first_search(project: Path) -> None:
    answer = ask(project, "what's the oldest open bug?")
    search, read = answer["calls"][:2]
    assert search["name"] == "search_issues" and search["arguments"]["order"] == "oldest"
    oldest = min(
        (i for i in ISSUES if i["state"].lower() == "open" and any(x["name"] == "bug" for x in i["labels"])),
        key=lambda i: i["createdAt"],
    )
    assert read["name"] == "get_issue" and read["arguments"] == {"issue_id": oldest["number"]}


def test_the_most_commented_issue_is_not_named_when_no_comment_is_known(project: Path) -> None:
    answered = ask(project, "what is the most commented issue?")
    assert [call["name"] for call in answered["calls"]] == ["search_issues"]  # no first hit read as the answer
    assert "these are the newest, not the most commented" in answered["answer"]
    assert "could not be sorted as asked" in answered["answer"]
