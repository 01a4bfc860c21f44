"""The project's ranker: chosen by replaying its own known duplicates, the plain baseline kept unless beaten."""

from __future__ import annotations

from pathlib import Path

from atlas.foundation.config import bundled_data_dir
from atlas.triage import rankers
from atlas.triage.evaluate import history
from atlas.triage.evaluate_duplicates import duplicate_replay
from atlas.triage.index import load
from atlas.triage.project import Project


def test_the_baseline_is_kept_on_a_tie_and_a_better_ranker_wins() -> None:
    found_all: list[int | None] = [0] * rankers.MIN_PAIRS
    missed_one = [None, *found_all[1:]]
    assert rankers.choose({name: list(found_all) for name in rankers.RANKERS}) == "plain"
    assert rankers.choose({"plain": missed_one, "blend": list(found_all), "evidence": missed_one}) == "blend"
    # first places decide between rankers that find as many originals among the first five
    later = [3] * rankers.MIN_PAIRS
    assert rankers.choose({"plain": later, "blend": later, "evidence": list(found_all)}) == "evidence"


def test_too_few_known_duplicates_choose_nothing() -> None:
    few = {name: [0] for name in rankers.RANKERS}
    few["evidence"] = [None]
    assert rankers.choose(few) == rankers.DEFAULT
    assert rankers.choose({}) == rankers.DEFAULT


def test_orbit_ranks_at_or_above_its_plain_baseline_and_keeps_its_choice(atlas_home: Path) -> None:
    project = Project.open(bundled_data_dir(), atlas_home)
    report = duplicate_replay(project, history(project))
    assert isinstance(report["pairs"], int) and report["pairs"] >= rankers.MIN_PAIRS
    model, baseline, each = report["model"], report["baseline"], report["rankers"]
    assert isinstance(model, dict) and isinstance(baseline, dict) and isinstance(each, dict)
    assert model["recall@5"] >= baseline["recall@5"]
    assert model["recall@5"] == max(found["recall@5"] for found in each.values())
    stored = list((atlas_home / "triage").glob("index-*"))
    assert stored
    key = stored[0].name.removeprefix("index-").split(".")[0]
    kept = load(atlas_home, key)
    assert kept is not None and kept.ranker == report["ranker"]
