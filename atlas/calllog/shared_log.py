"""The team's call log in the shared database, read as `atlas log` reads a local `log.db`: the same
methods (`calls`, `questions`, `stats`, `calls_per_question`, `export_script`) and shapes, each
call also naming who made it and on which machine; `person` narrows every read to one person's calls."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Unpack

from atlas.calllog import per_question
from atlas.calllog.queries import CallFilters, logged_kind, parse_arguments, replay_script, tool_stats
from atlas.calllog.store import CallLogError
from atlas.state.postgres import calls as shared_calls
from atlas.state.postgres.database import SharedDatabase


class SharedCallLog:
    """One database's call log, of everyone or of `person`."""

    def __init__(self, database: SharedDatabase, person: str | None = None) -> None:
        self.database = database
        self.person = person
        self.path = database.shown
        """Where the log is, for a person (no credentials)."""

    def calls(self, limit: int | None = 20, **filters: Unpack[CallFilters]) -> list[dict[str, Any]]:
        """The latest calls matching the filters, newest last, in the `atlas log --json` shape."""
        found = shared_calls.latest_calls(self.database, limit=limit, filters=dict(filters), person=self.person)
        return [
            {**call, "arguments": _arguments(call["arguments"]), "kind": logged_kind(call["kind"])} for call in found
        ]

    def questions(self, sessions: Iterable[str]) -> dict[tuple[str, int], str]:
        return shared_calls.questions(self.database, sessions)

    def stats(
        self, tool: str | None = None, session: str | None = None, since: float | None = None
    ) -> list[dict[str, Any]]:
        filters = {"tool": tool, "session": session, "since": since}
        return [
            tool_stats(entry["name"], entry["percentiles"], entry["kinds"], entry["retries"])
            for entry in shared_calls.tool_stats(self.database, filters, self.person)
        ]

    def calls_per_question(
        self, tool: str | None = None, session: str | None = None, since: float | None = None
    ) -> dict[str, Any]:
        filters = {"tool": tool, "session": session, "since": since}
        rows = shared_calls.question_sources(self.database, filters, self.person)
        unfiltered = tool is None and session is None and since is None
        answered = shared_calls.answered(self.database, self.person) if unfiltered else []
        return per_question.from_rows(rows, answered)

    def export_script(self, session: str) -> dict[str, Any]:
        calls, answers = shared_calls.session_script(self.database, session)
        if not calls and not answers:
            raise CallLogError(f"no session {session!r} in the call log of {self.path}")
        return replay_script(calls, answers)


def _arguments(raw: Any) -> Any:
    return parse_arguments(raw) if isinstance(raw, str) else raw
