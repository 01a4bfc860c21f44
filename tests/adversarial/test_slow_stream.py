"""A stream that never finishes but never goes quiet: only a bound on the whole request ends it.

A server that dribbles a byte at a time, or sends nothing but SSE keep-alive comments, resets
every read timeout. The real CLI and SDK, on both wires, against such a loopback server: the
question's `--deadline` and `ATLAS_MODEL_TIMEOUT` each end the request on time, with one line.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.adversarial.sse_server import SlowSSE
from tests.support.run import assert_no_traceback, atlas_env, invoke

SLACK_S = 4.0
"""From the request's arrival to the connection's close, beyond the bound (a busy 2-core machine)."""
GIVE_UP_S = 30.0
"""When the server itself ends a stream nothing cut: a run without a bound then fails, not hangs."""

CASES = [
    # (wire, server mode, extra flags, environment, the bound in seconds, what the error names)
    ("responses", "dribble", ["--deadline", "2"], {}, 2.0, "--deadline 2 s"),
    ("chat", "keep-alive", ["--deadline", "2"], {}, 2.0, "--deadline 2 s"),
    ("responses", "keep-alive", [], {"ATLAS_MODEL_TIMEOUT": "2"}, 2.0, "ATLAS_MODEL_TIMEOUT"),
    ("chat", "dribble", [], {"ATLAS_MODEL_TIMEOUT": "2"}, 2.0, "ATLAS_MODEL_TIMEOUT"),
]


@pytest.mark.parametrize(("api", "mode", "flags", "extra", "bound_s", "named"), CASES)
def test_a_never_ending_stream_is_cut_at_the_bound(
    tmp_path: Path, api: str, mode: str, flags: list[str], extra: dict[str, str], bound_s: float, named: str
) -> None:
    with SlowSSE(mode) as server:
        env = atlas_env(
            tmp_path,
            ATLAS_BASE_URL=server.url,
            OPENAI_API_KEY="sk-test",
            ATLAS_API=api,
            ATLAS_MODEL_TIMEOUT=extra.get("ATLAS_MODEL_TIMEOUT", "60"),
        )
        # Without a bound the run would never end: the server stops the stream after GIVE_UP_S, and
        # the request then ran far past the bound (and was never hung up on), which fails the test.
        give_up = threading.Timer(GIVE_UP_S, server.stopping.set)
        give_up.start()
        try:
            run = invoke("ask", "-m", "gpt-hostile", "--read-only", *flags, "What does ORB-1101 mean?", env=env)
        finally:
            give_up.cancel()
        closing = time.monotonic() + 10  # the server notices the close at its next write
        while not server.hung_up and not server.stopping.is_set() and time.monotonic() < closing:
            time.sleep(0.05)
    assert run.code == 1, run
    assert_no_traceback(run)
    lines = [line for line in run.stderr.splitlines() if line.startswith("atlas: error:")]
    assert len(lines) == 1 and named in lines[0], run
    # One request (a request cut by its bound is not retried), closed by the client on time.
    assert len(server.asked) == 1 and len(server.hung_up) == 1, (server.asked, server.hung_up)
    took = server.hung_up[0] - server.asked[0]
    assert took < bound_s + SLACK_S, f"the request ran {took:.1f} s against a {bound_s:g} s bound\n{run}"
