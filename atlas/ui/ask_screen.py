"""What `atlas ask` shows of its one question, made in one place: the header, the live rows and
approvals, then the answer, the footer and what was not done.

On a terminal everything goes to standard output. On a pipe only the answer does (as Markdown
source), and progress goes to standard error as plain lines, as gh and llm do; when neither
stream is a terminal, those lines are written without Rich (`atlas.ui.plain`). With `--json` or
`--jsonl` nothing is drawn: standard output carries the JSON and nothing else, and approvals are
still asked on the terminal (`/dev/tty`) when there is one.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

from atlas.dataset.ensure import ShownProgress
from atlas.llm import Model
from atlas.protocol.events import Approver, BatchApprover, Listener
from atlas.ui.approval import TerminalApprover
from atlas.ui.build_progress import BuildProgress
from atlas.ui.denied import print_denied
from atlas.ui.json_out import print_json
from atlas.ui.jsonl import AskingSession, JsonlEvents
from atlas.ui.plain import output_consoles, print_answer_source
from atlas.ui.status_lines import footer, header
from atlas.ui.turn_view import TurnView

if TYPE_CHECKING:
    from atlas.conversation.loop import TurnResult


class AskedIn(AskingSession, Protocol):
    """What the header says of the session a question is asked in."""

    rule_count: int

    @property
    def project_name(self) -> str: ...

    @property
    def read_only(self) -> bool: ...


class Shown(Protocol):
    """What shows a session's one question (`atlas ask`'s screen), as `runtime.session` asks it: the
    build of its data, if one is needed; it hears the session's events and asks its approvals; it is
    told when the question starts (and gives the model to ask, which it may watch), when it fails, and
    its answer (and makes the exit code of it)."""

    @property
    def listeners(self) -> tuple[Listener | None, ...]: ...

    @property
    def approve(self) -> Approver: ...

    @property
    def approve_batch(self) -> BatchApprover: ...

    @property
    def data_build(self) -> ShownProgress: ...

    def started(self, question: str, session: AskedIn, /) -> Model: ...

    def failed(self, error: BaseException, /) -> None: ...

    def answered(self, result: TurnResult, /) -> int: ...


class AskScreen:
    """The terminal (or pipe) of one `atlas ask`; `drawn` False for `--json` and `--jsonl`, whose
    events go to `stream`. It is the `Shown` of the session's question."""

    def __init__(self, *, drawn: bool, stream: JsonlEvents | None = None) -> None:
        self.console, self.notices = output_consoles()
        self.progress = self.console if self.console.is_terminal else self.notices
        self.view = self._view() if drawn else None
        self.stream = stream
        self.listeners = (self.view, stream)
        """What hears the session's events: the live rows, or the `--jsonl` stream."""
        self.approver = TerminalApprover(self.notices, pause=self.view.paused if self.view else None)
        self.approve = self.approver
        self.approve_batch = self.approver.decide
        self.data_build = BuildProgress()
        """What shows the build of the question's data, if one is needed first (on standard error)."""
        self.started_at = time.monotonic()

    def _view(self) -> TurnView:
        if self.console.is_terminal:
            return TurnView(self.console)
        console = self.console
        return TurnView(self.notices, live=False, answer_to=lambda answer: print_answer_source(console, answer))

    def started(self, question: str, session: AskedIn) -> Model:
        """The header (the model, the project, and whether anything can change); the model to ask,
        which the `--jsonl` stream watches."""
        self.started_at = time.monotonic()
        read_only = session.read_only
        if self.view is not None:
            self.progress.print(
                header(session.model.name, read_only=read_only, dataset=session.project_name, rules=session.rule_count)
            )
        if self.stream is None:
            return session.model
        return self.stream.observe(question, session, read_only=read_only)

    def failed(self, exc: BaseException) -> None:
        """The question ended without an answer: its live rows stop where they were."""
        if self.view is not None:
            self.view.abort(cancelled=isinstance(exc, KeyboardInterrupt))

    def answered(self, result: TurnResult) -> int:
        """The answer, the footer and what was not done; with `--json`, the one JSON object; with
        `--jsonl`, the stream's last events. The exit code: 0, or with `--jsonl` 3 when actions were denied."""
        if self.stream is not None:
            return self.stream.result(result)
        if self.view is None:
            # ASCII JSON: every control, C1 and bidi character in the data arrives escaped and inert.
            print_json(result.to_json())
            return 0
        self.view.finish(result.answer)
        if self.console.is_terminal:
            self.console.print()
        self.progress.print(footer(result, time.monotonic() - self.started_at))
        print_denied(self.progress, result.calls)
        return 0
