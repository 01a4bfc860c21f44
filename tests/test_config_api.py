"""Which API, which server, which prices: settings for OpenAI-compatible servers."""

from __future__ import annotations

import pytest

from atlas.foundation.config import (
    DEFAULT_PRICE_IN,
    DEFAULT_PRICE_OUT,
    Settings,
    base_url_setting,
    is_local_url,
    model_api,
)
from atlas.foundation.errors import ConfigError
from atlas.llm.usage import checked_usage, token_count
from atlas.protocol.messages import Usage


def test_the_api_comes_from_the_flag_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert model_api() == "responses"
    monkeypatch.setenv("ATLAS_API", " Chat ")
    assert model_api() == "chat" and model_api("responses") == "responses"
    monkeypatch.setenv("ATLAS_API", "completions")
    with pytest.raises(ConfigError, match=r"responses or chat, got 'completions' \(--api or ATLAS_API\)"):
        model_api()


def test_atlas_base_url_wins_over_openai_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    assert base_url_setting() == ""
    monkeypatch.setenv("OPENAI_BASE_URL", "https://gateway.example/v1")
    assert base_url_setting() == "https://gateway.example/v1"
    monkeypatch.setenv("ATLAS_BASE_URL", " http://localhost:11434/v1 ")
    assert base_url_setting() == "http://localhost:11434/v1"


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://localhost:11434/v1", True),
        ("http://127.0.0.1:8000/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://192.168.1.20:8000/v1", True),
        ("http://10.0.0.5/v1", True),
        ("http://gpu-box.local:1234/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://8.8.8.8/v1", False),
        ("https://openrouter.ai/api/v1", False),
    ],
)
def test_local_servers(url: str, local: bool) -> None:
    assert is_local_url(url) is local


def test_prices_default_to_openai_and_a_local_server_costs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (Settings(model="gpt-6-luna").price_in, Settings(model="gpt-6-luna").price_out) == (
        DEFAULT_PRICE_IN,
        DEFAULT_PRICE_OUT,
    )
    monkeypatch.setenv("ATLAS_BASE_URL", "http://localhost:11434/v1")
    settings = Settings(model="qwen2.5:7b")
    assert (settings.price_in, settings.price_out) == (0.0, 0.0)
    monkeypatch.setenv("ATLAS_PRICE_OUT", "2")
    settings = Settings(model="qwen2.5:7b")
    assert (settings.price_in, settings.price_out) == (0.0, 2.0)


def test_per_model_prices_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATLAS_PRICE_IN", "5")
    monkeypatch.setenv("ATLAS_PRICES", "gpt-6-luna=0.2/0.8, qwen2.5:7b = 0/0.5")
    assert (Settings(model="gpt-6-luna").price_in, Settings(model="gpt-6-luna").price_out) == (0.2, 0.8)
    assert Settings(model="qwen2.5:7b").price_out == 0.5
    assert Settings(model="other").price_in == 5.0


@pytest.mark.parametrize("entry", ["m=cheap", "m=1", "m=-1/2", "m=inf/1", "m=nan/0"])
def test_a_bad_price_entry_is_one_line(monkeypatch: pytest.MonkeyPatch, entry: str) -> None:
    monkeypatch.setenv("ATLAS_PRICES", entry)
    with pytest.raises(ConfigError, match="ATLAS_PRICES"):
        Settings(model="m")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, 0), (12, 12), (12.0, 12), (-1, None), (10**400, None), ("12", None), (1.5, None), (True, None), (None, None)],
)
def test_token_counts_from_a_server(value: object, expected: int | None) -> None:
    assert token_count(value) == expected


def test_usage_is_known_only_when_every_request_reported_it() -> None:
    assert checked_usage(10, 4) == Usage(10, 4) and checked_usage(10, -4) == Usage.unknown()
    total = Usage(10, 4) + Usage.unknown() + Usage(1, 1)
    assert (total.input_tokens, total.output_tokens, total.known) == (11, 5, False)
    assert (Usage(10, 4) + Usage(1, 1)).known
