"""A label name with a small typo (`labelled enhancment`, `the bgu label`), read through the project's own labels."""

from __future__ import annotations

from typing import Any

import pytest

from atlas.foundation.label_names import closest_label
from atlas.offline.compose import read_question
from atlas.runtime.toolset import load_registry
from tests.offline.test_offline import run_to_answer

FLAT = ["bug", "dataset bug", "metric bug", "enhancement", "documentation", "dataset request", "metric request"]
FLAT += ["question", "streaming", "speech", "wontfix", "good first issue"]
PREFIXED = ["comp:api", "comp:cli", "comp:docs", "type:bug", "type:docs", "type:feature", "type:question"]


@pytest.mark.parametrize(
    ("name", "labels", "label"),
    [
        ("enhancment", FLAT, "enhancement"),
        ("documentaton", FLAT, "documentation"),
        ("bgu", FLAT, "bug"),
        ("dataset reqest", FLAT, "dataset request"),
        ("wontfx", FLAT, "wontfix"),
        ("bgu", PREFIXED, "type:bug"),
        ("questoin", PREFIXED, "type:question"),
    ],
)
def test_a_small_typo_of_one_label_is_that_label(name: str, labels: list[str], label: str) -> None:
    assert closest_label(name, labels) == label


@pytest.mark.parametrize(
    ("name", "labels"),
    [
        ("strem", FLAT),  # four edits from `streaming`: a word, not a typo
        ("docs", PREFIXED),  # `comp:docs` and `type:docs` are as near: no clear choice
        ("metric", FLAT),  # in two labels, a typo of neither
        ("the", FLAT),
        ("ap", PREFIXED),  # too short to guess at
        ("dataset bug of", FLAT),  # a label and one word more: no typo within its words
        ("good first", FLAT),
        ("pyarrow", ["arrow", "bug"]),  # a word built on the label, two letters before it: no typo
    ],
)
def test_a_name_no_label_is_clearly_nearest_to_stays_unread(name: str, labels: list[str]) -> None:
    assert closest_label(name, labels) is None


def calls(question: str) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    plan = read_question(question)
    return [(c.name, c.arguments) for c in plan.first_calls()], plan.notes


@pytest.mark.parametrize(
    ("question", "arguments"),
    [
        ("issues labelled bgu", {"query": "", "label": "type:bug"}),
        ("open issues with the bgu label", {"query": "", "state": "open", "label": "type:bug"}),
        ("issues tagged 'bgu' about retries", {"query": "retries", "label": "type:bug"}),
        ("how many issues have the bgu label?", {"query": "", "label": "type:bug", "count_only": True}),
        ("closed issues labeled bgu", {"query": "", "state": "closed", "label": "type:bug"}),
    ],
)
def test_a_search_by_a_mistyped_label_takes_the_nearest_and_says_so(question: str, arguments: dict[str, Any]) -> None:
    found, notes = calls(question)
    assert found == [("search_issues", arguments)]
    assert "This project has no label “bgu”: I took `type:bug`, the nearest of its labels." in notes


@pytest.mark.parametrize(
    ("question", "call"),
    [
        ("add the bgu label to #41", ("add_label", {"issue_id": 41, "label": "type:bug"})),
        ("label #41 as bgu", ("add_label", {"issue_id": 41, "label": "type:bug"})),
        ("remove the bgu label from #41", ("remove_label", {"issue_id": 41, "label": "type:bug"})),
    ],
)
def test_a_label_change_with_a_mistyped_label_takes_the_nearest_and_says_so(
    question: str, call: tuple[str, dict[str, Any]]
) -> None:
    found, notes = calls(question)
    assert found == [call]
    assert any("no label “bgu”" in note and "`type:bug`" in note for note in notes)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("issues labelled docs", None),  # a label named by its words: read as before, no typo note
        ("tag 87 with frobnicate", "I did not add `frobnicate`"),  # near no label: refused as before
        ("issues labelled strem", None),
    ],
)
def test_without_one_clear_nearest_label_the_reading_is_unchanged(question: str, said: str | None) -> None:
    _, notes = calls(question)
    assert not any("I took" in note for note in notes)
    assert said is None or any(note.startswith(said) for note in notes)


def test_the_answer_on_orbit_names_the_label_it_took() -> None:
    rounds, answer = run_to_answer("open issues with the bgu label", load_registry([]))
    assert rounds[0] == [("search_issues", {"query": "", "state": "open", "label": "type:bug"})]
    assert "I took `type:bug`" in answer


def test_closing_as_a_duplicate_is_refused_not_read_as_a_mistyped_label() -> None:
    found, notes = calls("close #41 as duplicate of #87")
    assert not [name for name, _ in found if name in {"add_label", "remove_label"}]
    assert any("cannot close issues" in note for note in notes)
