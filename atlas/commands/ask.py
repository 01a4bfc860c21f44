"""`atlas ask`: one question, its live tool rows and approvals, then the answer (or one JSON object)."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from rich.console import Console

from atlas.commands.prepare import prepare_issues_db
from atlas.conversation.loop import TurnResult, TurnSettings
from atlas.foundation.config import dataset_name
from atlas.foundation.errors import ConfigError
from atlas.runtime.kit import open_session
from atlas.runtime.session import Session, SessionOptions
from atlas.ui.approval import TerminalApprover
from atlas.ui.denied import print_denied
from atlas.ui.json_out import print_json
from atlas.ui.jsonl import JsonlEvents, ObservedModel, run_with_events
from atlas.ui.render import footer, header, make_console, print_answer_source
from atlas.ui.turn_view import TurnView


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


def turn_view(console: Console, notices: Console) -> TurnView:
    """On a terminal, everything on `console`; on a pipe, only the answer (as Markdown source) there.

    Progress then goes to `notices` (stderr) as plain lines, as gh and llm do; with --json there is
    no view at all: standard output carries the one JSON object and nothing else.
    """
    if console.is_terminal:
        return TurnView(console)
    return TurnView(notices, live=False, answer_to=lambda answer: print_answer_source(console, answer))


def run_ask(options: AskOptions) -> int:
    """Answer one question; returns the exit code (0: answered; with --jsonl, 3: answered, actions denied)."""
    if not options.jsonl:
        return _ask(options, None)
    events = JsonlEvents()
    return run_with_events(events, lambda: _ask(options, events))


def _ask(options: AskOptions, events: JsonlEvents | None) -> int:
    question = question_text(options.question)
    session = open_session(options, prepare_data=prepare_issues_db, deadline_s=options.deadline_s)
    try:
        return _answer(question, session, options, events)
    finally:
        session.close()


def _answer(question: str, session: Session, options: AskOptions, events: JsonlEvents | None) -> int:
    console = make_console()
    notices = make_console(stderr=True)
    progress = console if console.is_terminal else notices
    view = None if options.as_json or events else turn_view(console, notices)
    approver = TerminalApprover(notices, pause=view.paused if view else None)
    session.attach(view, events, approve=approver, approve_batch=approver.decide)
    model = session.model
    if view:
        progress.print(
            header(
                model.name,
                read_only=options.read_only,
                dataset=dataset_name(session.settings.data),
                rules=session.rule_count,
            )
        )
    if events:
        events.trace_ids = session.trace_ids
        events.question(question, model=model.name, session=session.id, read_only=options.read_only)
        model = ObservedModel(model, events)
    started = time.monotonic()
    settings = TurnSettings(max_rounds=options.max_rounds, parallel=options.parallel, deadline_s=options.deadline_s)
    try:
        result = session.answer(question, [], settings, model=model)
    except BaseException as exc:
        if view:
            view.abort(cancelled=isinstance(exc, KeyboardInterrupt))
        raise
    if events:
        return events.result(result)
    if view is None:
        # ASCII JSON: every control, C1 and bidi character in the data arrives escaped and inert.
        print_json(result.to_json())
        return 0
    _report_view(view, console, progress, result, time.monotonic() - started)
    return 0


def _report_view(view: TurnView, console: Console, progress: Console, result: TurnResult, seconds: float) -> None:
    """The answer, the footer and what was not done, on the terminal (or the answer alone on a pipe)."""
    view.finish(result.answer)
    if console.is_terminal:
        console.print()
    progress.print(footer(result, seconds))
    print_denied(progress, result.calls)
