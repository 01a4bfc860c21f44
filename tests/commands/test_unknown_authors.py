"""An export that does not say who opened an issue (a deleted account, a field left out): the author is unknown."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.run import Run, invoke

EXPORT = Path(__file__).resolve().parents[1] / "fixtures" / "flat-labels-issues.json"


def atlas(*args: str, **env: str) -> Run:
    return invoke(*args, env={**os.environ, "COLUMNS": "160", **env})


def test_an_author_the_export_lacks_is_unknown_never_a_name(tmp_path: Path) -> None:
    issues = json.loads(EXPORT.read_text(encoding="utf-8"))[:20]
    issues[0]["author"] = None  # GraphQL's deleted account
    del issues[1]["author"]  # a field the export left out
    issues[2]["author"] = {"login": ""}
    export = tmp_path / "export.json"
    export.write_text(json.dumps(issues), encoding="utf-8")
    target = tmp_path / "authors"
    done = atlas("data", "import", str(export), "--to", str(target))
    assert done.returncode == 0 and "20 issues" in done.stdout, done.stdout + done.stderr
    for issue in issues[:3]:
        number = str(issue["number"])
        data = json.loads(atlas("issue", number, "--json", ORBIT_DATA=str(target)).stdout)
        assert data["author"] is None and "unknown" in data["author_note"]
        shown = atlas("issue", number, ORBIT_DATA=str(target)).stdout
        assert "opened by unknown" in shown and "ghost" not in shown and "None" not in shown
    known = json.loads(atlas("issue", str(issues[3]["number"]), "--json", ORBIT_DATA=str(target)).stdout)
    assert known["author"] == issues[3]["author"]["login"] and "author_note" not in known


def test_a_missing_issue_is_named_against_the_active_project(tmp_path: Path) -> None:
    target = tmp_path / "some-project"
    assert atlas("data", "import", str(EXPORT), "--to", str(target)).returncode == 0
    said = json.loads(atlas("ask", "--json", "show #1", ORBIT_DATA=str(target)).stdout)["answer"]
    assert "no issue #1 in some-project" in said and "Orbit" not in said
    shown = atlas("issue", "1", ORBIT_DATA=str(target))
    assert shown.returncode != 0 and "no issue #1 in some-project" in shown.stderr
