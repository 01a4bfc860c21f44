"""`atlas data import`: a `gh issue list --json` export of 520 issues becomes a dataset Atlas answers from."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from atlas.cli.root import app
from atlas.dataset.ensure import db_path, jsonl_path, read_issues
from atlas.foundation.errors import DataError
from atlas.github.convert import convert_all
from atlas.github.importer import import_export
from tests.github.gh_export import gh_issues, pull_request, rest_issue
from tests.support.run import invoke

runner = CliRunner()


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "quill-docs"
    folder.mkdir()
    (folder / "templates.md").write_text(
        "# Templates\n\n## Partials\n\nA partial may include other partials, never itself.\n\n"
        "## Filters\n\nThe date filter formats dates in the site timezone (`timezone` in quill.toml).\n",
        encoding="utf-8",
    )
    (folder / "notes.txt").write_text("not a doc", encoding="utf-8")
    return folder


def ask(data: Path, home: Path, question: str) -> str:
    env = {**os.environ, "ORBIT_DATA": str(data), "ATLAS_HOME": str(home), "ATLAS_MODEL": "offline"}
    done = invoke("ask", question, env=env)
    assert done.code == 0, done.stderr
    return done.stdout


def test_a_gh_export_of_520_issues_imports_and_answers_offline(tmp_path: Path, docs: Path) -> None:
    export = write_json(tmp_path / "issues.json", gh_issues(520))
    folder = tmp_path / "quill"
    result = runner.invoke(app, ["data", "import", str(export), "--to", str(folder), "--docs", str(docs)])
    assert result.exit_code == 0, result.output
    assert "Imported 520 issues (780 comments)" in result.output
    assert "labels (6): area:cli, area:markdown, area:templates, bug, enhancement, good first issue" in result.output
    assert "docs (1): templates" in result.output
    issues = read_issues(jsonl_path(folder))
    assert len(issues) == 520 and db_path(folder).is_file() and sorted(os.listdir(folder / "docs")) == ["templates.md"]
    assert issues[40] == {
        "id": 41,
        "title": "Tables with pipes in code spans are split (41)",
        "state": "open",
        "labels": ["area:markdown", "bug"],
        "author": "farah",
        "created_at": "2025-01-13T08:00:00Z",
        "body": issues[40]["body"],
        "comments": [
            {
                "author": "farah",
                "body": "Confirmed on 0.5.0: escape handling in the table parser.",
                "created_at": issues[40]["comments"][0]["created_at"],
            }
        ],
    }

    home = tmp_path / "home"
    assert "Tables with pipes in code spans are split (41)" in ask(folder, home, "show #41")
    found = ask(folder, home, "find issues about footnotes")
    # The export repeats titles: which of them rank first is the search's business, not the import's.
    assert re.search(r"#\d+ Footnotes render twice in feeds", found), found
    assert "`templates` — Templates (2 sections)" in ask(folder, home, "what docs are there?")


def test_rest_json_skips_pull_requests_and_reads_nulls(tmp_path: Path) -> None:
    gh = gh_issues(3)
    items = [rest_issue(issue) for issue in gh] + [pull_request(4)]
    items[0]["body"] = None
    items[1]["user"] = None  # a deleted account
    converted = convert_all(items)
    assert [issue["id"] for issue in converted.issues] == [1, 2, 3]
    assert converted.issues[0]["body"] == "" and converted.issues[1]["author"] is None
    assert converted.pull_requests == 1 and converted.skipped == ["record 4 (#4): a pull request"]
    assert all(issue["comments"] == [] for issue in converted.issues)  # REST only counts them


def test_bad_records_are_skipped_with_a_reason_naming_them(tmp_path: Path) -> None:
    good = gh_issues(2)
    bad_state = {**good[0], "number": 7, "state": "MERGED"}
    no_title = {**good[0], "number": 8, "title": None}
    bad_comment = {**good[1], "number": 9, "comments": [{"author": {"login": "x"}, "body": "hi"}]}
    converted = convert_all([*good, bad_state, no_title, "text", bad_comment, good[1]])
    assert [issue["id"] for issue in converted.issues] == [1, 2]
    assert converted.skipped == [
        "record 3 (#7): state 'MERGED' is neither open nor closed",
        "record 4 (#8): no title",
        "record 5: not a JSON object",
        "record 6 (#9): comment 1: no createdAt",
        "record 7 (#2): issue #2 appears twice (the first is kept)",
    ]


def test_concatenated_pages_from_gh_api_paginate_are_read(tmp_path: Path) -> None:
    issues = [rest_issue(issue) for issue in gh_issues(5)]
    export = tmp_path / "pages.json"
    export.write_text(json.dumps(issues[:3]) + json.dumps(issues[3:]) + "\n", encoding="utf-8")
    report = import_export(export, tmp_path / "quill", docs=None)
    assert len(report.converted.issues) == 5


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"number": 1}', "holds a JSON dict, not a list of issues"),
        ("[{]", "is not JSON (line 1"),
        ("[]", "holds no issue Atlas can read"),
        ('[{"number": 1, "state": "open"}]', "holds no issue Atlas can read (record 1 (#1): no title)"),
    ],
)
def test_unreadable_exports_are_one_clear_error_and_write_nothing(tmp_path: Path, content: str, message: str) -> None:
    export = tmp_path / "export.json"
    export.write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        import_export(export, tmp_path / "out", docs=None)
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["export.json"]  # no staging folder left behind


def test_a_folder_atlas_did_not_write_is_never_replaced(tmp_path: Path) -> None:
    export = write_json(tmp_path / "issues.json", gh_issues(3))
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work", encoding="utf-8")
    result = runner.invoke(app, ["data", "import", str(export), "--to", str(precious)])
    assert result.exit_code == 1 and "was not written by `atlas data`" in result.output
    assert (precious / "thesis.tex").read_text(encoding="utf-8") == "years of work"


def test_reimport_replaces_the_issues_and_keeps_the_docs(tmp_path: Path, docs: Path) -> None:
    folder = tmp_path / "quill"
    import_export(write_json(tmp_path / "a.json", gh_issues(10)), folder, docs=docs)
    import_export(write_json(tmp_path / "b.json", gh_issues(20)), folder, docs=None)
    assert len(read_issues(jsonl_path(folder))) == 20
    assert (folder / "docs" / "templates.md").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json", "quill", "quill-docs"]


def test_import_and_offline_ask_on_the_import_never_load_the_http_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_cli import _modules_after

    export = write_json(tmp_path / "issues.json", gh_issues(50))
    done, modules = _modules_after(["data", "import", str(export), "--to", str(tmp_path / "q")], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "httpx" not in modules and "openai" not in modules
    # Nor scikit-learn (a second of CPU), though the topic it suggests is no stop word of its vectorizers.
    assert "sklearn" not in modules and "find open issues about" in done.stdout
    monkeypatch.setenv("ORBIT_DATA", str(tmp_path / "q"))
    done, modules = _modules_after(["ask", "-m", "offline", "label #41 area:cli and show #41"], tmp_path)
    assert done.returncode == 0, done.stderr
    # The label was proposed and, with no terminal, denied (the row is on stderr: stdout is a pipe).
    assert "area:cli" in done.stdout and "denied" in done.stderr
    assert "httpx" not in modules and "openai" not in modules


def test_the_mock_tracker_takes_an_imported_projects_labels(tmp_path: Path, atlas_home: Path) -> None:
    from atlas.foundation.errors import PermanentToolError
    from atlas.orbit.labels import AddLabelArgs, add_label
    from atlas.tools.registry import ToolContext

    folder = tmp_path / "quill"
    import_export(write_json(tmp_path / "issues.json", gh_issues(50)), folder, docs=None)
    context = ToolContext(data=folder, home=atlas_home, session="s", idempotency_key="k1")
    result = add_label(AddLabelArgs(issue_id=41, label="Good First Issue"), context)
    assert result["changed"] is True and result["labels"][-1] == "good first issue"
    with pytest.raises(PermanentToolError, match="quill has no label 'comp:core'; its labels: area:cli"):
        add_label(AddLabelArgs(issue_id=41, label="comp:core"), context)
