"""What `ask` and `chat` both set up: settings, tools, the model, the call log, a session id.

Here an answered turn is priced and recorded, and the tracer is offered as a listener on the
session's channel (`call_spans`; `atlas.commands.session` builds the channel, the call log
first): the executor and the loop know nothing of either.
"""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from atlas.calllog import CallLog
from atlas.conversation.loop import TurnResult
from atlas.dataset.ensure import require_dataset
from atlas.executor.approvals import PolicyHook
from atlas.executor.executor import ToolExecutor
from atlas.foundation.config import OFFLINE_MODEL, STATE_FOLDER_NAME, Settings, base_url_setting, model_api
from atlas.foundation.notices import warn
from atlas.llm import Model, resolve
from atlas.mcp.offer import with_mcp_tools
from atlas.protocol.events import Approver, BatchApprover, CallEvent, Listener, SessionEvent
from atlas.runtime.toolset import load_registry
from atlas.telemetry import telemetry_settings
from atlas.tools.registry import Registry, ToolContext

if TYPE_CHECKING:
    from atlas.telemetry.tracing import QuestionTrace, Telemetry


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
    policy: PolicyHook | None = None
    """The approval policy (`[[policy.rules]]`), consulted before a person is asked."""
    rule_count: int = 0
    """How many of its rules apply (the header says so)."""
    telemetry: Telemetry | None = None
    """The run's tracer when OpenTelemetry is on (`atlas.telemetry`); None when off."""
    mcp_start_s: float = 0.0
    """Seconds spent starting MCP servers before the first question (it counts against `--deadline`)."""
    mcp_loaded: bool = True
    """False while the offline planner, which calls no MCP tool, means no server was started."""

    def use_model(self, model: Model) -> None:
        """Questions go to `model` from now on; the first model that can call MCP tools starts the servers."""
        self.model = model
        if not self.mcp_loaded and model.name != OFFLINE_MODEL:
            self.tools = with_mcp_tools(self.tools, self.settings.home)
            self.mcp_loaded = True

    def registry(self, *, read_only: bool) -> Registry:
        return self.tools.read_only() if read_only else self.tools

    def executor(
        self,
        *,
        read_only: bool,
        timeout_s: float,
        concurrency: int,
        approve: Approver,
        events: Listener | None,
        approve_batch: BatchApprover | None = None,
    ) -> ToolExecutor:
        context = ToolContext(
            data=self.settings.data, home=self.settings.home, session=self.session, tracker=self.settings.tracker
        )
        return ToolExecutor(
            self.registry(read_only=read_only),
            timeout_s=timeout_s,
            approve=approve,
            approve_batch=approve_batch,
            max_concurrency=concurrency,
            events=events,
            session=self.session,
            context=context,
            policy=self.policy,
        )

    def call_spans(self) -> Listener | None:
        """The tracer as a listener: each call's events as its spans (None when telemetry is off)."""
        telemetry = self.telemetry
        if telemetry is None:
            return None

        def traced(event: SessionEvent) -> None:
            if isinstance(event, CallEvent):
                telemetry.on_call_event(event)

        return traced

    def trace_ids(self, call_id: str) -> tuple[str, str] | None:
        """The trace and span ids of a call of the current question, when telemetry traces it."""
        return None if self.telemetry is None else self.telemetry.ids_for(call_id)

    @contextlib.contextmanager
    def traced_question(self, question: str, turn: int) -> Iterator[QuestionTrace | None]:
        """The question's span around the block (nothing when telemetry is off)."""
        if self.telemetry is None:
            yield None
            return
        with self.telemetry.question(session=self.session, turn=turn, model=self.model.name, text=question) as trace:
            yield trace

    def close(self) -> None:
        """The end of the run: spans still queued leave (bounded wait), a loss is one warning; the
        call log's connection is closed, so its -wal and -shm files go as they would at exit."""
        if self.telemetry is not None:
            problem = self.telemetry.close()
            self.telemetry = None
            if problem is not None:
                warn(f"{problem}")
        self.call_log.close()

    def record_turn(self, question: str, result: TurnResult) -> TurnResult:
        """The answered turn priced with the configured prices, and recorded in the call log."""
        return record_turn(
            self.call_log, question, result, price_in=self.settings.price_in, price_out=self.settings.price_out
        )


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


def open_runtime(
    model: str | None,
    api: str | None = None,
    *,
    prepare_data: DataPreparer | None = None,
    deadline_s: float | None = None,
) -> Runtime:
    """Settings from the environment (`model` and `api` override), the registry, the model and the log.

    MCP servers are started (within `deadline_s`) only for a model that can call their tools: the
    offline planner never does, so an offline question starts none.
    """
    chosen = model_api(api)
    settings = Settings(api=chosen) if model is None else Settings(model=model, api=chosen)
    require_dataset(settings.data)
    from atlas.policy.gate import PolicyGate, annotations_of
    from atlas.policy.load import load_policy

    rules = load_policy(settings.home)  # a policy it cannot read stops the run before anything starts
    if prepare_data is not None:
        prepare_data(settings.data, settings.home)
    chosen_model: Model = resolve(settings.model, settings.api)
    builtin, started = load_registry(), time.monotonic()
    offline = chosen_model.name == OFFLINE_MODEL
    tools = builtin if offline else with_mcp_tools(builtin, settings.home, deadline_s)
    # Only servers that were started count against `--deadline` (and change what its errors name).
    mcp_start_s = 0.0 if tools is builtin else time.monotonic() - started
    policy = PolicyGate(rules, settings.home, annotations_of(tools))
    telemetry = _start_telemetry(settings, tools)
    if telemetry is not None:
        from atlas.telemetry.model import TracedModel

        chosen_model = TracedModel(
            chosen_model,
            telemetry,
            api=settings.api,
            base_url=base_url_setting(),
            prices=(settings.price_in, settings.price_out),
        )
    return Runtime(
        settings=settings,
        tools=tools,
        model=chosen_model,
        call_log=CallLog.at_home(settings.home),
        session=new_session_id(),
        mcp_start_s=mcp_start_s,
        mcp_loaded=not offline,
        policy=policy,
        rule_count=len(rules.active()),
        telemetry=telemetry,
    )


def _start_telemetry(settings: Settings, tools: Registry) -> Telemetry | None:
    """The tracer when telemetry is on; the SDK is imported only then."""
    from atlas.foundation.config import state_folder

    chosen = state_folder().found_by != f"the nearest {STATE_FOLDER_NAME} folder"
    config = telemetry_settings(settings.home, chosen_folder=chosen)
    if not config.enabled:
        return None
    from atlas.telemetry.start import start_telemetry

    return start_telemetry(config, tools)
