"""`atlas ask`: one question, its live tool rows and approvals, then the answer (or one JSON object)."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from atlas.conversation.loop import TurnSettings
from atlas.foundation.errors import ConfigError
from atlas.runtime.session import SessionOptions, ask_once
from atlas.ui.ask_screen import AskScreen
from atlas.ui.jsonl import JsonlEvents, streamed


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
    return streamed(lambda events: _ask(options, events)) if options.jsonl else _ask(options, None)


def _ask(options: AskOptions, events: JsonlEvents | None) -> int:
    """The question handed to a session once: it answers, the screen (or the --jsonl stream) shows it."""
    question = question_text(options.question)
    screen = AskScreen(drawn=not (options.as_json or events), stream=events)
    settings = TurnSettings(max_rounds=options.max_rounds, parallel=options.parallel)
    return ask_once(question, options, settings, screen, deadline_s=options.deadline_s)
