"""The error taxonomy: how failures are classified and what the model is told about them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from atlas.foundation.errors import (
    HINTS,
    MESSAGE_LIMIT,
    RETRYABLE_KINDS,
    ErrorKind,
    PermanentToolError,
    ProtocolToolError,
    ToolTimeoutError,
    TransientToolError,
    UnavailableToolError,
    classify,
    describe,
)
from atlas.protocol.envelope import dumps, envelope_err, envelope_ok


class Args(BaseModel):
    issue_id: int


def validation_error() -> ValidationError:
    try:
        Args.model_validate({"issue_id": "forty-one"})
    except ValidationError as exc:
        return exc
    raise AssertionError("validation should have failed")


def real_locked_error(tmp_path: Path) -> sqlite3.OperationalError:
    db = tmp_path / "locked.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        sqlite3.connect(db, timeout=0.05).execute("SELECT * FROM t").fetchall()
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    raise AssertionError("the read should have been locked out")


def test_a_validation_error_is_bad_args_although_it_is_a_value_error() -> None:
    exc = validation_error()
    assert isinstance(exc, ValueError)
    assert classify(exc) is ErrorKind.BAD_ARGS
    assert describe(exc).startswith("issue_id: ")


def test_a_real_locked_database_is_transient(tmp_path: Path) -> None:
    exc = real_locked_error(tmp_path)
    assert "locked" in str(exc)
    assert classify(exc) is ErrorKind.TRANSIENT


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (TransientToolError("busy"), ErrorKind.TRANSIENT),
        (PermanentToolError("no such doc"), ErrorKind.PERMANENT),
        (UnavailableToolError("the server exited"), ErrorKind.UNAVAILABLE),
        (ProtocolToolError("error -32603"), ErrorKind.PROTOCOL),
        (ToolTimeoutError("slow did not return within 2.0 s", tool="slow", timeout_s=2.0), ErrorKind.TIMEOUT),
        (sqlite3.OperationalError("database is busy"), ErrorKind.TRANSIENT),
        (sqlite3.OperationalError("no such table: issues"), ErrorKind.PERMANENT),
        (sqlite3.DatabaseError("file is not a database"), ErrorKind.PERMANENT),
        (LookupError("no issue #999"), ErrorKind.PERMANENT),
        (KeyError("x"), ErrorKind.PERMANENT),
        (ValueError("bad"), ErrorKind.PERMANENT),
        (FileNotFoundError("gone"), ErrorKind.PERMANENT),
        (TimeoutError(), ErrorKind.TIMEOUT),
        (ConnectionResetError(), ErrorKind.TRANSIENT),
        (RuntimeError("bug"), ErrorKind.UNKNOWN),
        (ZeroDivisionError(), ErrorKind.UNKNOWN),
    ],
)
def test_classify(exc: BaseException, kind: ErrorKind) -> None:
    assert classify(exc) is kind


def test_every_error_kind_has_a_hint() -> None:
    assert set(HINTS) == set(ErrorKind) - {ErrorKind.OK}


@pytest.mark.parametrize("kind", [k for k in ErrorKind if k is not ErrorKind.OK])
def test_envelope_err_caps_the_message_and_retries_only_timeout_and_transient(kind: ErrorKind) -> None:
    env = envelope_err(kind, "x" * 1000)
    assert env["ok"] is False
    error = env["error"]
    assert error["kind"] == kind.value
    assert len(error["message"]) == MESSAGE_LIMIT and error["message"].endswith("…")
    assert error["retryable"] is (kind in {ErrorKind.TIMEOUT, ErrorKind.TRANSIENT})
    assert error["hint"] == HINTS[kind]
    assert json.loads(dumps(env)) == env


def test_envelope_err_keeps_short_messages_and_refuses_ok() -> None:
    assert envelope_err(ErrorKind.PERMANENT, "no doc 'x'")["error"]["message"] == "no doc 'x'"
    assert envelope_err(ErrorKind.DENIED, "no", hint="Say so.")["error"]["hint"] == "Say so."
    assert {ErrorKind.TIMEOUT, ErrorKind.TRANSIENT} == RETRYABLE_KINDS
    with pytest.raises(ValueError):
        envelope_err(ErrorKind.OK, "fine")


def test_envelope_ok_marks_untrusted_text() -> None:
    assert envelope_ok({"id": 41}) == {"ok": True, "data": {"id": 41}}
    assert envelope_ok("text", untrusted=True, hint="h") == {"ok": True, "data": "text", "untrusted": True, "hint": "h"}


def test_describe_names_exceptions_without_text_and_unquotes_key_errors() -> None:
    assert describe(TimeoutError()) == "TimeoutError"
    assert describe(KeyError("issue_id")) == "issue_id"
    assert len(describe(RuntimeError("y" * 900))) == MESSAGE_LIMIT


def test_dumps_survives_values_json_cannot_hold() -> None:
    assert json.loads(dumps(envelope_ok({"path": Path("/tmp/x")})))["data"]["path"] == "/tmp/x"


def test_dumps_is_strict_json_even_for_nan_and_infinity() -> None:
    def refuse(constant: str) -> None:
        raise AssertionError(f"non-standard JSON constant {constant}")

    text = dumps(envelope_ok({"ratio": float("nan"), "limits": [float("inf"), -float("inf"), 1.5]}))
    assert json.loads(text, parse_constant=refuse)["data"] == {"ratio": "nan", "limits": ["inf", "-inf", 1.5]}


def test_dumps_shows_non_finite_dict_keys_as_text() -> None:
    text = dumps(envelope_ok({float("inf"): "unbounded", 2.5: "half"}))
    assert json.loads(text)["data"] == {"inf": "unbounded", "2.5": "half"}
