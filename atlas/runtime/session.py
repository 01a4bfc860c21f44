"""The sessions a run's tool calls go through, how one is opened, and the one way a question is answered.

A `CallSession` is a run's tools, call log and channel of events, the executor its calls run through
(`attach`) and where they act: `atlas mcp serve`'s host calls and a plan's items run through one. A
`Session` adds the run's settings and model, all opened in one place (`open_session`; the model by its
name: `resolve`). `atlas ask` hands it its one question (`ask_once`, shown by the command's
`ui.ask_screen.Shown`), `atlas chat` each of its questions (`Session.answer`); both go the same way,
trace → run → record.

Every session's listeners come in the same order: the call log first (a call is written before
anything shows that it ended, an approved or denied side effect at once), then the tracer, then
whatever shows the session (the turn's view, the `--jsonl` stream).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.calllog import CallLog, CallLogWriter
from atlas.calllog.log import TraceIds
from atlas.conversation.loop import TurnResult, TurnSettings, run_turn
from atlas.dataset.ensure import ShownProgress, ready_dataset
from atlas.dataset.source import Project
from atlas.executor.approvals import PolicyHook
from atlas.executor.executor import ToolExecutor
from atlas.executor.turn import Turn
from atlas.foundation.config import OFFLINE_MODEL, STATE_FOLDER_NAME, Settings, model_api, state_folder
from atlas.foundation.errors import ConfigError
from atlas.foundation.notices import warn
from atlas.llm import Model
from atlas.mcp.offer import with_mcp_tools
from atlas.protocol.deadline import QuestionDeadline
from atlas.protocol.events import Approver, BatchApprover, CallEvent, CallRecord, Events, Listener, SessionEvent
from atlas.protocol.messages import ToolCall
from atlas.runtime.runner import run_cancellable
from atlas.runtime.toolset import load_registry
from atlas.telemetry import telemetry_for
from atlas.tools.registry import Registry, ToolContext
from atlas.ui.ask_screen import Shown
from atlas.ui.build_progress import BuildProgress

if TYPE_CHECKING:
    from atlas.telemetry.tracing import QuestionTrace, Telemetry


@dataclass(frozen=True, kw_only=True)
class SessionOptions:
    """How a session runs its questions: which model, and how its tool calls are bounded."""

    model: str | None = None
    api: str | None = None
    read_only: bool = False
    max_rounds: int = 5
    timeout_s: float = 5.0
    concurrency: int = 4
    parallel: bool = True


def session_events(
    call_log: CallLog | None,
    session: str,
    *shown_by: Listener | None,
    traced_by: Listener | None = None,
    trace_ids: TraceIds | None = None,
) -> Events:
    """A session's channel: its call log (none: nothing is logged), its tracer, then what shows it."""
    writer = None if call_log is None else CallLogWriter(call_log, session, trace_ids=trace_ids)
    return Events(*(listener for listener in (writer, traced_by, *shown_by) if listener is not None))


@dataclass(kw_only=True)
class CallSession:
    """One run's tools, call log and channel; `attach` gives it the executor its calls run through."""

    tools: Registry
    call_log: CallLog | None
    """None: nothing is logged."""
    id: str
    context: ToolContext
    """Where the calls read and write (the dataset, the state folder, the tracker) and their limits."""
    options: SessionOptions = field(default_factory=SessionOptions)
    policy: PolicyHook | None = None
    """The approval policy (`[[policy.rules]]`), consulted before a person is asked."""
    telemetry: Telemetry | None = None
    """The run's tracer when OpenTelemetry is on (`atlas.telemetry`); None when off."""
    attached: ToolExecutor | None = None
    """Set by `attach`: the executor every call runs through."""

    def __post_init__(self) -> None:
        self.channel = session_events(self.call_log, self.id, traced_by=self._call_spans(), trace_ids=self.trace_ids)
        """The session's one channel: the call log, the tracer, then what `attach` adds."""

    def attach(
        self,
        *shown_by: Listener | None,
        approve: Approver,
        approve_batch: BatchApprover | None = None,
        read_only: bool | None = None,
    ) -> ToolExecutor:
        """The executor for the session's calls, asking `approve`; `read_only` overrides the option.
        `shown_by` hear the session's events after the call log and the tracer."""
        for listener in shown_by:
            if listener is not None:
                self.channel.subscribe(listener)
        options = self.options
        self.attached = ToolExecutor(
            self.registry(read_only=options.read_only if read_only is None else read_only),
            timeout_s=options.timeout_s,
            approve=approve,
            approve_batch=approve_batch,
            max_concurrency=options.concurrency if options.parallel else 1,
            events=self.channel,
            session=self.id,
            context=self.context,
            policy=self.policy,
        )
        return self.attached

    def run_calls(self, calls: Sequence[ToolCall]) -> tuple[list[dict[str, Any]], dict[str, CallRecord]]:
        """`calls` run together on a loop of their own: each one's output, in order, and its record by call id."""
        outputs = asyncio.run(self.executor.run_all(list(calls)))
        return outputs, {record.call_id: record for record in self.executor.log}

    async def run_call(self, call: ToolCall) -> dict[str, Any]:
        """One call on the caller's loop (an MCP host's): its output."""
        return await self.executor.run_one(call)

    def registry(self, *, read_only: bool) -> Registry:
        return self.tools.read_only() if read_only else self.tools

    def set_read_only(self, read_only: bool) -> None:
        """Side-effect tools offered (False) or not (True) from the next call on; the rest stays."""
        self.attached = self.executor.with_registry(self.registry(read_only=read_only))

    def trace_ids(self, call_id: str) -> tuple[str, str] | None:
        """The trace and span ids of a call of the current question, when telemetry traces it."""
        return None if self.telemetry is None else self.telemetry.ids_for(call_id)

    def close(self) -> None:
        """The end of the run: spans still queued leave (bounded wait), a loss is one warning; the
        call log's connection is closed, so its -wal and -shm files go as they would at exit."""
        if self.telemetry is not None:
            problem = self.telemetry.close()
            self.telemetry = None
            if problem is not None:
                warn(f"{problem}")
        if self.call_log is not None:
            self.call_log.close()

    @property
    def executor(self) -> ToolExecutor:
        """The attached executor (`attach` first)."""
        if self.attached is None:
            raise RuntimeError("the session has no executor: attach one first")
        return self.attached

    def _call_spans(self) -> Listener | None:
        """The tracer as a listener: each call's events as its spans (None when telemetry is off)."""
        telemetry = self.telemetry
        if telemetry is None:
            return None

        def traced(event: SessionEvent) -> None:
            if isinstance(event, CallEvent):
                telemetry.on_call_event(event)

        return traced


@dataclass(kw_only=True)
class Session(CallSession):
    """A `CallSession` with the run's settings and model; `answer` answers one question."""

    settings: Settings
    project: Project
    """What its questions are told of the dataset (read when the session opened)."""
    model: Model
    call_log: CallLog
    """Every question's calls and answer are written there."""
    rule_count: int = 0
    """How many of its rules apply (the header says so)."""
    deadline: QuestionDeadline | None = None
    """The deadline of the one question `ask` answers (`atlas ask --deadline`), running since before the
    MCP servers started; None: none. `answer` does not use it: a question brings its own in its `TurnSettings`."""
    mcp_loaded: bool = True
    """False while the offline planner, which calls no MCP tool, means no server was started."""

    def use_model(self, model: Model) -> None:
        """Questions go to `model` from now on; the first model that can call MCP tools starts the servers."""
        self.model = model
        if not self.mcp_loaded and model.name != OFFLINE_MODEL:
            self.tools = with_mcp_tools(self.tools, self.settings.home)
            self.mcp_loaded = True

    def start_turn(self, number: int, settings: TurnSettings) -> Turn:
        """Question `number`'s budget and what it will read, from now."""
        return self.executor.new_turn(number, deadline=settings.deadline)

    def ask(self, question: str, settings: TurnSettings, shown: Shown) -> int:
        """A run's one question, shown by `shown`: the executor attached to what shows it, the question's
        turn started (within the session's deadline), shown started, answered and recorded; the exit
        code `shown` makes of the answer."""
        self.attach(*shown.listeners, approve=shown.approve, approve_batch=shown.approve_batch)
        settings = settings._replace(deadline=self.deadline)
        turn = self.start_turn(1, settings)
        model = shown.started(question, self)
        try:
            result = self.answer(question, [], settings, turn=turn, model=model)
        except BaseException as exc:
            shown.failed(exc)
            raise
        return shown.answered(result)

    def answer(
        self,
        question: str,
        history: list[dict[str, Any]],
        settings: TurnSettings,
        *,
        turn: Turn | None = None,
        model: Model | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> TurnResult:
        """Answer `question` in its span: run the turn (Ctrl-C cancels it), then price and record it. `turn`
        (from `start_turn`) when the caller keeps it; question 1, started now, when None."""
        turn = self.start_turn(1, settings) if turn is None else turn
        coro = run_turn(
            question,
            history,
            model=model or self.model,
            executor=self.executor,
            session=self.id,
            turn=turn,
            settings=settings,
            project=self.project,
        )
        with self._traced_question(question, turn.number) as trace:
            result = run_cancellable(coro, loop)
            result = record_turn(
                self.call_log, question, result, price_in=self.settings.price_in, price_out=self.settings.price_out
            )
            if trace is not None:
                trace.finish(result)
        return result

    @property
    def project_name(self) -> str:
        """The name of the project its questions are about."""
        return self.project.name

    @property
    def read_only(self) -> bool:
        """Whether its questions are offered no side-effect tools."""
        return self.options.read_only

    @contextlib.contextmanager
    def _traced_question(self, question: str, turn: int) -> Iterator[QuestionTrace | None]:
        """The question's span around the block (nothing when telemetry is off)."""
        if self.telemetry is None:
            yield None
            return
        with self.telemetry.question(session=self.id, turn=turn, model=self.model.name, text=question) as trace:
            yield trace


def record_turn(
    call_log: CallLog | None, question: str, result: TurnResult, *, price_in: float, price_out: float
) -> TurnResult:
    """`result` with its cost (USD per million tokens in and out), after recording it (with a call log)."""
    priced = dataclasses.replace(result, cost_usd=result.usage.cost_usd(price_in, price_out))
    if call_log is not None:
        call_log.record_answer(question, priced)
    return priced


def new_session_id() -> str:
    """`1130-142501-7f3a`: sortable by time, unique by its random tail, short enough to type."""
    return f"{datetime.now():%m%d-%H%M%S}-{secrets.token_hex(2)}"


def ask_once(
    question: str, options: SessionOptions, settings: TurnSettings, shown: Shown, *, deadline_s: float | None = None
) -> int:
    """A session opened on `options` for `question` (its deadline `deadline_s`, None: none) answers it,
    shown by `shown`, and closes: the exit code `shown` makes of the answer."""
    session = open_session(options, deadline_s=deadline_s, build=shown.data_build)
    try:
        return session.ask(question, settings, shown)
    finally:
        session.close()


def open_session(
    options: SessionOptions, *, deadline_s: float | None = None, build: ShownProgress | None = None
) -> Session:
    """A session on settings from the environment (`options.model` and `.api` override) and its data,
    made ready first (its issues db built now when missing or stale, shown by `build`, a `BuildProgress`
    when None). `deadline_s`, the deadline of the one question it is opened for, starts once the data is
    ready and bounds the MCP servers' start, then the question. Only a model that can call MCP tools
    starts their servers: an offline question starts none."""
    chosen = model_api(options.api)
    settings = Settings(api=chosen) if options.model is None else Settings(model=options.model, api=chosen)
    chosen_folder = state_folder().found_by != f"the nearest {STATE_FOLDER_NAME} folder"
    from atlas.policy.gate import PolicyGate

    policy = PolicyGate.at_home(settings.home)  # a policy it cannot read stops the run before anything starts
    rule_count = policy.rule_count
    project = ready_dataset(settings.data, settings.home, BuildProgress() if build is None else build)
    chosen_model: Model = resolve(settings.model, settings.api)
    builtin = load_registry()
    deadline = None if deadline_s is None else QuestionDeadline.within(deadline_s)
    offline = chosen_model.name == OFFLINE_MODEL
    tools = builtin if offline else with_mcp_tools(builtin, settings.home, deadline)
    telemetry = telemetry_for(settings.home, tools, chosen_folder=chosen_folder)
    if telemetry is not None:
        from atlas.telemetry.model import TracedModel

        chosen_model = TracedModel(chosen_model, telemetry, settings)
    session_id = new_session_id()
    return Session(
        settings=settings,
        project=project,
        context=ToolContext(data=settings.data, home=settings.home, session=session_id, tracker=settings.tracker),
        tools=tools,
        model=chosen_model,
        call_log=CallLog.at_home(settings.home),
        id=session_id,
        options=options,
        deadline=deadline,
        mcp_loaded=not offline,
        policy=policy,
        rule_count=rule_count,
        telemetry=telemetry,
    )


REPLAY_PREFIX = "replay:"


def resolve(name: str, api: str = "responses") -> Model:
    """The model a `--model` value names: `offline`, `replay:PATH`, or a model on the `api` wire, chosen
    here, above both the wire adapters (`atlas.llm`) and the offline planner (`atlas.offline`). Modules
    are imported only when chosen: `import openai` alone costs about a second."""
    name = name.strip()
    if not name:
        raise ConfigError("the model name is empty: use --model offline, --model replay:PATH or an OpenAI model")
    if name == OFFLINE_MODEL:
        from atlas.offline.model import OfflinePlanner  # from its module, not the package's lazy __getattr__

        return OfflinePlanner()
    if name.startswith(REPLAY_PREFIX):
        path = name[len(REPLAY_PREFIX) :].strip()
        if not path:
            raise ConfigError("--model replay:PATH needs the path of a replay script")
        from atlas.llm.scripted import ScriptedModel

        return ScriptedModel.from_file(Path(path).expanduser())
    from difflib import get_close_matches  # only a name that is neither offline nor a replay is judged

    if not os.environ.get("OPENAI_API_KEY", "").strip() and get_close_matches(name.lower(), [OFFLINE_MODEL]):
        # Without a key only `offline` and `replay:` can answer: a near miss is a typo, not an OpenAI model.
        raise ConfigError(f"unknown model {name!r}: did you mean --model offline?")
    if api == "chat":
        from atlas.llm.chat_completions import ChatCompletionsModel

        return ChatCompletionsModel(name)
    from atlas.llm.openai import OpenAIModel

    return OpenAIModel(name)
