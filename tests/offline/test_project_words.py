"""The offline planner reads a project's own words: its authors, its labels as spelled, what its kinds mean,
which labels stand for a topic, and requests that build on the one before.

Two backlogs are imported as a user would (`atlas data import`): a slice of a real project's export with
flat labels, and one made here where a topic's label is on few of the issues that talk of it. Nothing in
the planner names these labels or people: it reads them from the data.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.plan import Plan
from atlas.offline.reading.dates import today
from atlas.offline.reading.label_usage import ProjectLabels, files_topic
from atlas.offline.reading.search import asks_count
from atlas.offline.reading.vocabulary import Vocabulary, vocabulary_of
from tests.support.run import invoke

EXPORT = Path(__file__).resolve().parents[1] / "fixtures" / "flat-labels-issues.json"
ISSUES = json.loads(EXPORT.read_text(encoding="utf-8"))
TOOLS = (
    "get_issue",
    "search_issues",
    "find_similar",
    "suggest_labels",
    "add_label",
    "remove_label",
    "post_comment",
    "list_labels",
    "count_issues_by",
)


def imported(export: Path, target: Path) -> Vocabulary:
    done = invoke("data", "import", str(export), "--to", str(target), env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    return vocabulary_of(target)


@pytest.fixture(scope="module")
def flat(tmp_path_factory: pytest.TempPathFactory) -> Vocabulary:
    return imported(EXPORT, tmp_path_factory.mktemp("flat") / "data")


def _issue(number: int, title: str, labels: list[str], author: str = "someone") -> dict[str, Any]:
    return {
        "number": number,
        "title": title,
        "body": f"{title}. Seen on version 1.{number}.",
        "state": "OPEN",
        "labels": [{"name": name} for name in labels],
        "author": {"login": author},
        "createdAt": f"2024-01-{1 + number % 28:02d}T10:00:00Z",
    }


@pytest.fixture(scope="module")
def sparse(tmp_path_factory: pytest.TempPathFactory) -> Vocabulary:
    """60 issues talk of streaming, 5 of them carry `streaming`; 20 feature requests carry `enhancement`."""
    folder = tmp_path_factory.mktemp("sparse")
    issues = [_issue(n, f"Streaming stalls on shard {n}", ["streaming"] if n <= 5 else []) for n in range(1, 61)]
    issues += [_issue(n, f"Feature request: export format {n}", ["enhancement"]) for n in range(61, 81)]
    issues += [_issue(n, f"Crash in loader {n}", ["bug"]) for n in range(81, 101)]
    export = folder / "issues.json"
    export.write_text(json.dumps(issues), encoding="utf-8")
    return imported(export, folder / "data")


def plan_of(question: str, vocabulary: Vocabulary) -> Plan:
    return read_question(question, vocabulary, TOOLS, suggest=False)


def searches(question: str, vocabulary: Vocabulary) -> list[dict[str, Any]]:
    return [call.arguments for call in plan_of(question, vocabulary).first_calls() if call.name == "search_issues"]


def open_issue(labels: set[str]) -> int:
    is_open = [issue for issue in ISSUES if issue["state"].lower() == "open"]
    return next(issue["number"] for issue in is_open if {label["name"] for label in issue["labels"]} == labels)


@pytest.mark.parametrize("question", ["number of open dataset requests?", "count the open dataset requests"])
def test_a_leading_number_of_is_a_count_and_no_topic(question: str, flat: Vocabulary) -> None:
    [search] = searches(question, flat)
    assert search["count_only"] is True and search["label"] == "dataset request" and search["state"] == "open"
    assert not search["query"]


def test_a_number_of_inside_the_topic_is_searched_not_counted(flat: Vocabulary) -> None:
    [search] = searches("find issues about the number of shards", flat)
    assert "count_only" not in search and "shards" in search["query"]


@pytest.mark.parametrize(
    ("words", "counted"),
    [
        ("how many open bugs", "how many"),
        ("give me a count of open bugs", "a count of"),
        ("what's the total number of open bugs", "the total number of"),
        ("open bug count?", "count?"),
        ("count the open bugs", "count"),
        ("issues mentioning the number of shards", None),
        ("issues about a count of rows", None),
    ],
)
def test_a_count_is_asked_by_its_words_wherever_they_are_not_the_topic(words: str, counted: str | None) -> None:
    found = asks_count(words)
    assert (found.group(0).strip() if found else None) == counted


@pytest.mark.parametrize(
    "question",
    [
        "open stuff from lhoestq",
        "anything from LHOESTQ still open?",
        "show me lhoestq's open issues",
        "open issues lhoestq opened",
        "how many open issues does lhoestq have?",
    ],
)
def test_a_name_standing_for_a_person_is_an_author_the_project_knows(question: str, flat: Vocabulary) -> None:
    [search] = searches(question, flat)
    assert search["author"] == "lhoestq" and search["state"] == "open" and not search["query"]


@pytest.mark.parametrize(
    "question",
    ["open issues from nobody-here", "open bugs from the hub", "bugs from me", "bugs we opened", "hub's bugs"],
)
def test_a_name_after_from_that_no_author_has_is_no_author(question: str, flat: Vocabulary) -> None:
    assert all("author" not in search for search in searches(question, flat))


def test_a_label_said_as_it_is_spelled_wins_over_one_whose_words_are_spread(flat: Vocabulary) -> None:
    [search] = searches("closed dataset-viewer bugs", flat)
    assert search["label"] == "dataset-viewer" and search["state"] == "closed"
    assert "dataset bug" not in search.get("labels", [])


@pytest.mark.parametrize(
    "question", ["has anyone reported something like #{n} before", "was #{n} already filed?", "anything like {n}?"]
)
def test_asking_whether_an_issue_was_reported_before_finds_the_similar_ones(question: str, flat: Vocabulary) -> None:
    number = open_issue({"enhancement"})
    calls = plan_of(question.format(n=number), flat).first_calls()
    assert ("find_similar", {"issue_id": number}) in [(call.name, call.arguments) for call in calls]


def test_who_reported_an_issue_is_a_read_not_a_similar_search(flat: Vocabulary) -> None:
    number = open_issue({"enhancement"})
    assert [call.name for call in plan_of(f"who reported #{number} and when?", flat).first_calls()] == ["get_issue"]


def test_what_an_issue_is_not_is_removed_and_what_it_is_added(flat: Vocabulary) -> None:
    number = open_issue({"enhancement"})
    plan = plan_of(f"{number} isn't an enhancement, it's a question. fix the labels", flat)
    assert plan.removals == [(number, "enhancement")] and plan.labels == [(number, "question")]


def test_a_kind_in_a_condition_is_the_label_the_projects_issues_mean_by_it(flat: Vocabulary) -> None:
    number = open_issue({"enhancement"})
    plan = plan_of(f"for {number}: if it's a feature request add good first issue, otherwise label it bug", flat)
    assert [call.name for call in plan.first_calls()] == ["get_issue"]
    tests = [(step.test.value, step.test.negated, [c.arguments["label"] for c in step.actions]) for step in plan.later]
    assert tests == [("enhancement", False, ["good first issue"]), ("enhancement", True, ["bug"])]


def test_which_ones_after_a_count_narrows_the_same_search(flat: Vocabulary) -> None:
    counted, listed = searches("how many open enhancement issues, and which ones mention streaming?", flat)
    assert counted == {"query": "", "state": "open", "label": "enhancement", "count_only": True}
    assert listed == {"query": "streaming", "state": "open", "label": "enhancement"}


def test_which_of_them_keeps_the_author_and_the_labels_said_before(flat: Vocabulary) -> None:
    listed, narrowed = searches("open bugs by lhoestq. which of them are about arrow?", flat)
    assert narrowed == {**listed, "query": "arrow"}


def test_which_ones_with_no_words_of_its_own_lists_the_search_before(flat: Vocabulary) -> None:
    counted, listed = searches("how many open bugs mention arrow, and which ones are they", flat)
    assert counted == {**listed, "count_only": True} and listed["query"] == "arrow"


def test_a_count_of_nothing_new_counts_the_search_before(flat: Vocabulary) -> None:
    listed, counted = searches("open bugs mentioning arrow. how many are there?", flat)
    assert counted == {**listed, "count_only": True}
    # A count that names its own subject is a search of its own, not the one before counted.
    _, closed = searches("open bugs by lhoestq. how many closed issues mention arrow?", flat)
    assert closed["state"] == "closed" and "author" not in closed


def test_a_label_on_few_of_the_issues_saying_its_name_does_not_stand_for_the_topic(sparse: Vocabulary) -> None:
    assert isinstance(sparse.labels, ProjectLabels)
    assert not files_topic(sparse.labels, "streaming") and files_topic(sparse.labels, "enhancement")
    [search] = searches("feature requests about streaming", sparse)
    assert search == {"query": "streaming", "label": "enhancement"}
    [named] = searches("open streaming issues", sparse)  # named as a kind of issue, the label stays
    assert named["label"] == "streaming"


def test_a_label_on_enough_of_the_issues_saying_its_name_is_the_topic(flat: Vocabulary) -> None:
    assert files_topic(flat.labels, "streaming")
    [search] = searches("feature requests about streaming", flat)
    assert {search["label"], *search.get("labels", [])} == {"streaming", "enhancement"}


def test_labels_without_their_index_stand_for_their_topic() -> None:
    assert files_topic(["streaming", "bug"], "streaming")


@pytest.mark.parametrize(
    ("question", "removed", "added"),
    [
        ("41 isn't S2, it's S1", "severity:S2", "severity:S1"),
        ("#41 is a feature, not a bug", "type:bug", "type:feature"),
    ],
)
def test_a_correction_said_without_a_verb_swaps_the_labels(question: str, removed: str, added: str) -> None:
    plan = read_question(question, available=TOOLS, suggest=False)
    assert plan.removals == [(41, removed)] and plan.labels == [(41, added)]


@pytest.mark.parametrize(
    "said",
    ["remove enhancement from {n}", "take the enhancement label off {n}", "get rid of the enhancement label on {n}"],
)
def test_a_flat_label_named_in_words_is_removed_from_the_issue_named(said: str, flat: Vocabulary) -> None:
    number = open_issue({"enhancement"})
    plan = plan_of(said.format(n=number), flat)
    assert plan.removals == [(number, "enhancement")] and plan.labels == []


def test_a_year_after_a_month_is_a_day_not_an_issue(flat: Vocabulary) -> None:
    plan = plan_of("anything new about audio decoding since january 2025?", flat)
    assert [call.name for call in plan.first_calls()] == ["search_issues"]
    assert searches("anything new about audio decoding since january 2025?", flat) == [
        {"query": "audio decoding", "created_since": "2025-01-01"}
    ]


def test_a_number_before_newest_is_how_many_and_the_topic_stays(flat: Vocabulary) -> None:
    assert [call.name for call in plan_of("show the 5 newest open bugs", flat).first_calls()] == ["search_issues"]
    [newest] = searches("show the 5 newest open bugs", flat)
    assert (newest["limit"], newest["state"], newest["label"]) == (5, "open", "bug")
    [topic] = searches("the 3 most recent issues about parquet", flat)
    assert (topic["query"], topic["limit"]) == ("parquet", 3)


def test_what_an_issue_is_likened_to_is_an_issue(flat: Vocabulary) -> None:
    number = open_issue({"enhancement"})
    calls = [(call.name, call.arguments) for call in plan_of(f"similar to {number}?", flat).first_calls()]
    assert ("find_similar", {"issue_id": number}) in calls


def test_a_label_no_doc_defines_is_shown_by_the_issues_it_is_on(flat: Vocabulary) -> None:
    plan = plan_of("what does the enhancement label mean here", flat)
    assert [(call.name, call.arguments) for call in plan.first_calls()] == [
        ("search_issues", {"query": "", "label": "enhancement"})
    ]
    assert any("No doc defines the label `enhancement`" in note for note in plan.notes)
    # `what is …` alone asks no meaning: the label stays a filter of a search.
    assert not any("No doc defines" in note for note in plan_of("what is the latest bug?", flat).notes)


def test_are_there_asks_for_issues_and_points_at_none(flat: Vocabulary) -> None:
    assert searches("are there any open issues about parquet?", flat) == [{"query": "parquet", "state": "open"}]
    assert searches("is there anything open about audio decoding?", flat) == [
        {"query": "audio decoding", "state": "open"}
    ]


def test_a_verb_of_arriving_is_not_a_topic(flat: Vocabulary) -> None:
    [search] = searches("what came in this week?", flat)
    assert search["query"] == "" and "created_since" in search


def test_a_time_said_of_the_issues_sought_filters_them(flat: Vocabulary) -> None:
    [unlabelled] = searches("list unlabeled issues from this year", flat)
    assert unlabelled["unlabelled"] is True and unlabelled["created_since"].endswith("-01-01")
    [stale] = searches("stale issues since march", flat)
    assert stale["query"] == "" and stale["updated_before"].endswith("-03-01")
    [topic] = searches("issues about a stale lock file", flat)  # no time said: `stale` is the topic's word
    assert topic["query"] == "stale lock file"


def test_the_projects_labels_are_listed_and_one_issues_labels_are_not(flat: Vocabulary) -> None:
    for asked in ("which labels does this project use?", "what labels do we have?", "list the labels"):
        assert [call.name for call in plan_of(asked, flat).first_calls()] == ["list_labels"], asked
    number = open_issue({"enhancement"})
    assert "list_labels" not in [call.name for call in plan_of(f"what labels would fit #{number}?", flat).first_calls()]


def test_a_number_before_the_kind_of_issues_wanted_is_how_many(flat: Vocabulary) -> None:
    assert searches("give me 3 good first issues", flat) == [{"query": "", "label": "good first issue", "limit": 3}]
    assert searches("show 5 open bugs", flat) == [{"query": "", "state": "open", "label": "bug", "limit": 5}]
    # A number joined to others by `and` is still an issue.
    assert next(call.name for call in plan_of("show me 41 and other issues", flat).first_calls()) == "get_issue"


def tallies(question: str, vocabulary: Vocabulary) -> list[dict[str, Any]]:
    return [call.arguments for call in plan_of(question, vocabulary).first_calls() if call.name == "count_issues_by"]


def test_how_issues_split_up_is_one_count_grouped_as_asked_and_filtered_by_the_rest(flat: Vocabulary) -> None:
    assert tallies("who opened the most issues?", flat) == [{"by": "author"}]
    assert tallies("top 3 reporters of open bugs", flat) == [
        {"by": "author", "state": "open", "label": "bug", "limit": 3}
    ]
    assert tallies("which users filed the most dataset requests since 2022", flat) == [
        {"by": "author", "label": "dataset request", "created_since": "2022-01-01"}
    ]
    assert tallies("open issues per label", flat) == [{"by": "label", "state": "open"}]
    assert tallies("how many bugs were opened each year?", flat) == [{"by": "year", "label": "bug"}]
    assert tallies("monthly issue counts about parquet", flat) == [{"by": "month", "query": "parquet"}]
    assert tallies("open vs closed enhancement issues", flat) == [{"by": "state", "label": "enhancement"}]


def test_a_time_after_than_is_an_age_not_a_count_per_year(flat: Vocabulary) -> None:
    assert tallies("unlabeled issues older than a year", flat) == []
    assert tallies("how many issues a month", flat) == [{"by": "month"}]
    [search] = searches("open issues without any label older than a year", flat)
    assert search["unlabelled"] is True and "created_before" in search and not search["query"]


def test_who_is_asked_of_the_people_counted_and_a_kind_before_them_filters(flat: Vocabulary) -> None:
    assert tallies("who is the most active reporter since 2024?", flat) == [
        {"by": "author", "created_since": "2024-01-01"}
    ]
    assert tallies("who's the most active issue author?", flat) == [{"by": "author"}]
    assert tallies("who are the top 3 bug reporters", flat) == [{"by": "author", "label": "bug", "limit": 3}]


def test_a_count_or_a_search_that_names_no_grouping_is_not_a_tally(flat: Vocabulary) -> None:
    asked_for_all = "list every bug, open or closed"
    for asked in ("how many open bugs?", "issues about the most used config", "who reported #38?", asked_for_all):
        assert tallies(asked, flat) == [], asked


def test_days_said_of_the_closing_filter_the_opening_and_say_so(flat: Vocabulary) -> None:
    plan = plan_of("bugs fixed since december 2023", flat)
    [search] = searches("bugs fixed since december 2023", flat)
    assert search == {"query": "", "state": "closed", "label": "bug", "created_since": "2023-12-01"}
    assert any("no closing dates" in note for note in plan.notes)
    assert not any("closing" in note for note in plan_of("bugs opened since december 2023", flat).notes)


def test_a_topic_with_a_backlog_word_is_a_search_that_keeps_the_topic(flat: Vocabulary) -> None:
    assert searches("anything on caching that's still open and unlabelled?", flat) == [
        {"query": "caching", "state": "open", "unlabelled": True}
    ]
    assert [call.name for call in plan_of("anything untriaged?", flat).first_calls()] == ["list_inbox"]
    assert [call.name for call in plan_of("what's on my plate?", flat).first_calls()] == ["list_inbox"]


def test_a_request_of_filters_alone_asks_the_one_before_again(flat: Vocabulary) -> None:
    def after(previous: str, question: str) -> list[tuple[str, dict[str, Any]]]:
        plan = read_question(question, flat, TOOLS, suggest=False, previous=[previous])
        return [(call.name, call.arguments) for call in plan.first_calls()]

    assert after("who opened the most bugs?", "and since 2022?") == [
        ("count_issues_by", {"label": "bug", "by": "author", "created_since": "2022-01-01"})
    ]
    assert after("how many open enhancement issues?", "what about closed ones?") == [
        ("search_issues", {"query": "", "state": "closed", "label": "enhancement", "count_only": True})
    ]
    assert after("open issues about parquet", "only bugs") == [
        ("search_issues", {"query": "parquet", "state": "open", "label": "bug"})
    ]
    assert after("show #38", "and since 2022?") == []  # a read is not asked again with filters
    topic = after("open issues about parquet", "and what about tokenizers?")  # a topic of its own: not a refinement
    assert all(arguments.get("query") != "parquet" for _, arguments in topic)


def test_new_said_of_issues_is_no_topic_word(flat: Vocabulary) -> None:
    assert searches("new issues since 2024", flat) == [{"query": "", "created_since": "2024-01-01"}]
    assert searches("any new bugs since march 2024?", flat) == [
        {"query": "", "label": "bug", "created_since": "2024-03-01"}
    ]
    assert searches("new issues about parquet", flat) == [{"query": "parquet"}]


def test_a_number_before_the_kind_is_how_many_and_top_labels_are_a_tally(flat: Vocabulary) -> None:
    assert searches("show me 10 most recent bugs", flat) == [{"query": "", "label": "bug", "limit": 10}]
    assert searches("20 bugs about streaming", flat) == [{"query": "streaming", "label": "bug", "limit": 20}]
    assert tallies("top 5 labels", flat) == [{"by": "label", "limit": 5}]
    assert tallies("top labels on open issues", flat) == [{"by": "label", "state": "open"}]


def test_a_word_any_text_says_means_no_label_however_the_project_uses_it(tmp_path: Path) -> None:
    """`had` is in every feature request here and in no other issue; still, `which bug had …` means bugs alone."""
    issues = [_issue(n, f"It had no export format {n}", ["enhancement"]) for n in range(1, 21)]
    issues += [_issue(n, f"Crash in loader {n}", ["bug"]) for n in range(21, 101)]
    export = tmp_path / "issues.json"
    export.write_text(json.dumps(issues), encoding="utf-8")
    wordy = imported(export, tmp_path / "data")
    assert isinstance(wordy.labels, ProjectLabels) and wordy.labels.meaning("had") == "enhancement"
    [search] = searches("which bug had the most comments", wordy)
    assert search == {"query": "", "label": "bug", "order": "most_commented"}


def test_any_issue_that_mentions_words_is_a_search_for_them(flat: Vocabulary) -> None:
    assert searches("any open issue that mentions both arrow and parquet?", flat) == [
        {"query": "arrow parquet", "state": "open"}
    ]
    assert searches("an issue mentioning windows paths", flat) == [{"query": "windows paths"}]


def test_the_last_issue_filed_is_the_newest_and_have_open_is_a_state(flat: Vocabulary) -> None:
    assert searches("when was the last bug filed?", flat) == [{"query": "", "label": "bug"}]
    assert plan_of("when was the last bug filed?", flat).first_calls()[0].name == "search_issues"
    assert searches("how many issues does albertvillanova have open?", flat) == [
        {"query": "", "state": "open", "author": "albertvillanova", "count_only": True}
    ]


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("did anyone report problems with fsspec 2024?", "fsspec 2024"),
        ("anyone else seeing problems with pyarrow 15?", "pyarrow 15"),
        ("has anyone hit errors with streaming?", "streaming"),
    ],
)
def test_anyone_reporting_problems_with_a_thing_is_a_search_and_its_version_no_issue(
    flat: Vocabulary, question: str, query: str
) -> None:
    assert searches(question, flat) == [{"query": query}]
    assert not [c for c in plan_of(question, flat).first_calls() if c.name == "get_issue"]


def test_the_kind_s_words_mean_its_label_after_any_word_of_the_question(sparse: Vocabulary) -> None:
    plan = plan_of("did we get fewer feature requests in 2022 or 2023?", sparse)
    [tally] = [call.arguments for call in plan.first_calls() if call.name == "count_issues_by"]
    assert tally["label"] == "enhancement" and "query" not in tally and tally["by"] == "year"


def test_a_kind_of_issue_said_before_a_clause_about_it_is_its_label(flat: Vocabulary) -> None:
    [search] = searches("open feature requests that have been sitting untouched the longest", flat)
    assert search == {"query": "", "state": "open", "label": "enhancement", "order": "least_recently_updated"}


def test_a_login_said_before_the_issues_is_their_author_unless_titles_use_the_word(flat: Vocabulary) -> None:
    assert searches("lhoestq issues from 2021", flat) == [
        {"query": "", "author": "lhoestq", "created_since": "2021-01-01", "created_before": "2022-01-01"}
    ]
    assert searches("issues by lhoestq 2021", flat)[0]["created_since"] == "2021-01-01"
    [streaming] = searches("streaming issues", flat)  # no login here, and titles say it: the label
    assert "author" not in streaming


def test_which_month_had_the_most_issues_is_a_count_by_month_the_busiest_first(flat: Vocabulary) -> None:
    [call] = plan_of("which month had the most new issues?", flat).first_calls()
    assert (call.name, call.arguments) == ("count_issues_by", {"by": "month", "busiest_first": True})
    [call] = plan_of("how many issues did albertvillanova open and how many of them are closed now", flat).first_calls()
    assert (call.name, call.arguments) == ("count_issues_by", {"author": "albertvillanova", "by": "state"})


def test_a_day_without_its_year_after_the_datas_end_is_the_one_before_it(flat: Vocabulary) -> None:
    """The data ends on 2025-01-04: `since dec 20` is the December 20 before that, not one with nothing after it."""
    assert searches("anything new since dec 20", flat)[0]["created_since"] == "2024-12-20"
    assert searches("issues since dec 20 2023", flat)[0]["created_since"] == "2023-12-20"  # a year said stays
    counted = searches("issues opened in the last 30 days", flat)[0]["created_since"]
    assert counted == (today() - timedelta(days=30)).isoformat()  # a span counted back is counted from today


def test_a_year_after_the_issues_is_a_time_where_the_project_has_no_issue_of_that_number(flat: Vocabulary) -> None:
    [search] = searches("lhoestq issues 2021", flat)  # the export holds no #2021
    assert search == {"query": "", "author": "lhoestq", "created_since": "2021-01-01", "created_before": "2022-01-01"}
    held = next(issue["number"] for issue in ISSUES if 1990 <= issue["number"] <= 2030)
    assert [c.name for c in plan_of(f"lhoestq issues {held}", flat).first_calls()] == ["get_issue"]


def test_a_kind_said_before_a_label_left_out_is_its_label_and_reads_no_single_issue(flat: Vocabulary) -> None:
    plan = plan_of("open feature requests without the good first issue label, oldest first", flat)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        (
            "search_issues",
            {
                "query": "",
                "state": "open",
                "label": "enhancement",
                "without_labels": ["good first issue"],
                "order": "oldest",
            },
        )
    ]
    assert not plan.later  # the label's name holds `issue`, and asks for no one issue
