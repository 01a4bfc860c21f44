"""The approval policy for a triage plan's calls (`atlas triage`, `atlas apply`), and the rules a
person grants at the plan's review.

A plan is made from the issues' text, which strangers wrote, so each call is decided as after
untrusted text: only `after_untrusted` allowlists allow it. When a person reviewed the plan, their
answer is the approval: a `deny` rule still denies (the strictest wins), and everything else is
theirs to decide, so an item they left out is never run by a rule. With no one to review it, the
rules decide alone and whatever they leave to a person is denied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from atlas.executor.approvals import Verdict
from atlas.foundation.errors import ConfigError
from atlas.foundation.sanitize import clean_line
from atlas.policy import grant
from atlas.policy.decide import evaluate
from atlas.policy.facts import facts_for
from atlas.policy.gate import PolicyGate
from atlas.policy.load import CONFIG_FILE, Policy
from atlas.state import shared_rules
from atlas.tools.registry import Declared, ToolContext


def plan_sources(arguments: dict[str, Any]) -> list[str]:
    """The untrusted text a plan's call was made from: its issue."""
    issue = arguments.get("issue_id")
    return [f"issue #{issue}"] if isinstance(issue, int) else ["the issues of the plan"]


class PlanPolicy:
    """The rules for a plan's calls: `reviewed` when a person answered the plan's review."""

    def __init__(self, gate: PolicyGate, *, reviewed: bool) -> None:
        self.gate = gate
        self.reviewed = reviewed

    def decide(
        self, tool: Declared, arguments: dict[str, Any], untrusted: Sequence[str], context: ToolContext
    ) -> Verdict:
        verdict = self.gate.decide(tool, arguments, [*untrusted, *plan_sources(arguments)], context)
        if verdict.decision == "deny" or not self.reviewed:
            return verdict
        return Verdict("ask", "", verdict.note)  # the person's answer to the review decides

    def grant(self, scope: str, tool: Declared, arguments: dict[str, Any], context: ToolContext) -> str:
        raise ConfigError("a plan's calls are granted at its review, not at a prompt")


def offered(name: str, arguments: dict[str, Any], context: ToolContext, policy: Policy) -> tuple[str | None, str]:
    """What `p N` at the review would allow for this call (None when it is not offered: a label a
    person removed, a call a rule denies, a file whose allow rules would not count, a call no rule
    can say exactly), and a caution for the person (a rule will deny it; someone removed this label)."""
    try:
        facts = facts_for(name, arguments, plan_sources(arguments), context)
    except ConfigError:
        return None, ""
    denied = evaluate(policy.rules, facts, lambda placed, facts: False)
    if denied.decision == "deny" and denied.rule is not None:
        rule = denied.rule.rule
        return None, f"rule {rule.name} denies it, whatever the answer" + (f": {rule.reason}" if rule.reason else "")
    if facts.removed_by_person:
        return None, facts.removal_note or "a person removed this label from this issue before"
    try:
        return (
            grant.allowance(facts, for_plans=True) if grant.can_grant(context.home, facts, for_plans=True) else None
        ), ""
    except ConfigError:
        return None, ""


def where(context: ToolContext) -> str:
    """Where `p N` writes its rules: the team's shared state, else the state folder's config.toml."""
    return shared_rules.where(context.home) or clean_line(context.home.resolve() / CONFIG_FILE)


def write(name: str, arguments: dict[str, Any], context: ToolContext) -> str:
    """Write the rule `p N` offered; what to tell the person. A ValueError when it cannot be written."""
    try:
        placed = grant.write_rule(context.home, facts_for(name, arguments, (), context), for_plans=True)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return f"wrote rule {placed.rule.name} to {placed.where} (remove it with `atlas policy revoke {placed.rule.name}`)"
