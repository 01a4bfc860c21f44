"""The scopes a person may give at the prompt, on a real pseudo-terminal: never wider than what was shown."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.run import atlas_env, finish, invoke, spawn_atlas, tracker_records

PROMPT = re.compile(rb"\? \[y/N\] ")
CHAT_PROMPT = "atlas\u203a".encode()
USER_RULES = '# my own rule\n[[policy.rules]]\nname = "no-severity"\ndecision = "deny"\ntool = "add_label"\n'
USER_RULES += 'labels = ["severity:*"]\n'


def test_this_exact_action_for_the_session_and_actions_like_this_as_a_rule_that_can_be_revoked(
    tmp_path: Path,
) -> None:
    """One person's chat gives both scopes: `s` for one exact comment, `p` for a label on any issue."""
    home = tmp_path / "home"
    home.mkdir()
    config = home / "config.toml"
    config.write_text(USER_RULES, encoding="utf-8")
    env = atlas_env(home, PROMPT_TOOLKIT_NO_CPR="1")
    child = spawn_atlas("chat", "-m", "offline", env=env)
    child.expect(CHAT_PROMPT)
    child.send(b"comment on #41: Looking into it.\r")
    child.expect(PROMPT)
    assert b"s: approve, and allow this exact action, again, for the rest of this session" in (child.before or b"")
    child.send(b"s\r")
    child.expect(b"allowed for this session: exactly this action")
    child.expect(CHAT_PROMPT)
    child.send(b"comment on #41: Looking into it.\r")  # the same action again: not asked
    assert child.expect([PROMPT, CHAT_PROMPT]) == 1
    child.send(b"comment on #87: Looking into it.\r")  # another issue: asked
    child.expect(PROMPT)
    child.send(b"n\r")
    child.expect(CHAT_PROMPT)
    child.send(b"label #41 comp:worker\r")
    child.expect(PROMPT)
    shown = (child.before or b"").decode()
    assert "p: approve, and allow add_label of comp:worker on any issue of this project" in shown
    child.send(b"p\r")
    child.expect(rb"wrote rule (granted-add-label-[0-9a-f]{4}) to \S+config\.toml:(\d+)")
    assert child.match is not None
    name = child.match.group(1).decode()
    child.expect(CHAT_PROMPT)
    child.sendcontrol("d")
    code, _ = finish(child)
    assert code == 0
    assert comments(env) == [(41, "Looking into it.", "person"), (41, "Looking into it.", "session")]

    listed = invoke("policy", "list", env=env)
    assert name in listed.stdout and "config.toml:" in listed.stdout
    # The rule holds in later runs, with no terminal, for that label on any issue, and no other label.
    assert invoke("ask", "-m", "offline", "label #87 comp:worker", env=env).code == 0
    assert invoke("ask", "-m", "offline", "label #87 comp:api", env=env).code == 0
    assert labels(env) == [(41, "comp:worker", "person"), (87, "comp:worker", f"rule:{name}")]

    revoked = invoke("policy", "revoke", name, env=env)
    assert revoked.code == 0, revoked
    assert config.read_text(encoding="utf-8") == USER_RULES + "\n"  # exactly what was there, and a blank line
    assert invoke("ask", "-m", "offline", "label #45 comp:worker", env=env).code == 0
    assert len(labels(env)) == 2
    again = invoke("policy", "revoke", name, env=env)
    assert again.code == 2 and "no rule granted at the prompt" in again.stderr
    mine = invoke("policy", "revoke", "no-severity", env=env)
    assert mine.code == 2 and config.read_text(encoding="utf-8") == USER_RULES + "\n"
    assert len(comments(env)) == 2


def comments(env: dict[str, str]) -> list[tuple[object, ...]]:
    return [(r["issue_id"], r["body"], r["decided_by"]) for r in tracker_records(env) if r["action"] == "post_comment"]


def labels(env: dict[str, str]) -> list[tuple[object, ...]]:
    return [(r["issue_id"], r["label"], r["decided_by"]) for r in tracker_records(env) if r["action"] == "add_label"]
