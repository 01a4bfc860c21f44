"""Numbers from the command line and the environment: non-finite and absurd values are usage errors.

`--timeout inf` used to be accepted, and a hanging tool then never timed out; `1e308` and `1e9`
too. Every number Atlas takes from outside has bounds (`atlas.foundation.config.BOUNDS`, the configuration page's
table): outside them the run stops before it starts, exit 2, one line naming the setting.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.run import assert_no_traceback, atlas_env, invoke

OPTIONS = [
    ("--timeout", "inf"),
    ("--timeout", "-inf"),
    ("--timeout", "nan"),
    ("--timeout", "1e308"),
    ("--timeout", "1e9"),
    ("--timeout", "0"),
    ("--deadline", "inf"),
    ("--deadline", "nan"),
    ("--deadline", "1e9"),
    ("--deadline", "-1"),
    ("--concurrency", "0"),
    ("--concurrency", "1000000000"),
    ("--concurrency", "inf"),
    ("--max-rounds", "51"),
    ("--max-rounds", "1e9"),
]
ENVIRONMENT = [
    ("ATLAS_MODEL_TIMEOUT", "inf"),
    ("ATLAS_MODEL_TIMEOUT", "nan"),
    ("ATLAS_MODEL_TIMEOUT", "1e308"),
    ("ATLAS_MODEL_TIMEOUT", "1e9"),
    ("ATLAS_MODEL_TIMEOUT", "0"),
    ("ATLAS_PRICE_IN", "1e308"),
    ("ATLAS_PRICE_IN", "-0.5"),
    ("ATLAS_PRICE_OUT", "1e9"),
    ("ATLAS_PRICE_OUT", "nan"),
    ("ATLAS_PRICES", "gpt-6-luna=1e308/0.5"),
    ("ATLAS_PRICES", "gpt-6-luna=0.1/inf"),
    ("ATLAS_PRICES", "gpt-6-luna=0.1/10001"),
    ("ATLAS_PRICES", "gpt-6-luna=-1/0.5"),
]


def refused(run_code: int, output: str, name: str) -> bool:
    lines = [line for line in output.splitlines() if name in line]
    return run_code == 2 and len(lines) >= 1


@pytest.mark.parametrize(("option", "value"), OPTIONS)
def test_an_option_out_of_bounds_is_a_usage_error(tmp_path: Path, option: str, value: str) -> None:
    env = atlas_env(tmp_path / "home")
    for command in (["ask", "-m", "offline", "what is issue 41 about?"], ["chat", "-m", "offline"]):
        if command[0] == "chat" and option == "--deadline":
            continue  # a chat has no overall deadline
        run = invoke(*command, option, value, env=env, stdin=b"what is issue 41 about?\n")
        assert_no_traceback(run)
        assert refused(run.code, run.stderr, option), run
    assert not (tmp_path / "home" / "log.db").exists()  # refused before anything ran


@pytest.mark.parametrize("value", ["0", "99999999999999999999"])
def test_a_log_limit_out_of_bounds_is_a_usage_error(tmp_path: Path, value: str) -> None:
    env = atlas_env(tmp_path / "home")
    assert invoke("ask", "-m", "offline", "what is issue 41 about?", env=env).code == 0
    run = invoke("log", "-n", value, env=env)
    assert_no_traceback(run)
    assert refused(run.code, run.stderr, "--limit"), run


@pytest.mark.parametrize(("name", "value"), ENVIRONMENT)
def test_an_environment_number_out_of_bounds_is_a_usage_error(tmp_path: Path, name: str, value: str) -> None:
    # A model that needs ATLAS_MODEL_TIMEOUT; nothing listens on port 9, and nothing is asked of it.
    env = atlas_env(tmp_path / "home", OPENAI_API_KEY="sk-test", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    env[name] = value
    run = invoke("ask", "-m", "gpt-6-luna", "what is issue 41 about?", env=env)
    assert_no_traceback(run)
    assert run.code == 2, run
    assert run.stderr.startswith(f"atlas: error: {name} must be "), run
    assert len(run.stderr.splitlines()) == 1, run


def test_the_bounds_themselves_are_accepted(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home", ATLAS_MODEL_TIMEOUT="3600", ATLAS_PRICE_IN="0", ATLAS_PRICE_OUT="10000")
    run = invoke(
        "ask", "-m", "offline", "--timeout", "600", "--deadline", "3600", "--concurrency", "64", "--max-rounds", "50",
        "what is issue 41 about?", env=env,
    )  # fmt: skip
    assert run.code == 0, run
    low = invoke("ask", "-m", "offline", "--timeout", "0.05", "--deadline", "0.1", "--concurrency", "1",
                    "--max-rounds", "1", "what is issue 41 about?", env=env)  # fmt: skip
    assert low.code == 0, low


def test_json_is_strict_even_for_the_largest_prices(tmp_path: Path) -> None:
    """The largest accepted prices and token counts still give a finite cost: `--json` is always JSON."""
    import json

    from tests.adversarial.sse_server import ScriptedSSE, text_answer, usage

    with ScriptedSSE([text_answer("ORB-1101 is LeaseExpired.", usage=usage(10**8, 10**8))]) as server:
        env = atlas_env(tmp_path / "home", OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=server.url)
        env["ATLAS_PRICES"] = "gpt-x=10000/10000"
        run = invoke("ask", "-m", "gpt-x", "--read-only", "--json", "What does ORB-1101 mean?", env=env)
    assert run.code == 0, run
    assert "Infinity" not in run.stdout and "NaN" not in run.stdout
    parsed = json.loads(run.stdout, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    assert parsed["cost_usd"] == 2_000_000.0
