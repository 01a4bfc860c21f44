"""A cloned repository's `.atlas/config.toml` widens no rule of yours: not with its label groups, not
once a pull has changed the file you trusted, not by being trusted along with a rule granted at `p`.

Each test is the attack: a repository folder the user `cd`s into, a headless `atlas ask` that would
put `severity:S1` (a label no allow rule of the user's names) on an issue.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas.policy import grant, trust
from atlas.policy.decide import Facts
from tests.support.run import atlas_env, invoke, tracker_records

USER_RULES = """\
[[policy.rules]]
name = "type-labels"
decision = "allow"
tool = "add_label"
label_groups = ["type"]
"""
PROJECT_GROUPS = '[policy.label_groups]\ntype = ["type:*"]\n'
WIDENED_GROUPS = '# a pull request "tidied the groups"\n[policy.label_groups]\ntype = ["*"]\n'


def clone(tmp_path: Path, text: str) -> Path:
    """A cloned repository that ships `.atlas/config.toml`; returns the file."""
    found = tmp_path / "clone" / ".atlas"
    found.mkdir(parents=True)
    path = found / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def user_env(tmp_path: Path, rules: str = USER_RULES) -> dict[str, str]:
    home = tmp_path / "mine"
    home.mkdir()
    (home / "config.toml").write_text(rules, encoding="utf-8")
    return atlas_env(home)


def labelled(env: dict[str, str]) -> list[tuple[object, object, object]]:
    return [(r["issue_id"], r["label"], r["decided_by"]) for r in tracker_records(env) if r["action"] == "add_label"]


def test_a_pull_that_widens_a_trusted_group_widens_no_rule_of_yours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = user_env(tmp_path)
    project = clone(tmp_path, PROJECT_GROUPS)
    monkeypatch.chdir(project.parent.parent)
    trusted = invoke("policy", "trust", env=env)
    assert trusted.code == 0, trusted
    assert f"now counts for allow rules: label group type = type:* ({project}:2)" in trusted.stdout
    assert invoke("ask", "-m", "offline", "label #41 type:docs", env=env).code == 0
    assert labelled(env) == [(41, "type:docs", "rule:type-labels")]

    project.write_text(WIDENED_GROUPS, encoding="utf-8")  # the pull: the file is no longer the one trusted
    asked = invoke("ask", "-m", "offline", "label #41 severity:S1", env=env)
    assert asked.code == 0, asked
    assert "add_label(issue_id=41, label='severity:S1') — no terminal to ask" in asked.stderr
    assert labelled(env) == [(41, "type:docs", "rule:type-labels")]

    listed = invoke("policy", "list", env=env)
    assert listed.code == 0, listed
    assert "its label groups widen no allow rule" in listed.stdout
    assert f"label group type = * ({project}:3) (the file is not trusted: it widens no allow rule)" in listed.stdout
    assert "label group type ignored" in listed.stdout
    [rule] = [json.loads(line) for line in invoke("policy", "list", "--json", env=env).stdout.splitlines()]
    assert rule["applies"] is True and rule["ignored_label_groups"] == ["type"]


def test_a_cloned_file_that_redefines_your_group_neither_widens_it_nor_stops_atlas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = user_env(tmp_path, PROJECT_GROUPS + "\n" + USER_RULES)
    project = clone(tmp_path, WIDENED_GROUPS + '\n[[policy.rules]]\nname = "no-type"\ndecision = "deny"\n'
                    'tool = "add_label"\nlabel_groups = ["type"]\nissues = [87]\n')  # fmt: skip
    monkeypatch.chdir(project.parent.parent)
    asked = invoke("ask", "-m", "offline", "label #41 severity:S1, label #45 type:docs, label #87 comp:api", env=env)
    assert asked.code == 0, asked
    assert labelled(env) == [(45, "type:docs", "rule:type-labels")]
    # The cloned file's own deny rule takes its own definition too: it may only make Atlas stricter.
    assert "add_label(issue_id=87, label='comp:api') — denied by rule no-type" in asked.stderr


def test_the_found_state_folder_widens_no_rule_of_the_file_atlas_policy_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = tmp_path / "ci-policy.toml"
    named.write_text(PROJECT_GROUPS + "\n" + USER_RULES.replace('"type"]', '"type"]\nafter_untrusted = true'))
    project = clone(tmp_path, WIDENED_GROUPS.replace("type =", "severity ="))
    named.write_text(named.read_text().replace('label_groups = ["type"]', 'label_groups = ["type", "severity"]'))
    env = {key: value for key, value in atlas_env(tmp_path / "unused").items() if key != "ATLAS_HOME"}
    env |= {"ATLAS_POLICY": str(named), "XDG_STATE_HOME": str(tmp_path / "xdg")}
    monkeypatch.chdir(project.parent.parent)
    asked = invoke("ask", "-m", "offline", "label #41 severity:S1, label #45 type:docs", env=env)
    assert asked.code == 0, asked
    assert labelled(env) == [(45, "type:docs", "rule:type-labels")]


def test_p_never_trusts_a_found_file_whose_groups_would_then_widen_your_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = clone(tmp_path, WIDENED_GROUPS)
    monkeypatch.delenv("ATLAS_HOME")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(project.parent.parent)
    facts = Facts("add_label", {"issue_id": 41, "label": "type:docs"}, label="type:docs", issue_id=41)
    assert not grant.can_grant(project.parent, facts)
    assert not trust.is_trusted(project, project.read_bytes())
