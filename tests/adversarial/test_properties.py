"""Property tests: any exception, data, message, argument text or terminal text gives a well-formed result.

`classify` always names an `ErrorKind`; envelopes are always JSON of the documented shape;
the executor answers every call of any batch exactly once without raising; the sanitiser leaves
nothing a terminal would act on, and Rich renders what it leaves without a MarkupError.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import sqlite3
from typing import Any

import pydantic
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rich.console import Console

from atlas.executor.executor import ToolExecutor
from atlas.foundation.config import bundled_data_dir
from atlas.foundation.errors import (
    MESSAGE_LIMIT,
    AtlasError,
    ErrorKind,
    PermanentToolError,
    TransientToolError,
    classify,
)
from atlas.foundation.sanitize import clean, clean_line
from atlas.protocol.envelope import dumps, envelope_err, envelope_ok
from atlas.protocol.messages import ToolCall
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import ToolContext
from atlas.ui.render import make_console
from atlas.ui.safe import call_label, compact_args, safe_markdown, safe_text

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ERROR_KINDS = [kind for kind in ErrorKind if kind is not ErrorKind.OK]
KIND_VALUES = {kind.value for kind in ErrorKind}

EXCEPTION_TYPES: list[type[BaseException]] = [
    Exception,
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    LookupError,
    RuntimeError,
    RecursionError,
    MemoryError,
    OSError,
    FileNotFoundError,
    PermissionError,
    IsADirectoryError,
    TimeoutError,
    ConnectionError,
    ConnectionResetError,
    BrokenPipeError,
    UnicodeDecodeError,
    ZeroDivisionError,
    AssertionError,
    NotImplementedError,
    KeyboardInterrupt,
    SystemExit,
    sqlite3.Error,
    sqlite3.OperationalError,
    sqlite3.DatabaseError,
    sqlite3.IntegrityError,
    TransientToolError,
    PermanentToolError,
    AtlasError,
    json.JSONDecodeError,
]


def _make(kind: type[BaseException], message: str) -> BaseException:
    if issubclass(kind, UnicodeDecodeError):
        return kind("utf-8", message.encode()[:8] or b"\xff", 0, 1, message)
    if issubclass(kind, json.JSONDecodeError):
        return kind(message, message, 0)
    return kind(message)


@st.composite
def exceptions(draw: st.DrawFn) -> BaseException:
    kind = draw(st.sampled_from(EXCEPTION_TYPES))
    if draw(st.booleans()):
        kind = type("Derived" + kind.__name__, (kind,), {})  # a subclass from some library
    return _make(kind, draw(st.text(max_size=200)))


JSONISH_LEAF = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40)
)


class _Shape(pydantic.BaseModel):
    n: int


@FAST
@given(exceptions())
def test_classify_names_a_kind_for_any_exception(exc: BaseException) -> None:
    kind = classify(exc)
    assert isinstance(kind, ErrorKind) and kind is not ErrorKind.OK
    if isinstance(exc, sqlite3.OperationalError):
        busy = "locked" in str(exc).lower() or "busy" in str(exc).lower()
        assert kind is (ErrorKind.TRANSIENT if busy else ErrorKind.PERMANENT)


@FAST
@given(st.one_of(st.none(), st.floats(), st.text(max_size=20), st.lists(st.integers(), max_size=3), JSONISH_LEAF))
def test_a_validation_error_is_always_bad_args(value: Any) -> None:
    try:
        _Shape.model_validate({"n": value})
    except pydantic.ValidationError as exc:
        assert classify(exc) is ErrorKind.BAD_ARGS
    else:
        assume(False)  # a value pydantic accepts as an int says nothing here


JSONISH = st.recursive(
    JSONISH_LEAF,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
UNJSONABLE = st.one_of(
    st.binary(max_size=20), st.sets(st.integers(), max_size=3), st.builds(object), st.complex_numbers()
)


@FAST
@given(st.one_of(JSONISH, UNJSONABLE, st.lists(UNJSONABLE, max_size=3)), st.booleans(), st.text(max_size=50))
def test_envelope_ok_is_always_json(data: Any, untrusted: bool, hint: str) -> None:
    envelope = json.loads(dumps(envelope_ok(data, untrusted=untrusted, hint=hint or None)))
    assert envelope["ok"] is True and "data" in envelope and "error" not in envelope
    assert envelope.get("untrusted", False) is untrusted
    try:
        json.dumps(data, allow_nan=False)
    except (TypeError, ValueError):
        assert isinstance(envelope["data"], (str, list))  # shown with str(), still JSON
    else:
        assert envelope["data"] == data


@FAST
@given(st.sampled_from(ERROR_KINDS), st.text(max_size=2000), st.one_of(st.none(), st.text(max_size=100)))
def test_envelope_err_is_well_formed(kind: ErrorKind, message: str, hint: str | None) -> None:
    envelope = json.loads(dumps(envelope_err(kind, message, hint=hint)))
    assert set(envelope) == {"ok", "error"} and envelope["ok"] is False
    error = envelope["error"]
    assert set(error) == {"kind", "message", "retryable", "hint"}
    assert error["kind"] == kind.value
    assert isinstance(error["message"], str) and len(error["message"]) <= MESSAGE_LIMIT
    assert error["message"] == message or (len(message) > MESSAGE_LIMIT and error["message"].endswith("…"))
    assert error["retryable"] is (kind in (ErrorKind.TIMEOUT, ErrorKind.TRANSIENT))
    assert isinstance(error["hint"], str) and error["hint"]


def test_envelope_err_refuses_ok() -> None:
    try:
        envelope_err(ErrorKind.OK, "fine")
    except ValueError:
        return
    raise AssertionError("envelope_err accepted ErrorKind.OK")


REGISTRY = load_registry()
NAMES = st.sampled_from([*REGISTRY, "close_issue", "", "get_issue ", "GET_ISSUE", "\x1b[2J"])
ARGUMENT_TEXT = st.one_of(
    JSONISH.map(json.dumps),
    st.dictionaries(
        st.sampled_from(["issue_id", "label", "body", "query", "doc_id", "heading", "limit", "state", "x"]),
        JSONISH,
        max_size=4,
    ).map(json.dumps),
    st.text(max_size=60),
    st.just(""),
    st.just("{"),
    st.just('{"issue_id": 41'),
    st.integers(500, 60_000).map(lambda depth: "[" * depth + "]" * depth),
    st.integers(500, 60_000).map(lambda depth: '{"issue_id": ' + "[" * depth + "]" * depth + "}"),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(NAMES, ARGUMENT_TEXT), min_size=1, max_size=6))
def test_any_batch_gets_one_well_formed_output_per_call(batch: list[tuple[str, str]]) -> None:
    calls = [ToolCall(name=name, arguments=text, call_id=f"c{index}") for index, (name, text) in enumerate(batch)]
    context = ToolContext(data=bundled_data_dir())
    executor = ToolExecutor(REGISTRY, timeout_s=5.0, context=context)  # the default approver denies
    outputs = asyncio.run(executor.run_all(calls))
    assert [output["call_id"] for output in outputs] == [call.call_id for call in calls]
    for call, output in zip(calls, outputs, strict=True):
        assert output["type"] == "function_call_output"
        envelope = json.loads(output["output"])
        assert isinstance(envelope["ok"], bool)
        if not envelope["ok"]:
            assert envelope["error"]["kind"] in KIND_VALUES - {"ok", "unknown"}, (call, envelope)
        if REGISTRY.get(call.name) is not None and REGISTRY[call.name].side_effect:
            assert not envelope["ok"], "a side effect ran without approval"
    assert len(executor.log) == len(calls)
    assert not (context.home / "tracker_actions.jsonl").exists()


# Text a terminal would act on: C0 (but tab and newline), DEL, C1, bidi embeddings/overrides/isolates.
ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
RICH_STYLING = re.compile(r"\x1b\[[0-9;]*m")
TERMINAL_TEXT = st.lists(
    st.one_of(
        st.characters(),
        st.sampled_from(["\x1b", "\x9b", "\x9d", "\x07", "\r", "\u202e", "\n", "\t", "\\", "[/]", "[bold red]"]),
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),  # lone surrogates: no UTF-8 form
        st.sampled_from(["[link=https://evil.example]", "[/link]", "\x1b]8;;https://e.x\x1b\\", "[x](https://e.x)"]),
    ),
    max_size=40,
).map("".join)


@FAST
@given(TERMINAL_TEXT)
def test_the_sanitiser_leaves_nothing_active(text: str) -> None:
    cleaned = clean(text)
    assert not ACTIVE.search(cleaned)
    cleaned.encode("utf-8")  # printable on any UTF-8 terminal or pipe, whatever the text held
    clean_line(text).encode("utf-8")
    # One line: the same text with its newlines and tabs escaped too. (A backslash and an `n`
    # that the text itself holds stay as they are: removing both spellings would compare less.)
    assert clean_line(text) == cleaned.replace("\n", "\\n").replace("\t", "\\t")
    assert not ACTIVE.search(clean_line(text)) and "\n" not in clean_line(text) and "\t" not in clean_line(text)
    for args in ({"issue_id": 1, "body": text}, text):
        shown = compact_args(args, limit=50)
        assert not ACTIVE.search(shown) and "\n" not in shown and len(shown) <= 50
    assert not ACTIVE.search(call_label(text, {"x": text}))


@FAST
@given(TERMINAL_TEXT)
def test_rich_renders_sanitised_text_with_no_escape_but_its_own_styling(text: str) -> None:
    for terminal in (False, True):
        out = io.StringIO()
        console = make_console(file=out, width=60)
        if terminal:
            console = Console(
                file=out, width=60, force_terminal=True, color_system="standard", markup=False, highlight=False
            )
        console.print(safe_text(text, style="bold"))
        console.print(safe_text(text, one_line=True))
        console.print(safe_markdown(text))
        console.print(clean_line(text))
        shown = out.getvalue()
        if not terminal:
            assert "\x1b" not in shown
        rest = RICH_STYLING.sub("", shown)
        assert "\x1b" not in rest and not ACTIVE.search(rest.replace("\n", "")), repr(rest)
