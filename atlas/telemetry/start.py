"""Turning telemetry on for a run: the SDK imported only now, and a missing SDK is one warning."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from atlas.foundation.notices import warn
from atlas.foundation.sanitize import clean_line
from atlas.telemetry.settings import TelemetrySettings

if TYPE_CHECKING:
    from atlas.telemetry.tracing import Telemetry, ToolSource

INSTALL_HINT = "pip install 'atlas-orbit[otel]'"
MCP_SEPARATOR = "__"


def sdk_installed() -> bool:
    import importlib.util

    return all(
        importlib.util.find_spec(name) is not None
        for name in ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http")
    )


def start_telemetry(settings: TelemetrySettings, tools: Mapping[str, Any]) -> Telemetry | None:
    """The run's tracer when telemetry is on and the SDK is there; None (after one warning) when not."""
    if not settings.enabled:
        return None
    try:
        from atlas.telemetry.tracing import Telemetry
    except ImportError:
        warn(
            f"telemetry is on ({clean_line(settings.source)}) but the OpenTelemetry SDK "
            f"is not installed: {INSTALL_HINT}",
        )
        return None
    return Telemetry(settings, tool_source=tool_sources(tools))


def tool_sources(tools: Mapping[str, Any]) -> Callable[[str], ToolSource]:
    """Where each tool of `tools` runs: an MCP server (its breaker key names it), a plugin, or built in."""
    from atlas.telemetry.tracing import ToolSource

    def source(name: str) -> ToolSource:
        spec = tools.get(name)
        if spec is None:
            return ToolSource("unknown")
        key = getattr(spec, "breaker_key", None) or ""
        if key.startswith("mcp:"):
            server = key[len("mcp:") :]
            return ToolSource(
                key, side_effect=spec.side_effect, mcp_server=server, mcp_tool=name.partition(MCP_SEPARATOR)[2] or name
            )
        module = getattr(spec.fn, "__module__", "") or ""
        return ToolSource(
            "builtin" if module.startswith("atlas.") else module or "plugin", side_effect=spec.side_effect
        )

    return source
