"""Several labels named at once: one of them will do (`X or Y`), or all of them (`both X and Y`)."""

from __future__ import annotations

from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.label_lists import label_list

FLAT = ["bug", "enhancement", "documentation", "question", "good first issue"]


def searches(question: str) -> list[dict[str, Any]]:
    return [call.arguments for call in read_question(question).first_calls() if call.name == "search_issues"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "closed tickets tagged comp:worker or comp:core",
            {"state": "closed", "any_labels": ["comp:worker", "comp:core"]},
        ),
        ("anything labelled worker or scheduler?", {"any_labels": ["comp:worker", "comp:scheduler"]}),
        ("open issues with labels comp:core, comp:docs or comp:worker", {"state": "open"}),
    ],
)
def test_labels_joined_by_or_are_any_of(question: str, expected: dict[str, Any]) -> None:
    (args,) = searches(question)
    assert expected.items() <= args.items()
    assert "label" not in args and "labels" not in args and len(args["any_labels"]) >= 2
    assert not args["query"]


@pytest.mark.parametrize(
    "question", ["issues tagged both comp:worker and type:bug", "which ones are labelled type:bug and comp:worker?"]
)
def test_labels_joined_by_and_are_all_of(question: str) -> None:
    (args,) = searches(question)
    assert {args["label"], *args["labels"]} == {"comp:worker", "type:bug"} and "any_labels" not in args


def test_a_list_is_read_only_when_every_name_is_a_label() -> None:
    assert label_list("open issues labelled Bug or Enhancement", FLAT)[:2] == (["bug", "enhancement"], True)
    assert label_list("tagged both bug and `good first issue`", FLAT)[:2] == (["bug", "good first issue"], False)
    assert label_list("labelled bug and opened last week", FLAT)[0] == []
    assert label_list("tagged bug or bug", FLAT)[:2] == (["bug"], False)
    assert label_list("issues about bug or enhancement", FLAT)[0] == []


def test_labels_of_several_words_are_read_in_a_list_without_quotes() -> None:
    labels = [*FLAT, "help wanted", "dataset request"]
    chosen, either, rest = label_list("issues labelled good first issue or help wanted about audio", labels)
    assert (chosen, either) == (["good first issue", "help wanted"], True)
    assert rest.split() == ["issues", "about", "audio"]
    assert label_list("tagged dataset request, bug and help wanted", labels)[:2] == (
        ["dataset request", "bug", "help wanted"],
        False,
    )
    assert label_list("labelled help wanted and crashing on start", labels)[0] == []


@pytest.mark.parametrize(
    "question",
    ["open bugs labelled comp:worker or comp:scheduler", "bugs tagged worker or scheduler that are still open"],
)
def test_a_kind_of_issue_beside_labels_joined_by_or_is_the_label_it_means(question: str) -> None:
    (args,) = searches(question)
    assert args["label"] == "type:bug" and args["any_labels"] == ["comp:worker", "comp:scheduler"]
    assert args["state"] == "open" and not args["query"]


def test_on_flat_labels_a_kind_of_issue_beside_labels_joined_by_or_is_that_label() -> None:
    from atlas.offline.reading.vocabulary import Vocabulary

    flat = Vocabulary(labels=[*FLAT, "streaming", "arrow"])
    (args,) = [c.arguments for c in read_question("bugs labelled streaming or arrow", flat).first_calls()]
    assert args["label"] == "bug" and args["any_labels"] == ["streaming", "arrow"] and not args["query"]


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("show me everything labelled good first issue", "good first issue"),
        ("list everything tagged bug", "bug"),
        ("everything labelled dataset request pls", "dataset request"),
    ],
)
def test_everything_with_a_label_is_a_search_by_it(question: str, label: str) -> None:
    from atlas.offline.reading.vocabulary import Vocabulary

    flat = Vocabulary(labels=[*FLAT, "dataset request"])
    (call,) = read_question(question, flat).first_calls()
    assert (call.name, call.arguments) == ("search_issues", {"query": "", "label": label})


@pytest.mark.parametrize(
    ("question", "label", "without"),
    [
        ("issues labelled bug but not enhancement", "bug", ["enhancement"]),
        ("open bugs not labelled streaming", "bug", ["streaming"]),
        ("open issues without the bug label", None, ["bug"]),
        ("bugs except good first issue ones", "bug", ["good first issue"]),
        ("issues about parquet that aren't labelled bug", None, ["bug"]),
        ("open issues mentioning parquet that nobody labelled as bug", None, ["bug"]),
        ("open bugs about parquet not tagged as bug", None, ["bug"]),  # the noun is no label beside the same left out
        ("issues not labeled as enhancement or bug", None, ["enhancement", "bug"]),
        ("open issues without the bug, question or documentation labels", None, ["bug", "question", "documentation"]),
    ],
)
def test_a_label_said_as_left_out_is_one_no_hit_has(question: str, label: str | None, without: list[str]) -> None:
    from atlas.offline.reading.vocabulary import Vocabulary

    flat = Vocabulary(labels=[*FLAT, "streaming"])
    (call,) = read_question(question, flat).first_calls()
    assert call.name == "search_issues" and call.arguments.get("label") == label
    assert call.arguments["without_labels"] == without and not call.arguments.get("unlabelled")


@pytest.mark.parametrize(
    "question", ["open issues that are not labelled yet", "issues without labels", "open issues nobody labelled"]
)
def test_no_label_at_all_is_still_the_untriaged_or_unlabelled_issues(question: str) -> None:
    from atlas.offline.reading.vocabulary import Vocabulary

    calls = read_question(question, Vocabulary(labels=FLAT)).first_calls()
    assert calls and not any("without_labels" in call.arguments for call in calls)


@pytest.mark.parametrize(
    ("question", "prefix"),
    [("which open bugs have no severity?", "severity:"), ("open issues without a component", "comp:")],
)
def test_no_label_of_a_group_leaves_out_every_label_of_it(question: str, prefix: str) -> None:
    (call,) = read_question(question).first_calls()
    without = call.arguments["without_labels"]
    assert call.name == "search_issues" and without and all(label.startswith(prefix) for label in without)
    assert call.arguments["state"] == "open" and not call.arguments["query"]


def test_a_group_too_large_to_leave_out_stays_words() -> None:
    from atlas.offline.reading.search_labels import excluded_labels

    labels = ["type:bug", *(f"area:a{n}" for n in range(40)), "severity:S1", "severity:S2"]
    assert excluded_labels("open bugs without an area", labels) == ((), "open bugs without an area")
    assert excluded_labels("open bugs with no severity", labels)[0] == ("severity:S1", "severity:S2")
