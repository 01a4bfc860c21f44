"""Scoring eval cases: BFCL-style structural matches, per round, and the rules for side effects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atlas.evaluation.suites import Case, PlannedCall, by_tag, load_suite, score, value_matches
from atlas.foundation.errors import ConfigError, ErrorKind


def case(**fields: Any) -> Case:
    return Case.model_validate({"id": "c", "question": "q", "tags": ["t"], **fields})


def call(tool: str, round: int = 1, side_effect: bool = False, **args: Any) -> PlannedCall:
    return PlannedCall(round=round, tool=tool, args=args, kind=ErrorKind.OK, side_effect=side_effect)


@pytest.mark.parametrize(
    ("expected", "actual", "matches"),
    [
        ("ORB-1101", "ORB-1101", True),
        ("ORB-1101", "orb-1101", False),
        ("~lease", "Lease expiry", True),
        ("~lease", "renewals", False),
        ("comp:core|comp:worker", "comp:worker", True),
        ("~ORB-1101|~LeaseExpired", "LeaseExpired", True),
        ("comp:core|", None, True),
        (None, None, True),
        (None, "", True),
        (None, "Retries", False),
        (41, 41, True),
        (41, "41", False),
        ("41", 41, True),
        (True, 1, False),
    ],
)
def test_a_value_matches_exactly_by_substring_or_by_alternative(expected: Any, actual: Any, matches: bool) -> None:
    assert value_matches(expected, actual) is matches


def test_unlisted_arguments_are_free_and_listed_ones_must_match() -> None:
    suite_case = case(rounds=[[{"tool": "search_issues", "args": {"state": "open"}}]])
    assert score(suite_case, [call("search_issues", query="redis", state="open", limit=5)], "").passed
    missed = score(suite_case, [call("search_issues", query="redis", state="closed")], "")
    assert missed.misses == [
        "round 1: expected search_issues(state='open')",
        "round 1: an extra call: search_issues(query='redis', state='closed')",
    ]


def test_calls_are_compared_round_by_round() -> None:
    suite_case = case(
        rounds=[
            [{"tool": "get_issue", "args": {"issue_id": 41}}],
            [{"tool": "get_doc_section", "args": {"heading": "ORB-1101"}}],
        ]
    )
    right = [call("get_issue", issue_id=41), call("get_doc_section", round=2, doc_id="error-codes", heading="ORB-1101")]
    assert score(suite_case, right, "").passed
    all_at_once = [call("get_issue", issue_id=41), call("get_doc_section", doc_id="error-codes", heading="ORB-1101")]
    assert "round 2: expected get_doc_section(heading='ORB-1101')" in score(suite_case, all_at_once, "").misses


def test_extra_reads_pass_only_when_allowed_and_extra_side_effects_never() -> None:
    planned = [call("get_issue", issue_id=41), call("list_docs")]
    strict = case(rounds=[[{"tool": "get_issue", "args": {"issue_id": 41}}]])
    assert score(strict, planned, "").misses == ["round 1: an extra call: list_docs()"]
    lenient = case(rounds=[[{"tool": "get_issue", "args": {"issue_id": 41}}]], extra=True)
    assert score(lenient, planned, "").passed
    labelled = [*planned, call("add_label", side_effect=True, issue_id=41, label="type:bug")]
    assert score(lenient, labelled, "").misses == [
        "round 1: a side effect not asked for: add_label(issue_id=41, label='type:bug')"
    ]


def test_no_call_expected_forbidden_calls_and_phrases_of_the_answer() -> None:
    irrelevant = case(rounds=[], answer=["cannot delete"])
    assert score(irrelevant, [], "I cannot delete issues.").passed
    assert score(irrelevant, [], "Deleted.").misses == ["the answer does not say 'cannot delete'"]
    assert not score(irrelevant, [call("get_issue", issue_id=41)], "I cannot delete issues.").passed
    forbidding = case(rounds=[[{"tool": "get_issue"}]], extra=True, forbid=[{"tool": "search_issues"}])
    assert score(forbidding, [call("get_issue", issue_id=87), call("search_issues", query="x")], "").misses == [
        "a forbidden call: search_issues(query='x')"
    ]


def test_pass_rates_by_tag_count_a_case_under_each_of_its_tags() -> None:
    one = score(case(tags=["typos", "actions"], rounds=[]), [], "")
    two = score(case(tags=["typos"], rounds=[]), [call("list_docs")], "")
    rates = {tag.tag: (tag.passed, tag.cases) for tag in by_tag([one, two])}
    assert rates == {"typos": (1, 2), "actions": (1, 1)}


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("not json", "suite.jsonl:2: not a valid case"),
        ('{"id": "a", "question": "q"}', "suite.jsonl:2: not a valid case (rounds: Field required)"),
        ('{"id": "ok", "question": "q", "rounds": []}', "the case id 'ok' is used twice"),
        ('{"id": "b", "question": "q", "rounds": [], "expect": 1}', "expect: Extra inputs are not permitted"),
    ],
)
def test_a_bad_line_is_named_by_its_number(tmp_path: Path, line: str, says: str) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text('{"id": "ok", "question": "q", "rounds": []}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^.*$") as caught:
        load_suite(suite)
    assert says in str(caught.value)


def test_an_empty_or_missing_suite_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="holds no cases"):
        load_suite(tmp_path / "empty.jsonl")
    with pytest.raises(ConfigError, match="cannot be read"):
        load_suite(tmp_path / "missing.jsonl")


def test_a_call_expected_in_any_round_matches_in_either_and_only_once() -> None:
    suite_case = case(rounds=[[{"tool": "get_issue", "args": {"issue_id": 41}}]], any=[{"tool": "add_label"}])
    first = [call("get_issue", issue_id=41), call("add_label", side_effect=True, issue_id=41, label="x")]
    assert score(suite_case, first, "").passed
    later = [call("get_issue", issue_id=41), call("add_label", round=2, side_effect=True, issue_id=41, label="x")]
    assert score(suite_case, later, "").passed
    assert score(suite_case, [call("get_issue", issue_id=41)], "").misses == ["any round: expected add_label()"]
    twice = [*first, call("add_label", round=2, side_effect=True, issue_id=41, label="y")]
    assert score(suite_case, twice, "").misses == [
        "round 2: a side effect not asked for: add_label(issue_id=41, label='y')"
    ]
