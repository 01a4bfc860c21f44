"""A large project's triage is made ready by the import that writes it: the first ask for labels answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from atlas.cli.root import app
from tests.github.gh_export import gh_issues
from tests.support.fitted import seed_fitted
from tests.support.tool_calls import run_calls
from tests.support.triage_kept import kept_files, large  # noqa: F401 (a fixture)

UNTRIAGED = 119
"""The newest issue of the export (an open one), written without labels: every group is left for a proposal to fill."""
CALLS: list[dict[str, object]] = [
    {"name": "suggest_labels", "arguments": {"issue_id": UNTRIAGED}},
    {"name": "plan_triage", "arguments": {"untriaged": True, "limit": 5}},
    {"name": "find_similar", "arguments": {"issue_id": UNTRIAGED}},
]


def quill_export(path: Path) -> Path:
    issues = gh_issues(UNTRIAGED)
    issues[-1]["labels"] = []
    path.write_text(json.dumps(issues), encoding="utf-8")
    return path


@pytest.mark.usefixtures("large")
def test_an_import_readies_triage_so_the_first_calls_answer_without_building_anything(
    tmp_path: Path, atlas_home: Path
) -> None:
    folder = tmp_path / "quill"
    result = CliRunner().invoke(
        app, ["data", "import", str(quill_export(tmp_path / "issues.json")), "--to", str(folder)]
    )
    assert result.exit_code == 0, result.output
    built = "the label model, the replay that checks it on the project's history, the similarity index"
    assert f"triage: {built} kept for this version of the data" in result.output
    kept = kept_files(atlas_home)
    suggested, planned, similar = run_calls(atlas_home, CALLS, data=folder)
    assert [envelope["ok"] for envelope in (suggested, planned, similar)] == [True, True, True]
    groups = {proposal["group"]: proposal for proposal in suggested["data"]["proposals"]}  # type: ignore[index]
    assert groups["area"]["label"] and groups["area"]["best_guess"].startswith("area:")
    assert UNTRIAGED in planned["data"]["issues"]  # type: ignore[index]
    assert kept_files(atlas_home) == kept  # loaded, not fitted again nor replayed
    # Without what the import built (a state folder it never wrote to), the same calls name the command.
    cold = run_calls(tmp_path / "cold-home", CALLS, data=folder)
    assert [envelope["error"]["kind"] for envelope in cold] == ["permanent"] * 3  # type: ignore[index]


@pytest.mark.usefixtures("large")
def test_a_model_kept_without_its_verdicts_is_not_replayed_within_a_call(tmp_path: Path, fitted_home: Path) -> None:
    home = seed_fitted(fitted_home, tmp_path / "home")
    for verdicts in (home / "triage").glob("verdicts-*.json"):
        verdicts.unlink()
    suggested, planned = run_calls(home, [*CALLS[:1], {"name": "plan_triage", "arguments": {"issue_ids": [135]}}])
    # The replay is the longer part of a first triage: within a call it would be lost with the call's time.
    assert [envelope["error"]["kind"] for envelope in (suggested, planned)] == ["permanent"] * 2  # type: ignore[index]
    assert "`atlas triage" in str(suggested["error"]["message"])  # type: ignore[index]
    assert not list((home / "triage").glob("verdicts-*.json"))
