"""Requests a maintainer types about a backlog with flat labels: replies to an issue, years set against each
other, labels named before the word label, orders by age, asking verbs that are no topic, the project's
labels with their counts, and what is urgent."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.vocabulary import Vocabulary

FLAT = Vocabulary(labels=["bug", "enhancement", "dataset request", "streaming", "good first issue"])
TOOLS = ("search_issues", "count_issues_by", "get_issue", "list_labels", "list_inbox")


def first_calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in read_question(question, FLAT, TOOLS).first_calls()]


@pytest.mark.parametrize("question", ["did anyone reply to 7400?", "has anyone responded to 7400 yet"])
def test_an_issue_replied_to_is_read(question: str) -> None:
    assert first_calls(question) == [("get_issue", {"issue_id": 7400})]


@pytest.mark.parametrize(
    ("question", "filters"),
    [
        ("how many issues did severo open in 2022 vs 2023", {"author": "severo"}),
        ("issues from 2022 versus 2023", {}),
    ],
)
def test_two_years_set_against_each_other_are_a_count_by_year_over_them(question: str, filters: dict[str, Any]) -> None:
    expected = {**filters, "created_since": "2022-01-01", "created_before": "2024-01-01", "by": "year"}
    assert first_calls(question) == [("count_issues_by", expected)]


def test_issue_numbers_set_against_each_other_are_still_compared() -> None:
    assert first_calls("compare 41 vs 87") == [("get_issue", {"issue_id": 41}), ("get_issue", {"issue_id": 87})]


def test_labels_named_before_the_word_label_each_with_an_article() -> None:
    [(name, arguments)] = first_calls("show issues that have both the bug and the streaming label but are closed")
    assert name == "search_issues" and {arguments["label"], *arguments["labels"]} == {"bug", "streaming"}
    assert arguments["state"] == "closed" and not arguments["query"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "open bugs sorted by age",
            ("search_issues", {"query": "", "state": "open", "label": "bug", "order": "oldest"}),
        ),
        ("untriaged issues by age", ("list_inbox", {"only": "untriaged", "order": "oldest"})),
    ],
)
def test_by_age_is_the_oldest_first(question: str, expected: tuple[str, dict[str, Any]]) -> None:
    assert first_calls(question) == [expected]


@pytest.mark.parametrize(
    "question", ["summarise the open bugs", "give me an overview of open bugs", "tell me about the open bugs"]
)
def test_asking_verbs_are_no_topic(question: str) -> None:
    assert first_calls(question) == [("search_issues", {"query": "", "state": "open", "label": "bug"})]


@pytest.mark.parametrize("question", ["list every label with its count", "show all labels with their counts"])
def test_the_labels_with_their_counts_are_the_project_s_labels(question: str) -> None:
    assert first_calls(question) == [("list_labels", {})]


@pytest.mark.parametrize("question", ["anything urgent?", "is there anything on fire?", "what's urgent"])
def test_what_is_urgent_is_the_inbox_most_severe_first(question: str) -> None:
    assert first_calls(question) == [("list_inbox", {})]


def test_what_is_urgent_then_the_issues_meant_is_the_search_alone() -> None:
    plan = read_question("anything urgent? show me the open S1 issues", available=TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("search_issues", {"query": "", "state": "open", "label": "severity:S1"})
    ]
    both = read_question("what needs my attention? Show me open S1s too", available=TOOLS)
    assert sorted(c.name for c in both.first_calls()) == ["list_inbox", "search_issues"]
    assert all(not c.arguments.get("query") for c in both.first_calls())


@pytest.mark.parametrize(
    ("question", "author"),
    [("who is lhoestq?", "lhoestq"), ("what has mariosasko been working on", "mariosasko"), ("who is streaming", None)],
)
def test_a_person_asked_about_is_known_by_the_issues_they_opened(question: str, author: str | None) -> None:
    from atlas.offline.reading.people import ProjectPeople

    people = Vocabulary(labels=FLAT.labels, people=ProjectPeople(logins=["lhoestq", "mariosasko"]))
    calls = [(c.name, c.arguments) for c in read_question(question, people, TOOLS).first_calls()]
    assert [args.get("author") for name, args in calls if name == "search_issues"] == ([author] if author else [])


def test_issues_by_several_authors_are_a_search_for_each() -> None:
    from atlas.offline.reading.people import ProjectPeople

    people = Vocabulary(labels=FLAT.labels, people=ProjectPeople(logins=["lhoestq", "severo", "albertvillanova"]))
    plan = read_question("bugs by severo, lhoestq and albertvillanova", people, TOOLS)
    assert [(c.name, c.arguments.get("author"), c.arguments.get("label")) for c in plan.first_calls()] == [
        ("search_issues", "severo", "bug"),
        ("search_issues", "lhoestq", "bug"),
        ("search_issues", "albertvillanova", "bug"),
    ]
    # a word after `or` that is no author stays a word
    [only] = read_question("issues opened by lhoestq or parquet", people, TOOLS).first_calls()
    assert only.arguments["author"] == "lhoestq" and only.arguments["query"] == "parquet"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("whats the backlog look like", {}),
        ("give me an overview of the backlog", {}),
        ("what does the backlog look like for streaming?", {"about": "streaming"}),
    ],
)
def test_how_the_backlog_looks_is_the_inbox(question: str, expected: dict[str, Any]) -> None:
    assert first_calls(question) == [("list_inbox", expected)]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("bugs with no activity in a year", {"label": "bug"}),
        ("issues opened a year ago", {}),
    ],
)
def test_a_year_said_as_a_time_is_no_count_by_year(question: str, expected: dict[str, Any]) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == "search_issues" and expected.items() <= arguments.items() and not arguments["query"]
    assert {"updated_before", "created_since"} & set(arguments)


def test_issues_nobody_labelled_are_those_with_no_label() -> None:
    assert first_calls("any issues mentioning windows that nobody labelled") == [
        ("search_issues", {"query": "windows", "state": "open", "unlabelled": True})
    ]


def test_a_label_named_after_labelled_is_no_one_issue_asked_for() -> None:
    plan = read_question("issues labeled enhancement that are closed, newest first", FLAT, TOOLS)
    assert [c.name for c in plan.first_calls()] == ["search_issues"] and not plan.later


def test_several_authors_as_the_subject_are_a_search_each() -> None:
    from atlas.offline.reading.people import ProjectPeople

    people = Vocabulary(labels=FLAT.labels, people=ProjectPeople(logins=["lhoestq", "mariosasko"]))
    plan = read_question("how many open issues did lhoestq and mariosasko open?", people, TOOLS)
    assert [(c.arguments.get("author"), c.arguments.get("count_only")) for c in plan.first_calls()] == [
        ("lhoestq", True),
        ("mariosasko", True),
    ]


@pytest.mark.parametrize("question", ["what's waiting for me", "which issues are waiting for a reply?"])
def test_issues_waiting_for_us_are_the_unanswered_ones(question: str) -> None:
    assert first_calls(question) == [("list_inbox", {"only": "unanswered"})]


def _with_people(*labels: str) -> Vocabulary:
    from atlas.offline.reading.people import ProjectPeople

    return Vocabulary(labels=[*FLAT.labels, *labels], people=ProjectPeople(logins=["lhoestq", "mariosasko"]))


@pytest.mark.parametrize(
    ("question", "author", "label"),
    [
        ("first issue lhoestq ever opened", "lhoestq", None),
        ("lhoestq's first issue", "lhoestq", None),
        ("what was the first bug reported?", None, "bug"),
    ],
)
def test_the_first_issue_is_the_oldest_never_a_label_with_the_word_first(
    question: str, author: str | None, label: str | None
) -> None:
    vocabulary = _with_people("good second issue")  # `first` alone is the one word only `good first issue` has
    [(name, arguments)] = [(c.name, c.arguments) for c in read_question(question, vocabulary, TOOLS).first_calls()]
    assert name == "search_issues" and arguments["order"] == "oldest"
    assert (arguments.get("author"), arguments.get("label"), arguments["query"]) == (author, label, "")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("mark 4619 as good first issue", ("add_label", {"issue_id": 4619, "label": "good first issue"})),
        ("tag 4619 good first", ("add_label", {"issue_id": 4619, "label": "good first issue"})),
        ("any good first issues?", ("search_issues", {"query": "", "label": "good first issue"})),
        ("the first 3 issues about audio", ("search_issues", {"query": "audio", "limit": 3})),
    ],
)
def test_first_beside_its_label_words_still_names_the_label(question: str, expected: tuple[str, Any]) -> None:
    vocabulary = _with_people("good second issue")
    assert [(c.name, c.arguments) for c in read_question(question, vocabulary, TOOLS).first_calls()] == [expected]


def test_the_first_one_of_a_list_shown_is_no_order() -> None:
    plan = read_question("the first one", _with_people(), TOOLS)
    assert all(call.arguments.get("order") != "oldest" for call in plan.first_calls())


@pytest.mark.parametrize(
    ("question", "query", "state"),
    [
        ("show me everything about tokenizers", "tokenizers", None),
        ("everything open related to audio", "audio", "open"),
        ("give me all the stuff about caching", "caching", None),
    ],
)
def test_everything_about_a_topic_is_a_search(question: str, query: str, state: str | None) -> None:
    [(name, arguments)] = [(c.name, c.arguments) for c in read_question(question, FLAT, TOOLS).first_calls()]
    assert (name, arguments["query"], arguments.get("state")) == ("search_issues", query, state)


@pytest.mark.parametrize(
    ("question", "query", "state"),
    [
        ("any issue about caching that mentions fsspec", "caching fsspec", None),
        ("open issues about caching which mention fsspec", "caching fsspec", "open"),
        ("issues about caching mentioning fsspec", "caching fsspec", None),
        ('which open issues have the word "deprecated" in the title', "deprecated", "open"),
        ("is there an open issue for the trust_remote_code deprecation", "trust_remote_code deprecation", "open"),
    ],
)
def test_the_words_searched_are_the_topics_said_not_the_words_that_join_them(
    question: str, query: str, state: str | None
) -> None:
    [(name, arguments)] = [(c.name, c.arguments) for c in read_question(question, FLAT, TOOLS).first_calls()]
    assert (name, arguments["query"], arguments.get("state")) == ("search_issues", query, state)


@pytest.mark.parametrize(
    ("question", "expected", "noted"),
    [
        ("how many issues did lhoestq open vs close", {"author": "lhoestq", "by": "state"}, True),
        ("how many bugs did lhoestq open and close", {"label": "bug", "author": "lhoestq", "by": "state"}, True),
        (
            "how many issues were opened vs closed in 2024",
            {"created_since": "2024-01-01", "created_before": "2025-01-01", "by": "state"},
            False,
        ),
    ],
)
def test_issues_opened_vs_closed_are_split_by_state_and_who_closed_them_is_said_to_be_unknown(
    question: str, expected: dict[str, Any], noted: bool
) -> None:
    plan = read_question(question, _with_people(), TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [("count_issues_by", expected)]
    assert any("does not record who closed" in note for note in plan.notes) is noted


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("show me 87, and tell me if its a duplicate", ["get_issue"]),  # a question, never the label `duplicate`
        ("can u check if theres an issue about load_dataset ignoring cache_dir", ["search_issues"]),
        ("whos the most active reporter in 2023", ["count_issues_by"]),
    ],
)
def test_a_contraction_typed_without_its_mark_is_read_as_with_it(question: str, expected: list[str]) -> None:
    vocabulary = Vocabulary(labels=[*FLAT.labels, "duplicate"])
    plan = read_question(question, vocabulary, TOOLS)
    assert [call.name for call in plan.first_calls()] == expected
    assert not any("query" in call.arguments and "who" in call.arguments["query"] for call in plan.first_calls())


def test_its_before_its_noun_is_no_contraction() -> None:
    from atlas.offline.reading.embedded import as_questions

    assert as_questions("check if its labels are right on 87") == "its labels are right on 87?"
    assert as_questions("check if its a duplicate") == "is it a duplicate?"


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ('find similar issues to "Dataset.map is slow with num_proc"', "Dataset.map is slow with num_proc"),
        ('find "Dataset.map is slow with num_proc"', "Dataset.map is slow with num_proc"),  # `with` is its own
    ],
)
def test_a_quoted_text_is_searched_whole_whatever_words_it_holds(question: str, query: str) -> None:
    assert [(c.name, c.arguments) for c in read_question(question, FLAT, TOOLS).first_calls()] == [
        ("search_issues", {"query": query})
    ]


def test_filters_said_after_a_quoted_text_sought_still_filter() -> None:
    [call] = read_question('search for "slow with num_proc" in open bugs', FLAT, TOOLS).first_calls()
    assert call.arguments == {"query": "slow with num_proc", "state": "open", "label": "bug"}


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("what are people complaining about most", "bug"),
        ("what do users complain about most with streaming", "bug"),
        ("top complaints this year", "bug"),
    ],
)
def test_what_people_complain_about_most_is_that_kind_the_most_discussed_first(question: str, label: str) -> None:
    [call] = read_question(question, FLAT, TOOLS).first_calls()
    assert (call.name, call.arguments["label"], call.arguments["order"]) == ("search_issues", label, "most_commented")
    # what they ask for most: the feature requests (a label only where the project's issues say which one means it)
    [asked] = read_question("what do people ask for most?", FLAT, TOOLS).first_calls()
    assert asked.arguments == {"query": "feature request", "order": "most_commented"}


def test_a_number_said_first_with_a_colon_is_an_error_code_only_where_no_issue_has_it(tmp_path: Any) -> None:
    import sqlite3

    from atlas.offline.reading.issue_numbers import ProjectIssues

    database = tmp_path / "orbit.db"
    with sqlite3.connect(database) as conn:
        conn.execute("CREATE TABLE issues (id INTEGER PRIMARY KEY)")
        conn.executemany("INSERT INTO issues VALUES (?)", [(41,), (1305,)])
    conn.close()
    codes = {"LeaseClockSkew": "ORB-1104", "BrokerGone": "ORB-1305"}
    vocabulary = Vocabulary(labels=FLAT.labels, error_names=codes, issues=ProjectIssues(database))
    plan = read_question("1104: renewals late or just noise?", vocabulary)
    asked = [(c.name, c.arguments) for c in plan.first_calls()]
    assert asked == [("get_doc_section", {"doc_id": "error-codes", "heading": "ORB-1104"})]
    said = [(c.name, c.arguments) for c in read_question("1305: still happening?", vocabulary).first_calls()]
    assert said == [("get_issue", {"issue_id": 1305})]  # the project has that issue: said first, it is the issue
    unknown = Vocabulary(labels=FLAT.labels, error_names=codes)  # no data to tell: the issue, as written
    assert [c.name for c in read_question("1104: renewals late?", unknown).first_calls()] == ["get_issue"]


def _issues_db(folder: Any, *opened: str) -> Any:
    import sqlite3

    database = folder / "orbit.db"
    with sqlite3.connect(database) as conn:
        conn.execute("CREATE TABLE issues (id INTEGER PRIMARY KEY, created_at TEXT)")
        conn.execute("CREATE TABLE comments (id INTEGER PRIMARY KEY, created_at TEXT)")
        conn.executemany("INSERT INTO issues (created_at) VALUES (?)", [(day,) for day in opened])
    conn.close()
    return database


@pytest.mark.parametrize(
    ("question", "argument", "day"),
    [
        ("open issues updated in the last 6 months of the data", "updated_since", "2024-09-01"),
        ("bugs opened in the data's last month", "created_since", "2025-01-29"),
        ("what came in during the final two weeks of the export", "created_since", "2025-02-14"),
    ],
)
def test_days_of_the_data_count_back_from_its_last_day_not_from_today(
    tmp_path: Any, question: str, argument: str, day: str
) -> None:
    from atlas.offline.reading.issue_numbers import ProjectIssues

    issues = ProjectIssues(_issues_db(tmp_path, "2023-05-02T10:00:00Z", "2025-02-27T08:00:00Z"))
    vocabulary = Vocabulary(labels=FLAT.labels, issues=issues)
    [call] = read_question(question, vocabulary, TOOLS).first_calls()
    assert call.arguments[argument] == day and not call.arguments["query"]
    # with no data to tell where it ends, the words are read as they are, never as a day made up
    [unknown] = read_question("bugs from the last 3 months", Vocabulary(labels=FLAT.labels), TOOLS).first_calls()
    assert unknown.arguments["created_since"] != day


def test_an_error_named_in_pasted_output_without_its_code_reads_its_code() -> None:
    codes = {"WorkerOOMKilled": "ORB-1502", "LeaseExpired": "ORB-1101"}
    vocabulary = Vocabulary(labels=FLAT.labels, docs=["error-codes"], error_names=codes)
    log = "2026-02-03T22:10:05Z ERROR orbit.worker [w-6d90] WorkerOOMKilled job=ingest rss=2150mb max=2048mb"
    plan = read_question(f"what's the reference entry for this one?\n\n```\n{log}\n```", vocabulary, TOOLS)
    assert plan.codes == ["ORB-1502"]
    # a name inside a longer word is not the name
    assert (
        read_question(
            f"what is this?\n\n```\n{log.replace('WorkerOOMKilled', 'WorkerOOMKilledX')}\n```", vocabulary
        ).codes
        == []
    )


def test_find_the_issues_after_a_description_searches_what_was_described() -> None:
    plan = read_question("the loader crashes on startup with a KeyError. find the issue(s)", FLAT, TOOLS)
    [search] = [call for call in plan.first_calls() if call.name == "search_issues"]
    assert {"crashes", "startup"} <= set(search.arguments["query"].split())
    # with nothing described before it, it is the newest issues, as asked
    [alone] = read_question("show me issues", FLAT, TOOLS).first_calls()
    assert alone.arguments == {"query": ""}


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("anything new on the dataset requests? what's still open there?", [None, "open"]),
        ("how are we doing on streaming? and what's closed in that area?", [None, "closed"]),
    ],
)
def test_a_place_pointed_at_is_the_label_the_request_before_named(question: str, expected: list[str | None]) -> None:
    searches = [c.arguments for c in read_question(question, FLAT, TOOLS).first_calls() if c.name == "search_issues"]
    assert [arguments.get("state") for arguments in searches][-1] == expected[-1]
    assert searches[-1]["label"] in {"dataset request", "streaming"} and not searches[-1]["query"]


def test_a_place_with_no_label_before_it_is_no_label() -> None:
    from atlas.offline.reading.places import place_meant

    assert place_meant("what's still open there?", "read #87", FLAT.labels) == "what's still open there?"
    assert place_meant("what's open there?", "streaming and dataset requests", FLAT.labels) == "what's open there?"
    assert place_meant("what's open there?", "streaming, again", FLAT.labels) == "what's open labelled streaming?"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("were any bugs filed about the 3.2.0 release?", ("search_issues", {"query": "3.2.0 release", "label": "bug"})),
        ("what does the streaming label cover?", ("search_issues", {"query": "", "label": "streaming"})),
        ("what is the good first issue label for?", ("search_issues", {"query": "", "label": "good first issue"})),
        ("top 3 labels among closed issues", ("count_issues_by", {"state": "closed", "by": "label", "limit": 3})),
        (
            "how many distinct people opened issues in 2024",
            ("count_issues_by", {"created_since": "2024-01-01", "created_before": "2025-01-01", "by": "author"}),
        ),
        ("issues marked as duplicate", ("search_issues", {"query": "", "label": "duplicate"})),
        ("can you show me the issues with most labels", ("search_issues", {"query": ""})),  # and says it cannot
    ],
)
def test_words_around_labels_counts_and_kinds_ask_for_what_they_say(question: str, expected: tuple[str, Any]) -> None:
    vocabulary = Vocabulary(labels=[*FLAT.labels, "duplicate"])
    assert [(c.name, c.arguments) for c in read_question(question, vocabulary, TOOLS).first_calls()] == [expected]


def test_a_count_by_a_key_says_how_many_different_keys_there_are() -> None:
    from atlas.offline.answer.results import tally_section
    from atlas.offline.plan import PlannedCall

    data = {"by": "author", "total": 410, "group_count": 304, "groups": [{"key": "lhoestq", "count": 51}]}
    said = tally_section(PlannedCall("count_issues_by", {"by": "author"}), data)
    assert said.splitlines()[0].endswith(": 410 issues, 304 different authors")


def test_closed_as_a_label_is_that_label_and_the_state() -> None:
    vocabulary = Vocabulary(labels=[*FLAT.labels, "duplicate"])
    [call] = read_question("show me the bugs that were closed as duplicates", vocabulary, TOOLS).first_calls()
    assert (call.arguments["query"], call.arguments["state"]) == ("", "closed")
    assert {call.arguments["label"], *call.arguments["labels"]} == {"bug", "duplicate"}


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("pls list me open issue about audio", {"query": "audio", "state": "open"}),
        ("how much bugs are open now?", {"query": "", "state": "open", "label": "bug", "count_only": True}),
        ("i want see issues of lhoestq", {"query": "", "author": "lhoestq"}),
        ("all issues lhoestq", {"query": "", "author": "lhoestq"}),
        ("give 5 last issues", {"query": "", "limit": 5}),
        ("show 3 last bugs about audio", {"query": "audio", "label": "bug", "limit": 3, "order": "newest"}),
    ],
)
def test_terse_and_second_language_phrasing_asks_for_what_it_means(question: str, expected: dict[str, Any]) -> None:
    assert [(c.name, c.arguments) for c in read_question(question, _with_people(), TOOLS).first_calls()] == [
        ("search_issues", expected)
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("issues w/ streaming label, open, newest first", {"query": "", "state": "open", "label": "streaming"}),
        ("bugs about audio. open", {"query": "audio", "state": "open", "label": "bug"}),
    ],
)
def test_filters_said_alone_after_a_search_narrow_it_once(question: str, expected: dict[str, Any]) -> None:
    assert [(c.name, c.arguments) for c in read_question(question, FLAT, TOOLS).first_calls()] == [
        ("search_issues", expected)
    ]
    # `which are still open` after a count asks which of them: a list, not a second count
    plan = read_question("how many good first issues are there and which are still open", FLAT, TOOLS)
    assert [c.arguments.get("count_only", False) for c in plan.first_calls()] == [True, False]


def test_a_plus_sign_apart_from_its_word_is_prose_never_a_label_to_add() -> None:
    plan = read_question("is #41 a dupe of something? proxy + streaming feels familiar", FLAT, TOOLS)
    assert not any(call.name == "add_label" for call in plan.first_calls())
    added = read_question("#41 +streaming", FLAT, TOOLS).first_calls()
    assert [(c.name, c.arguments) for c in added] == [("add_label", {"issue_id": 41, "label": "streaming"})]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "I am new contributor, can you show me some good first issue that are still open?",
            [("search_issues", {"query": "", "state": "open", "label": "good first issue"})],
        ),
        (
            "hi, i want ask: there is issue about Windows max path length?",
            [("search_issues", {"query": "windows max path length"})],
        ),
        ("what needs triage today", [("list_inbox", {"only": "untriaged"})]),
        (
            "release manager here: how many issues were opened per year, and how many of those are still open?",
            [("count_issues_by", {"by": "year"}), ("count_issues_by", {"by": "year", "state": "open"})],
        ),
        (
            "how many dataset requests did we get and how many got closed",
            [
                ("search_issues", {"query": "", "label": "dataset request", "count_only": True}),
                ("search_issues", {"query": "", "state": "closed", "label": "dataset request", "count_only": True}),
            ],
        ),
        ("I'm looking for bugs about caching", [("search_issues", {"query": "caching", "label": "bug"})]),
        (
            "I look for issue where audio decoding fail with soundfile, open only",
            [("search_issues", {"query": "audio decoding fail soundfile", "state": "open"})],
        ),
        (
            "anything about load_from_disk being slow with big datasets",
            [("search_issues", {"query": "load_from_disk slow big datasets"})],
        ),
        ("all issues about shuffle, also the closed ones", [("search_issues", {"query": "shuffle"})]),
        (
            "hi, I'm new to the project and would like to help - are there any open 'good first issue' tickets I "
            "could pick up?",
            [("search_issues", {"query": "", "state": "open", "label": "good first issue"})],
        ),
        (
            "Hello, I want to know which issues are talking about the PermissionError on Windows, can you please "
            "give me the list?",
            [("search_issues", {"query": "PermissionError on Windows"})],
        ),
        (
            "Did somebody already report that load_from_disk gives a different result? I don't want a duplicate.",
            [("search_issues", {"query": "load_from_disk gives different result"})],
        ),
        (
            "I'd like to know which tickets mention IterableDataset shuffle, thanks",
            [("search_issues", {"query": "IterableDataset shuffle"})],
        ),
        ("did anyone already file something about caching being slow", [("search_issues", {"query": "caching slow"})]),
        (
            "closed streaming bugs from 2024, I'm putting together the changelog",
            [
                (
                    "search_issues",
                    {
                        "query": "",
                        "state": "closed",
                        "label": "streaming",
                        "labels": ["bug"],
                        "created_since": "2024-01-01",
                        "created_before": "2025-01-01",
                    },
                )
            ],
        ),
        (
            "For the release notes I need every closed issue labelled streaming",
            [("search_issues", {"query": "", "state": "closed", "label": "streaming"})],
        ),
        (
            "ok so before the sync tomorrow I need a few numbers: how many open issues we have in total, how many of "
            "them are bugs, and who opened the most issues in 2025",
            [
                ("search_issues", {"query": "", "state": "open", "count_only": True}),
                ("search_issues", {"query": "", "state": "open", "label": "bug", "count_only": True}),
                ("count_issues_by", {"created_since": "2025-01-01", "created_before": "2026-01-01", "by": "author"}),
            ],
        ),
        ("hw many isues r open rn", [("search_issues", {"query": "", "state": "open", "count_only": True})]),
        ("opne bugs abt push_to_hub", [("search_issues", {"query": "push_to_hub", "state": "open", "label": "bug"})]),
        (
            "Kindly share the list of open issues related to audio, please do the needful",
            [("search_issues", {"query": "audio", "state": "open"})],
        ),
        ("who is reporting the most bugs", [("count_issues_by", {"label": "bug", "by": "author"})]),
        (
            "which month of 2024 had the most new issues",
            [
                (
                    "count_issues_by",
                    {
                        "created_since": "2024-01-01",
                        "created_before": "2025-01-01",
                        "by": "month",
                        "busiest_first": True,
                        "limit": 12,
                    },
                )
            ],
        ),
        ("which labels have the most open issues right now", [("count_issues_by", {"state": "open", "by": "label"})]),
        (
            "break down the open backlog by the year the issues were opened",
            [("count_issues_by", {"state": "open", "by": "year"})],
        ),
        (
            "can you dig up the Windows-related issues, open or closed",
            [("search_issues", {"query": "Windows"})],
        ),
        ("list bug, only open, about map", [("search_issues", {"query": "map", "state": "open", "label": "bug"})]),
        (
            "map() eating all the RAM - any open reports?",
            [("search_issues", {"query": "map eating RAM", "state": "open"})],
        ),
        ("who files the most issues here", [("count_issues_by", {"by": "author"})]),
        ("any issues about caching in this repo", [("search_issues", {"query": "caching"})]),
        ("last 10 issues opened, with their labels", [("search_issues", {"query": "", "limit": 10})]),
        (
            "open issues nobody has answered yet, oldest first",
            [("list_inbox", {"only": "unanswered", "order": "oldest"})],
        ),
        (
            "remove enhancement from 41 and add streaming instead",
            [
                ("add_label", {"issue_id": 41, "label": "streaming"}),
                ("remove_label", {"issue_id": 41, "label": "enhancement"}),
            ],
        ),
        (
            "post a comment on 41 saying we're tracking it in the hub now and ping @ana",
            [("post_comment", {"issue_id": 41, "body": "we're tracking it in the hub now (cc @ana)"})],
        ),
        (
            "monthly count of new issues in 2022",
            [
                (
                    "count_issues_by",
                    {"created_since": "2022-01-01", "created_before": "2023-01-01", "by": "month", "limit": 12},
                )
            ],
        ),
    ],
)
def test_requests_as_people_type_them_with_a_preamble_or_in_parts(question: str, expected: list[Any]) -> None:
    tools = (*TOOLS, "plan_triage")
    assert [(c.name, c.arguments) for c in read_question(question, FLAT, tools).first_calls()] == expected


@pytest.mark.parametrize(
    "question",
    [
        "#41 ExpectedMoreSplits — is there other reports like this one?",
        "any other issues like this one? #41",
        "any other reports like this? 41",
        "is #41 a dupe of something older? find similar",
    ],
)
def test_other_reports_like_this_one_are_its_similar_issues(question: str) -> None:
    plan = read_question(question, FLAT, (*TOOLS, "find_similar"))
    assert [(call.name, call.arguments) for call in plan.first_calls()] == [
        ("get_issue", {"issue_id": 41}),
        ("find_similar", {"issue_id": 41}),
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "stale open issues - nothing happened since 2022?",
            {"query": "", "state": "open", "updated_before": "2022-01-01"},
        ),
        (
            "open issues where nothing happened since 2023",
            {"query": "", "state": "open", "updated_before": "2023-01-01"},
        ),
    ],
)
def test_nothing_happened_since_a_day_is_no_activity_since_then(question: str, expected: dict[str, Any]) -> None:
    assert [(c.name, c.arguments) for c in read_question(question, FLAT, TOOLS).first_calls()] == [
        ("search_issues", expected)
    ]


def test_triage_the_last_n_issues_is_a_plan_for_that_many() -> None:
    plan = read_question("triage the last 10 unlabelled open issues, suggest labels", FLAT, (*TOOLS, "plan_triage"))
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [("plan_triage", {"untriaged": True, "limit": 10})]


def test_tell_them_to_do_something_is_a_question_posted_after_approval() -> None:
    plan = read_question("tag #41 as bug and streaming, and tell them to try HF_DATASETS_OFFLINE", FLAT, TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("add_label", {"issue_id": 41, "label": "bug"}),
        ("add_label", {"issue_id": 41, "label": "streaming"}),
        ("post_comment", {"issue_id": 41, "body": "Could you try HF_DATASETS_OFFLINE?"}),
    ]
    assert not any(c.name == "post_comment" for c in read_question("tell me if 41 is fixed", FLAT, TOOLS).first_calls())


def test_a_follow_up_narrows_the_search_a_symptom_asked_about_made() -> None:
    previous = ["hi, i want ask: there is issue about Windows max path length?"]
    [call] = read_question("only the open ones", FLAT, TOOLS, previous=previous).first_calls()
    assert call.arguments == {"query": "windows max path length", "state": "open"}


def test_a_label_or_a_word_before_the_issues_is_asked_once_for_each() -> None:
    assert first_calls("open streaming or parquet issues") == [
        ("search_issues", {"query": "", "state": "open", "label": "streaming"}),
        ("search_issues", {"query": "parquet", "state": "open"}),
    ]
    assert first_calls("open streaming or enhancement issues") == [  # two labels: one search takes either
        ("search_issues", {"query": "", "state": "open", "any_labels": ["streaming", "enhancement"]})
    ]


@pytest.mark.parametrize(
    "question",
    [
        "users hit path problems, I remember one about OSError errno 22, can you dig up the windows issues",
        "the job died with signal 9 and pid 4417, any issues about oom kills?",
    ],
)
def test_a_number_after_errno_signal_or_pid_is_no_issue(question: str) -> None:
    assert [name for name, _ in first_calls(question)] == ["search_issues"]


def test_a_similar_request_with_a_typo_in_its_verb_is_still_one() -> None:
    plan = read_question("simlar to 41?", FLAT, (*TOOLS, "find_similar"))
    assert [call.name for call in plan.first_calls()] == ["get_issue", "find_similar"]


def test_is_it_possible_to_have_the_issues_of_someone_which_concern_a_label() -> None:
    from atlas.offline.reading.people import ProjectPeople

    people = Vocabulary(labels=[*FLAT.labels, "dataset-viewer"], people=ProjectPeople(logins=["severo"]))
    plan = read_question("Is it possible to have the issues of severo which concern the dataset viewer?", people, TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("search_issues", {"query": "", "label": "dataset-viewer", "author": "severo"})
    ]


def test_a_comment_asking_the_reporter_which_is_a_question_to_them() -> None:
    plan = read_question("comment on #41 asking the reporter which datasets and pyarrow versions they use", FLAT, TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("post_comment", {"issue_id": 41, "body": "Could you tell us which datasets and pyarrow versions you use?"})
    ]


def test_which_issues_we_closed_in_a_month_is_said_to_have_no_closing_day() -> None:
    plan = read_question("which issues did we close in january 2025?", FLAT, TOOLS)
    assert not plan.first_calls()
    assert any("does not record when an issue was closed" in note and "in january 2025" in note for note in plan.notes)
    who = read_question("which issues did lhoestq close?", FLAT, TOOLS)
    assert any("does not record who closed" in note for note in who.notes)


def test_a_number_after_an_article_is_no_issue() -> None:
    assert first_calls("did someone already report that push_to_hub fails with a 500?") == [
        ("search_issues", {"query": "push_to_hub fails 500"})  # an HTTP status: a word to find
    ]


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("TypeError: 'NoneType' object is not callable", "typeerror nonetype object not callable"),
        (
            "after bumping deps our CI fails with AttributeError: module 'pyarrow.lib' has no attribute 'ListViewType' "
            "-- is this known upstream and is it fixed?",
            "attributeerror module pyarrow.lib no attribute listviewtype",
        ),
    ],
)
def test_an_error_and_its_message_lead_the_search_said_or_pasted(question: str, query: str) -> None:
    assert first_calls(question) == [("search_issues", {"query": query})]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("which open issues carry the streaming label?", {"query": "", "state": "open", "label": "streaming"}),
        ("who are the top 5 people filing bugs?", None),
    ],
)
def test_words_of_the_asking_left_over_are_no_topic(question: str, expected: dict[str, Any] | None) -> None:
    [(name, arguments)] = first_calls(question)
    assert not arguments.get("query")
    if expected is not None:
        assert (name, arguments) == ("search_issues", expected)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "enhancement requests per year, how does 2021 compare to 2024?",
            (
                "count_issues_by",
                {"label": "enhancement", "created_since": "2021-01-01", "created_before": "2025-01-01", "by": "year"},
            ),
        ),
        (
            "list every issue that talks about a memory leak, open or closed",
            ("search_issues", {"query": "memory leak"}),
        ),
        ("what share of the closed issues had the bug label?", ("count_issues_by", {"state": "closed", "by": "label"})),
    ],
)
def test_years_compared_a_figure_over_days_both_states_and_shares(
    question: str, expected: tuple[str, dict[str, Any]]
) -> None:
    assert first_calls(question) == [expected]


def test_how_long_closing_takes_is_said_to_need_what_the_data_does_not_keep() -> None:
    plan = read_question("what's the average time it takes us to close a bug?", FLAT, TOOLS)
    assert not plan.first_calls()
    assert any("does not record when an issue was closed" in note for note in plan.notes)


def test_the_open_issue_about_a_topic_is_found_then_acted_on() -> None:
    plan = read_question("find the open issue about parquet streaming and label it bug", FLAT, TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("search_issues", {"query": "parquet streaming", "state": "open"})
    ]
    [waiting] = [later for later in plan.later if later.read_first_hit]
    assert [(c.name, c.arguments["label"]) for c in waiting.on_first_hit] == [("add_label", "bug")]


def test_then_said_first_and_whether_they_are_closed_are_no_words_to_search() -> None:
    asked = first_calls("how many open streaming issues are there? then list the streaming ones")
    assert asked[-1] == ("search_issues", {"query": "", "label": "streaming"})
    assert first_calls(
        "has anyone raised pickle deserialization as a risk? show the matching issues and whether they're closed"
    ) == [("search_issues", {"query": "pickle deserialization risk"})]
    assert first_calls("issues about arrow and whether they're still open") == [("search_issues", {"query": "arrow"})]


@pytest.mark.parametrize(
    "question",
    [
        "Please, I want know how many issues have label dataset request and are still open.",
        "my manager wants numbers: how many open dataset request issues are there?",
        "the team needs a few figures: how many open dataset request issues are there?",
        "I wanna know how many open dataset request issues there are",
    ],
)
def test_who_wants_to_know_is_no_topic(question: str) -> None:
    assert first_calls(question) == [
        ("search_issues", {"query": "", "state": "open", "label": "dataset request", "count_only": True})
    ]


def test_a_quick_question_after_a_greeting_and_where_the_person_meets_the_symptom_are_no_words_to_search() -> None:
    [(name, arguments)] = first_calls(
        "hey quick q - did anyone already report load_dataset hanging forever with num_proc on windows? "
        "seeing it on 3.2.0"
    )
    assert name == "search_issues" and arguments["query"] == "load_dataset hanging forever num_proc windows"


@pytest.mark.parametrize("question", ["how many bugs are still open today?", "how many bugs are open as of today"])
def test_open_today_is_the_state_as_it_stands_not_the_day_issues_came(question: str) -> None:
    assert first_calls(question) == [
        ("search_issues", {"query": "", "state": "open", "label": "bug", "count_only": True})
    ]


def test_issues_opened_today_are_still_those_of_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("atlas.offline.reading.dates.today", lambda: date(2026, 12, 7))
    assert first_calls("how many bugs were opened today?") == [
        (
            "search_issues",
            {
                "query": "",
                "label": "bug",
                "created_since": "2026-12-07",
                "created_before": "2026-12-08",
                "count_only": True,
            },
        )
    ]


@pytest.mark.parametrize(
    "question",
    [
        "tag #7415 as enhancement and also #7405, both are feature requests",
        "tag #7415 as enhancement and #7405 too",
        "label 7415 enhancement, and 7405 as well",
    ],
)
def test_an_issue_joined_after_the_label_gets_it_too(question: str) -> None:
    plan = read_question(question, FLAT, (*TOOLS, "add_label"))
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("add_label", {"issue_id": 7415, "label": "enhancement"}),
        ("add_label", {"issue_id": 7405, "label": "enhancement"}),
    ]


def test_an_issue_after_the_label_with_its_own_verb_is_no_target_of_it() -> None:
    plan = read_question("tag 7415 as bug and show 7405", FLAT, (*TOOLS, "add_label"))
    assert [(c.name, c.arguments) for c in plan.first_calls() if c.name == "add_label"] == [
        ("add_label", {"issue_id": 7415, "label": "bug"})
    ]


@pytest.mark.parametrize(
    "question",
    [
        "I'd like the number of new issues since November 2024 and the main themes among them.",
        "I'm trying to decide what to prioritise for the next release, so I'd like both the number of new issues "
        "since November 2024 and the main themes among them.",
    ],
)
def test_themes_asked_beside_a_count_are_said_to_need_a_model_and_the_count_is_made(question: str) -> None:
    plan = read_question(question, FLAT, TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("search_issues", {"query": "", "created_since": "2024-11-01", "count_only": True})
    ]
    assert any(note.startswith("I cannot sum up themes offline") for note in plan.notes)


@pytest.mark.parametrize("question", ["any issues about glob patterns", "issues about theme support in the viewer"])
def test_a_topic_that_says_patterns_or_theme_is_searched(question: str) -> None:
    plan = read_question(question, FLAT, TOOLS)
    assert plan.first_calls()[0].arguments["query"] and not plan.notes


def test_which_of_those_are_bugs_keeps_the_label_before_and_adds_this_one() -> None:
    plan = read_question("which of those are bugs", FLAT, TOOLS, previous=["list the streaming issues"])
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("search_issues", {"query": "", "label": "bug", "labels": ["streaming"]})
    ]


@pytest.mark.parametrize("question", ["triage them", "suggest labels for those issues", "make a triage plan for them"])
def test_a_plan_for_them_after_a_search_is_made_for_its_hits(question: str) -> None:
    plan = read_question(question, FLAT, (*TOOLS, "plan_triage"), previous=["open streaming bugs"])
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("search_issues", {"query": "", "state": "open", "label": "streaming", "labels": ["bug"], "limit": 10})
    ]
    assert [later.planned_hits for later in plan.later] == [10]


def test_triage_them_with_no_search_before_is_the_backlog() -> None:
    plan = read_question("triage them", FLAT, (*TOOLS, "plan_triage"))
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [("plan_triage", {"untriaged": True, "limit": 10})]


WITH_DUPLICATE = Vocabulary(labels=[*FLAT.labels, "duplicate", "dataset-viewer"])


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Traceback (most recent call last): ... pyarrow.lib.ArrowInvalid: cannot mix list and non-list, "
            "non-null values -- anyone seen this with map()?",
            {"query": "arrowinvalid cannot mix list non-list non-null"},
        ),
        ("NonMatchingSplitsSizesError still open anywhere?", {"query": "nonmatchingsplitssizeserror", "state": "open"}),
    ],
)
def test_an_error_pasted_after_its_module_or_named_alone_is_searched(question: str, expected: dict[str, Any]) -> None:
    assert first_calls(question) == [("search_issues", expected)]


@pytest.mark.parametrize(
    "question",
    [
        "what open issue could i pick up as a first contribution?",
        "hi! i'm new to the project and would like to contribute something small. what open issue could i pick up "
        "as a first contribution?",
    ],
)
def test_issues_for_a_newcomer_are_the_project_s_good_first_issues(question: str) -> None:
    assert first_calls(question) == [("search_issues", {"query": "", "state": "open", "label": "good first issue"})]


def test_without_a_label_for_newcomers_the_words_stay_words() -> None:
    plan = read_question("easy issues for beginners", Vocabulary(labels=["bug"]), TOOLS)
    assert all(call.arguments.get("label") != "good first issue" for call in plan.first_calls())


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "For the quarterly report: number of issues opened each year from 2020 to 2025",
            ("count_issues_by", {"created_since": "2020-01-01", "created_before": "2026-01-01", "by": "year"}),
        ),
        (
            "Quick one before standup: how many issues came in since 2024 so far",
            ("search_issues", {"query": "", "created_since": "2024-01-01", "count_only": True}),
        ),
        (
            "Please, I want know how many issue is closed in year 2021.",
            (
                "search_issues",
                {
                    "query": "",
                    "state": "closed",
                    "created_since": "2021-01-01",
                    "created_before": "2022-01-01",
                    "count_only": True,
                },
            ),
        ),
        ("how many issues got marked duplicate, per year?", ("count_issues_by", {"label": "duplicate", "by": "year"})),
        (
            "oldest open issues that have been sitting around forever",
            ("search_issues", {"query": "", "state": "open", "order": "oldest"}),
        ),
        (
            "security review: are there any issues about pickle, arbitrary code execution or trust_remote_code?",
            ("search_issues", {"query": "pickle arbitrary-code-execution trust_remote_code", "any_words": True}),
        ),
        (
            "any open issues mentioning pickle or arbitrary code execution or trust_remote_code?",
            (
                "search_issues",
                {"query": "pickle arbitrary-code-execution trust_remote_code", "state": "open", "any_words": True},
            ),
        ),
    ],
)
def test_what_a_request_is_for_and_how_it_is_said_are_no_words_to_search(
    question: str, expected: tuple[str, dict[str, Any]]
) -> None:
    assert [(c.name, c.arguments) for c in read_question(question, WITH_DUPLICATE, TOOLS).first_calls()] == [expected]


def test_before_we_start_is_no_occasion_said_first() -> None:
    plan = read_question("Before we start: what are you actually able to change in the tracker?", FLAT, TOOLS)
    assert not plan.first_calls()


def test_a_comment_on_both_goes_on_each_issue_named_before() -> None:
    plan = read_question(
        "label #7400 and #7421 as bug and leave a comment on both saying we're looking into it",
        FLAT,
        (*TOOLS, "add_label", "post_comment"),
    )
    assert [(c.name, c.arguments["issue_id"]) for c in plan.first_calls() if c.name == "post_comment"] == [
        ("post_comment", 7400),
        ("post_comment", 7421),
    ]


def test_a_list_and_its_oldest_said_after_a_count_are_the_same_issues_oldest_first() -> None:
    asked = read_question(
        "how many open issues carry the dataset-viewer label, list them, and point out which one is the oldest?",
        WITH_DUPLICATE,
        TOOLS,
    ).first_calls()
    assert [(c.name, c.arguments) for c in asked][-1] == (
        "search_issues",
        {"query": "", "state": "open", "label": "dataset-viewer", "order": "oldest"},
    )


def test_a_plan_for_unlabelled_issues_of_a_month_searches_them_first() -> None:
    plan = read_question(
        "make a triage plan for the unlabelled issues opened in February 2025", FLAT, (*TOOLS, "plan_triage")
    )
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        (
            "search_issues",
            {
                "query": "",
                "state": "open",
                "created_since": "2025-02-01",
                "created_before": "2025-03-01",
                "unlabelled": True,
                "limit": 10,
            },
        )
    ]


def test_top_n_said_after_a_ranking_is_that_many_of_it() -> None:
    assert first_calls("who opens the most issues in this repo? top 5") == [
        ("count_issues_by", {"by": "author", "limit": 5})
    ]


@pytest.mark.parametrize("question", ["summarize issue 7394 for me in two sentences", "give me a summary of 7394"])
def test_a_summary_asked_reads_the_issue_and_says_none_is_written(question: str) -> None:
    plan = read_question(question, FLAT, TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [("get_issue", {"issue_id": 7394})]
    assert any("does not summarise" in note for note in plan.notes)


def test_not_really_a_label_takes_it_off() -> None:
    plan = read_question("#7406 is not really an enhancement", FLAT, (*TOOLS, "remove_label"))
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("remove_label", {"issue_id": 7406, "label": "enhancement"})
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("which label has the fewest open issues", {"state": "open", "by": "label", "fewest_first": True}),
        (
            "which month had the fewest new issues in 2024",
            {
                "created_since": "2024-01-01",
                "created_before": "2025-01-01",
                "by": "month",
                "fewest_first": True,
                "limit": 12,
            },
        ),
    ],
)
def test_the_fewest_asked_is_the_smallest_groups_first(question: str, expected: dict[str, Any]) -> None:
    assert first_calls(question) == [("count_issues_by", expected)]


@pytest.mark.parametrize("question", ["tell me about 7423", "what about 7423?"])
def test_a_number_said_last_after_about_is_the_issue_asked_about(question: str) -> None:
    assert first_calls(question) == [("get_issue", {"issue_id": 7423})]


def test_a_count_by_year_then_the_oldest_ones_lists_those_issues_oldest_first() -> None:
    asked = first_calls(
        "Can you give me the open enhancement requests counted by the year they were opened, and then list the five "
        "oldest ones so I can see what has been waiting longest?"
    )
    assert ("count_issues_by", {"state": "open", "label": "enhancement", "by": "year"}) in asked
    assert ("search_issues", {"query": "", "state": "open", "label": "enhancement", "limit": 5, "order": "oldest"}) in (
        asked
    )


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "any open issues mentioning fsspec opened in 2024 or later?",
            {"query": "fsspec", "state": "open", "created_since": "2024-01-01"},
        ),
        ("the three newest bugs", {"query": "", "label": "bug", "limit": 3}),
        (
            "im a student and want to contribute, what are some good first issues that are still open",
            {"query": "", "state": "open", "label": "good first issue"},
        ),
    ],
)
def test_a_time_and_on_a_count_spelled_out_and_who_asks_are_read(question: str, expected: dict[str, Any]) -> None:
    assert first_calls(question) == [("search_issues", expected)]


def test_ranking_the_authors_of_a_label_counts_by_author() -> None:
    assert first_calls("rank the authors of dataset request issues, top 5") == [
        ("count_issues_by", {"label": "dataset request", "by": "author", "limit": 5})
    ]


def test_questions_joined_by_commas_after_an_occasion_are_each_asked() -> None:
    asked = first_calls(
        "Quick sanity check before the release meeting: how many issues are open right now vs closed, which month of "
        "2021 had the most new issues, and has mariosasko opened anything since 2024?"
    )
    assert sorted(asked, key=str) == sorted(
        [
            ("count_issues_by", {"by": "state"}),
            (
                "count_issues_by",
                {
                    "created_since": "2021-01-01",
                    "created_before": "2022-01-01",
                    "by": "month",
                    "busiest_first": True,
                    "limit": 12,
                },
            ),
            ("search_issues", {"query": "", "author": "mariosasko", "created_since": "2024-01-01"}),
        ],
        key=str,
    )


def test_first_then_and_finally_are_three_requests() -> None:
    plan = read_question(
        "Hi! I just took over triage duty this week. Could you first show me what's untriaged, then suggest labels "
        "for the three newest issues that have no label, and finally draft a triage plan I can review before anything "
        "is applied?",
        FLAT,
        (*TOOLS, "plan_triage"),
    )
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("list_inbox", {"only": "untriaged"}),
        ("plan_triage", {"untriaged": True, "limit": 3}),
        ("plan_triage", {"untriaged": True, "limit": 10}),
    ]


def test_a_status_for_an_occasion_said_first_is_no_topic_and_open_and_closed_of_a_person_is_the_split() -> None:
    asked = first_calls(
        "hey, manager here. Quick status for the weekly sync: how many issues are open vs closed overall, how many new "
        "issues came in during 2024, and which label has the most open issues right now?"
    )
    assert ("count_issues_by", {"by": "state"}) in asked
    assert ("count_issues_by", {"state": "open", "by": "label"}) in asked
    assert first_calls("how many issues by stas00 are open and closed") == [
        ("count_issues_by", {"author": "stas00", "by": "state"})
    ]


def test_a_comment_said_in_a_verb_of_its_own_after_and_goes_on_the_issue_named() -> None:
    plan = read_question(
        "pls comment on #7375 and ask the reporter to translate the issue into English", FLAT, (*TOOLS, "post_comment")
    )
    assert plan.comments == [(7375, "Could you translate the issue into English?")]
    assert not [call for call in plan.first_calls() if call.name == "search_issues"]


def test_a_number_inside_a_comment_s_text_is_no_issue_to_post_it_on() -> None:
    plan = read_question(
        "label #7418 as bug and leave a comment saying we can reproduce it with pyarrow 19",
        FLAT,
        (*TOOLS, "add_label", "post_comment"),
    )
    assert plan.comments == [(7418, "we can reproduce it with pyarrow 19")]


@pytest.mark.parametrize(
    "question",
    [
        "swap enhancement for bug on #7390",
        "#7390 is not really an enhancement, it's a regression. swap the enhancement label for bug on it",
        "on 7390 change the label enhancement to bug",
    ],
)
def test_a_label_swapped_for_another_is_one_off_and_one_on(question: str) -> None:
    plan = read_question(question, FLAT, (*TOOLS, "add_label", "remove_label"))
    assert plan.removals == [(7390, "enhancement")] and plan.labels == [(7390, "bug")]


def test_what_labels_and_anything_similar_of_one_issue_asks_both() -> None:
    plan = read_question(
        "What's #7405 about, what labels would you give it, and is there anything similar already?",
        FLAT,
        (*TOOLS, "suggest_labels", "find_similar"),
    )
    assert [call.name for call in plan.first_calls()] == ["get_issue", "suggest_labels", "find_similar"]


def test_a_newcomer_s_label_said_already_is_not_said_again() -> None:
    assert first_calls("list the open issues labelled good first issue, I want to pick one for my first PR") == [
        ("search_issues", {"query": "", "state": "open", "label": "good first issue"})
    ]
