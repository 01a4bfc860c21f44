"""A built-in tool's arguments record: the check against its declared schema accepts only what pydantic
accepts, with the same values, and everything else gets pydantic's own words, as before records."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atlas.executor.executor import ToolExecutor
from atlas.foundation.config import bundled_data_dir
from atlas.foundation.errors import BadArguments, ErrorKind, classify
from atlas.orbit.issues import IssueArgs, SearchArgs
from atlas.protocol.messages import ToolCall
from atlas.runtime.toolset import builtin_declarations, load_registry
from atlas.tools.arguments import accepted, is_record, pydantic_twin, record_of
from atlas.tools.registry import ToolContext, lax_arguments, strict_arguments
from tests.support.executor_fakes import envelope, kind_of

DECLARED = {declaration.name: declaration for declaration in builtin_declarations()}
REGISTRY = load_registry(extra_modules=())


def record_and_schema(name: str) -> tuple[type, dict[str, Any]]:
    return REGISTRY[name].args_model, dict(DECLARED[name].parameters)


def twin_judges(record: type, arguments: Any) -> Any:
    """The record pydantic makes of `arguments`, or the BadArguments it raises."""
    from pydantic import ValidationError

    try:
        model = pydantic_twin(record).model_validate_json(json.dumps(arguments), strict=True)
    except ValidationError as exc:
        return BadArguments(str(exc))
    return record_of(record, model)


def test_every_built_in_tool_takes_a_record() -> None:
    assert all(is_record(REGISTRY[name].args_model) for name in DECLARED)


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("get_issue", {"issue_id": "41"}, "issue_id: Input should be a valid integer"),
        ("get_issue", {"issue_id": True}, "issue_id: Input should be a valid integer"),
        ("get_issue", {"issue_id": 41.0}, "issue_id: Input should be a valid integer"),
        ("get_issue", {"issue_id": 41, "page": 2}, "page: Extra inputs are not permitted"),
        ("get_issue", {}, "issue_id: Field required"),
        ("get_issue", {"issue_id": 0}, "issue_id: Input should be greater than or equal to 1"),
        ("get_issue", {"issue_id": 2**63}, "issue_id: Input should be less than or equal to 9223372036854775807"),
        ("search_issues", {"state": "merged"}, "state: Input should be 'open' or 'closed'"),
        ("search_issues", {"labels": ["a", 1]}, "labels.1: Input should be a valid string"),
        ("search_issues", {"labels": "bug"}, "labels: Input should be a valid array"),
        ("search_issues", {"labels": ["a"] * 6}, "labels: List should have at most 5 items after validation, not 6"),
        ("search_issues", {"query": "x" * 501}, "query: String should have at most 500 characters"),
        ("search_issues", {"unlabelled": 1}, "unlabelled: Input should be a valid boolean"),
        (
            "search_issues",
            {"created_since": "2024-02-30"},
            "created_since: Input should be a valid date in the format YYYY-MM-DD, day value is outside expected range",
        ),
        ("post_comment", {"issue_id": 41, "body": ""}, "body: String should have at least 1 character"),
        ("plan_triage", {"issue_ids": [0]}, "issue_ids.0: Input should be greater than or equal to 1"),
    ],
)
def test_arguments_that_do_not_validate_are_said_in_pydantics_words(name: str, arguments: Any, message: str) -> None:
    record, schema = record_and_schema(name)
    assert accepted(schema, arguments) is None
    with pytest.raises(BadArguments) as raised:
        strict_arguments(record, arguments)
    assert str(raised.value) == message
    assert classify(raised.value) is ErrorKind.BAD_ARGS


def test_well_formed_arguments_become_the_record_with_days_and_tuples() -> None:
    found = strict_arguments(SearchArgs, {"labels": ["bug"], "created_since": "2026-03-01", "state": "open"})
    assert found == SearchArgs(labels=("bug",), created_since=date(2026, 3, 1), state="open")
    assert strict_arguments(IssueArgs, {"issue_id": 41}) == IssueArgs(issue_id=41, comments_offset=0)


def test_what_the_check_does_not_know_is_left_to_pydantic() -> None:
    schema = {"type": "object", "additionalProperties": False, "properties": {"code": {"type": "string"}}}
    assert accepted(schema, {"code": "ORB-1101"}) == {"code": "ORB-1101"}
    for unknown in ({"pattern": "^ORB"}, {"format": "email"}, {"exclusiveMinimum": 1}, {"const": "x"}):
        assert accepted(schema | {"properties": {"code": {"type": "string", **unknown}}}, {"code": "ORB-1101"}) is None
    assert accepted(schema | {"additionalProperties": True}, {"code": "ORB-1101"}) is None
    assert accepted(schema, {"code": "\ud800"}) is None  # JSON cannot carry a lone surrogate


def test_a_persons_edit_is_validated_as_python_values() -> None:
    from atlas.orbit.comments import PostCommentArgs

    assert lax_arguments(PostCommentArgs, {"issue_id": "41", "body": "thanks"}) == PostCommentArgs(41, "thanks")
    with pytest.raises(BadArguments, match="body: String should have at most 4000 characters"):
        lax_arguments(PostCommentArgs, {"issue_id": 41, "body": "x" * 4001})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ('{"issue_id": "41"}', "issue_id: Input should be a valid integer"),
        ('{"issue_id": 41, "page": 2}', "page: Extra inputs are not permitted"),
        ("{}", "issue_id: Field required"),
    ],
)
def test_the_executor_answers_a_built_in_tools_bad_arguments_as_before(arguments: str, message: str) -> None:
    executor = ToolExecutor(load_registry(extra_modules=()), context=ToolContext(data=bundled_data_dir()))
    output = asyncio.run(executor.run_one(ToolCall("get_issue", arguments, "c1")))
    assert kind_of(output) == "bad_args"
    assert envelope(output)["error"]["message"] == message
    assert executor.log[0].attempts == 0


def test_the_executor_runs_a_built_in_tool_with_well_formed_arguments() -> None:
    executor = ToolExecutor(load_registry(extra_modules=()), context=ToolContext(data=bundled_data_dir()))
    output = asyncio.run(executor.run_one(ToolCall("get_issue", '{"issue_id": 41, "comments_limit": 1}', "c1")))
    assert kind_of(output) == "ok"
    assert envelope(output)["data"]["id"] == 41


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=600),
    st.sampled_from([0, 1, 2**63 - 1, 2**63, 41.0, 1.5, -0.0]),
    st.text(max_size=12),
    st.sampled_from(["", "open", "closed", "newest", "2026-03-01", "2026-02-30", "2026-3-1", "२०२६-०३-०१", "\ud800"]),
    st.sampled_from(["2026-03-01T00:00:00", "0000-01-01", "x" * 501, "untriaged", "urgent", "label", "month"]),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=7))


def near(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values the property's schema takes, and values just past its limits."""
    if "anyOf" in schema:
        return st.one_of(st.none(), near(schema["anyOf"][0]))
    kind = schema.get("type")
    if kind == "integer":
        low, high = schema.get("minimum", -10), schema.get("maximum", 10**6)
        return st.one_of(st.integers(low - 1, low + 60), st.sampled_from([high, high + 1]))
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(near(schema["items"]), max_size=schema.get("maxItems", 3) + 1)
    if "enum" in schema:
        return st.sampled_from([*schema["enum"], "neither"])
    if schema.get("format") == "date":
        return st.one_of(st.dates().map(date.isoformat), st.sampled_from(["2026-02-30", "2026-3-1", "tomorrow"]))
    longest = schema.get("maxLength", 30)
    return st.one_of(st.text(max_size=20), st.sampled_from(["x" * longest, "x" * (longest + 1)]))


@st.composite
def tool_and_arguments(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(sorted(DECLARED)))
    properties: dict[str, Any] = dict(DECLARED[name].parameters.get("properties", {}))
    keys = draw(st.lists(st.sampled_from([*properties, "stray"]), unique=True, max_size=len(properties) + 1))
    keys += [key for key in DECLARED[name].parameters.get("required", ()) if key not in keys and draw(st.booleans())]
    # Mostly values near what the schema takes, one in ten anything at all.
    return name, {
        key: draw(near(properties[key]) if key in properties and draw(st.integers(0, 9)) else VALUES) for key in keys
    }


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_and_arguments())
def test_the_check_accepts_only_what_pydantic_accepts_and_makes_the_same_record(
    drawn: tuple[str, dict[str, Any]],
) -> None:
    name, arguments = drawn
    record, schema = record_and_schema(name)
    values = accepted(schema, arguments)
    judged = twin_judges(record, arguments)
    if values is not None:
        assert not isinstance(judged, BadArguments), (arguments, judged)
        assert record(**values) == judged
