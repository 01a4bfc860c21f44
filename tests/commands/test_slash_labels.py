"""A project whose labels are `kind/bug`, `area/cli`, `priority/important-soon` (a slash, not a colon),
exported as REST issue JSON (comments counted, not listed): read with no configuration."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.run import Run, invoke

KINDS = {
    "kind/bug": ("{area} crashes when the node restarts", "### What happened?\nIt panics with a nil pointer."),
    "kind/feature": ("Support {area} retries", "### What would you like to be added?\nA retry knob, please."),
    "kind/documentation": ("Docs: explain {area} flags", "The docs page for this is missing the flags."),
}
AREAS = ["area/cli", "area/api", "area/storage"]
PRIORITIES = ["priority/critical-urgent", "priority/important-soon", "priority/backlog"]


def rest_issue(number: int) -> dict[str, Any]:
    kind = ["kind/bug"] * 5 + ["kind/feature"] * 4 + ["kind/documentation"]
    name = kind[number % len(kind)]
    area = AREAS[number % 3]
    labels = [] if number % 6 == 0 else [name, area] + ([PRIORITIES[number % 3]] if name == "kind/bug" else [])
    title, body = KINDS[name]
    return {
        "url": f"https://api.github.com/repos/tide-org/tide/issues/{number}",
        "html_url": f"https://github.com/tide-org/tide/issues/{number}",
        "number": number,
        "title": title.format(area=area.split("/")[1]),
        "body": body,
        "state": "open" if number % 4 else "closed",
        "labels": [{"name": label} for label in labels],
        "user": {"login": f"user{number % 7}"},
        "comments": number % 3,
        "created_at": f"2025-0{1 + number % 9}-1{number % 10}T10:00:00Z",
    }


def atlas(*args: str, **env: str) -> Run:
    return invoke(*args, env={**os.environ, "COLUMNS": "160", **env})


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("tide")
    export = folder / "issues.json"
    export.write_text(json.dumps([rest_issue(n) for n in range(1, 121)]), encoding="utf-8")
    done = atlas("data", "import", str(export), "--to", str(folder / "data"))
    assert done.returncode == 0, done.stderr
    return folder / "data", done.stdout


def first_call(data: Path, question: str) -> tuple[str, dict[str, Any]]:
    calls = json.loads(atlas("ask", "--json", question, ORBIT_DATA=str(data)).stdout)["calls"]
    return calls[0]["name"], calls[0]["arguments"]


def test_the_summary_names_the_groups_and_the_bug_label(imported: tuple[Path, str]) -> None:
    _, said = imported
    assert re.search(r"label groups: .*area: \(area/api, area/cli, area/storage\)", said)
    assert "kind: (kind/bug, kind/documentation, kind/feature)" in said and "bug label: kind/bug" in said
    assert "comments: not in the export" in said


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("what are the open bugs?", "kind/bug"),
        ("open feature requests", "kind/feature"),
        ("docs issues", "kind/documentation"),
        ("issues labelled area cli", "area/cli"),
    ],
)
def test_searches_read_slash_labels(imported: tuple[Path, str], question: str, label: str) -> None:
    name, arguments = first_call(imported[0], question)
    assert name == "search_issues" and arguments["label"] == label


@pytest.mark.parametrize(
    ("question", "label"),
    [("label #7 bug", "kind/bug"), ('label #7 "priority important-soon"', "priority/important-soon")],
)
def test_labels_are_added_without_their_prefix(imported: tuple[Path, str], question: str, label: str) -> None:
    assert first_call(imported[0], question) == ("add_label", {"issue_id": 7, "label": label})


def test_untriaged_issues_are_those_without_a_kind(imported: tuple[Path, str]) -> None:
    listed = atlas("inbox", "--json", "--only", "untriaged", ORBIT_DATA=str(imported[0]))
    ids = {json.loads(line)["id"] for line in listed.stdout.splitlines()}
    assert ids == {n for n in range(1, 121) if n % 6 == 0 and n % 4}
