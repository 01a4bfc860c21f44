"""A real project with flat labels and no comments, imported and asked about as its maintainers would."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.adversarial.sse_server import ScriptedSSE, text_answer
from tests.support.run import Run, invoke

EXPORT = Path(__file__).resolve().parents[1] / "fixtures" / "flat-labels-issues.json"


def atlas(*args: str, **env: str) -> Run:
    return invoke(*args, env={**os.environ, "COLUMNS": "160", **env})


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The export imported once for the module: the folder, and what the import said."""
    target = tmp_path_factory.mktemp("real") / "datasets-data"
    done = atlas("data", "import", str(EXPORT), "--to", str(target))
    assert done.returncode == 0, done.stderr
    return target, done.stdout


@pytest.fixture
def project(imported: tuple[Path, str]) -> Path:
    return imported[0]


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


def open_issues(*, kind: set[str] | None = None) -> list[dict[str, object]]:
    """The export's open issues (with none of the `kind` labels, when given)."""
    issues = json.loads(EXPORT.read_text(encoding="utf-8"))
    found = [issue for issue in issues if issue["state"] == "OPEN"]
    if kind is not None:
        found = [issue for issue in found if not {label["name"] for label in issue["labels"]} & kind]
    return found


def test_an_issue_without_a_label_is_untriaged_and_the_flat_labels_form_a_group(project: Path) -> None:
    listed = atlas("inbox", "--json", "--only", "untriaged", ORBIT_DATA=str(project))
    items = [json.loads(line) for line in listed.stdout.splitlines()]
    unlabelled = {issue["number"] for issue in open_issues() if not issue["labels"]}
    assert unlabelled and unlabelled <= {item["id"] for item in items}
    assert all(item["reasons"][0] == "untriaged: no kind" for item in items)
    doctor = json.loads(atlas("doctor", "--json", ORBIT_DATA=str(project)).stdout)
    (inferred,) = [check["facts"] for check in doctor["checks"] if check["name"] == "project"]
    kind = set(inferred["groups"]["kind"])
    assert {"bug", "enhancement"} <= kind and not kind & {"good first issue", "duplicate", "streaming"}
    untriaged = {item["id"] for item in items}
    assert untriaged <= {issue["number"] for issue in open_issues(kind=kind)}
    # `question` issues here seldom carry a kind (1 of 8): that label stands in for one, so they are triaged.
    stand_ins = {issue["number"] for issue in open_issues(kind=kind) if {"question"} & _names(issue)}
    assert stand_ins and not stand_ins & untriaged


def _names(issue: dict[str, object]) -> set[str]:
    return {label["name"] for label in issue["labels"]}  # type: ignore[attr-defined,index]


def test_without_comments_nothing_is_called_unanswered_or_stale(project: Path) -> None:
    listed = atlas("inbox", "--json", ORBIT_DATA=str(project))
    items = [json.loads(line) for line in listed.stdout.splitlines()]
    assert items and all(item["answered"] is None and item["idle_days"] is None for item in items)
    assert not [reason for item in items for reason in item["reasons"] if reason.startswith(("unanswered", "stale"))]
    shown = atlas("inbox", ORBIT_DATA=str(project))
    assert "holds no comments" in shown.stderr and "answered and active" not in shown.stdout
    assert "severity" not in shown.stdout.splitlines()[0]  # no scale in this project, so no empty column
    asked = atlas("inbox", "--only", "unanswered", ORBIT_DATA=str(project))
    assert asked.returncode == 1 and "unknown" in asked.stderr and "Nothing needs you" not in asked.stdout


def test_an_issue_says_its_comments_are_unknown_not_zero(project: Path) -> None:
    number = open_issues()[0]["number"]
    shown = atlas("issue", str(number), ORBIT_DATA=str(project))
    assert "comments unknown" in shown.stdout and "0 comments" not in shown.stdout
    data = json.loads(atlas("issue", str(number), "--json", ORBIT_DATA=str(project)).stdout)
    assert data["comment_count"] is None and "unknown" in data["comments_note"]
    for question in (f"show #{number}", f"who reported #{number} and when?"):  # the whole issue, and its facts
        said = answer_of(project, question)
        assert "comments unknown" in said and "0 comments" not in said, (question, said)


def test_labels_that_form_no_group_are_said_so_with_how_to_name_one(tmp_path: Path) -> None:
    issues = json.loads(EXPORT.read_text(encoding="utf-8"))
    for issue in issues:  # every labelled issue gets both labels: they are no choice of one
        issue["labels"] = [{"name": "bug"}, {"name": "enhancement"}] if issue["labels"] else []
    export = tmp_path / "together.json"
    export.write_text(json.dumps(issues), encoding="utf-8")
    target = tmp_path / "together"
    assert atlas("data", "import", str(export), "--to", str(target)).returncode == 0
    shown = atlas("inbox", "--only", "untriaged", ORBIT_DATA=str(target))
    assert "No label group is known" in shown.stderr and "[triage.groups] kind = [" in shown.stderr
    assert "untriaged: no label" in shown.stdout
    triaged = atlas("triage", "--untriaged", "--dry-run", ORBIT_DATA=str(target))
    assert triaged.returncode == 1 and "No label group is known" in triaged.stderr
    assert "Nothing to do" not in triaged.stdout


def test_the_import_says_what_it_inferred_and_suggests_questions_that_work(imported: tuple[Path, str]) -> None:
    target, said = imported
    assert "label groups: kind (" in said and "bug label: bug" in said and "comments: not in the export" in said
    questions = re.findall(r"atlas ask '([^']+)'", said)
    assert len(questions) == 3
    for question in questions:
        asked = json.loads(atlas("ask", "--json", question, ORBIT_DATA=str(target)).stdout)
        (call,) = asked["calls"]
        assert call["name"] == "search_issues" and call["kind"] == "ok", question
        assert "No issues matched" not in asked["answer"] and "#" in asked["answer"], question
    assert (
        json.loads(atlas("ask", "--json", questions[0], ORBIT_DATA=str(target)).stdout)["calls"][0]["arguments"][
            "label"
        ]
        == "bug"
    )


def test_the_tools_and_the_model_are_told_of_this_project_and_what_its_data_lacks(project: Path) -> None:
    listed = json.loads(atlas("tools", "--json", ORBIT_DATA=str(project)).stdout)
    described = " ".join(tool["description"] for tool in listed)
    assert "Read one issue of datasets-data" in described and "Orbit" not in described
    assert "type:bug" not in json.dumps(listed) and "comp:" not in json.dumps(listed)
    with ScriptedSSE([text_answer("Nothing to do.")]) as server:
        asked = atlas(
            "ask", "-m", "gpt-x", "--read-only", "hello", ORBIT_DATA=str(project), OPENAI_API_KEY="k",
            OPENAI_BASE_URL=server.url,
        )  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    instructions = server.bodies[0]["instructions"]
    assert "export without comments" in instructions and "Orbit" not in instructions
    tools = json.dumps(server.bodies[0]["tools"])
    assert "Search the issues of datasets-data" in tools and "Orbit" not in tools


@pytest.mark.parametrize("question", ["list stale issues", "which issues are waiting on the reporter?"])
def test_a_reason_only_comments_can_show_is_unknown_not_none(project: Path, question: str) -> None:
    asked = atlas("ask", "--json", question, ORBIT_DATA=str(project))
    answer = json.loads(asked.stdout)
    assert [call["name"] for call in answer["calls"]] == ["list_inbox"]
    assert "unknown" in answer["answer"] and "answered and active" not in answer["answer"]


def test_a_hit_without_labels_says_so_in_words(project: Path) -> None:
    said = answer_of(project, "open issues with no label")
    assert "no labels" in said and ", none," not in said
