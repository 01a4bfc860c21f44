"""Settings read from the environment: numbers that cannot be used are refused with one line."""

from __future__ import annotations

import os

import pytest

from atlas.foundation.config import Settings, env_number
from atlas.foundation.errors import ConfigError
from tests.support.run import invoke


@pytest.mark.parametrize("raw", ["inf", "-inf", "Infinity", "nan", "1e999"])
def test_a_price_that_is_not_a_finite_number_is_refused(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("ATLAS_PRICE_IN", raw)
    with pytest.raises(ConfigError, match="ATLAS_PRICE_IN"):
        Settings()


def test_numbers_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_SECONDS", " 2.5 ")
    assert env_number("X_SECONDS", 1.0, unit="seconds") == 2.5
    monkeypatch.setenv("X_SECONDS", "")
    assert env_number("X_SECONDS", 1.0, unit="seconds") == 1.0
    monkeypatch.setenv("X_SECONDS", "0")
    assert env_number("X_SECONDS", 1.0, unit="seconds") == 0.0
    with pytest.raises(ConfigError, match="> 0"):
        env_number("X_SECONDS", 1.0, unit="seconds", positive=True)
    monkeypatch.setenv("X_SECONDS", "-1")
    with pytest.raises(ConfigError, match="X_SECONDS"):
        env_number("X_SECONDS", 1.0, unit="seconds")


@pytest.mark.parametrize(("key", "expected"), [("sk-test", "gpt-6-luna"), ("", "offline"), ("  ", "offline")])
def test_the_default_model_follows_the_api_key(monkeypatch: pytest.MonkeyPatch, key: str, expected: str) -> None:
    monkeypatch.delenv("ATLAS_MODEL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", key)
    assert Settings().model == expected


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://[::1", "is not a URL (Invalid IPv6 URL)"),
        ("http://localhost:99999/v1", "is not a URL (Port out of range"),
        ("localhost:8080", "is not an http:// or https:// URL"),
        ("http://exa mple.com/v1", "is not a URL with a host name"),
        ("http://user:s3cret@[::1", "'http://***@[::1' is not a URL"),
    ],
)
def test_a_malformed_base_url_is_one_clear_line(url: str, problem: str) -> None:
    done = invoke("ask", "-m", "gpt-x", "hello", env={**os.environ, "ATLAS_BASE_URL": url, "OPENAI_API_KEY": "k"})
    assert done.returncode == 2 and "unexpected" not in done.stderr and "s3cret" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("atlas: error: ATLAS_BASE_URL ") and problem in line, line
