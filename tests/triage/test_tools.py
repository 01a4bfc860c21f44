"""`suggest_labels` and `find_similar` as a model meets them in `atlas ask`, and what loading them costs."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fitted import seed_fitted
from tests.support.run import REPO, atlas_env, invoke, logged_calls, write_script
from tests.support.tool_calls import run_calls


def test_the_tools_give_a_model_labels_with_their_evidence_and_similar_issues(home: Path) -> None:
    suggested, similar, missing, unplanned = run_calls(
        home,
        [
            {"name": "suggest_labels", "arguments": {"issue_id": 135}},
            {"name": "find_similar", "arguments": {"issue_id": 145, "limit": 3}},
            {"name": "find_similar", "arguments": {"issue_id": 99999}},
            {"name": "plan_triage", "arguments": {"issue_ids": [135, 99999]}},
        ],
    )
    proposals = suggested["data"]["proposals"]
    assert {"comp", "type"} <= {p["group"] for p in proposals}
    assert all(p["needs_a_human"] == (p["label"] is None) for p in proposals)
    assert all(p["best_guess"] and p["deciding_words"] and 0 < p["confidence"] <= 1 for p in proposals)
    assert suggested["untrusted"] is True and "Advice only" in suggested["data"]["note"]
    found = similar["data"]["similar"]
    assert 87 in [m["id"] for m in found] and len(found) == 3
    assert missing["ok"] is False and "There is no issue #99999" in missing["error"]["message"]
    # Every triage tool says it as get_issue does: a permanent failure, not an internal error.
    assert unplanned["error"]["kind"] == missing["error"]["kind"] == "permanent"
    assert unplanned["error"]["message"] == missing["error"]["message"]


def test_a_model_in_ask_calls_them_like_any_read_tool(home: Path, tmp_path: Path) -> None:
    calls = [
        {"name": "suggest_labels", "arguments": {"issue_id": 135}},
        {"name": "find_similar", "arguments": {"issue_id": 145}},
    ]
    model = write_script(tmp_path, [{"calls": calls}, {"text": "Looks like #87."}])
    env = atlas_env(home)
    # The first call imports numpy and scipy inside the tools' 10 s deadline: on a loaded machine
    # that import alone can exceed it, and it is not what this test is about.
    importlib.import_module("atlas.triage.proposals")
    done = invoke("ask", "-m", model, "--read-only", "what labels fit #135, is #145 a duplicate?", env=env)
    assert done.code == 0, done
    # Read tools run at once: the log holds them in the order they finished.
    assert sorted((c["name"], c["kind"]) for c in logged_calls(env)) == [
        ("find_similar", "ok"),
        ("suggest_labels", "ok"),
    ]


def test_loading_the_tools_does_not_load_the_text_model() -> None:
    """`atlas tools`, `--help` and an offline `ask` start as fast as before: scikit-learn and numpy stay unloaded."""
    probe = (
        "import sys\nfrom atlas.runtime.toolset import load_registry\nregistry = load_registry()\n"
        "assert 'suggest_labels' in registry and 'find_similar' in registry\n"
        "print(sorted(m for m in ('sklearn', 'numpy', 'scipy') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# Replaying the whole history fits a model per step: minutes on a loaded machine, not a hang.
@pytest.mark.timeout(600)
def test_the_history_replay_reports_every_group_beside_the_baseline(home: Path) -> None:
    done = invoke("triage", "--eval", "--json", env=atlas_env(home))
    assert done.code == 0, done
    report = json.loads(done.stdout)
    assert report["issues"] == 160 and set(report["labels"]) == {"comp", "type", "severity"}
    for runs in report["labels"].values():
        for name in ("model", "baseline"):
            scores = runs[name]
            assert scores["n"] > 0 and all(0 <= scores[k] <= 1 for k in ("accuracy", "macro_f1", "coverage"))
    for group in ("comp", "type"):  # the groups Orbit's proposals fill: the model at or above its baseline
        runs = report["labels"][group]
        assert runs["model"]["macro_f1"] >= runs["baseline"]["macro_f1"], group
    duplicates = report["duplicates"]
    assert duplicates["pairs"] >= 25
    assert duplicates["model"]["recall@10"] >= duplicates["model"]["recall@5"] >= duplicates["model"]["recall@1"] > 0


def test_on_a_large_project_a_call_that_would_fit_names_the_command_that_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fitted_home: Path
) -> None:
    import atlas.triage.tools

    # The bundled data counts as large here: a fit of it would outlast the call.
    monkeypatch.setattr(atlas.triage.tools, "FIT_IN_CALL_MAX", 10)
    monkeypatch.setattr(atlas.triage.tools, "INDEX_IN_CALL_MAX", 10)
    calls: list[dict[str, object]] = [
        {"name": "find_similar", "arguments": {"issue_id": 145}},
        {"name": "suggest_labels", "arguments": {"issue_id": 135}},
        {"name": "plan_triage", "arguments": {"issue_ids": [135]}},
    ]
    cold = run_calls(tmp_path / "cold-home", calls)
    assert [envelope["error"]["kind"] for envelope in cold] == ["permanent"] * 3
    messages = [str(envelope["error"]["message"]) for envelope in cold]
    assert "similarity index is not built" in messages[0] and "`atlas similar 145`" in messages[0]
    assert "`atlas triage 135 --dry-run`" in messages[1] and "`atlas triage 135 --dry-run`" in messages[2]
    assert not list((tmp_path / "cold-home").glob("triage/*.npz"))  # nothing was half built
    # Once built and kept (as the named commands leave it), the same calls answer.
    kept = run_calls(seed_fitted(fitted_home, tmp_path / "kept-home"), calls)
    assert [envelope["ok"] for envelope in kept] == [True, True, True]


def test_a_project_too_large_to_fit_in_a_call_still_gets_its_similar_issues_built_in_the_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import atlas.triage.tools

    # The index is cheap next to the model: a project past the model's limit but within the index's gets
    # find_similar on its first ask, and only the model's proposals name the command that fits it.
    monkeypatch.setattr(atlas.triage.tools, "FIT_IN_CALL_MAX", 10)
    calls: list[dict[str, object]] = [
        {"name": "find_similar", "arguments": {"issue_id": 145}},
        {"name": "suggest_labels", "arguments": {"issue_id": 135}},
    ]
    similar, labels = run_calls(tmp_path / "cold-home", calls)
    assert similar["ok"] and similar["data"]["similar"]
    assert labels["error"]["kind"] == "permanent"
    message = str(labels["error"]["message"])
    assert "triage model is not built" in message and "a minute or more" in message
    assert list((tmp_path / "cold-home").glob("triage/index-*.npz"))  # kept for the next call
