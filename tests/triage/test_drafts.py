"""Comment drafts fit the issue: only bug reports are asked for a version and a log, and a likely
earlier report is named in words that fit the kind of issue."""

from __future__ import annotations

from atlas.triage.corpus import Issue
from atlas.triage.drafts import comment_draft, kind_of
from atlas.triage.similar import Match

FORM = frozenset({"### describe the bug", "### error logs, if it failed", "### expected behavior"})


def report(title: str, body: str) -> Issue:
    return Issue(7, title, body, "open", "someone", "2026-02-01T10:00:00Z", ())


def earlier(score: float) -> Match:
    return Match(3, "Streaming fails on shard two", "closed", (), score, ("streaming", "shard"), (), ())


def test_only_a_bug_report_is_asked_for_its_version_and_log() -> None:
    bug = report("Streaming crashes on the second shard", "It fails every time I iterate.")
    asked = comment_draft(bug, [], None)
    assert asked is not None and "version you run" in asked and "traceback" in asked
    logged = report("Streaming crashes on 2.14.1", "Traceback (most recent call last):\n  ValueError: shard")
    assert comment_draft(logged, [], None) is None  # it has both
    question = report("How do I stream a sharded set? It fails with an error", "Is there a way to do this?")
    feature = report("Add a way to export to parquet", "Exporting fails today, so it would be nice to have it.")
    docs = report("The docs say the cache is empty", "The wrong folder is documented.")
    assert comment_draft(question, [], None) is None
    assert comment_draft(feature, [], None) is None
    assert comment_draft(docs, ["documentation"], None) is None
    assert comment_draft(bug, ["enhancement"], None) is None  # the labels say what it is
    assert kind_of(bug, ["dataset bug", "enhancement"]) == "bug"
    assert kind_of(report("Can't load the set", "it crashes"), []) == "bug"


def test_a_forms_headings_do_not_make_an_issue_a_bug_report() -> None:
    filled = report("zstd files", "### Describe the bug\nI would like zstd.\n### Error logs, if it failed\nnone")
    assert kind_of(filled, [], FORM) is None and comment_draft(filled, [], None, FORM) is None


def test_a_likely_earlier_report_is_named_in_words_that_fit_the_kind() -> None:
    bug = report("Streaming crashes on 2.14.1", "Traceback (most recent call last):\n  ValueError: shard")
    said = comment_draft(bug, ["bug"], earlier(0.8))
    assert said is not None and "same problem as #3 (closed" in said and "need a little more" not in said
    question = report("How do I stream shards?", "Shards?")
    answered = comment_draft(question, [], earlier(0.8))
    assert answered is not None and "asked before in #3" in answered and "traceback" not in answered
    assert comment_draft(question, [], earlier(0.2)) is None  # a weak match is not named
