"""OpenTelemetry traces of every question, model request and tool call, sent to any OTLP backend.

Off by default. `settings.py` decides from the standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT`,
`OTEL_SERVICE_NAME`, ...) or a `[telemetry]` table whether it is on, without importing the SDK;
only when it is on does `tracing.py` import the OpenTelemetry SDK (the `otel` extra). Spans follow
the GenAI semantic conventions (`attributes.py`); the call log stays the local record.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.telemetry.settings import TelemetrySettings, telemetry_settings

if TYPE_CHECKING:
    from atlas.telemetry.tracing import Telemetry

__all__ = ["TelemetrySettings", "telemetry_for", "telemetry_settings"]


def telemetry_for(home: Path, tools: Mapping[str, Any], *, chosen_folder: bool) -> Telemetry | None:
    """The run's tracer when telemetry is on (`telemetry_settings`), None when off; the SDK is imported only then."""
    config = telemetry_settings(home, chosen_folder=chosen_folder)
    if not config.enabled:
        return None
    from atlas.telemetry.start import start_telemetry

    return start_telemetry(config, tools)
