"""Doc navigation by topic: the section that holds a question's distinctive words, found in the docs' own index."""

from __future__ import annotations

from typing import Any

import pytest

from atlas.foundation.config import data_dir
from atlas.offline.compose import read_question
from atlas.offline.reading.sections import content_words
from atlas.offline.reading.topics import best_section, ranked_sections
from atlas.offline.reading.vocabulary import Section, Vocabulary, vocabulary_of

TOOLS = {"get_issue", "search_issues", "get_doc_section", "list_docs", "add_label", "remove_label", "post_comment"}


def calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    plan = read_question(question, vocabulary_of(data_dir()), available=TOOLS)
    return [(call.name, call.arguments) for call in plan.first_calls()]


def section(doc_id: str, heading: str) -> tuple[str, dict[str, Any]]:
    return ("get_doc_section", {"doc_id": doc_id, "heading": heading})


def test_a_rare_word_outweighs_common_ones_and_a_heading_counts_up() -> None:
    vocabulary = vocabulary_of(data_dir())
    top = ranked_sections(["web", "dashboard", "shows"], vocabulary)[0]
    assert (top.section.doc_id, top.section.heading) == ("api", "The dashboard")
    assert top.in_heading
    # `orbit` is in nearly every section, `systemd` in a few: the few decide.
    assert best_section(["orbit", "under", "systemd"], vocabulary) == Section("deployment", "systemd", 2)


def test_words_the_docs_never_use_find_no_section() -> None:
    vocabulary = vocabulary_of(data_dir())
    assert ranked_sections(["quantum", "entanglement"], vocabulary) == []
    assert best_section([], vocabulary) is None
    assert ranked_sections(["systemd"], Vocabulary()) == []  # no index: nothing, never an error


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("which page describes how the web dashboard behaves?", section("api", "The dashboard")),
        ("is the fencing token idea written up somewhere in the docs?", section("leases", "Fencing tokens")),
        ("which doc says how many connections a worker holds open?", section("brokers", "Connection pools")),
        ("how do we run orbit under systemd?", section("deployment", "systemd")),
    ],
)
def test_a_doc_ask_finds_the_section_by_its_topic(question: str, expected: tuple[str, dict[str, Any]]) -> None:
    assert calls(question) == [expected]


def test_a_doc_ask_without_a_topic_of_its_own_takes_the_request_before() -> None:
    question = "Someone on the forum wants to run orbit with systemd. Is there a page we could send them?"
    assert calls(question) == [section("deployment", "systemd")]


def test_a_closing_remark_about_the_docs_asks_for_nothing() -> None:
    assert calls("ok thanks, that settles the docs question.") == []
    assert calls("is there a doc about quantum entanglement?") == []


def test_quoted_headings_are_those_sections() -> None:
    assert calls("pull up 'Connection pools' and 'PgBouncer' please") == [
        section("brokers", "Connection pools"),
        section("brokers", "PgBouncer"),
    ]


def test_a_full_stop_is_not_part_of_the_last_word() -> None:
    assert content_words("put it behind systemd. and orbit.toml") == ["put", "behind", "systemd", "orbit.toml"]


def test_a_heading_repeated_in_one_doc_is_named_with_its_parent_and_the_grouping_follows_new_sections() -> None:
    from atlas.offline.reading.sections import heading_name

    first, second = Section("ops", "Symptoms", 3), Section("ops", "symptoms", 3)
    vocabulary = Vocabulary(sections=[Section("ops", "Leases", 2), first, Section("faq", "Symptoms", 3)])
    assert not vocabulary.heading_is_repeated(first)  # the same heading in another doc is not a repeat
    assert heading_name(first, vocabulary) == "Symptoms"
    vocabulary.sections += [Section("ops", "Retries", 2), second]
    assert vocabulary.heading_is_repeated(first) and vocabulary.heading_is_repeated(second)
    assert heading_name(second, vocabulary) == "Retries > symptoms"
    assert [s.heading for s in vocabulary.headings_of("ops")] == ["Leases", "Symptoms", "Retries", "symptoms"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "what does the deployment page say about terminationGracePeriodSeconds?",
            section("deployment", "Docker and Kubernetes"),
        ),
        ("Grab the PgBouncer section of the brokers doc", section("brokers", "PgBouncer")),
        ("what does the brokers doc say about PgBouncer?", section("brokers", "PgBouncer")),  # a heading: as said
    ],
)
def test_what_a_named_doc_says_about_a_word_is_the_section_of_it_that_holds_the_word(
    question: str, expected: tuple[str, dict[str, Any]]
) -> None:
    assert calls(question) == [expected]


def test_what_a_named_doc_says_about_an_error_stays_the_error_s_section() -> None:
    assert calls("what does the error-codes doc say about WorkerOOMKilled") == [
        section("error-codes", "WorkerOOMKilled")
    ]


def test_each_repeated_heading_is_named_with_its_own_parent() -> None:
    from atlas.offline.reading.sections import heading_name

    vocabulary = Vocabulary(
        sections=[
            Section("upgrading", "2.6 → 2.7", 2),
            Section("upgrading", "Action required", 3),
            Section("upgrading", "2.7 → 2.8", 2),
            Section("upgrading", "Action required", 3),
        ]
    )
    assert [heading_name(s, vocabulary) for s in vocabulary.sections[1::2]] == [
        "2.6 → 2.7 > Action required",
        "2.7 → 2.8 > Action required",
    ]


@pytest.mark.parametrize(("release", "parent"), [("2.7 → 2.8", "2.7 → 2.8"), ("2.6 → 2.7", "2.6 → 2.7")])
def test_a_quoted_heading_repeated_under_each_release_is_the_one_under_the_release_said(
    release: str, parent: str
) -> None:
    question = (
        f"I'm reviewing the {release} upgrade notes. Can you pull up the 'Action required' part for that release?"
    )
    assert calls(question) == [section("upgrading", f"{parent} > Action required")]


@pytest.mark.parametrize(
    "question",
    ["where do we document how env vars map to config keys?", "what does the configuration doc say about env vars"],
)
def test_a_short_word_the_docs_never_use_is_read_as_the_start_of_theirs(question: str) -> None:
    assert calls(question) == [section("configuration", "Environment variables")]


def test_a_heading_repeated_under_several_parents_is_the_one_under_the_parent_said() -> None:
    vocabulary = vocabulary_of(data_dir())
    for question, parent in [
        ("what's the action required for 2.7 to 2.8?", "2.7 → 2.8"),
        ("what's the action required for 2.6 to 2.7?", "2.6 → 2.7"),
        ("show the 'Action required' section of the 2.7 → 2.8 notes", "2.7 → 2.8"),
    ]:
        [call] = read_question(question, vocabulary).first_calls()
        assert call.arguments == {"doc_id": "upgrading", "heading": f"{parent} > Action required"}, question
