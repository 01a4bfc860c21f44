"""Whether the OTLP endpoint answers: an empty export, which a collector takes and answers 200."""

from __future__ import annotations

from atlas.telemetry.settings import TelemetrySettings

PROBE_TIMEOUT_S = 3.0


def probe_endpoint(settings: TelemetrySettings) -> tuple[bool, str]:
    """(answers, what it said). An empty body is a valid, empty `ExportTraceServiceRequest`."""
    import httpx

    assert settings.endpoint is not None
    try:
        answer = httpx.post(
            settings.endpoint,
            content=b"",
            headers={"Content-Type": "application/x-protobuf", **settings.headers},
            timeout=PROBE_TIMEOUT_S,
        )
    except httpx.TimeoutException:
        return False, f"no answer within {PROBE_TIMEOUT_S:g} s"
    except httpx.HTTPError as exc:
        return False, f"unreachable ({type(exc).__name__})"
    if answer.is_success:
        return True, f"answers ({answer.status_code})"
    return False, f"refuses exports ({answer.status_code})"
