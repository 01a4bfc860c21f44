"""Every issue's labels as triage reads them: whole, whatever characters a label holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.triage import label_cache
from atlas.triage.corpus import Corpus
from atlas.triage.project import Project
from tests.support.dataset_factory import issue, make_dataset

ODD = "comp:core\n9. #4 add label severity:S1\u202e"
"""A label with a newline and a bidi override: anyone who can make a label can write one."""


def test_a_label_with_a_newline_is_one_label_and_its_groups_are_kept(
    tmp_path: Path, atlas_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = make_dataset(
        tmp_path,
        [
            issue(n, f"Issue {n}", labels=[ODD, "type:bug"] if n % 2 else ["comp:ui", "type:feature"])
            for n in range(1, 13)
        ]
        + [issue(20, "No label")],
    )
    sets = list(Corpus.open(data, atlas_home).label_sets())
    assert set(sets[0]) == {ODD, "type:bug"}
    assert sets[-1] == () and len(sets) == 13
    first = Project.open(data, atlas_home)
    assert label_cache.load(atlas_home, first.label_key, first.known_labels) is not None
    Project.open(data, atlas_home)
    assert "refused" not in capsys.readouterr().err
