"""What `ask` and `chat` both set up: settings, tools, the model, the call log, a session id.

Here the call log is wired to the executor as a subscriber, and an answered turn is priced
and recorded: the executor and the loop know nothing of either.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from atlas.calllog import CallLog, CallLogWriter
from atlas.config import Settings, model_api
from atlas.dataset import require_dataset
from atlas.events import Approver, BatchApprover, EventSink
from atlas.executor.executor import ToolExecutor
from atlas.llm import Model, resolve
from atlas.loop import TurnResult
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
            observers=[CallLogWriter(self.call_log, self.session)],
            session=self.session,
            context=context,
        )

    def record_turn(self, question: str, result: TurnResult) -> TurnResult:
        """The answered turn priced with the configured prices, and recorded in the call log."""
        return record_turn(
            self.call_log, question, result, price_in=self.settings.price_in, price_out=self.settings.price_out
        )


def with_mcp_tools(tools: Registry, home: Path) -> Registry:
    """The registry plus the tools of every enabled MCP server in `config.toml`.

    The MCP SDK is imported, and the servers started, only when one is configured.
    """
    from atlas.mcp.config import load_servers

    servers = [server for server in load_servers(home) if server.enabled]
    if not servers:
        return tools
    from atlas.mcp.host import host_for
    from atlas.mcp.tools import mcp_specs

    return tools.with_tools(*mcp_specs(host_for(home), servers))


def record_turn(
    call_log: CallLog, question: str, result: TurnResult, *, price_in: float, price_out: float
) -> TurnResult:
    """`result` with its cost (USD per million tokens in and out), after recording it; never raises."""
    priced = dataclasses.replace(result, cost_usd=result.usage.cost_usd(price_in, price_out))
    call_log.record_turn(
        session=priced.session,
        turn=priced.turn,
        question=question,
        answer=priced.answer,
        model=priced.model,
        rounds=priced.rounds,
        input_tokens=priced.usage.input_tokens,
        output_tokens=priced.usage.output_tokens,
        cost_usd=priced.cost_usd,
        ms=priced.ms,
    )
    return priced


DataPreparer = Callable[[Path, Path], None]
"""Makes the dataset ready before any tool runs (the commands pass one that shows its progress)."""


def open_runtime(model: str | None, api: str | None = None, *, prepare_data: DataPreparer | None = None) -> Runtime:
    """Settings from the environment (`model` and `api` override), the registry, the model and the log."""
    chosen = model_api(api)
    settings = Settings(api=chosen) if model is None else Settings(model=model, api=chosen)
    require_dataset(settings.data)
    if prepare_data is not None:
        prepare_data(settings.data, settings.home)
    tools = with_mcp_tools(load_registry(), settings.home)
    return Runtime(
        settings=settings,
        tools=tools,
        model=resolve(settings.model, settings.api),
        call_log=CallLog.at_home(settings.home),
        session=new_session_id(),
    )
