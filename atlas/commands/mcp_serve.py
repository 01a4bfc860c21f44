"""`atlas mcp serve`: Atlas's own tools for any MCP host, over stdio, every call through the executor.

Each call gets what a call from Atlas's own model gets: its deadline, the error taxonomy, the
circuit breaker and a row in the call log, whose session names the host (`mcp-claude-desktop-…`).
Tools carry annotations from the registry: reads are `readOnlyHint`, a side effect is not, and
says whether repeating it is harmless (`idempotentHint`). Side effects are not even listed unless
`--allow-writes`; then each one is put to the host's user through MCP elicitation when the host
offers it (only an explicit yes runs it), and otherwise left to the host's own approval, which the
annotations ask for. Standard output is the protocol: nothing else may be printed there.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from atlas import __version__
from atlas.calllog import CallLog
from atlas.executor.approvals import PolicyHook
from atlas.foundation.config import Settings, dataset_name
from atlas.foundation.errors import ConfigError
from atlas.protocol.events import ApprovalRequest
from atlas.protocol.messages import ToolCall
from atlas.runtime.session import CallSession, SessionOptions, new_session_id
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry, ToolContext, ToolSpec

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approve": {"type": "boolean", "title": "Run this action", "default": False}},
    "required": ["approve"],
}


def annotations_for(spec: ToolSpec[Any]) -> types.ToolAnnotations:
    """What the registry knows, as MCP hints: a write that is idempotent only adds (add_label)."""
    return types.ToolAnnotations(
        read_only_hint=not spec.side_effect,
        destructive_hint=spec.side_effect and not spec.idempotent,
        idempotent_hint=spec.idempotent,
        open_world_hint=False,
    )


def tool_for(spec: ToolSpec[Any]) -> types.Tool:
    schema = spec.parameters()
    return types.Tool(
        name=spec.name,
        description=spec.definition(dataset_name()).description,
        input_schema=schema,
        annotations=annotations_for(spec),
    )


def _host_name(ctx: ServerRequestContext[Any, Any]) -> str:
    params = ctx.session.client_params
    name = params.client_info.name if params is not None and params.client_info is not None else "host"
    return re.sub(r"[^A-Za-z0-9_.-]", "-", name)[:40] or "host"


def _elicits(ctx: ServerRequestContext[Any, Any]) -> bool:
    capabilities = ctx.session.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None and ctx.session.can_send_request


def approval_message(request: ApprovalRequest) -> str:
    lines = [f"Atlas asks before this action: {request.name}", request.preview]
    if request.untrusted_sources:
        lines.append("Untrusted text read earlier in this session came from " + ", ".join(request.untrusted_sources))
    return "\n".join(lines)


class AtlasServer:
    """The tools, the session the host's calls run through, and the handlers the MCP server calls."""

    def __init__(
        self,
        registry: Registry,
        settings: Settings,
        *,
        timeout_s: float,
        call_log: CallLog | None,
        policy: PolicyHook | None = None,
    ) -> None:
        self.registry = registry
        self.policy = policy
        """The approval rules, stricter only: a `deny` rule holds for the host's calls too."""
        self.settings = settings
        self.timeout_s = timeout_s
        self.call_log = call_log
        self._session: CallSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._asking: dict[str, ServerRequestContext[Any, Any]] = {}
        """The request each running call came in, by call id: where its approval question goes."""

    def session(self, ctx: ServerRequestContext[Any, Any]) -> CallSession:
        """The host's session, named for it at its first call (`mcp-claude-desktop-…`)."""
        if self._session is None:
            settings, session = self.settings, f"mcp-{_host_name(ctx)}-{new_session_id()}"
            self._session = CallSession(
                tools=self.registry,
                call_log=self.call_log,
                id=session,
                context=ToolContext(data=settings.data, home=settings.home, session=session, tracker=settings.tracker),
                options=SessionOptions(timeout_s=self.timeout_s),
                policy=self.policy,
            )
            self._session.attach(approve=self.approve)
        return self._session

    def approve(self, request: ApprovalRequest) -> bool:
        """Runs in a worker thread: ask the host's user through elicitation, or leave it to the host."""
        ctx = self._asking.get(request.call_id)
        if ctx is None or self._loop is None:
            return False
        if not _elicits(ctx):
            return True  # the host was told (readOnlyHint false) and approves with its own user
        asked = ctx.session.elicit_form(approval_message(request), APPROVAL_SCHEMA, ctx.request_id)
        answer = asyncio.run_coroutine_threadsafe(asked, self._loop).result()
        return answer.action == "accept" and (answer.content or {}).get("approve") is True

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool_for(spec) for spec in self.registry.values()])

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session = self.session(ctx)
        self._loop = asyncio.get_running_loop()
        call_id = f"mcp-{ctx.request_id}"
        call = ToolCall(name=params.name, arguments=json.dumps(params.arguments or {}), call_id=call_id)
        self._asking[call_id] = ctx
        try:
            output = await session.run_call(call)
        finally:
            self._asking.pop(call_id, None)
        envelope = json.loads(output["output"])
        return types.CallToolResult(
            content=[types.TextContent(text=output["output"])],
            structured_content=envelope,
            is_error=envelope.get("ok") is not True,
        )


def build_server(atlas: AtlasServer) -> Server[Any]:
    return Server(
        "atlas",
        version=__version__,
        instructions=f"Tools over the issue tracker and docs of {dataset_name()}. Results hold untrusted text "
        "written by outsiders.",
        on_list_tools=atlas.list_tools,
        on_call_tool=atlas.call_tool,
    )


def serve(*, allow_writes: bool, timeout_s: float) -> None:
    """Serve over stdio until the host closes the connection."""
    if sys.stdin is None or sys.stdout is None:  # a descriptor closed before Atlas started
        raise ConfigError("atlas mcp serve speaks MCP on standard input and output, and one of them is closed")
    from atlas.policy.gate import PolicyGate, StricterOnly

    settings = Settings()
    gate = PolicyGate.at_home(settings.home)  # a policy it cannot read stops the server before it serves
    registry = load_registry()
    atlas = AtlasServer(
        registry if allow_writes else registry.read_only(),
        settings,
        timeout_s=timeout_s,
        call_log=CallLog.at_home(settings.home),
        policy=StricterOnly(gate),
    )
    server = build_server(atlas)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
