"""An OTLP endpoint as someone hands it over: a backend's token in its query, or a URL that is not one.

The token reaches the collector (the traces path goes before the query) and nothing Atlas prints
shows it: not the end-of-run warning, not `atlas doctor`, not its JSON. A URL that cannot be read is
one line naming the setting, never "unexpected ValueError", never the value's secrets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.run import assert_no_traceback, atlas_env, invoke
from tests.telemetry.otlp_receiver import otlp_receiver

TOKEN = "tk-7f3a9c2e51d8"
"""A backend's ingest token, as a collector behind a proxy is often given it: `?token=...`."""


def test_a_token_in_the_endpoint_query_reaches_the_collector_after_the_traces_path(tmp_path: Path) -> None:
    with otlp_receiver() as receiver:
        env = atlas_env(tmp_path / "home", OTEL_EXPORTER_OTLP_ENDPOINT=f"{receiver.url}/?token={TOKEN}")
        run = invoke("ask", "show issue 41", env=env)
        assert run.code == 0, run
        spans = receiver.wait_for(3)
    assert receiver.requests and receiver.requests[0]["path"] == f"/v1/traces?token={TOKEN}"
    assert any(span.name == "invoke_agent atlas" for span in spans)
    assert TOKEN not in run.output


@pytest.mark.parametrize("mode", ["refuse", "hang"])
def test_a_token_in_the_endpoint_query_is_never_printed(tmp_path: Path, mode: str) -> None:
    """The end-of-run warning names the setting and the endpoint with its token hidden."""
    with otlp_receiver(mode) as receiver:
        env = atlas_env(tmp_path / "home", OTEL_EXPORTER_OTLP_ENDPOINT=f"{receiver.url}?token={TOKEN}")
        run = invoke("ask", "show issue 41", env=env)
        doctor = invoke("doctor", env=env)
        doctor_json = invoke("doctor", "--json", env=env)
    assert run.code == 0, run
    assert_no_traceback(run)
    [warning] = [line for line in run.stderr.splitlines() if "telemetry" in line]
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" in warning and "token=***" in warning, warning
    (check,) = [check for check in json.loads(doctor_json.stdout)["checks"] if check["name"] == "telemetry"]
    assert check["facts"]["endpoint"] == f"{receiver.url}/v1/traces?token=***"
    for shown in (run, doctor, doctor_json):
        assert TOKEN not in shown.output, shown


def test_a_refused_connection_is_named_without_the_token(tmp_path: Path) -> None:
    """The HTTP client's own error quotes the request line (`/v1/traces?token=...`): not shown either."""
    with otlp_receiver() as gone:
        url = gone.url  # nothing listens there any more: connections are refused
    short = "ab12"  # shorter than any secret looked for in free text: hidden all the same
    for token in (TOKEN, short):
        env = atlas_env(tmp_path / "home", OTEL_EXPORTER_OTLP_ENDPOINT=f"{url}?token={token}")
        run = invoke("ask", "show issue 41", env=env)
        assert run.code == 0, run
        [warning] = [line for line in run.stderr.splitlines() if "telemetry" in line]
        assert "OTEL_EXPORTER_OTLP_ENDPOINT" in warning, warning
        assert f"token={token}" not in run.output and (token == short or token not in run.output), run


MALFORMED = [
    "http://[::1",
    f"http://[::1/?token={TOKEN}",
    f"http://collector:99999/?token={TOKEN}",
    f"http://collector:port{TOKEN}/",
    f"collector:4318/?token={TOKEN}",
    f"ftp://collector/?token={TOKEN}",
]


@pytest.mark.parametrize("value", MALFORMED)
@pytest.mark.parametrize("setting", ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"])
def test_a_malformed_endpoint_is_one_line_naming_the_setting(tmp_path: Path, setting: str, value: str) -> None:
    run = invoke("ask", "show issue 41", env=atlas_env(tmp_path / "home", **{setting: value}))
    assert run.code == 2, run
    assert_no_traceback(run)
    [line] = run.stderr.splitlines()
    assert line.startswith(f"atlas: error: {setting} "), line
    assert "unexpected" not in line and TOKEN not in run.output, line


@pytest.mark.parametrize("value", MALFORMED[:3])
def test_a_malformed_endpoint_in_the_config_file_is_one_line(tmp_path: Path, value: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(f"[telemetry]\nendpoint = {json.dumps(value)}\n", encoding="utf-8")
    for command in (("ask", "show issue 41"), ("doctor",)):
        run = invoke(*command, env=atlas_env(home))
        assert_no_traceback(run)
        assert "unexpected" not in run.output and TOKEN not in run.output, run
        assert "[telemetry] endpoint" in run.output, run
