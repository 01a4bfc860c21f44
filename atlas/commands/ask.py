"""`atlas ask`: one question, its live tool rows and approvals, then the answer (or one JSON object)."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from atlas.conversation.loop import TurnSettings
from atlas.foundation.errors import ConfigError
from atlas.runtime.kit import open_session
from atlas.runtime.session import Session, SessionOptions
from atlas.ui.ask_screen import AskScreen
from atlas.ui.jsonl import JsonlEvents, run_with_events


@dataclass(frozen=True, kw_only=True)
class AskOptions(SessionOptions):
    question: str
    as_json: bool = False
    deadline_s: float | None = None
    jsonl: bool = False


def question_text(value: str) -> str:
    """The question itself, or standard input when it is `-`; never empty."""
    if value == "-" and sys.stdin is None:  # descriptor 0 was closed before Atlas started
        raise ConfigError("the question is empty (standard input is closed)")
    text = sys.stdin.read() if value == "-" else value
    text = text.strip()
    if not text:
        raise ConfigError("the question is empty" + (" (nothing on standard input)" if value == "-" else ""))
    return text


def run_ask(options: AskOptions) -> int:
    """Answer one question; returns the exit code (0: answered; with --jsonl, 3: answered, actions denied)."""
    if not options.jsonl:
        return _ask(options, None)
    events = JsonlEvents()
    return run_with_events(events, lambda: _ask(options, events))


def _ask(options: AskOptions, events: JsonlEvents | None) -> int:
    question = question_text(options.question)
    session = open_session(options, deadline_s=options.deadline_s)
    try:
        return _answer(question, session, options, events)
    finally:
        session.close()


def _answer(question: str, session: Session, options: AskOptions, events: JsonlEvents | None) -> int:
    """The session answers; the screen (or the --jsonl stream) shows it."""
    screen = AskScreen(drawn=not (options.as_json or events))
    screen.started(
        session.model.name, read_only=options.read_only, data=session.settings.data, rules=session.rule_count
    )
    model = session.model if events is None else events.observe(question, session, read_only=options.read_only)
    started = time.monotonic()
    settings = TurnSettings(max_rounds=options.max_rounds, parallel=options.parallel, deadline_s=options.deadline_s)
    approver = screen.approver
    try:
        result = session.ask(
            question, settings, screen.view, events, approve=approver, approve_batch=approver.decide, model=model
        )
    except BaseException as exc:
        screen.failed(exc)
        raise
    if events:
        return events.result(result)
    screen.answered(result, time.monotonic() - started)
    return 0
