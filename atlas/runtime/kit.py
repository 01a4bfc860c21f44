"""Opening a session: settings from the environment, the tools, the model, the policy, the tracer, the call log."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from atlas.calllog import CallLog
from atlas.dataset.ensure import require_dataset
from atlas.foundation.config import OFFLINE_MODEL, STATE_FOLDER_NAME, Settings, base_url_setting, model_api
from atlas.llm import Model, resolve
from atlas.mcp.offer import with_mcp_tools
from atlas.runtime.session import Session, SessionOptions
from atlas.runtime.toolset import load_registry
from atlas.telemetry import telemetry_settings
from atlas.tools.registry import Registry, ToolContext

if TYPE_CHECKING:
    from atlas.telemetry.tracing import Telemetry


def new_session_id() -> str:
    """`1130-142501-7f3a`: sortable by time, unique by its random tail, short enough to type."""
    return f"{datetime.now():%m%d-%H%M%S}-{secrets.token_hex(2)}"


DataPreparer = Callable[[Path, Path], None]
"""Makes the dataset ready before any tool runs (the commands pass one that shows its progress)."""


def open_session(
    options: SessionOptions, *, prepare_data: DataPreparer | None = None, deadline_s: float | None = None
) -> Session:
    """A session on settings from the environment (`options.model` and `.api` override) and its data.

    MCP servers are started (within `deadline_s`) only for a model that can call their tools: the
    offline planner never does, so an offline question starts none.
    """
    chosen = model_api(options.api)
    settings = Settings(api=chosen) if options.model is None else Settings(model=options.model, api=chosen)
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
    session_id = new_session_id()
    return Session(
        settings=settings,
        context=ToolContext(data=settings.data, home=settings.home, session=session_id, tracker=settings.tracker),
        tools=tools,
        model=chosen_model,
        call_log=CallLog.at_home(settings.home),
        id=session_id,
        options=options,
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
