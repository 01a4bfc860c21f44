"""Issues in an order: `search_issues` sorts by when an issue was opened, last moved or how much it was
discussed (a real SQLite dataset), and the planner reads the order from a maintainer's words.

Who closed an issue is not in any data Atlas holds: a question about it is answered by saying so, never by a
search of the name in the issues' text.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.orbit.issues import SearchArgs, search_issues
from atlas.orbit.search_order import SORT_KEYS
from atlas.runtime.toolset import load_registry
from tests.offline.test_offline import calls_of, respond
from tests.support.dataset_factory import context, issue, make_dataset
from tests.support.run import invoke

ISSUES = [
    issue(1, "Alpha crash", created_at="2026-01-01T08:00:00Z", comments=["a", "b", "c"]),  # last moved 03-04
    issue(2, "Beta crash", created_at="2026-02-01T08:00:00Z"),
    issue(3, "Gamma crash", state="closed", created_at="2026-03-01T08:00:00Z", comments=["d"]),  # moved 03-02
    issue(4, "Delta note", created_at="2026-01-15T08:00:00Z"),
]


def ids(data: Path, home: Path, **args: Any) -> list[int]:
    found = search_issues(SearchArgs(**args), context(data, home))
    return [hit["id"] for hit in found["hits"]]


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        ("oldest", [1, 4, 2, 3]),
        ("newest", [3, 2, 4, 1]),
        ("least_recently_updated", [4, 2, 3, 1]),
        ("recently_updated", [1, 3, 2, 4]),
        ("most_commented", [1, 3, 2, 4]),
    ],
)
def test_the_hits_come_in_the_order_asked(tmp_path: Path, atlas_home: Path, order: str, expected: list[int]) -> None:
    assert ids(make_dataset(tmp_path, ISSUES), atlas_home, order=order) == expected


def test_an_order_applies_to_the_issues_the_words_and_filters_find(tmp_path: Path, atlas_home: Path) -> None:
    data = make_dataset(tmp_path, ISSUES)
    assert ids(data, atlas_home, query="crash", order="oldest") == [1, 2, 3]
    assert ids(data, atlas_home, query="crash", state="open", order="oldest", limit=1) == [1]


def test_the_order_is_said_and_a_count_the_data_lacks_is_not_pretended(tmp_path: Path, atlas_home: Path) -> None:
    said = search_issues(SearchArgs(order="oldest"), context(make_dataset(tmp_path, ISSUES), atlas_home))
    assert "oldest first" in said["hint"]
    export = tmp_path / "export.json"  # `gh issue list --json` carries no comments
    export.write_text(json.dumps([_exported(one) for one in ISSUES]), "utf-8")
    done = invoke("data", "import", str(export), "--to", str(tmp_path / "imported"), env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    found = search_issues(SearchArgs(order="most_commented"), context(tmp_path / "imported", atlas_home))
    assert "unknown" in found["hint"] and "not the most commented" in found["hint"]


def _exported(one: dict[str, Any]) -> dict[str, Any]:
    return {
        "number": one["id"],
        "title": one["title"],
        "body": one["body"],
        "state": one["state"].upper(),
        "labels": [],
        "author": {"login": one["author"]},
        "createdAt": one["created_at"],
    }


def searches(question: str) -> list[dict[str, Any]]:
    return [call.arguments for call in read_question(question).first_calls() if call.name == "search_issues"]


@pytest.mark.parametrize(
    ("question", "order"),
    [
        ("what's the oldest open bug?", "oldest"),
        ("earliest reports about timeouts", "oldest"),
        ("open issues, oldest first", "oldest"),
        ("which issues have been open the longest", "oldest"),
        ("least recently updated open issues", "least_recently_updated"),
        ("open issues that have gone longest without any activity", "least_recently_updated"),
        ("most recently active bugs", "recently_updated"),
        ("the most discussed open issues", "most_commented"),
        ("3 newest issues about parquet", "newest"),
    ],
)
def test_an_order_in_words_is_the_search_order(question: str, order: str) -> None:
    assert order in SORT_KEYS
    found = searches(question)
    assert [args.get("order") for args in found] == [order], found


def test_an_order_word_is_no_search_word_and_the_state_stays() -> None:
    (args,) = searches("open issues, oldest first")
    assert args["state"] == "open" and not args["query"]


@pytest.mark.parametrize(
    "question",
    ["which issue has the most comments", "what bug got the most comments", "which bug had the most comments?"],
)
def test_the_verb_of_an_order_is_no_search_word(question: str) -> None:
    (args,) = searches(question)
    assert args["order"] == "most_commented" and not args["query"], args


def test_a_count_is_not_sorted() -> None:
    (args,) = searches("how many open issues are there, oldest first")
    assert args["count_only"] is True and "order" not in args


@pytest.mark.parametrize(
    "question", ["which issues did lhoestq close?", "what did svetlana-k close last week", "bugs closed by jdoe"]
)
def test_who_closed_issues_is_said_to_be_unrecorded_not_searched(question: str) -> None:
    plan = read_question(question)
    assert plan.first_calls() == []
    assert any("does not record who closed" in note for note in plan.notes)


def test_who_closed_a_named_issue_reads_it_and_says_the_closer_is_unknown() -> None:
    plan = read_question("who closed #41?")
    assert [(call.name, call.arguments) for call in plan.first_calls()] == [("get_issue", {"issue_id": 41})]
    assert any("does not record who closed" in note for note in plan.notes)


def test_the_oldest_of_the_issues_just_counted_is_that_search_sorted_then_read() -> None:
    plan = read_question("how many open bugs are there and what's the oldest one?")
    counted, ordered = searches("how many open bugs are there and what's the oldest one?")
    assert counted["count_only"] is True and "order" not in counted
    assert ordered["order"] == "oldest" and "count_only" not in ordered
    assert {key: ordered.get(key) for key in ("state", "label")} == {
        key: counted.get(key) for key in ("state", "label")
    }
    assert plan.later, "the one asked for is read once the search has found it"


def chat_calls(*messages: str) -> list[tuple[str, dict[str, Any]]]:
    """The first calls the planner makes for the last of the user's messages, the others said before it."""
    items: list[dict[str, Any]] = []
    for message in messages[:-1]:
        items += [{"role": "user", "content": message}, {"role": "assistant", "content": "(the answer)"}]
    items.append({"role": "user", "content": messages[-1]})
    return calls_of(respond(items, load_registry([])))


def test_a_chat_follow_up_sorts_and_narrows_the_search_said_before() -> None:
    first = ("open scheduler bugs",)
    (ordered,) = [args for name, args in chat_calls(*first, "and the oldest one?") if name == "search_issues"]
    (before,) = [args for name, args in chat_calls(*first) if name == "search_issues"]
    assert ordered == {**before, "order": "oldest"}
    (narrowed,) = chat_calls(*first, "and the oldest one?", "which ones mention cron?")
    assert narrowed == ("search_issues", {**before, "query": "cron"})


def test_a_chat_follow_up_sorts_them_and_names_the_author_before_by_a_pronoun() -> None:
    first = ("issues by svetlana-k",)
    (before,) = [args for name, args in chat_calls(*first) if name == "search_issues"]
    assert chat_calls(*first, "sort them oldest first") == [("search_issues", {**before, "order": "oldest"})]
    (counted,) = chat_calls(*first, "sort them oldest first", "how many bugs does she have")
    assert counted == ("search_issues", {"query": "", "label": "type:bug", "author": "svetlana-k", "count_only": True})
    (hers,) = chat_calls(*first, "her open feature requests")
    assert hers[1]["author"] == "svetlana-k" and hers[1]["state"] == "open"


def test_a_time_said_alone_after_a_sort_keeps_the_sort() -> None:
    first = ("issues by svetlana-k", "sort them oldest first")
    (sorted_before,) = [args for name, args in chat_calls(*first) if name == "search_issues"]
    (again,) = chat_calls(*first, "what about 2025?")
    assert again == ("search_issues", {**sorted_before, "created_since": "2025-01-01", "created_before": "2026-01-01"})


def test_a_time_or_an_author_said_alone_asks_the_search_before_again() -> None:
    first = ("open bugs by jlaurent",)
    (before,) = [args for name, args in chat_calls(*first) if name == "search_issues"]
    assert chat_calls(*first, "what about 2025?") == [
        ("search_issues", {**before, "created_since": "2025-01-01", "created_before": "2026-01-01"})
    ]
    assert chat_calls(*first, "and fpereira?") == [("search_issues", {**before, "author": "fpereira"})]
    assert chat_calls(*first, "what about nobody-here?") != [("search_issues", {**before, "author": "nobody-here"})]


def test_a_new_subject_in_a_chat_is_not_narrowed_by_the_search_before() -> None:
    assert chat_calls("open scheduler bugs", "the oldest closed redis issues")[0][1].get("state") == "closed"
    assert chat_calls("open scheduler bugs", "show #41") == [("get_issue", {"issue_id": 41})]


def test_which_of_the_hits_mention_words_adds_them_to_the_topic_before() -> None:
    first = ("open bugs about leases",)
    (before,) = [args for name, args in chat_calls(*first) if name == "search_issues"]
    assert before["query"] == "leases"
    for follow_up in ("which ones mention postgres?", "which mention postgres?"):
        assert chat_calls(*first, follow_up) == [("search_issues", {**before, "query": "leases postgres"})]
    assert chat_calls(*first, "which are closed?") == [("search_issues", {**before, "state": "closed"})]


def test_labels_left_out_before_stay_left_out_when_the_hits_are_narrowed() -> None:
    first = ("open issues about leases that aren't labelled type:bug",)
    (before,) = [args for name, args in chat_calls(*first) if name == "search_issues"]
    assert before["without_labels"] == ["type:bug"]
    assert chat_calls(*first, "and which are closed?") == [("search_issues", {**before, "state": "closed"})]


SEARCHED_LEASES: list[dict[str, Any]] = [
    {"role": "user", "content": "open bugs about leases"},
    {"type": "function_call", "call_id": "c1", "name": "search_issues", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "c1", "output": "{}"},
    {"role": "assistant", "content": "- #50 Lease expiry\n- #41 Nightly rebuild"},
]
"""A chat's first turn: a search, and the answer made from its result listing #50, then #41."""


def test_the_first_one_is_an_issue_an_answer_from_tools_listed_not_a_help_text_example() -> None:
    from atlas.offline.reading.ordinals import with_ordinals

    items: list[dict[str, Any]] = [
        *SEARCHED_LEASES,
        {"role": "user", "content": "which mention zzz?"},
        {"role": "assistant", "content": "I did not recognise that. For example: `#41`, `issues 41 and 87`"},
    ]
    assert with_ordinals("show the first one", items) == "show #50"
    assert with_ordinals("show the first one", items[-2:]) == "show the first one"


def test_an_order_said_after_the_inbox_sorts_that_inbox() -> None:
    first = ("untriaged issues about leases",)
    [(name, before)] = chat_calls(*first)
    assert (name, before) == ("list_inbox", {"only": "untriaged", "about": "leases"})
    assert chat_calls(*first, "the oldest ones first") == [("list_inbox", {**before, "order": "oldest"})]
    assert chat_calls(*first, "the oldest closed bugs")[0][0] == "search_issues"  # issues of its own


def test_a_known_label_for_no_issue_asks_which_issue_not_whether_the_label_exists() -> None:
    plan = read_question("label it type:bug")
    assert plan.first_calls() == []
    assert any(note.startswith("Which issue should get `type:bug`?") for note in plan.notes)


def test_an_earlier_message_s_ordinal_is_the_issue_it_named_for_a_pronoun_after_it() -> None:
    from atlas.offline.model import this_turn

    items: list[dict[str, Any]] = [
        *SEARCHED_LEASES,
        {"role": "user", "content": "triage the second one"},
        {"role": "assistant", "content": "(the plan)"},
        {"role": "user", "content": "label it type:bug"},
    ]
    question, earlier, _, _ = this_turn(items)
    assert question == "label it type:bug" and earlier == ["open bugs about leases", "triage #41"]
