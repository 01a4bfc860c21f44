"""The label tools: one severity per issue, removals the tracker records, and no prompt when nothing would change."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from atlas.executor.executor import ToolExecutor
from atlas.foundation.errors import ErrorKind, PermanentToolError, classify
from atlas.orbit.labels import (
    AddLabelArgs,
    RemoveLabelArgs,
    add_label,
    preview_add_label,
    preview_remove_label,
    remove_label,
)
from atlas.protocol.events import ApprovalRequest
from atlas.runtime.toolset import load_registry
from atlas.tracker.journal import MockTracker
from tests.support.dataset_factory import context
from tests.support.executor_fakes import call, envelope, kind_of


def actions(home: Path) -> list[tuple[str, int, str]]:
    return [(r["action"], r["issue_id"], r.get("label", "")) for r in MockTracker(home).records()]


def test_a_severity_replaces_the_one_before_and_the_preview_says_so(data: Path, atlas_home: Path) -> None:
    add_label(AddLabelArgs(issue_id=41, label="severity:S2"), context(data, atlas_home, key="k1"))
    args = AddLabelArgs(issue_id=41, label="severity:s1")
    assert preview_add_label(args, context(data, atlas_home)) == (
        "#41 (“Nightly rebuild runs twice”) labels: [comp:core, type:bug, severity:S2]"
        " → [comp:core, type:bug, severity:S1] (severity:S2 → severity:S1)"
    )
    result = add_label(args, context(data, atlas_home, key="k2"))
    assert result["labels"] == ["comp:core", "type:bug", "severity:S1"] and result["replaced"] == ["severity:S2"]
    assert actions(atlas_home) == [
        ("add_label", 41, "severity:S2"),
        ("remove_label", 41, "severity:S2"),
        ("add_label", 41, "severity:S1"),
    ]
    # Other families add up as before.
    both = add_label(AddLabelArgs(issue_id=41, label="comp:cli"), context(data, atlas_home, key="k3"))
    assert both["labels"] == ["comp:core", "type:bug", "severity:S1", "comp:cli"] and "replaced" not in both


def test_remove_label_is_recorded_idempotent_and_previewed(data: Path, atlas_home: Path) -> None:
    ctx = context(data, atlas_home, key="r1")
    args = RemoveLabelArgs(issue_id=41, label="Type:Bug")
    assert preview_remove_label(args, ctx) == (
        "#41 (“Nightly rebuild runs twice”) labels: [comp:core, type:bug] → [comp:core] (remove type:bug)"
    )
    first = remove_label(args, ctx)
    assert first == {"issue_id": 41, "label": "type:bug", "changed": True, "labels": ["comp:core"]}
    again = remove_label(args, context(data, atlas_home, key="r2"))
    assert again["changed"] is False
    assert "nothing changes" in preview_remove_label(args, ctx)
    assert actions(atlas_home) == [("remove_label", 41, "type:bug")]
    record = MockTracker(atlas_home).records()[0]
    assert record["key"] == "r1" and record["session"] == "test-session"
    # Adding it back wins over the removal.
    back = add_label(AddLabelArgs(issue_id=41, label="type:bug"), context(data, atlas_home, key="r3"))
    assert back["changed"] is True and back["labels"] == ["comp:core", "type:bug"]
    with pytest.raises(PermanentToolError, match="has no label"):
        remove_label(RemoveLabelArgs(issue_id=41, label="wontfix"), ctx)
    with pytest.raises(LookupError) as caught:
        remove_label(RemoveLabelArgs(issue_id=4242, label="type:bug"), ctx)
    assert classify(caught.value) is ErrorKind.PERMANENT


def test_only_real_changes_reach_the_person(data: Path, atlas_home: Path) -> None:
    asked: list[str] = []

    def person(request: ApprovalRequest) -> bool:
        asked.append(request.call_id)
        return True

    executor = ToolExecutor(load_registry(), approve=person, context=context(data, atlas_home))
    outputs = asyncio.run(
        executor.run_all(
            [
                call("add_label", "already", issue_id=41, label="comp:core"),
                call("remove_label", "absent", issue_id=41, label="severity:S2"),
                call("add_label", "unknown-label", issue_id=41, label="wontfix"),
                call("add_label", "unknown-issue", issue_id=4242, label="type:bug"),
                call("add_label", "real", issue_id=41, label="severity:S1"),
            ]
        )
    )
    assert [kind_of(output) for output in outputs] == ["ok", "ok", "permanent", "permanent", "ok"]
    assert envelope(outputs[0])["data"]["changed"] is False and envelope(outputs[1])["data"]["changed"] is False
    assert "has no label" in envelope(outputs[2])["error"]["message"]
    assert "no issue #4242" in envelope(outputs[3])["error"]["message"]
    assert asked == ["real"]
    assert [record.approved for record in executor.log] == [None, None, None, None, True]
    assert actions(atlas_home) == [("add_label", 41, "severity:S1")]
    assert json.loads(outputs[4]["output"])["data"]["changed"] is True
