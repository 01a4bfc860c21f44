"""Opening a session: settings from the environment, the tools, the model (by its name: `resolve`), the policy,
the tracer, the call log."""

from __future__ import annotations

import os
import secrets
from datetime import datetime
from pathlib import Path

from atlas.calllog import CallLog
from atlas.conversation.loop import TurnSettings
from atlas.dataset.ensure import ready_dataset
from atlas.foundation.config import (
    OFFLINE_MODEL,
    STATE_FOLDER_NAME,
    Settings,
    base_url_setting,
    model_api,
    state_folder,
)
from atlas.foundation.errors import ConfigError
from atlas.llm import Model
from atlas.mcp.offer import with_mcp_tools
from atlas.protocol.deadline import QuestionDeadline
from atlas.runtime.session import Session, SessionOptions, Shown
from atlas.runtime.toolset import load_registry
from atlas.telemetry import telemetry_for
from atlas.tools.registry import ToolContext
from atlas.ui.build_progress import BuildProgress


def new_session_id() -> str:
    """`1130-142501-7f3a`: sortable by time, unique by its random tail, short enough to type."""
    return f"{datetime.now():%m%d-%H%M%S}-{secrets.token_hex(2)}"


def ask_once(
    question: str, options: SessionOptions, settings: TurnSettings, shown: Shown, *, deadline_s: float | None = None
) -> int:
    """A session opened on `options` for `question` (its deadline `deadline_s`, None: none) answers it,
    shown by `shown`, and closes: the exit code `shown` makes of the answer."""
    session = open_session(options, deadline_s=deadline_s)
    try:
        return session.ask(question, settings, shown)
    finally:
        session.close()


def open_session(options: SessionOptions, *, deadline_s: float | None = None) -> Session:
    """A session on settings from the environment (`options.model` and `.api` override) and its data,
    made ready first (`ready_dataset`: its issues db built now when missing or stale, the build shown).

    `deadline_s` is the deadline of the one question the session is opened for: it starts once the data
    is ready (a build is not the question's time) and bounds the MCP servers' start, then the question.
    MCP servers are started only for a model that can call their tools: the offline planner never
    does, so an offline question starts none.
    """
    chosen = model_api(options.api)
    settings = Settings(api=chosen) if options.model is None else Settings(model=options.model, api=chosen)
    chosen_folder = state_folder().found_by != f"the nearest {STATE_FOLDER_NAME} folder"
    from atlas.policy.gate import PolicyGate

    policy = PolicyGate.at_home(settings.home)  # a policy it cannot read stops the run before anything starts
    rule_count = policy.rule_count
    project = ready_dataset(settings.data, settings.home, BuildProgress())
    chosen_model: Model = resolve(settings.model, settings.api)
    builtin = load_registry()
    deadline = None if deadline_s is None else QuestionDeadline.within(deadline_s)
    offline = chosen_model.name == OFFLINE_MODEL
    tools = builtin if offline else with_mcp_tools(builtin, settings.home, deadline)
    telemetry = telemetry_for(settings.home, tools, chosen_folder=chosen_folder)
    if telemetry is not None:
        from atlas.telemetry.model import TracedModel

        chosen_model = TracedModel(
            chosen_model,
            telemetry,
            api=settings.api,
            base_url=base_url_setting(),
            prices=(settings.price_in, settings.price_out),
        )
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
    """The model a `--model` value names: `offline`, `replay:PATH`, or a model on the `api` wire. It is
    chosen here, above both the wire adapters (`atlas.llm`) and the offline planner (`atlas.offline`).

    Modules are imported only when chosen: `import openai` alone costs about a second.
    """
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
