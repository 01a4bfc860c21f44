"""The issue tools against real SQLite files; the bundled dataset answers what the tools read."""

from __future__ import annotations

import os
import sqlite3
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from atlas.executor.outputs import OUTPUT_LIMIT
from atlas.foundation import config, statefiles
from atlas.foundation.errors import BadArguments, ErrorKind, PermanentToolError, TransientToolError, classify
from atlas.orbit.comments import PostCommentArgs, post_comment
from atlas.orbit.docs import DocSectionArgs, NoArgs, get_doc_section, list_docs
from atlas.orbit.issues import (
    BODY_LIMIT,
    COMMENT_LIMIT,
    IssueArgs,
    SearchArgs,
    cut,
    get_issue,
    search_issues,
    search_terms,
)
from atlas.orbit.labels import AddLabelArgs, RemoveLabelArgs, add_label, remove_label
from atlas.protocol.envelope import dumps, envelope_ok
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import ToolContext, strict_arguments
from tests.support.dataset_factory import context, issue, make_dataset


def test_cut_keeps_short_text_and_marks_long_text() -> None:
    assert cut("short", 10) == "short"
    long = "word " * 1000
    out = cut(long, 300)
    assert len(out) <= 300
    assert out.endswith("more characters]")
    kept, marker = out.split(" … [cut: ")
    assert long.startswith(kept)
    assert int(marker.split(" ")[0].replace(",", "")) == len(long) - len(kept)


def test_get_issue_returns_the_whole_issue_and_every_comment(ctx: ToolContext) -> None:
    got = get_issue(IssueArgs(issue_id=41), ctx)
    assert (got["id"], got["title"], got["state"]) == (41, "Nightly rebuild runs twice", "open")
    assert got["labels"] == ["comp:core", "type:bug"]
    assert got["author"] == "maintainer" and got["created_at"] == "2026-03-10T08:00:00Z"
    assert got["body"].endswith("ORB-1101 LeaseExpired after 900 s.") and "[cut: " not in got["body"]
    assert got["comment_count"] == 5 and got["comments_shown"] == "1-5 of 5" and "comments_note" not in got
    assert [c["n"] for c in got["comments"]] == [1, 2, 3, 4, 5]
    assert [c["body"][:6] for c in got["comments"]] == ["first ", "second", "third:", "fourth", "fifth:"]
    assert [c["author"] for c in got["comments"]] == ["user0", "user1", "user2", "user3", "user4"]
    assert got["comments"][2]["body"] == "third: " + "x" * 900


def test_a_body_is_cut_only_past_a_generous_bound(tmp_path: Path, atlas_home: Path) -> None:
    huge = issue(5, "Huge", body="word " * 3000, comments=["y " * 2000])
    got = get_issue(IssueArgs(issue_id=5), context(make_dataset(tmp_path, [huge]), atlas_home))
    assert len(got["body"]) <= BODY_LIMIT and got["body"].endswith("more characters]")
    assert len(got["comments"][0]["body"]) <= COMMENT_LIMIT and "[cut: " in got["comments"][0]["body"]


def test_a_long_thread_comes_in_pages_that_say_how_to_read_on(tmp_path: Path, atlas_home: Path) -> None:
    thread = issue(6, "Long thread", comments=[f"comment {n}: " + "z" * 400 for n in range(30)])
    ctx = context(make_dataset(tmp_path, [thread]), atlas_home)
    first = get_issue(IssueArgs(issue_id=6), ctx)
    shown = len(first["comments"])
    assert 1 <= shown < 30 and first["comments_shown"] == f"1-{shown} of 30"
    assert first["comments_note"] == f"{30 - shown} more comments: call get_issue again with comments_offset={shown}."
    read: list[str] = [c["body"] for c in first["comments"]]
    offset = shown
    while offset < 30:
        page = get_issue(IssueArgs(issue_id=6, comments_offset=offset, comments_limit=50), ctx)
        read += [c["body"] for c in page["comments"]]
        offset += len(page["comments"])
    assert [body.split(":")[0] for body in read] == [f"comment {n}" for n in range(30)]
    past = get_issue(IssueArgs(issue_id=6, comments_offset=40), ctx)
    assert past["comments"] == [] and "past the last comment" in past["comments_note"]
    small = get_issue(IssueArgs(issue_id=6, comments_limit=2), ctx)
    assert small["comments_shown"] == "1-2 of 30"
    assert len(dumps(envelope_ok(first, untrusted=True))) <= OUTPUT_LIMIT  # a page is never cut by the executor


def test_get_issue_unknown_id_tells_the_model_to_use_given_ids(ctx: ToolContext) -> None:
    with pytest.raises(LookupError, match="ids the user gave") as caught:
        get_issue(IssueArgs(issue_id=999), ctx)
    assert classify(caught.value) is ErrorKind.PERMANENT


def test_get_issue_shows_what_the_tracker_added_in_place(data: Path, atlas_home: Path) -> None:
    add_label(AddLabelArgs(issue_id=41, label="severity:S1"), context(data, atlas_home, key="k-1"))
    remove_label(RemoveLabelArgs(issue_id=41, label="type:bug"), context(data, atlas_home, key="k-2"))
    post_comment(PostCommentArgs(issue_id=41, body="Triaged: duplicate of #7."), context(data, atlas_home, key="k-3"))
    ctx = context(data, atlas_home)
    reads: list[Path] = []
    open_fd = statefiles.open_fd

    def counted(path: Path, flags: int, **options: Any) -> int:
        if flags == os.O_RDONLY:
            reads.append(path)
        return open_fd(path, flags, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(statefiles, "open_fd", counted)
        got = get_issue(IssueArgs(issue_id=41), ctx)
    assert reads.count(atlas_home / "tracker_actions.jsonl") == 1  # one read for labels and comments
    assert got["labels"] == ["comp:core", "severity:S1"]
    assert got["labels_added_via_atlas"] == ["severity:S1"] and got["labels_removed_via_atlas"] == ["type:bug"]
    assert got["comment_count"] == 6
    last = got["comments"][-1]
    assert (last["n"], last["body"], last["via_atlas"], last["author"]) == (
        6,
        "Triaged: duplicate of #7.",
        True,
        "atlas",
    )
    assert "via_atlas" not in got["comments"][0]
    assert get_issue(IssueArgs(issue_id=87), ctx)["labels_added_via_atlas"] == []


def test_search_hits_show_the_labels_atlas_changed(data: Path, atlas_home: Path) -> None:
    add_label(AddLabelArgs(issue_id=41, label="severity:S2"), context(data, atlas_home, key="k-1"))
    remove_label(RemoveLabelArgs(issue_id=41, label="type:bug"), context(data, atlas_home, key="k-2"))
    hits = search_issues(SearchArgs(query="nightly rebuild"), context(data, atlas_home))["hits"]
    assert hits[0]["id"] == 41 and hits[0]["labels"] == ["comp:core", "severity:S2"]


def test_search_ranks_title_hits_first_with_labels_and_snippets(ctx: ToolContext) -> None:
    got = search_issues(SearchArgs(query="lease"), ctx)
    ids = [hit["id"] for hit in got["hits"]]
    assert ids[0] == 7 and set(ids) == {7, 41}
    assert got["hits"][0]["labels"] == ["comp:worker", "type:bug"]
    assert "**" in got["hits"][0]["snippet"]
    assert "hint" not in got


def test_search_filters_by_state_and_label(ctx: ToolContext) -> None:
    assert [h["id"] for h in search_issues(SearchArgs(query="lease", state="open"), ctx)["hits"]] == [41]
    assert [h["id"] for h in search_issues(SearchArgs(query="lease", label="comp:worker"), ctx)["hits"]] == [7]


def test_empty_query_with_filters_lists_newest_first(ctx: ToolContext) -> None:
    got = search_issues(SearchArgs(query="", label="type:bug"), ctx)
    assert [h["id"] for h in got["hits"]] == [87, 41, 7, 4, 3]
    assert [h["id"] for h in search_issues(SearchArgs(state="closed", limit=1), ctx)["hits"]] == [92]


@pytest.mark.parametrize(
    "query", ['lease" OR 1=1 --', '"unbalanced', "*", "comp:core", "-", "()", "NEAR(a b)", "a AND", "^lease", "'; --"]
)
def test_fts_syntax_in_user_text_never_errors(ctx: ToolContext, query: str) -> None:
    got = search_issues(SearchArgs(query=query), ctx)
    assert isinstance(got["hits"], list)
    if not got["hits"]:
        assert got["hint"]


def test_search_terms_are_quoted_and_drop_operators() -> None:
    assert search_terms('lease" OR 1=1 --') == ['"lease"', '"1 1"']
    assert search_terms("comp:core ORB-1101") == ['"comp core"', '"ORB 1101"']
    assert search_terms("* - () ^") == []


def test_search_injection_attempt_finds_the_lease_issues(ctx: ToolContext) -> None:
    got = search_issues(SearchArgs(query='lease" OR 1=1 --'), ctx)
    assert {h["id"] for h in got["hits"]} == {7, 41}
    assert "some of them" in got["hint"] and got["some_words"] is True
    assert "some_words" not in search_issues(SearchArgs(query="lease"), ctx)  # every hit holds every word


def test_hits_with_only_some_of_the_words_are_said_to_be_so_before_they_are_listed(ctx: ToolContext) -> None:
    from atlas.offline.answer.render import search_section
    from atlas.offline.plan import PlannedCall

    call = PlannedCall("search_issues", {"query": "lease kubernetes"})
    said = search_section(call, search_issues(SearchArgs(query="lease kubernetes"), ctx), None)
    first = said.splitlines()[2]
    assert first.startswith("No issue matched all the words; the") and first.endswith("that match some of them:")
    assert "Note from the search" not in said  # said once, first


def test_no_hits_is_ok_with_a_hint(ctx: ToolContext) -> None:
    got = search_issues(SearchArgs(query="kubernetes helm chart"), ctx)
    assert got["hits"] == [] and "other" in got["hint"]


def test_unknown_label_filter_lists_known_labels(ctx: ToolContext) -> None:
    got = search_issues(SearchArgs(query="lease", label="wontfix"), ctx)
    assert got["hits"] == [] and "comp:core" in got["hint"]


def test_a_label_filter_is_read_as_people_spell_it(ctx: ToolContext) -> None:
    exact = search_issues(SearchArgs(query="lease", label="type:bug"), ctx)
    for spelled in ("bug", "`Type: Bug`", '"type bug"'):
        assert search_issues(SearchArgs(query="lease", label=spelled), ctx)["hits"] == exact["hits"] != []
    near = search_issues(SearchArgs(query="lease", label="comp:schedular"), ctx)
    assert near["hits"] == [] and "did you mean 'comp:scheduler'" in near["hint"]


def test_untrusted_sources_are_named(ctx: ToolContext) -> None:
    registry = load_registry()
    issue_args = IssueArgs(issue_id=92)
    assert registry["get_issue"].untrusted(issue_args, get_issue(issue_args, ctx)) == ["issue #92"]  # type: ignore[misc]
    search_args = SearchArgs(query="lease")
    found = search_issues(search_args, ctx)
    assert sorted(registry["search_issues"].untrusted(search_args, found)) == ["issue #41", "issue #7"]  # type: ignore[misc]
    doc_args = DocSectionArgs(doc_id="Error-Codes.md", heading="ORB-1101")
    doc = get_doc_section(doc_args, ctx)
    assert registry["get_doc_section"].untrusted(doc_args, doc) == ["doc error-codes"]  # type: ignore[misc]


def test_locked_db_is_transient(data: Path, ctx: ToolContext) -> None:
    get_issue(IssueArgs(issue_id=41), ctx)  # the db is resolved and cached before the lock is taken
    holder = sqlite3.connect(data / "issues" / "orbit.db", isolation_level=None)
    assert holder.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        with pytest.raises(TransientToolError, match="locked") as caught:
            get_issue(IssueArgs(issue_id=41), ctx)
        assert time.monotonic() - started < 2.0
        assert classify(caught.value) is ErrorKind.TRANSIENT
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert get_issue(IssueArgs(issue_id=41), ctx)["id"] == 41


def test_a_file_that_is_not_a_db_is_permanent(tmp_path: Path, atlas_home: Path) -> None:
    data = tmp_path / "bad-data"
    (data / "issues").mkdir(parents=True)
    (data / "issues" / "orbit.db").write_bytes(b"not a database at all" * 100)
    with pytest.raises(PermanentToolError, match="database"):
        get_issue(IssueArgs(issue_id=41), context(data, atlas_home))


def test_the_bundled_dataset_answers_the_fixture_questions(atlas_home: Path) -> None:
    ctx = context(config.bundled_data_dir(), atlas_home)
    issue = get_issue(IssueArgs(issue_id=41), ctx)
    assert {"comp:core", "type:bug"} <= set(issue["labels"]) and "ORB-1101" in issue["body"]
    assert 41 in [h["id"] for h in search_issues(SearchArgs(query="nightly rebuild twice"), ctx)["hits"]]
    section = get_doc_section(DocSectionArgs(doc_id="error-codes", heading="ORB-1101"), ctx)
    assert section["heading"].startswith("ORB-1101 LeaseExpired")
    assert len(list_docs(NoArgs(), ctx)["docs"]) >= 8


def test_the_bundled_db_has_what_the_tools_read(atlas_home: Path) -> None:
    """A changed dataset must fail here, loudly, rather than in front of a user."""
    from atlas.dataset.read import db_for

    db = db_for(config.bundled_data_dir(), atlas_home)
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:

        def columns(table: str) -> set[str]:
            return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}

        assert {"id", "title", "state", "author", "created_at", "body"} <= columns("issues")
        assert {"issue_id", "position", "author", "created_at", "body"} <= columns("comments")
        assert {"id", "name"} <= columns("labels") and {"issue_id", "label_id"} <= columns("issue_labels")
        assert [row[1] for row in conn.execute("PRAGMA table_info(issues_fts)")] == ["title", "body", "comments"]
        states = {state for (state,) in conn.execute("SELECT DISTINCT state FROM issues")}
        assert states == {"open", "closed"}
        labels = {name for (name,) in conn.execute("SELECT name FROM labels")}
        assert len(labels) == 16, labels
        assert all(label.startswith(("comp:", "type:", "severity:")) for label in labels)
        fts_rows, issue_rows = conn.execute("SELECT (SELECT count(*) FROM issues_fts), count(*) FROM issues").fetchone()
        assert fts_rows == issue_rows >= 120
    finally:
        conn.close()


def test_a_derived_word_finds_its_inflections(ctx: ToolContext) -> None:
    """Porter alone stems "expiry" to "expiri" and "expired" to "expir": the prefix joins them."""
    assert {h["id"] for h in search_issues(SearchArgs(query="expiry"), ctx)["hits"]} == {7, 41}
    assert {h["id"] for h in search_issues(SearchArgs(query="renewals"), ctx)["hits"]} == {7}


def test_many_hits_rank_the_newest_window_and_say_so(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    got = search_issues(SearchArgs(query="lease"), ctx)
    assert "hint" not in got
    monkeypatch.setattr("atlas.orbit.search_order.RANK_WINDOW", 1)
    got = search_issues(SearchArgs(query="lease"), ctx)
    assert [h["id"] for h in got["hits"]] == [41] and "newest 1" in got["hint"]


def test_newest_first_reads_the_created_at_index(ctx: ToolContext) -> None:
    from atlas.dataset.read import db_for

    conn = sqlite3.connect(f"{db_for(ctx.data, ctx.home).as_uri()}?mode=ro", uri=True)
    try:
        plan = conn.execute(
            "EXPLAIN QUERY PLAN SELECT i.id FROM issues i WHERE i.state = 'open' ORDER BY i.created_at DESC, i.id DESC"
        ).fetchall()
    finally:
        conn.close()
    assert any("issues_by_created" in row[-1] for row in plan), plan


def test_search_filters_by_several_labels_at_once(ctx: ToolContext) -> None:
    both = search_issues(SearchArgs(label="type:bug", labels=["comp:worker"]), ctx)["hits"]
    assert [h["id"] for h in both] == [7]  # of the bugs 87, 41 and 7, only #7 is also a worker issue
    unknown = search_issues(SearchArgs(label="type:bug", labels=["type:nope"]), ctx)
    assert unknown["hits"] == [] and "'type:nope'" in unknown["hint"]


def _by_people(tmp_path: Path, atlas_home: Path) -> ToolContext:
    def by(issue_id: int, author: str, created: str, comment_on: str | None = None, **kw: Any) -> dict[str, Any]:
        record = issue(issue_id, f"Broker issue {issue_id}", created_at=created, **kw)
        record["author"] = author
        if comment_on:
            record["comments"] = [{"author": "x", "body": "still seen", "created_at": comment_on}]
        return record

    issues = [
        by(1, "svetlana-k", "2026-01-05T10:00:00Z", labels=["type:bug"]),
        by(2, "Svetlana-K", "2026-03-02T10:00:00Z", labels=["type:bug"], state="closed"),
        by(3, "jlaurent", "2026-03-20T10:00:00Z", labels=["type:bug"]),
        by(4, "jlaurent", "2025-11-01T10:00:00Z", comment_on="2026-03-25T09:00:00Z"),
    ]
    return context(make_dataset(tmp_path, issues), atlas_home)


def test_search_filters_by_author_and_the_day_an_issue_was_opened(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _by_people(tmp_path, atlas_home)
    assert [h["id"] for h in search_issues(SearchArgs(author="@SVETLANA-k"), ctx)["hits"]] == [2, 1]
    assert search_issues(SearchArgs(author="svetlana-k"), ctx)["hits"][0]["author"] == "Svetlana-K"
    march = SearchArgs(created_since=date(2026, 3, 1), created_before=date(2026, 3, 20))
    assert [h["id"] for h in search_issues(march, ctx)["hits"]] == [2]  # the 20th is not before the 20th
    words = SearchArgs(query="broker", author="jlaurent", created_since=date(2026, 1, 1))
    assert [h["id"] for h in search_issues(words, ctx)["hits"]] == [3]


def test_updated_means_the_last_comment_or_the_opening(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _by_people(tmp_path, atlas_home)
    since = search_issues(SearchArgs(updated_since=date(2026, 3, 21)), ctx)
    assert [h["id"] for h in since["hits"]] == [4]  # opened in 2025, commented on 25 March
    before = search_issues(SearchArgs(updated_before=date(2026, 2, 1)), ctx)
    assert [h["id"] for h in before["hits"]] == [1]


def test_count_only_says_how_many_match_without_listing_them(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _by_people(tmp_path, atlas_home)
    assert search_issues(SearchArgs(label="type:bug", count_only=True), ctx) == {"query": "", "hits": [], "total": 3}
    assert search_issues(SearchArgs(label="type:bug", state="open", count_only=True), ctx)["total"] == 2
    assert search_issues(SearchArgs(query="broker 3", count_only=True), ctx)["total"] == 1
    assert search_issues(SearchArgs(query="nothing-like-this", count_only=True), ctx)["total"] == 0


def test_a_window_after_the_data_ends_says_the_data_stops_there(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _by_people(tmp_path, atlas_home)  # the last activity is a comment on 2026-03-25
    later = search_issues(SearchArgs(created_since=date(2026, 4, 1)), ctx)
    assert later["hits"] == [] and "last activity is on 2026-03-25, before 2026-04-01" in later["note"]
    counted = search_issues(SearchArgs(updated_since=date(2026, 4, 1), count_only=True), ctx)
    assert counted["total"] == 0 and "2026-03-25" in counted["note"]
    # Within the data's days an empty answer is only that: no word about the data stopping.
    inside = search_issues(SearchArgs(created_since=date(2026, 3, 21), author="svetlana-k"), ctx)
    assert inside["hits"] == [] and "last activity" not in inside["note"]
    assert "last activity" not in search_issues(SearchArgs(query="nothing-like-this"), ctx)["note"]


def test_a_date_that_is_not_a_day_is_refused_before_the_tool_runs() -> None:
    with pytest.raises(BadArguments, match="created_since: Input should be a valid date"):
        strict_arguments(SearchArgs, {"created_since": "last monday"})


def test_any_of_labels_finds_issues_with_either_label(ctx: ToolContext) -> None:
    worker = {h["id"] for h in search_issues(SearchArgs(label="comp:worker", limit=20), ctx)["hits"]}
    core = {h["id"] for h in search_issues(SearchArgs(label="comp:core", limit=20), ctx)["hits"]}
    either = search_issues(SearchArgs(any_labels=["comp:worker", "core"], limit=20), ctx)
    assert {h["id"] for h in either["hits"]} == worker | core and worker - core and core - worker
    both = search_issues(SearchArgs(labels=["comp:worker", "comp:core"], limit=20), ctx)
    assert {h["id"] for h in both["hits"]} == worker & core


def test_without_labels_leaves_out_every_issue_with_one_of_them(ctx: ToolContext) -> None:
    def total(**args: Any) -> int:
        return int(search_issues(SearchArgs(count_only=True, **args), ctx)["total"])

    both = total(labels=["type:bug", "comp:worker"])
    assert both and total(label="type:bug", without_labels=["worker"]) == total(label="type:bug") - both
    rest = search_issues(SearchArgs(label="type:bug", without_labels=["worker"], limit=20), ctx)["hits"]
    worker = {h["id"] for h in search_issues(SearchArgs(labels=["type:bug", "comp:worker"], limit=20), ctx)["hits"]}
    assert rest and not {h["id"] for h in rest} & worker


def test_any_words_finds_the_issues_with_either_word(ctx: ToolContext) -> None:
    def total(query: str, **args: Any) -> int:
        return int(search_issues(SearchArgs(query=query, count_only=True, **args), ctx)["total"])

    lease, postgres = total("lease"), total("postgres")
    both = total("lease postgres")
    assert lease and postgres and both < min(lease, postgres)
    assert total("lease postgres", any_words=True) == lease + postgres - both
    hits = search_issues(SearchArgs(query="lease postgres", any_words=True, limit=20), ctx)["hits"]
    assert len(hits) == min(20, lease + postgres - both)


def test_a_label_that_finds_nothing_says_how_many_such_issues_have_no_label(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _by_people(tmp_path, atlas_home)  # #4, by jlaurent in 2025, has no label
    of_2025 = SearchArgs(label="type:bug", author="jlaurent", created_before=date(2026, 1, 1))
    said = "1 issue has the same words and filters but no label at all"
    assert search_issues(of_2025, ctx)["hits"] == [] and said in search_issues(of_2025, ctx)["note"]
    counted = search_issues(of_2025._replace(count_only=True), ctx)
    assert counted["total"] == 0 and said in counted["note"]
    # No unlabelled issue among the rest: nothing is said of them.
    assert "no label at all" not in search_issues(of_2025._replace(author="svetlana-k"), ctx)["note"]


def test_a_word_no_issue_holds_is_read_as_the_nearest_word_they_do(tmp_path: Path, atlas_home: Path) -> None:
    issues = [
        issue(1, "Webdataset shards load slowly when streaming"),
        issue(2, "Webdataset keys lost when streaming"),
        issue(3, "Parquet export drops a column", state="closed"),
        issue(4, "Cache grows without bound"),
    ]
    ctx = context(make_dataset(tmp_path, issues), atlas_home)
    found = search_issues(SearchArgs(query="webdatset strreaming"), ctx)
    assert [hit["id"] for hit in found["hits"]] == [2, 1]
    assert "“webdatset” as “webdataset”" in found["hint"] and "“strreaming” as “streaming”" in found["hint"]
    # A word two issues hold is the user's own, even with no hit under the filters; a short word is never respelled.
    assert search_issues(SearchArgs(query="webdataset", state="closed"), ctx)["hits"] == []
    assert search_issues(SearchArgs(query="cahce"), ctx)["hits"] == []
    assert "as typed" not in search_issues(SearchArgs(query="webdataset"), ctx).get("hint", "")


def test_a_full_page_says_how_many_match_up_to_a_bound(
    tmp_path: Path, atlas_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = _by_people(tmp_path, atlas_home)  # four issues titled "Broker issue N"
    full = search_issues(SearchArgs(query="broker", limit=2), ctx)
    assert len(full["hits"]) == 2 and full["matched"] == 4 and "more_than" not in full
    assert "matched" not in search_issues(SearchArgs(query="broker", limit=5), ctx)  # every match is shown
    monkeypatch.setattr("atlas.orbit.issues.MATCHED_MAX", 3)
    bounded = search_issues(SearchArgs(query="broker", limit=2), ctx)
    assert bounded["matched"] == 3 and bounded["more_than"] is True
