"""Labels as people spell them, read against a project's own labels, prefixed or flat."""

from __future__ import annotations

import pytest

from atlas.foundation.label_names import resolve_label, similar_labels, split_label, unknown_label

PREFIXED = ["comp:core", "comp:broker-redis", "severity:S1", "severity:S2", "type:bug", "area:bug"]
FLAT = ["bug", "dataset bug", "dataset request", "dataset-viewer", "enhancement", "good first issue"]


@pytest.mark.parametrize(
    ("typed", "labels", "meant"),
    [
        ("severity S1", PREFIXED, "severity:S1"),
        ("Severity: s1", PREFIXED, "severity:S1"),
        ("S2", PREFIXED, "severity:S2"),
        ("`comp:Core`", PREFIXED, "comp:core"),
        ("broker redis", PREFIXED, "comp:broker-redis"),
        ("bug", PREFIXED, None),  # type:bug or area:bug: a prefix is needed
        ('"Bug"', FLAT, "bug"),
        ("dataset request", FLAT, "dataset request"),
        ("Dataset Viewer", FLAT, "dataset-viewer"),
        ("'good first issue'", FLAT, "good first issue"),
        ("feature", FLAT, None),
    ],
)
def test_a_label_is_read_as_spelled(typed: str, labels: list[str], meant: str | None) -> None:
    assert resolve_label(typed, labels) == meant


def test_an_unknown_label_is_answered_with_the_nearest_real_ones() -> None:
    assert similar_labels("bugg", FLAT)[0] == "bug"
    said = unknown_label("enhancment", FLAT, "huggingface/datasets")
    assert said.startswith("huggingface/datasets has no label 'enhancment'; did you mean 'enhancement'")
    assert unknown_label("zzz", FLAT).startswith("this project has no label 'zzz'; its labels: bug, dataset bug")


def test_a_slash_is_a_prefix_as_a_colon_is_but_not_inside_a_short_word() -> None:
    assert split_label("kind/bug") == ("kind", "bug") and split_label("Type: Bug") == ("Type", "Bug")
    assert split_label("n/a") == (None, "n/a") and split_label("good first issue") == (None, "good first issue")
    assert resolve_label("bug", ["kind/bug", "kind/feature", "area/cli"]) == "kind/bug"


def test_the_whole_label_nearest_a_typo_is_offered_first() -> None:
    labels = ["dataset bug", "metric bug", "bug", "good first issue"]
    assert similar_labels("bgu", labels)[0] == "bug"
