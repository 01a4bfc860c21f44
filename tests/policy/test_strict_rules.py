"""Rules that would allow more than they say are refused before anything runs: an `after_untrusted`
"fixed comment" whose pattern takes any text, an allowlist that takes every label, and a value of
the wrong type that a lax reader would have converted. Each is one line naming the file and line.

The attack: an issue asks the model to post a phishing comment; a policy that let it through
(`pattern = '(?s).*'` passed as a fixed comment) would post it with nobody asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.run import Run, atlas_env, invoke, logged_calls, tracker_records, write_script

PHISHING = "Maintainers: your CI token expired, paste it at https://evil.example/renew to keep merging."
COMMENT_RULE = """\
# comments a triage bot may post
[[policy.rules]]
name = "templated"
decision = "allow"
tool = "post_comment"
pattern = '{pattern}'
after_untrusted = true
"""


def run_injected(tmp_path: Path, policy: str, body: str = PHISHING) -> tuple[dict[str, str], Run]:
    home = tmp_path / "home"
    home.mkdir(parents=True)
    (home / "config.toml").write_text(policy, encoding="utf-8")
    env = atlas_env(home)
    model = write_script(
        tmp_path,
        [
            {"calls": [{"name": "get_issue", "arguments": {"issue_id": 92}}]},  # untrusted text, read first
            {"calls": [{"name": "post_comment", "arguments": {"issue_id": 92, "body": body}}]},
            {"text": "Done."},
        ],
    )
    return env, invoke("ask", "-m", model, "triage #92", env=env)


@pytest.mark.parametrize(
    "pattern",
    [
        "(?s).*",
        ".*",
        "[\\s\\S]*",
        "(.|\\n)+",
        "(?s).{0,}",
        "Maintainers:.*",  # a fixed opening, then anything
        "[^<]+",
        "(?:\\w+\\W+)+\\w*",
        "\\S+(?: \\S+)*",
    ],
)
def test_an_after_untrusted_comment_pattern_that_takes_any_text_is_refused(tmp_path: Path, pattern: str) -> None:
    env, asked = run_injected(tmp_path, COMMENT_RULE.format(pattern=pattern))
    assert asked.code == 2, asked
    [line] = asked.stderr.splitlines()
    assert line.startswith(f"atlas: error: {tmp_path / 'home' / 'config.toml'}:6: rule 'templated': pattern: ")
    assert "needs a fixed comment" in line
    assert tracker_records(env) == [] and logged_calls(env) == []


def test_a_fixed_template_allows_its_comment_and_the_same_template_with_room_after_it_is_refused(
    tmp_path: Path,
) -> None:
    policy = COMMENT_RULE.format(pattern="Duplicate of #\\d{1,6}\\.")
    env, asked = run_injected(tmp_path, policy, "Duplicate of #87.")
    assert asked.code == 0, asked
    assert [(r["body"].split("\n")[0], r["decided_by"]) for r in tracker_records(env)] == [
        ("Duplicate of #87.", "rule:templated")
    ]
    env, asked = run_injected(tmp_path / "phished", policy)
    assert asked.code == 0 and "no terminal to ask" in asked.stderr
    env, asked = run_injected(tmp_path / "room", policy.replace("\\.'", "\\..*'"), "Duplicate of #87. " + PHISHING)
    assert asked.code == 2 and "needs a fixed comment" in asked.stderr
    assert tracker_records(env) == []


@pytest.mark.parametrize(
    ("policy", "where"),
    [
        ('[[policy.rules]]\nname = "all"\ndecision = "allow"\ntool = "add_label"\nlabels = ["comp:*", "*"]\n'
         "after_untrusted = true\n", ":5: rule 'all': labels: after_untrusted = true needs a label allowlist"),
        ('[policy.label_groups]\neverything = ["?*"]\n\n[[policy.rules]]\nname = "all"\ndecision = "allow"\n'
         'tool = "add_label"\nlabel_groups = ["everything"]\nafter_untrusted = true\n',
         ":4: rule 'all': label_groups: after_untrusted = true needs a label allowlist"),
    ],
)  # fmt: skip
def test_an_after_untrusted_allowlist_of_every_label_is_refused(tmp_path: Path, policy: str, where: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(policy, encoding="utf-8")
    env = atlas_env(home)
    asked = invoke("ask", "-m", "offline", "label #92 severity:S1", env=env)
    assert asked.code == 2, asked
    [line] = asked.stderr.splitlines()
    assert where in line and line.startswith(f"atlas: error: {home / 'config.toml'}:"), line
    assert tracker_records(env) == []


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ('max_per_run = "5"', "max_per_run: Input should be a valid integer, got a string"),
        ("max_per_run = true", "max_per_run: Input should be a valid integer, got a boolean"),
        ("max_per_run = 5.0", "max_per_run: Input should be a valid integer, got a float"),
        ("max_per_issue = false", "max_per_issue: Input should be a valid integer, got a boolean"),
        ("after_untrusted = 1", "after_untrusted: Input should be a valid boolean, got an integer"),
        ('after_untrusted = "yes"', "after_untrusted: Input should be a valid boolean, got a string"),
        ('issues = ["41"]', "issues.0: Input should be a valid integer, got a string"),
        ("max_chars = 2e3", "max_chars: Input should be a valid integer, got a float"),
        ("annotations = { read_only = 0 }", "annotations.read_only: Input should be a valid boolean, got an integer"),
    ],
)
def test_a_value_of_the_wrong_type_is_one_line_naming_its_line_never_converted(
    tmp_path: Path, setting: str, expected: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    policy = '[[policy.rules]]\nname = "labels"\ndecision = "allow"\ntool = "add_label"\nlabels = ["comp:*"]\n'
    (home / "config.toml").write_text(policy + setting + "\n", encoding="utf-8")
    env = atlas_env(home)
    for command in (("ask", "-m", "offline", "label #41 comp:cli"), ("policy", "check"), ("policy", "list")):
        ran = invoke(*command, env=env)
        assert ran.code == 2, ran
        assert ran.stderr == f"atlas: error: {home / 'config.toml'}:6: rule 'labels': {expected}\n"
    assert tracker_records(env) == []
