"""`atlas policy list|check|revoke|trust`: the rules, their examples, granted rules and trust."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from atlas.foundation.bounded_regex import PatternTooSlow
from atlas.foundation.config import atlas_home
from atlas.foundation.errors import ConfigError
from atlas.foundation.sanitize import clean_line, write_line
from atlas.policy import trust
from atlas.policy.decide import Facts, matches
from atlas.policy.grant import revoke
from atlas.policy.load import PlacedRule, load_policy, sources
from atlas.policy.rules import Example, Rule
from atlas.ui.json_out import print_json
from atlas.ui.render import data_table, make_console

_CONDITIONS = (
    "labels", "label_groups", "issues", "issue_state", "repository", "dataset", "text", "pattern", "max_chars",
    "args", "annotations", "max_per_run", "max_per_issue",
)  # fmt: skip


def conditions(rule: Rule) -> str:
    """`labels=comp:*,type:* · max_per_run=3 · after untrusted text`."""
    shown: list[str] = []
    for name in _CONDITIONS:
        value = getattr(rule, name)
        if value is None:
            continue
        if isinstance(value, list):
            value = ",".join(str(item) for item in value)
        elif hasattr(value, "model_dump"):
            value = ",".join(f"{k}={v}" for k, v in value.model_dump(exclude_none=True).items())
        elif isinstance(value, dict):
            value = json.dumps(value, ensure_ascii=False)
        shown.append(f"{name}={value}")
    if rule.after_untrusted:
        shown.append("after untrusted text")
    return " · ".join(shown) or "any call"


def status(placed: PlacedRule) -> str:
    if not placed.active:
        return "ignored: the file is not trusted to allow"
    if placed.ignored_groups:
        named = ", ".join(clean_line(group) for group in placed.ignored_groups)
        return f"applies; label group {named} ignored: only a file not trusted defines it"
    return "applies"


def list_rules(*, as_json: bool) -> None:
    policy = load_policy(atlas_home())
    if as_json:
        for placed in policy.rules:
            body: dict[str, Any] = placed.rule.model_dump(exclude_none=True, exclude_defaults=True)
            body |= {"where": placed.where, "applies": placed.active}
            if placed.ignored_groups:
                body["ignored_label_groups"] = list(placed.ignored_groups)
            print_json(body)
        return
    console = make_console(for_tables=True)
    for source in policy.sources:
        console.print(f"{clean_line(source.path)}: {clean_line(source.why)}", style="dim", soft_wrap=True)
    for group in policy.label_groups:
        globs = clean_line(", ".join(group.globs))
        effect = "" if group.trusted else " (the file is not trusted: it widens no allow rule)"
        console.print(
            f"label group {clean_line(group.name)} = {globs} ({group.where}){effect}",
            style="dim",
            soft_wrap=True,
            markup=False,
        )
    if not policy.rules:
        console.print("No rules: every side effect asks at the terminal (and is denied without one).", style="dim")
        return
    rows = [
        (p.rule.name, p.rule.decision, ",".join(p.rule.tool), conditions(p.rule), p.where, status(p))
        for p in policy.rules
    ]
    cut = ("conditions",) if console.is_terminal else ()
    console.print(data_table(("rule", "decision", "tool", "conditions", "where", "status"), rows, cut=cut))


def example_facts(example: Example) -> Facts:
    args = example.args
    label, body, issue = args.get("label"), args.get("body"), args.get("issue_id")
    return Facts(
        tool=example.tool,
        arguments=dict(args),
        label=label if isinstance(label, str) else None,
        issue_id=issue if isinstance(issue, int) and not isinstance(issue, bool) else None,
        issue_state=example.issue_state,
        comment=body if isinstance(body, str) else None,
        repository=example.repository,
        dataset=example.dataset,
        untrusted=example.untrusted,
        annotations=example.annotations.model_dump(exclude_none=True) if example.annotations else {},
    )


def example_matches(placed: PlacedRule, example: Example) -> bool:
    """Whether the rule applies to the example as it would to a real call (after untrusted text included,
    with the label groups it may take); PatternTooSlow when its pattern cannot say in time."""
    rule = placed.rule
    facts = example_facts(example)
    if facts.untrusted and rule.decision == "allow" and not rule.after_untrusted:
        return False
    return matches(rule, facts, placed.groups)


def _problems(placed: PlacedRule) -> list[str]:
    problems: list[str] = []
    for wanted, examples in ((True, placed.rule.must_match), (False, placed.rule.must_not_match)):
        for example in examples:
            try:
                if example_matches(placed, example) != wanted:
                    problems.append(f"should {'' if wanted else 'not '}match {_shown(example)}")
            except PatternTooSlow:
                problems.append(f"its pattern took too long to match {_shown(example)}: a person would decide")
    return problems


def _shown(example: Example) -> str:
    args = ", ".join(f"{key}={value!r}" for key, value in example.args.items())
    extra = "".join(
        f", {k}={v}" for k, v in (("issue_state", example.issue_state), ("untrusted", example.untrusted)) if v
    )
    return clean_line(f"{example.tool}({args}){extra}")


def check_rules() -> int:
    """0 when every example holds, 1 when one does not; a malformed file is a ConfigError (exit 2)."""
    policy = load_policy(atlas_home())
    console = make_console()
    failures = 0
    for placed in policy.rules:
        rule = placed.rule
        problems = _problems(placed)
        count = len(rule.must_match) + len(rule.must_not_match)
        if problems:
            failures += 1
            for problem in problems:
                console.print(
                    f"✗ {clean_line(rule.name)} ({placed.where}): {clean_line(problem)}",
                    style="red",
                    soft_wrap=True,
                    markup=False,
                )
        else:
            note = f"{count} example{'' if count == 1 else 's'} hold" if count else "no examples"
            console.print(f"✓ {clean_line(rule.name)} ({placed.where}): {note}", soft_wrap=True, markup=False)
    console.print(f"{len(policy.rules)} rules, {failures} failing", style="bold" if failures else "dim")
    return 1 if failures else 0


def revoke_rule(name: str) -> None:
    path = revoke(atlas_home(), name)
    write_line(f"removed rule {clean_line(name)} from {clean_line(path)}")


def trust_file(path: str | None) -> None:
    found = sources(atlas_home())
    if path is not None:
        wanted = Path(path).expanduser().resolve()
        chosen = [source for source in found if source.path == wanted]
        if not chosen:
            raise ConfigError(f"{clean_line(path)} is not a policy file Atlas reads from here")
    else:
        chosen = [source for source in found if not source.trusted]
        if not chosen:
            write_line("Every policy file found here is trusted already.")
            return
    for source in chosen:
        assert source.raw is not None
        store = trust.trust(source.path, source.raw)
        write_line(f"trusted {clean_line(source.path)} as it is now (recorded in {clean_line(store)})")
    # What trusting changed: the allow rules that apply from now on, and the label groups they may now
    # take, each where it is written.
    paths = {source.path for source in chosen}
    policy = load_policy(atlas_home())
    for placed in policy.rules:
        if placed.rule.decision == "allow" and placed.path in paths:
            write_line(f"  now applies: {clean_line(placed.rule.name)} ({placed.where}): {conditions(placed.rule)}")
    for group in policy.label_groups:
        if group.path in paths:
            globs = clean_line(", ".join(group.globs))
            write_line(f"  now counts for allow rules: label group {clean_line(group.name)} = {globs} ({group.where})")
