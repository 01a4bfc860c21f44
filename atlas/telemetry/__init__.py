"""OpenTelemetry traces of every question, model request and tool call, sent to any OTLP backend.

Off by default. `settings.py` decides from the standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT`,
`OTEL_SERVICE_NAME`, ...) or a `[telemetry]` table whether it is on, without importing the SDK;
only when it is on does `tracing.py` import the OpenTelemetry SDK (the `otel` extra). Spans follow
the GenAI semantic conventions (`attributes.py`); the call log stays the local record.
"""

from __future__ import annotations

from atlas.telemetry.settings import TelemetrySettings, telemetry_settings

__all__ = ["TelemetrySettings", "telemetry_settings"]
