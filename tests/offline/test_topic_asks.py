"""Requests a maintainer of a real backlog types that name issues by what they are about, not by number: one issue
by its topic, a topic's news, alternatives in quotes, versions and years beside numbers, and what no filter reads."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.model import this_turn
from atlas.offline.reading.dates import span_in
from atlas.offline.reading.vocabulary import Vocabulary
from atlas.offline.reading.words import corrected
from atlas.runtime.toolset import load_registry
from tests.offline.test_offline import run_to_answer

FLAT = Vocabulary(labels=["bug", "enhancement", "dataset request", "streaming", "good first issue", "help wanted"])
TOOLS = ("search_issues", "get_issue", "count_issues_by", "list_inbox", "find_similar", "suggest_labels")


def first_calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in read_question(question, FLAT, TOOLS).first_calls()]


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("what's the DVC one about?", "DVC"),
        ("show me the parquet one", "parquet"),
        ("pull up the push_to_hub timeout issue", "push_to_hub timeout"),
        ("pull up the issue about the push_to_hub timeout", "push_to_hub timeout"),
        ("show the one mentioning webdataset", "webdataset"),
    ],
)
def test_one_issue_named_by_its_topic_is_the_best_match_of_a_search_read_after(question: str, query: str) -> None:
    plan = read_question(question, FLAT, TOOLS)
    [(name, arguments)] = [(call.name, call.arguments) for call in plan.first_calls()]
    assert name == "search_issues" and arguments["query"] == query
    assert [later.read_first_hit for later in plan.later] == [True]


def test_the_issue_named_by_its_topic_is_read_in_the_answer_on_orbit() -> None:
    rounds, answer = run_to_answer("what's the redis one about?", load_registry([]))
    assert rounds[0] == [("search_issues", {"query": "redis"})]
    [(name, arguments)] = rounds[1]
    assert name == "get_issue" and f"#{arguments['issue_id']}" in answer


@pytest.mark.parametrize(
    "question",
    ["show the first one", "what's the same one?", "show me the other issue", "what's the colour codes bug?"],
)
def test_which_of_a_list_or_a_question_about_a_kind_is_no_topic(question: str) -> None:
    assert not any(name == "search_issues" and arguments.get("query") for name, arguments in first_calls(question))


@pytest.mark.parametrize(
    ("question", "order"),
    [
        ("what's going on with push_to_hub?", "recently_updated"),
        ("any news on the polars support?", "recently_updated"),
        ("status of audio decoding", "recently_updated"),
        ("what's new with push_to_hub", "newest"),
        ("what happened to the audio decoding bug", "recently_updated"),
        ("where are we on push_to_hub?", "recently_updated"),
    ],
)
def test_a_topics_news_is_a_search_for_it_most_recent_first(question: str, order: str) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == "search_issues" and arguments["order"] == order and arguments["query"]


@pytest.mark.parametrize(
    ("question", "query"),
    [("what's the status of the polars support request", "polars support"), ("status of the DVC one", "DVC")],
)
def test_the_kind_said_after_a_topic_is_no_search_word(question: str, query: str) -> None:
    assert first_calls(question)[0][1]["query"] == query


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ('anything mentioning "CUDA" or "GPU"', "CUDA GPU"),
        ('issues mentioning "CUDA" or "GPU"', "CUDA GPU"),
        ("issues mentioning 'out of memory' or OOM", "out-of-memory OOM"),  # a phrase, as the tool reads `a-b`
    ],
)
def test_quoted_alternatives_are_searched_as_any_of_them(question: str, query: str) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == "search_issues" and arguments["query"] == query and arguments["any_words"] is True


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("open bugs about parquet, oldest first", "parquet"),
        ("bugs about parquet, newest first please", "parquet"),
        ("most discussed issue ever", ""),
        ("which open bugs have the most comments", ""),
    ],
)
def test_marks_politeness_and_order_words_are_no_topic(question: str, query: str) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == "search_issues" and arguments["query"] == query


def test_a_planner_word_with_or_without_an_ending_is_no_typo() -> None:
    assert corrected("most comments, issues I should close", frozenset()) == "most comments, issues I should close"
    assert corrected("shwo the lables", frozenset()) == "show the labels"


def test_a_number_after_a_package_in_a_topic_is_a_version() -> None:
    [(name, arguments)] = first_calls("which issues reference pyarrow 15")
    assert name == "search_issues" and arguments["query"] == "pyarrow 15"


@pytest.mark.parametrize("question", ["bugs 2023 vs 2024", "issues 2023 vs 2024"])
def test_issues_of_two_years_set_against_each_other_are_counted_by_year(question: str) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == "count_issues_by" and arguments["by"] == "year"
    assert (arguments["created_since"], arguments["created_before"]) == ("2023-01-01", "2025-01-01")


@pytest.mark.parametrize("question", ["compare issues 2023 and 2024", "issue 2023 vs 2024", "#2023 vs #2024"])
def test_issue_numbers_that_look_like_years_are_still_issues(question: str) -> None:
    assert first_calls(question) == [("get_issue", {"issue_id": 2023}), ("get_issue", {"issue_id": 2024})]


def test_how_many_labels_an_issue_carries_is_said_to_be_unread() -> None:
    plan = read_question("open issues with more than one label", FLAT, TOOLS)
    assert [(call.name, call.arguments) for call in plan.first_calls()] == [
        ("search_issues", {"query": "", "state": "open"})
    ]
    assert any("how many labels" in note for note in plan.notes)
    counted = read_question("how many issues have more than one label", FLAT, TOOLS)
    assert [(call.name, call.arguments) for call in counted.first_calls()] == [
        ("search_issues", {"query": "", "count_only": True})
    ]


@pytest.mark.parametrize(
    ("question", "state"),
    [("what's the median age of open bugs", "open"), ("average time to close a bug", None)],
)
def test_a_figure_over_the_issues_days_is_said_to_be_unread_and_the_issues_shown_oldest_first(
    question: str, state: str | None
) -> None:
    plan = read_question(question, FLAT, TOOLS)
    [(name, arguments)] = [(call.name, call.arguments) for call in plan.first_calls()]
    assert (name, arguments["query"], arguments.get("state"), arguments["label"]) == ("search_issues", "", state, "bug")
    assert arguments["order"] == "oldest"
    assert any("figure over the issues' days" in note for note in plan.notes)


def test_a_release_said_with_the_is_a_time_the_data_cannot_place() -> None:
    plan = read_question("any regressions reported after the 3.0 release?", FLAT, TOOLS)
    assert [(call.name, call.arguments) for call in plan.first_calls()] == [("search_issues", {"query": "regressions"})]
    assert any("keeps days, not releases" in note for note in plan.notes)


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("show me issues I should close", "stale"),
        ("which issues can be closed?", "stale"),
        ("show issues with zero comments that are still open", "unanswered"),
    ],
)
def test_what_to_close_and_what_nobody_answered_are_read_from_the_inbox(question: str, reason: str) -> None:
    assert first_calls(question) == [("list_inbox", {"only": reason})]


def test_a_label_named_right_beside_a_time_gets_no_typo_note() -> None:
    plan = read_question("issues with the enhancement label opened in 2024", FLAT, TOOLS)
    [call] = plan.first_calls()
    assert call.arguments["label"] == "enhancement" and call.arguments["created_since"] == "2024-01-01"
    assert not plan.notes
    misspelt = read_question("issues with the enhancment label opened in 2024", FLAT, TOOLS)
    assert any("“enhancment”" in note for note in misspelt.notes)


def test_a_share_asked_with_a_percent_sign_counts_the_issues_said() -> None:
    assert first_calls("what % of open issues have no label") == [("count_issues_by", {"state": "open", "by": "label"})]


def test_authors_set_against_each_other_are_a_search_each() -> None:
    calls = first_calls("how many open bugs by @lhoestq vs @mariosasko")
    assert [(name, arguments["author"], arguments["count_only"]) for name, arguments in calls] == [
        ("search_issues", "lhoestq", True),
        ("search_issues", "mariosasko", True),
    ]


@pytest.mark.parametrize(
    "question",
    ["what are the most requested features right now?", "most wanted features", "what are people asking for the most"],
)
def test_what_people_ask_for_most_is_the_feature_requests_most_discussed_first(question: str) -> None:
    [call] = read_question(question, None, TOOLS).first_calls()  # Orbit's words: its label for features
    name, arguments = call.name, call.arguments
    assert (name, arguments["label"], arguments["order"]) == ("search_issues", "type:feature", "most_commented")
    assert arguments["query"] == ""


def test_the_most_popular_issues_are_of_any_kind() -> None:
    [(_, arguments)] = first_calls("most popular issues")
    assert arguments["order"] == "most_commented" and "label" not in arguments


@pytest.mark.parametrize(
    ("question", "state"),
    [
        ("bugs mentioning windows, but not the closed ones", "open"),
        ("issues about audio excluding open ones", "closed"),
    ],
)
def test_a_state_left_out_asks_for_the_other(question: str, state: str) -> None:
    [(_, arguments)] = first_calls(question)
    assert arguments["state"] == state and arguments["query"] in {"windows", "audio"}


@pytest.mark.parametrize("question", ["any regressions reported since 2.14?", "open bugs after v3.0 came out"])
def test_a_release_named_as_a_time_is_said_to_be_unread(question: str) -> None:
    plan = read_question(question, FLAT, TOOLS)
    [call] = plan.first_calls()
    assert call.name == "search_issues" and not re.search(r"\d|since|after", call.arguments["query"])
    assert any("not releases" in note for note in plan.notes)


@pytest.mark.parametrize(
    ("question", "issue_id", "body"),
    [
        ("ask the reporter of 7419 for a minimal repro", 7419, "Could you share a minimal repro?"),
        ("ask them on 7419 for their full traceback", 7419, "Could you share your full traceback?"),
        ("ask @lhoestq on 7421 to take a look", 7421, "@lhoestq could you take a look?"),
        ("ping lhoestq on 7421", 7421, "@lhoestq"),
    ],
)
def test_a_comment_that_asks_for_something_is_written_from_the_users_words(
    question: str, issue_id: int, body: str
) -> None:
    assert first_calls(question) == [("post_comment", {"issue_id": issue_id, "body": body})]


def test_a_label_and_a_comment_asking_for_something_are_both_planned() -> None:
    assert first_calls("label 7421 bug and comment asking for the datasets version") == [
        ("add_label", {"issue_id": 7421, "label": "bug"}),
        ("post_comment", {"issue_id": 7421, "body": "Could you share the datasets version?"}),
    ]


@pytest.mark.parametrize("question", ["if 7421 has no label, tag it bug", "if 7421 is unlabelled, label it bug"])
def test_whether_an_issue_has_any_label_is_a_condition_checked_after_reading_it(question: str) -> None:
    plan = read_question(question, FLAT, TOOLS)
    assert [(call.name, call.arguments) for call in plan.first_calls()] == [("get_issue", {"issue_id": 7421})]
    [later] = plan.later
    assert later.test is not None and later.test.words() == "has no label"
    assert later.test.holds({"labels": []}) and not later.test.holds({"labels": ["bug"]})


def test_what_to_label_an_issue_asks_for_proposals() -> None:
    assert ("suggest_labels", {"issue_id": 7421}) in first_calls("what should I label 7421?")


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("top commenters", "who closed, fixed or answered"),
        ("add the streaming label to every open issue about IterableDataset", "many issues at once"),
    ],
)
def test_what_no_tool_does_is_said_instead_of_unrecognised(question: str, said: str) -> None:
    plan = read_question(question, FLAT, TOOLS)
    assert not plan.first_calls() and any(said in note for note in plan.notes)


@pytest.mark.parametrize("question", ["what's the ratio of bugs to enhancements", "bugs vs enhancements"])
def test_a_ratio_of_two_labels_counts_them_side_by_side(question: str) -> None:
    assert first_calls(question) == [("count_issues_by", {"any_labels": ["bug", "enhancement"], "by": "label"})]


@pytest.mark.parametrize(
    ("question", "query", "call"),
    [
        ("label the DVC one bug", "DVC", ("add_label", {"label": "bug"})),
        (
            "add the streaming label to the IterableDataset sharding one",
            "IterableDataset sharding",
            ("add_label", {"label": "streaming"}),
        ),
        ("comment on the polars request: same need here", "polars", ("post_comment", {"body": "same need here"})),
    ],
)
def test_an_action_on_an_issue_named_by_its_topic_waits_for_the_search(
    question: str, query: str, call: tuple[str, dict[str, Any]]
) -> None:
    plan = read_question(question, FLAT, TOOLS)
    [(name, arguments)] = [(planned.name, planned.arguments) for planned in plan.first_calls()]
    assert name == "search_issues" and arguments["query"] == query  # nothing is changed in the first round
    [later] = plan.later
    assert later.read_first_hit and [(planned.name, planned.arguments) for planned in later.on_first_hit] == [
        (call[0], {"issue_id": 0, **call[1]})
    ]


def test_the_action_goes_to_the_first_hit_read_beside_it_on_orbit() -> None:
    rounds, _ = run_to_answer("mark the schedule jitter request severity:S3", load_registry([]))
    assert rounds[0] == [("search_issues", {"query": "schedule jitter", "limit": 5})]
    [read, (name, arguments)] = rounds[1]
    assert read == ("get_issue", {"issue_id": 110}) and (name, arguments) == (
        "add_label",
        {"issue_id": 110, "label": "severity:S3"},
    )


def test_no_hit_means_no_action_and_says_so() -> None:
    rounds, answer = run_to_answer("label the zzqx-nothing-like-it one type:bug", load_registry([]))
    assert len(rounds) == 1 and "No issue was found to act on, so nothing was changed." in answer


def test_the_duplicates_of_an_issue_named_by_its_topic_are_looked_for_once_it_is_found() -> None:
    plan = read_question("duplicates of the DVC one?", FLAT, TOOLS)
    assert [(call.name, call.arguments) for call in plan.first_calls()] == [("search_issues", {"query": "DVC"})]
    [later] = plan.later
    assert [(call.name, call.arguments) for call in later.on_first_hit] == [("find_similar", {"issue_id": 0})]


@pytest.mark.parametrize("question", ["has the arrow casting issue been fixed?", "is the DVC issue still open?"])
def test_a_question_about_one_issue_named_by_its_topic_reads_it(question: str) -> None:
    plan = read_question(question, FLAT, TOOLS)
    [(name, _)] = [(call.name, call.arguments) for call in plan.first_calls()]
    assert name == "search_issues" and [later.read_first_hit for later in plan.later] == [True]


@pytest.mark.parametrize(
    "question", ["show me everything tagged streaming that's open", "anything tagged bug that's still open"]
)
def test_what_carries_a_label_said_after_a_label_word_is_a_search_by_it(question: str) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == "search_issues" and arguments["state"] == "open" and arguments["label"] in {"streaming", "bug"}
    assert not arguments["query"]


def test_anything_new_about_a_topic_is_the_newest_first() -> None:
    [(_, arguments)] = first_calls("anything new about webdataset?")
    assert arguments == {"query": "webdataset", "order": "newest"}


@pytest.mark.parametrize(
    ("question", "waiting"),
    [
        (
            "Read the concurrency limit request and +1 it with a comment: 'Same need here.'",
            [("post_comment", {"issue_id": 0, "body": "Same need here."})],
        ),
        (
            "Find the catch-up feature request, add bug to it, and comment that we need 'all' for billing.",
            [
                ("add_label", {"issue_id": 0, "label": "bug"}),
                ("post_comment", {"issue_id": 0, "body": 'we need "all" for billing.'}),
            ],
        ),
        (
            "find the issue about caching with load_dataset and label it bug",
            [("add_label", {"issue_id": 0, "label": "bug"})],
        ),
        (
            "label the DVC one bug and comment on it: looking",
            [("add_label", {"issue_id": 0, "label": "bug"}), ("post_comment", {"issue_id": 0, "body": "looking"})],
        ),
    ],
)
def test_actions_on_it_after_an_issue_named_by_its_topic_wait_for_the_search(
    question: str, waiting: list[tuple[str, dict[str, Any]]]
) -> None:
    plan = read_question(question, FLAT, TOOLS)
    assert [call.name for call in plan.first_calls()] == ["search_issues"]
    [later] = plan.later
    assert [(call.name, call.arguments) for call in later.on_first_hit] == waiting


@pytest.mark.parametrize(
    "question",
    [
        "if the DAG request is still open, comment on it: 'still needed'",
        "find the DVC one and if it's open label it bug",
        "label the DVC one bug",
        "what's the DVC one about? label it bug",
    ],
)
def test_no_issue_named_by_its_topic_is_changed_before_it_is_found(question: str) -> None:
    plan = read_question(question, FLAT, TOOLS)
    assert all(call.arguments.get("issue_id") != 0 for call in plan.first_calls())
    assert all(later.issue_id != 0 for later in plan.later)


def test_a_comment_said_as_a_clause_keeps_the_words_it_quotes() -> None:
    assert first_calls("comment on #41 that we keep 'all' for billing") == [
        ("post_comment", {"issue_id": 41, "body": 'we keep "all" for billing'})
    ]


def test_last_and_a_month_is_the_latest_such_month_before_this_one() -> None:
    today = date(2026, 12, 7)
    february = span_in("what did people report last february", today)
    december = span_in("issues from last december", today)
    assert february is not None and (february.since, february.before) == (date(2026, 2, 1), date(2026, 3, 1))
    assert december is not None and (december.since, december.before) == (date(2025, 12, 1), date(2026, 1, 1))
    assert span_in("may I see the bugs", today) is None  # a month's name alone, with no time word, is no time


def test_still_open_after_a_quoted_topic_is_the_state() -> None:
    [(_, arguments)] = first_calls('anything about "ArrowInvalid" still open')
    assert arguments == {"query": "ArrowInvalid", "state": "open"}


def test_a_kind_of_author_the_data_does_not_record_is_said_to_be_unread() -> None:
    plan = read_question("bugs opened by first-time reporters", FLAT, TOOLS)
    [call] = plan.first_calls()
    assert call.arguments == {"query": "", "label": "bug"} and any("first-time" in note for note in plan.notes)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("wat r the open streaming bugs", ("search_issues", {"query": "", "state": "open", "label": "streaming"})),
        ("did lhoestq file anything about audio", ("search_issues", {"query": "audio", "author": "lhoestq"})),
        ("how many issues have no labels at all", ("search_issues", {"query": "", "unlabelled": True})),
        ("which label is used the most", ("count_issues_by", {"by": "label"})),
        ("what's the split between open and closed bugs", ("count_issues_by", {"label": "bug", "by": "state"})),
        ('any issue mentioning both "pyarrow" and "timestamp"', ("search_issues", {"query": "pyarrow timestamp"})),
        (
            "issues about R support",
            ("search_issues", {"query": "R support"}),
        ),  # `r` is `are` only after a question word
    ],
)
def test_shorthand_authors_asked_about_and_splits_said_in_words(
    question: str, expected: tuple[str, dict[str, Any]]
) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == expected[0] and expected[1].items() <= arguments.items()


def _turn(*reads: int) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = [{"type": "function_call", "name": "search_issues", "arguments": '{"query": "DVC"}'}]
    calls += [{"type": "function_call", "name": "get_issue", "arguments": f'{{"issue_id": {n}}}'} for n in reads]
    return [{"role": "user", "content": "what's the DVC one about?"}, *calls, {"role": "assistant", "content": "…"}]


def test_in_a_chat_it_after_an_issue_named_by_its_topic_is_the_issue_its_answer_read() -> None:
    _, earlier, _, _ = this_turn([*_turn(6203), {"role": "user", "content": "label it bug"}])
    assert earlier == ["what's the DVC one about? (#6203)"]
    _, several, _, _ = this_turn([*_turn(6203, 7421), {"role": "user", "content": "label it bug"}])
    assert several == ["what's the DVC one about?"]  # two issues read: `it` names neither


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("open bugs w streaming label", ("search_issues", {"query": "", "state": "open", "label": "streaming"})),
        ("newest 5", ("search_issues", {"query": "", "limit": 5})),
        ("anything on arrow 17", ("search_issues", {"query": "arrow 17"})),
        ("7421 triage", ("plan_triage", {"issue_ids": [7421]})),
        ("what should we work on next", ("list_inbox", {})),
    ],
)
def test_terse_requests_of_a_maintainer(question: str, expected: tuple[str, dict[str, Any]]) -> None:
    calls = read_question(question, FLAT, (*TOOLS, "plan_triage")).first_calls()
    [(name, arguments)] = [(call.name, call.arguments) for call in calls]
    assert name == expected[0] and expected[1].items() <= arguments.items()
    assert expected[0] != "list_inbox" or "about" not in arguments  # `next` is no topic


def test_dups_of_an_issue_are_its_similar_issues() -> None:
    assert ("find_similar", {"issue_id": 7418}) in first_calls("any dups for 7418")


def test_this_year_set_against_last_year_counts_both_by_year(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("atlas.offline.acts.tally.today", lambda: date(2026, 12, 7))
    assert first_calls("how are we doing on bugs this year vs last year") == [
        (
            "count_issues_by",
            {"label": "bug", "created_since": "2025-01-01", "created_before": "2027-01-01", "by": "year"},
        )
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("top 10 reporters of all time", ("count_issues_by", {"by": "author", "limit": 10})),
        ("what fraction of bugs get closed", ("count_issues_by", {"label": "bug", "by": "state"})),
        (
            "which open issues haven't been touched since 2023",
            ("search_issues", {"query": "", "updated_before": "2023-01-01"}),
        ),
        (
            "close the loop with the reporter of 7400: ask whether it still happens on 3.3",
            ("post_comment", {"issue_id": 7400, "body": "Could you tell us whether it still happens on 3.3?"}),
        ),
        (
            "follow up with the reporter of 7400: ask for logs",
            ("post_comment", {"issue_id": 7400, "body": "Could you share logs?"}),
        ),
    ],
)
def test_manager_and_triager_phrasings(question: str, expected: tuple[str, dict[str, Any]]) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == expected[0] and expected[1].items() <= arguments.items()


def test_which_of_two_kinds_an_issue_is_asks_for_proposals() -> None:
    assert ("suggest_labels", {"issue_id": 7418}) in first_calls("is 7418 a bug or a question?")


@pytest.mark.parametrize(
    ("question", "then"),
    [
        ("suggest labels for the newest unlabelled issue", "suggest_labels"),
        ("similar issues to the oldest open bug", "find_similar"),
    ],
)
def test_what_is_asked_of_the_one_issue_an_order_names_follows_its_read(question: str, then: str) -> None:
    plan = read_question(question, FLAT, TOOLS)
    [call] = plan.first_calls()
    assert call.name == "search_issues" and call.arguments["query"] == ""
    [later] = plan.later
    assert later.read_first_hit and [(c.name, c.arguments) for c in later.on_first_hit] == [(then, {"issue_id": 0})]


def test_any_dups_after_an_issue_asks_for_its_similar_issues() -> None:
    plan = read_question("any dups?", FLAT, TOOLS, earlier=[6348])
    assert ("find_similar", {"issue_id": 6348}) in [(call.name, call.arguments) for call in plan.first_calls()]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            'find issues similar to "IterableDataset shuffle is slow"',
            ("search_issues", {"query": "IterableDataset shuffle is slow"}),
        ),
        ("what's 7400's status", ("get_issue", {"issue_id": 7400})),
        (
            "how many enhancements were filed in 2024 vs 2023",
            ("count_issues_by", {"created_since": "2023-01-01", "created_before": "2025-01-01", "by": "year"}),
        ),
        (
            "are there more open bugs or open enhancements",
            ("count_issues_by", {"state": "open", "any_labels": ["bug", "enhancement"], "by": "label"}),
        ),
    ],
)
def test_likeness_to_words_possessives_and_comparisons(question: str, expected: tuple[str, dict[str, Any]]) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == expected[0] and expected[1].items() <= arguments.items()


def test_a_condition_on_an_issue_named_by_its_topic_is_tested_once_it_is_read_on_orbit() -> None:
    question = "If the dependencies/DAG request is still open, label it comp:scheduler"
    rounds, _ = run_to_answer(question, load_registry([]))
    assert rounds[0] == [("search_issues", {"query": "dependencies DAG", "any_words": True, "limit": 5})]
    assert rounds[1] == [("get_issue", {"issue_id": 90})]
    assert rounds[2] == [("add_label", {"issue_id": 90, "label": "comp:scheduler"})]
    unmet_rounds, answer = run_to_answer("if the DAG request is closed, label it comp:scheduler", load_registry([]))
    assert len(unmet_rounds) == 2 and "#90 does not meet the condition (it is closed is false)" in answer


def test_a_comment_on_an_issue_named_by_its_topic_waits_for_its_condition() -> None:
    plan = read_question("If the DAG request is still open, drop a comment: 'Still needed.'", FLAT, TOOLS)
    assert [call.name for call in plan.first_calls()] == ["search_issues"]
    [later] = plan.later
    assert later.test is not None and later.test.words() == "is open"
    assert [(c.name, c.arguments) for c in later.on_first_hit] == [
        ("post_comment", {"issue_id": 0, "body": "Still needed."})
    ]


def test_an_issue_named_by_its_topic_as_the_subject_of_the_action_after_it() -> None:
    plan = read_question("The job-dependencies request (the DAG one): add comp:scheduler too", None, TOOLS)
    [(name, arguments)] = [(call.name, call.arguments) for call in plan.first_calls()]
    assert name == "search_issues" and arguments["query"] == "job-dependencies DAG" and arguments["any_words"]
    [later] = plan.later
    assert [(c.name, c.arguments) for c in later.on_first_hit] == [
        ("add_label", {"issue_id": 0, "label": "comp:scheduler"})
    ]


def test_a_condition_on_it_after_an_issue_named_by_its_topic_waits_for_the_hit() -> None:
    plan = read_question("find the DAG request. if it is still open, label it comp:scheduler", None, TOOLS)
    assert [call.name for call in plan.first_calls()] == ["search_issues"]
    [later] = plan.later
    assert later.test is not None and later.test.words() == "is open"
    assert [(c.name, c.arguments) for c in later.on_first_hit] == [
        ("add_label", {"issue_id": 0, "label": "comp:scheduler"})
    ]


@pytest.mark.parametrize(("question", "issue_id"), [("7421 labels?", 7421), ("7400's status", 7400)])
def test_an_issue_number_and_what_of_it_is_asked_reads_it(question: str, issue_id: int) -> None:
    assert first_calls(question)[0] == ("get_issue", {"issue_id": issue_id})


def test_who_works_on_an_issue_is_said_to_be_unread_and_the_issues_are_searched() -> None:
    plan = read_question("who is working on the streaming bugs", FLAT, TOOLS)
    [call] = plan.first_calls()
    assert call.name == "search_issues" and {call.arguments["label"], *call.arguments["labels"]} == {"streaming", "bug"}
    assert any("no assignees" in note for note in plan.notes)
    assert first_calls("issues with 3 comments")[0][0] == "search_issues"  # a count of comments is no issue


@pytest.mark.parametrize(
    ("question", "state"),
    [("what's the breakdown of labels for closed issues", "closed"), ("distribution of labels", None)],
)
def test_a_breakdown_of_labels_is_a_count_by_label(question: str, state: str | None) -> None:
    [(name, arguments)] = first_calls(question)
    assert (name, arguments["by"], arguments.get("state")) == ("count_issues_by", "label", state)
