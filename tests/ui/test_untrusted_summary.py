"""What people are told about untrusted text, and text written for the model kept from them."""

from __future__ import annotations

import re
from pathlib import Path

from tests.adversarial.test_injection import CHAT_PROMPT, PROMPT
from tests.support.run import atlas_env, finish, invoke, spawn_atlas


def test_many_sources_read_in_a_chat_are_summarised_at_the_approval(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    child = spawn_atlas("chat", "-m", "offline", env={**env, "PROMPT_TOOLKIT_NO_CPR": "1"}, timeout=40)
    for question in (b"compare issues 1 and 2", b"compare issues 3 and 4", b"compare issues 5 and 6"):
        child.expect(CHAT_PROMPT)
        child.send(question + b"\r")
        child.expect(b"Side by side")
    child.expect(CHAT_PROMPT)
    child.send(b"label #41 severity:S2\r")
    child.expect(PROMPT)
    before = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", child.before or b"").decode("utf-8", errors="replace")
    flat = " ".join(before.split())
    # Named: how many, of which kinds, and the latest few (issues 5 and 6 were read last, in either order).
    assert re.search(r"from 6 sources \(6 issues\), the latest issue #[3-6], issue #[56], issue #[56] —", flat), flat
    assert "issue #1" not in flat and "issue #2" not in flat
    child.send(b"n\r")
    child.expect(CHAT_PROMPT)
    child.sendcontrol("d")
    code, _ = finish(child)
    assert code == 0


def test_a_search_that_finds_nothing_tells_people_what_to_try_not_what_a_model_must_not_do(tmp_path: Path) -> None:
    run = invoke("ask", "find issues about zzzqqq xyzzy", env=atlas_env(tmp_path / "home"))
    assert run.code == 0, run
    assert "Try other or fewer words" in run.stdout
    assert "do not guess" not in run.output
