"""Evaluating the rules for one call: deny → ask → allow, the strictest matching rule wins.

Pure functions of the rules and the call's `Facts`, so `atlas policy check` runs a rule's examples
through exactly what a real call goes through. A rule's `pattern` is matched in bounded time
(`atlas.foundation.bounded_regex`): one the matcher cannot finish in time decides nothing, and a person does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, NamedTuple

from atlas.foundation import bounded_regex
from atlas.policy.load import PlacedRule

if TYPE_CHECKING:
    from atlas.policy.rules import Annotations, Rule

MCP_DEFAULTS = {"read_only": False, "destructive": True, "idempotent": False, "open_world": True}
"""What MCP says a missing hint means."""
DECIDE_BUDGET_S = 1.0
"""All the pattern matches of one decision together: past it, a person decides."""


@dataclass(frozen=True)
class Facts:
    """What one call is about, as the rules see it."""

    tool: str
    arguments: dict[str, Any]
    label: str | None = None
    """The label as the tracker spells it (case forgiven)."""
    issue_id: int | None = None
    issue_state: str | None = None
    comment: str | None = None
    repository: str | None = None
    dataset: str | None = None
    untrusted: bool = False
    annotations: dict[str, bool] = field(default_factory=dict)
    removed_by_person: bool = False
    """For add_label: a person removed this label from this issue before (a guard no rule lifts)."""
    removal_note: str = ""
    """Why `removed_by_person` holds, when not from Atlas's own records (GitHub's events, or they could not be read)."""


class Ruling(NamedTuple):
    decision: str
    """`allow`, `ask` or `deny`; `ask` also when no rule matched."""
    rule: PlacedRule | None = None
    note: str = ""
    every_time: bool = False
    """A person decides each time: an `ask` rule, or a rule whose pattern could not be matched in time.
    No scope given at the prompt (`s`, `p`) lifts it."""


def _glob(patterns: Sequence[str], value: str) -> bool:
    folded = value.casefold()
    return any(fnmatchcase(folded, pattern.casefold()) for pattern in patterns)


def _labels_hold(rule: Rule, facts: Facts, groups: dict[str, list[str]]) -> bool:
    if rule.labels is None and rule.label_groups is None:
        return True
    if facts.label is None:
        return False
    globs = list(rule.labels or []) + [glob for group in rule.label_groups or [] for glob in groups.get(group, [])]
    return _glob(globs, facts.label)


def _text_holds(rule: Rule, facts: Facts, deadline: float) -> bool:
    if rule.text is None and rule.pattern is None and rule.max_chars is None:
        return True
    if facts.comment is None:
        return False
    if rule.max_chars is not None and len(facts.comment) > rule.max_chars:
        return False
    if rule.text is not None and facts.comment not in rule.text:
        return False
    if rule.pattern is None:
        return True
    timeout = min(bounded_regex.MATCH_TIMEOUT_S, deadline - time.monotonic())
    return bounded_regex.fullmatch(rule.pattern, facts.comment, timeout=timeout, flags=bounded_regex.DOTALL)


def _annotations_hold(wanted: Annotations | None, facts: Facts) -> bool:
    if wanted is None:
        return True
    for name, value in wanted.model_dump(exclude_none=True).items():
        if facts.annotations.get(name, MCP_DEFAULTS[name]) != value:
            return False
    return True


def _dataset_holds(rule: Rule, facts: Facts) -> bool:
    if rule.dataset is None:
        return True
    if facts.dataset is None:
        return False
    return rule.dataset.rstrip("/") in (facts.dataset.rstrip("/"), facts.dataset.rstrip("/").rsplit("/", 1)[-1])


def matches(rule: Rule, facts: Facts, groups: dict[str, list[str]], deadline: float | None = None) -> bool:
    """Whether every condition the rule sets holds for the call (counters and trust aside), with the
    globs of `groups` for its label groups; PatternTooSlow when its pattern cannot say by `deadline`."""
    if not any(fnmatchcase(facts.tool, pattern) for pattern in rule.tool):
        return False
    if rule.issues is not None and facts.issue_id not in rule.issues:
        return False
    if rule.issue_state is not None and facts.issue_state != rule.issue_state:
        return False
    repository = rule.repository
    if repository is not None and (facts.repository or "").casefold() != repository.casefold():
        return False
    if rule.args is not None and any(facts.arguments.get(key) != value for key, value in rule.args.items()):
        return False
    return (
        _dataset_holds(rule, facts)
        and _labels_hold(rule, facts, groups)
        and _text_holds(rule, facts, time.monotonic() + DECIDE_BUDGET_S if deadline is None else deadline)
        and _annotations_hold(rule.annotations, facts)
    )


Spent = Callable[[PlacedRule, Facts], bool]
"""Whether an allow rule has used up its `max_per_run` or `max_per_issue`."""


def evaluate(rules: Sequence[PlacedRule], facts: Facts, spent: Spent) -> Ruling:
    """The strictest rule that applies; `ask` (a person decides) when none does.

    After untrusted text, an allow applies only when it is marked `after_untrusted` (and then it is
    a label allowlist or a fixed text); a label a person removed is never re-added by a rule. A rule
    whose pattern could not be matched in time may have been a deny: only a matching deny outranks it.
    """
    deadline = time.monotonic() + DECIDE_BUDGET_S
    applying: list[PlacedRule] = []
    undecided: list[PlacedRule] = []
    for placed in rules:
        try:
            if placed.active and matches(placed.rule, facts, placed.groups, deadline):
                applying.append(placed)
        except bounded_regex.PatternTooSlow:
            undecided.append(placed)
    denied = next((placed for placed in applying if placed.rule.decision == "deny"), None)
    if denied is not None:
        return Ruling("deny", denied)
    if undecided:
        slow = undecided[0]
        note = f"rule {slow.rule.name}'s pattern ({slow.where}) took too long to match: a person decides"
        return Ruling("ask", slow, note, every_time=True)
    asked = next((placed for placed in applying if placed.rule.decision == "ask"), None)
    if asked is not None:
        return Ruling("ask", asked, every_time=True)
    allows = [placed for placed in applying if placed.rule.decision == "allow"]
    if not allows:
        return Ruling("ask")
    if facts.removed_by_person:
        note = facts.removal_note or "a person removed this label before: a rule cannot put it back"
        return Ruling("ask", allows[0], note)
    if facts.untrusted:
        allows = [placed for placed in allows if placed.rule.after_untrusted]
        if not allows:
            return Ruling("ask", None, "untrusted text was read in this turn: only after_untrusted rules allow")
    usable = [placed for placed in allows if not spent(placed, facts)]
    if not usable:
        return Ruling("ask", allows[0], f"rule {allows[0].rule.name} reached its maximum")
    return Ruling("allow", usable[0])
