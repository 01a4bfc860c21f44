"""What `ask` and `chat` both set up: settings, tools, the model, the call log, a session id."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from atlas.calllog import CallLog
from atlas.config import Settings
from atlas.events import Approver, BatchApprover, EventSink
from atlas.llm import Model, resolve
from atlas.tools.executor import ToolExecutor
from atlas.tools.registry import Registry, ToolContext, load_registry


def new_session_id() -> str:
    """`1130-142501-7f3a`: sortable by time, unique by its random tail, short enough to type."""
    return f"{datetime.now():%m%d-%H%M%S}-{secrets.token_hex(2)}"


@dataclass
class Runtime:
    """One run's fixed parts."""

    settings: Settings
    tools: Registry
    model: Model
    call_log: CallLog
    session: str

    def registry(self, *, read_only: bool) -> Registry:
        return self.tools.read_only() if read_only else self.tools

    def executor(
        self,
        *,
        read_only: bool,
        timeout_s: float,
        concurrency: int,
        approve: Approver,
        on_event: EventSink | None,
        approve_batch: BatchApprover | None = None,
    ) -> ToolExecutor:
        context = ToolContext(data=self.settings.data, home=self.settings.home, session=self.session)
        return ToolExecutor(
            self.registry(read_only=read_only),
            timeout_s=timeout_s,
            approve=approve,
            approve_batch=approve_batch,
            max_concurrency=concurrency,
            on_event=on_event,
            call_log=self.call_log,
            session=self.session,
            context=context,
        )


def open_runtime(model: str | None) -> Runtime:
    """Settings from the environment (`model` overrides), the registry, the model and the log."""
    settings = Settings() if model is None else Settings(model=model)
    tools = load_registry()
    return Runtime(
        settings=settings,
        tools=tools,
        model=resolve(settings.model),
        call_log=CallLog.at_home(settings.home),
        session=new_session_id(),
    )
