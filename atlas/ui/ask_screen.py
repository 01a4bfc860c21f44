"""What `atlas ask` shows of its one question, made in one place: the header, the live rows and
approvals, then the answer, the footer and what was not done.

On a terminal everything goes to standard output. On a pipe only the answer does (as Markdown
source), and progress goes to standard error as plain lines, as gh and llm do. With `--json` or
`--jsonl` nothing is drawn: standard output carries the JSON and nothing else, and approvals are
still asked on the terminal (`/dev/tty`) when there is one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from atlas.foundation.config import dataset_name
from atlas.ui.approval import TerminalApprover
from atlas.ui.denied import print_denied
from atlas.ui.json_out import print_json
from atlas.ui.render import footer, header, make_console, print_answer_source
from atlas.ui.turn_view import TurnView

if TYPE_CHECKING:
    from atlas.conversation.loop import TurnResult


class AskScreen:
    """The terminal (or pipe) of one `atlas ask`; `drawn` False for `--json` and `--jsonl`."""

    def __init__(self, *, drawn: bool) -> None:
        self.console = make_console()
        self.notices = make_console(stderr=True)
        self.progress = self.console if self.console.is_terminal else self.notices
        self.view = self._view() if drawn else None
        self.approver = TerminalApprover(self.notices, pause=self.view.paused if self.view else None)

    def _view(self) -> TurnView:
        if self.console.is_terminal:
            return TurnView(self.console)
        console = self.console
        return TurnView(self.notices, live=False, answer_to=lambda answer: print_answer_source(console, answer))

    def started(self, model: str, *, read_only: bool, data: Path, rules: int) -> None:
        """The header: the model, the project, and whether anything can change."""
        if self.view is not None:
            self.progress.print(header(model, read_only=read_only, dataset=dataset_name(data), rules=rules))

    def failed(self, exc: BaseException) -> None:
        """The question ended without an answer: its live rows stop where they were."""
        if self.view is not None:
            self.view.abort(cancelled=isinstance(exc, KeyboardInterrupt))

    def answered(self, result: TurnResult, seconds: float) -> None:
        """The answer, the footer and what was not done; with `--json`, the one JSON object."""
        if self.view is None:
            # ASCII JSON: every control, C1 and bidi character in the data arrives escaped and inert.
            print_json(result.to_json())
            return
        self.view.finish(result.answer)
        if self.console.is_terminal:
            self.console.print()
        self.progress.print(footer(result, seconds))
        print_denied(self.progress, result.calls)
