"""Credentials inside the model server's URL (`user:pass@host`, a token in the query) are never shown.

The client needs the URL whole; every line a person sees, every `--json`, `atlas doctor`,
`atlas models` and the call log get it with `***` in their place. Run through the real CLI
against loopback servers (a hostile one reporting absurd usage, so that a warning names it) and
a closed port (so that the error names it).
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from atlas.llm.wait import RetryPolicy
from tests.adversarial.sse_server import ScriptedSSE, text_answer, usage
from tests.support.run import assert_no_traceback, atlas_env, invoke

PASSWORD = "hunter2-pass-Zq9"
TOKEN = "sk-query-token-7Yx"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _with_credentials(url: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://atlas-user:{PASSWORD}@{rest}?api_key={TOKEN}"


def _assert_hidden(text: str | bytes, where: str) -> None:
    raw = text.encode() if isinstance(text, str) else text
    for secret in (PASSWORD, TOKEN, "atlas-user"):
        assert secret.encode() not in raw, f"{secret!r} shown in {where}:\n{raw[-2000:]!r}"


@pytest.fixture
def brief_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every retry still made, after a hundredth of its wait: what is claimed is the text, not the waits."""
    from openai._constants import INITIAL_RETRY_DELAY  # the SDK only in the tests that use it

    delay = RetryPolicy.delay
    monkeypatch.setattr(RetryPolicy, "delay", lambda self, retry, after: delay(self, retry, after) / 100)
    monkeypatch.setattr("openai._base_client.INITIAL_RETRY_DELAY", INITIAL_RETRY_DELAY / 100)


@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.usefixtures("brief_backoff")
def test_an_unreachable_server_is_named_without_its_credentials(tmp_path: Path, api: str) -> None:
    url = _with_credentials(f"http://127.0.0.1:{_closed_port()}/v1")
    env = atlas_env(tmp_path, ATLAS_BASE_URL=url, ATLAS_API=api, OPENAI_API_KEY="sk-test")
    run = invoke("ask", "-m", "gpt-x", "--read-only", "What does ORB-1101 mean?", env=env)
    assert run.code == 1 and "could not reach" in run.stderr, run
    assert "http://***@127.0.0.1:" in run.stderr and "api_key=***" in run.stderr, run
    _assert_hidden(run.output, "the error line")
    assert_no_traceback(run)
    for command in (["models"], ["models", "--json"]):
        listed = invoke(*command, env=env)
        assert listed.code == 1 and "***@127.0.0.1" in listed.stderr, listed
        _assert_hidden(listed.output, "atlas " + " ".join(command))


def test_a_hostile_servers_warning_doctor_and_the_log_hide_them(tmp_path: Path) -> None:
    with ScriptedSSE([text_answer("ORB-1101 is LeaseExpired.", usage=usage(-5, 3))]) as server:
        url = _with_credentials(server.url)
        env = atlas_env(tmp_path, ATLAS_BASE_URL=url, OPENAI_API_KEY="sk-test")
        run = invoke("ask", "-m", "gpt-x", "--read-only", "What does ORB-1101 mean?", env=env)
        doctor = invoke("doctor", "-m", "gpt-x", env=env)
        doctor_json = invoke("doctor", "--json", "-m", "gpt-x", env=env)
    assert run.code == 0 and "LeaseExpired" in run.stdout, run
    assert "***@127.0.0.1" in run.stderr, run  # the usage warning names the server
    _assert_hidden(run.output, "atlas ask")
    assert "***@127.0.0.1" in doctor.stdout and "api_key=***" in doctor.stdout, doctor
    _assert_hidden(doctor.output, "atlas doctor")
    _assert_hidden(doctor_json.output, "atlas doctor --json")
    for path in tmp_path.rglob("*"):
        if path.is_file():
            _assert_hidden(path.read_bytes(), str(path))
