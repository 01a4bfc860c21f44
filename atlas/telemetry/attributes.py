"""The names spans carry: the OpenTelemetry GenAI and MCP semantic conventions, then Atlas's own.

Written out rather than imported from `opentelemetry.semconv._incubating` (a private module whose
names move between releases); the conventions are at "Development" status, so these are the
names as they stand.
"""

from __future__ import annotations

# GenAI conventions
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
AGENT_NAME = "gen_ai.agent.name"
CONVERSATION_ID = "gen_ai.conversation.id"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_DESCRIPTION = "gen_ai.tool.description"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
OUTPUT_MESSAGES = "gen_ai.output.messages"
INPUT_MESSAGES = "gen_ai.input.messages"
ERROR_TYPE = "error.type"
SERVER_ADDRESS = "server.address"
SERVER_PORT = "server.port"

# MCP conventions (a tool call to an MCP server, as a child of `execute_tool`)
MCP_METHOD = "mcp.method.name"
NETWORK_TRANSPORT = "network.transport"

# Atlas's own
SESSION = "atlas.session"
TURN = "atlas.turn"
ROUND = "atlas.round"
ROUNDS = "atlas.rounds"
OUTCOME = "atlas.outcome"
API = "atlas.api"
COST = "atlas.cost_usd"
WAIT_MS = "atlas.model.wait_ms"
RETRIES = "atlas.model.retries"
ERROR_KIND = "atlas.error.kind"
ATTEMPTS = "atlas.attempts"
CACHED = "atlas.cached"
SOURCE = "atlas.tool.source"
SIDE_EFFECT = "atlas.tool.side_effect"
APPROVAL = "atlas.approval.decision"
DECIDED_BY = "atlas.approval.decided_by"
MCP_SERVER = "atlas.mcp.server"

AGENT = "atlas"
INVOKE_AGENT = "invoke_agent"
CHAT = "chat"
EXECUTE_TOOL = "execute_tool"
TOOLS_CALL = "tools/call"
