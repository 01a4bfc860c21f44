"""Whether telemetry is on, and where its spans go: the standard OTel variables, then `[telemetry]`.

Nothing here imports OpenTelemetry, so a run with telemetry off pays nothing for it. The
`[telemetry]` table of a state folder Atlas *found* (the nearest `.atlas/`, which a cloned
repository may ship) is not read: it could send traces to a stranger's endpoint. Only the
environment and a folder the user chose (`ATLAS_HOME`, the user state folder) turn it on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple
from urllib.parse import urlsplit, urlunsplit

from atlas.foundation import statefiles
from atlas.foundation.errors import ConfigError
from atlas.foundation.sanitize import clean_line
from atlas.foundation.url_safety import hide, redact_url, url_secrets

TRACES_PATH = "/v1/traces"
URL_EXAMPLE = "http://localhost:4318"
DEFAULT_SERVICE = "atlas"
CONFIG_FILE = "config.toml"
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})
CONTENT_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The GenAI conventions' opt-in for arguments, results and answer text in spans."""


NO_HEADERS: Mapping[str, str] = MappingProxyType({})
"""The headers of settings that name none: one read-only mapping, shared by all of them."""


class TelemetrySettings(NamedTuple):
    """Where spans go and what they may carry; `endpoint` None means telemetry is off."""

    endpoint: str | None = None
    """The full OTLP/HTTP traces URL (`http://collector:4318/v1/traces`)."""
    service_name: str = DEFAULT_SERVICE
    capture_content: bool = False
    headers: Mapping[str, str] = NO_HEADERS
    """Sent with every export (`OTEL_EXPORTER_OTLP_HEADERS`, e.g. a backend's API key); never shown."""
    source: str = "off"
    """Where the decision came from, for `atlas doctor`: a variable's name or the config file."""

    @property
    def enabled(self) -> bool:
        return self.endpoint is not None

    @property
    def shown_endpoint(self) -> str:
        """The endpoint as a person may see it: a token in its query (`?token=...`) shown as `***`."""
        return redact_url(self.endpoint or "")

    def hidden(self, text: str) -> str:
        """`text` (an exporter's complaint, which may quote the URL it used) without the endpoint's secrets."""
        if not self.endpoint:
            return text
        text = text.replace(self.endpoint, self.shown_endpoint)
        # The query whole as well: a value too short for `url_secrets` to look for in free text is
        # still hidden where a request line quotes it (`/v1/traces?token=abc`).
        secrets = [*url_secrets(self.endpoint), urlsplit(self.endpoint).query]
        return hide(text, sorted(filter(None, secrets), key=len, reverse=True))


def telemetry_settings(home: Path, *, chosen_folder: bool, env: Mapping[str, str] | None = None) -> TelemetrySettings:
    """The settings in force; a ConfigError names a bad value. `chosen_folder`: the user chose `home`."""
    env = os.environ if env is None else env
    if _flag(env.get("OTEL_SDK_DISABLED", ""), "OTEL_SDK_DISABLED") or env.get("OTEL_TRACES_EXPORTER", "") == "none":
        return TelemetrySettings(source="OTEL_SDK_DISABLED" if env.get("OTEL_SDK_DISABLED") else "OTEL_TRACES_EXPORTER")
    table = _config_table(home) if chosen_folder else {}
    protocol = (
        env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL") or "http/protobuf"
    )
    endpoint, source = _endpoint(env, table)
    if endpoint is None:
        return TelemetrySettings()
    if protocol.strip() != "http/protobuf":
        raise ConfigError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL={clean_line(protocol)}: Atlas sends OTLP over http/protobuf only"
        )
    capture = env.get(CONTENT_VARIABLE)
    return TelemetrySettings(
        endpoint=endpoint,
        service_name=(env.get("OTEL_SERVICE_NAME") or str(table.get("service_name") or DEFAULT_SERVICE)).strip(),
        capture_content=_flag(capture, CONTENT_VARIABLE)
        if capture is not None
        else table.get("capture_content") is True,
        headers=_headers(env.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") or env.get("OTEL_EXPORTER_OTLP_HEADERS") or ""),
        source=source,
    )


def _endpoint(env: Mapping[str, str], table: Mapping[str, Any]) -> tuple[str | None, str]:
    """The traces URL: a signal-specific endpoint is used as given; a base endpoint gets `/v1/traces`."""
    specific = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if specific:
        return _checked_url(specific, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if base:
        return _traces_url(_checked_url(base, "OTEL_EXPORTER_OTLP_ENDPOINT")), "OTEL_EXPORTER_OTLP_ENDPOINT"
    configured = table.get("endpoint")
    if configured is None or table.get("enabled") is False:
        return None, "off"
    if not isinstance(configured, str) or not configured.strip():
        raise ConfigError(f"[telemetry] endpoint must be a URL such as {URL_EXAMPLE}")
    url = _checked_url(configured.strip(), "[telemetry] endpoint")
    return (url if urlsplit(url).path.endswith(TRACES_PATH) else _traces_url(url)), CONFIG_FILE


def _traces_url(base: str) -> str:
    """`base` with the traces path after its own path and before its query (`?token=...` stays last)."""
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + TRACES_PATH))


def _checked_url(value: str, name: str) -> str:
    """`value` if it is an http(s) URL with a host and no credentials; a ConfigError naming `name`,
    never quoting a secret, if not."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - a port that is not a number (or out of range) raises only when read
    except ValueError:
        # The URL cannot be taken apart, so its secrets cannot be told from the rest: none of it is shown.
        raise ConfigError(f"{name} is not a URL Atlas can read; give one such as {URL_EXAMPLE}") from None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        shown = clean_line(redact_url(value))
        raise ConfigError(f"{name} must be an http:// or https:// URL such as {URL_EXAMPLE}, got {shown}")
    if parts.username or parts.password:
        raise ConfigError(f"{name} must not carry credentials in the URL: use OTEL_EXPORTER_OTLP_HEADERS")
    return value


def _flag(value: str | None, name: str) -> bool:
    word = (value or "").strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ConfigError(f"{name} must be true or false, got {clean_line(value or '')}")


def _headers(value: str) -> dict[str, str]:
    """`key=value,key2=value2`, the OTLP exporter's format (values percent-encoded)."""
    from urllib.parse import unquote

    headers: dict[str, str] = {}
    for part in value.split(","):
        if not part.strip():
            continue
        key, sep, item = part.partition("=")
        if not sep or not key.strip():
            raise ConfigError("OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas")
        headers[key.strip()] = unquote(item.strip())
    return headers


def _config_table(home: Path) -> Mapping[str, Any]:
    path = home / CONFIG_FILE
    try:
        raw = statefiles.read_bytes(path)
    except (OSError, NotADirectoryError):
        return {}
    if raw is None:
        return {}
    import tomllib  # only with a file to read: ~5 ms of every start otherwise

    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}  # the MCP and policy readers name a broken file; telemetry simply stays off
    table = document.get("telemetry", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{clean_line(path)}: [telemetry] must be a table")
    unknown = set(table) - {"endpoint", "service_name", "capture_content", "enabled"}
    if unknown:
        raise ConfigError(f"{clean_line(path)}: [telemetry] has an unknown setting {clean_line(sorted(unknown)[0])}")
    return table
