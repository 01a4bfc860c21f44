"""Policy files as a user writes them: rules with their file and line, malformed ones named by line, trust."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.foundation.errors import ConfigError
from atlas.policy import trust
from atlas.policy.load import load_policy

GOOD = """\
# the triage bot's rules
[policy.label_groups]
component = ["comp:*"]

[[policy.rules]]
name = "components"
decision = "allow"
tool = "add_label"
label_groups = ["component"]

[[policy.rules]]
name = "no-severity"
decision = "deny"
tool = ["add_label", "remove_label"]
labels = ["severity:*"]
"""


def write(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_each_rule_is_placed_at_the_line_of_its_table(atlas_home: Path) -> None:
    path = write(atlas_home, GOOD)
    policy = load_policy(atlas_home)
    assert [(placed.rule.name, placed.where) for placed in policy.rules] == [
        ("components", f"{path}:5"),
        ("no-severity", f"{path}:11"),
    ]
    assert policy.groups == {"component": ["comp:*"]}
    assert all(placed.active for placed in policy.rules)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GOOD.replace('decision = "deny"', 'decision = "maybe"'), ":13: rule 'no-severity': decision: Input should be"),
        (GOOD.replace('tool = "add_label"', "tool = 3"), ":8: rule 'components': tool"),
        (GOOD + "max_per_run = 0\n", ":16: rule 'no-severity': max_per_run"),
        (GOOD + 'colour = "red"\n', ":16: rule 'no-severity': colour: Extra inputs are not permitted"),
        (GOOD.replace('["component"]', '["nope"]'), ":5: rule 'components': no label group named 'nope'"),
        (GOOD.replace('name = "no-severity"', 'name = "components"'), ":11: rule 'components' is already defined at"),
        (
            GOOD + '[[policy.rules]\nname = "x"\n',
            " is not valid TOML: Expected ']]' at the end of an array declaration (at line 16",
        ),
        (GOOD + 'pattern = "(unclosed"\n', ":16: rule 'no-severity': pattern: pattern is not a regular expression"),
        (
            GOOD.replace('label_groups = ["component"]', "after_untrusted = true"),
            ":5: rule 'components': an allow with after_untrusted = true must be a label allowlist",
        ),
        ('[policy]\nrules = "all"\n', ":1: policy.rules: Input should be a valid list"),
    ],
)
def test_a_malformed_rule_is_one_line_naming_its_file_and_line(atlas_home: Path, text: str, expected: str) -> None:
    path = write(atlas_home, text)
    with pytest.raises(ConfigError) as raised:
        load_policy(atlas_home)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(str(path)), message
    assert expected in message, message


def test_a_found_folder_may_deny_and_ask_but_allows_only_once_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cloned repository ships `.atlas/config.toml`: the found folder is the state folder.
    project = tmp_path / "clone"
    found = project / ".atlas"
    path = write(found, GOOD)
    monkeypatch.delenv("ATLAS_HOME")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(project / ".atlas")

    policy = load_policy(found)
    assert {p.rule.name: p.active for p in policy.rules} == {"components": False, "no-severity": True}
    assert "not trusted" in policy.sources[0].why

    trust.trust(path, path.read_bytes())
    assert all(p.active for p in load_policy(found).rules)
    assert trust.store_path().is_relative_to(tmp_path / "xdg")  # never kept in the found folder

    path.write_text(GOOD.replace("comp:*", "*"), encoding="utf-8")  # a pull widens the rule
    assert {p.rule.name: p.active for p in load_policy(found).rules} == {"components": False, "no-severity": True}


def test_a_project_folder_beside_atlas_home_is_read_and_untrusted(
    tmp_path: Path, atlas_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(atlas_home, "")
    project = tmp_path / "repo"
    write(project / ".atlas", GOOD)
    monkeypatch.chdir(project)
    policy = load_policy(atlas_home)
    assert [(p.rule.name, p.active) for p in policy.rules] == [("components", False), ("no-severity", True)]


def test_atlas_policy_names_a_file_that_is_trusted(
    tmp_path: Path, atlas_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = tmp_path / "ci-policy.toml"
    named.write_text(GOOD, encoding="utf-8")
    monkeypatch.setenv("ATLAS_POLICY", str(named))
    assert all(p.active for p in load_policy(atlas_home).rules)
    monkeypatch.setenv("ATLAS_POLICY", str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError, match=r"ATLAS_POLICY=.*no such file"):
        load_policy(atlas_home)


def test_atlas_policy_trust_names_the_allow_rules_it_lets_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.run import invoke

    project = tmp_path / "clone"
    write(project / ".atlas", GOOD)
    monkeypatch.chdir(project)
    env = {"ATLAS_HOME": str(tmp_path / "mine"), "NO_COLOR": "1"}
    listed = invoke("policy", "list", env=env)
    assert "ignored: the file is not trusted to allow" in listed.stdout
    trusted = invoke("policy", "trust", env=env)
    assert trusted.code == 0, trusted
    assert "now applies: components" in trusted.stdout and "no-severity" not in trusted.stdout
    assert "ignored" not in invoke("policy", "list", env=env).stdout
