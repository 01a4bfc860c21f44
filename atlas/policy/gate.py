"""The policy as the executor consults it: rules, counters, the session's grants and the guards."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.executor.approvals import Verdict
from atlas.policy.load import Policy, load_policy
from atlas.tools.registry import Declared, ToolContext, WriteLimits

if TYPE_CHECKING:
    from atlas.policy.decide import Facts
    from atlas.policy.load import PlacedRule


def _exact(name: str, arguments: dict[str, Any]) -> str:
    return json.dumps([name, arguments], sort_keys=True, ensure_ascii=False)


class PolicyGate:
    """Decides before a person is asked; counts what its allow rules let through.

    `max_per_run` counts this process's allowances; `max_per_issue` also counts what the rule
    allowed before, as the tracker recorded it (`decided_by = rule:NAME`), so a bot run again on
    the same issue does not comment twice.
    """

    def __init__(self, policy: Policy, home: Path) -> None:
        self.policy = policy
        self.home = home
        self._run: Counter[str] = Counter()
        self._issue: Counter[tuple[str, int]] = Counter()
        self._before: Counter[tuple[str, int]] | None = None
        self._session: set[str] = set()

    def _earlier(self, context: ToolContext) -> Counter[tuple[str, int]]:
        from atlas.policy.facts import tracker_records

        if self._before is None:
            self._before = Counter(
                (str(record["decided_by"]).removeprefix("rule:"), record["issue_id"])
                for record in tracker_records(context)
                if str(record.get("decided_by", "")).startswith("rule:") and "-replaces-" not in str(record.get("key"))
            )
        return self._before

    def _spent(self, placed: PlacedRule, facts: Facts, context: ToolContext) -> bool:
        rule = placed.rule
        if rule.max_per_run is not None and self._run[rule.name] >= rule.max_per_run:
            return True
        if rule.max_per_issue is not None and facts.issue_id is not None:
            key = (rule.name, facts.issue_id)
            return self._earlier(context)[key] + self._issue[key] >= rule.max_per_issue
        return False

    @classmethod
    def at_home(cls, home: Path) -> PolicyGate:
        """The gate of the rules found from the state folder `home` (a policy it cannot read raises here)."""
        return cls(load_policy(home), home)

    @property
    def rule_count(self) -> int:
        """How many of its rules apply."""
        return len(self.policy.active())

    def decide(
        self, tool: Declared, arguments: dict[str, Any], untrusted: Sequence[str], context: ToolContext
    ) -> Verdict:
        """The verdict on a side effect (reads are never decided: their run imports none of the rules' logic)."""
        from atlas.policy.decide import evaluate
        from atlas.policy.facts import facts_for

        name = tool.name
        facts = facts_for(name, arguments, untrusted, context, tool.annotations)
        outcome = evaluate(self.policy.rules, facts, lambda placed, facts: self._spent(placed, facts, context))
        if outcome.decision == "deny" and outcome.rule is not None:
            why = outcome.rule.rule.reason or f"denied by rule {outcome.rule.rule.name} ({outcome.rule.where})"
            return Verdict("deny", f"rule:{outcome.rule.rule.name}", why)
        # A rule that says `ask` asks every time: no scope a person grants at the prompt lifts it.
        asks = outcome.decision == "ask" and outcome.every_time
        if not asks and _exact(name, arguments) in self._session:
            return Verdict("allow", "session", "allowed for this session at the prompt")
        if outcome.decision == "allow" and outcome.rule is not None:
            rule = outcome.rule.rule
            self._run[rule.name] += 1
            if facts.issue_id is not None:
                self._issue[(rule.name, facts.issue_id)] += 1
            # What this process counted, the tracker counts again over everyone's records as it writes.
            limits = WriteLimits(rule.name, rule.max_per_issue, rule.max_per_run)
            why = f"allowed by rule {rule.name} ({outcome.rule.where})"
            return Verdict("allow", f"rule:{rule.name}", why, limits=limits)
        if asks:
            assert outcome.rule is not None
            why = outcome.note or f"rule {outcome.rule.rule.name} ({outcome.rule.where}) asks every time"
            return Verdict("ask", "", why)
        return Verdict("ask", "", outcome.note, self._scopes(facts))

    def _scopes(self, facts: Facts) -> tuple[tuple[str, str], ...]:
        """`s` always; `p` only where the rule it writes would apply (not after untrusted text,
        not for a label a person removed, only to a file whose allow rules count)."""
        from atlas.policy import grant  # only when a person is asked: a read-only answer never is

        scopes = [("session", "this exact action, again, for the rest of this session")]
        if not facts.untrusted and not facts.removed_by_person and grant.can_grant(self.home, facts):
            scopes.append(("project", grant.describe(self.home, facts)))
        return tuple(scopes)

    def grant(self, scope: str, tool: Declared, arguments: dict[str, Any], context: ToolContext) -> str:
        if scope == "session":
            self._session.add(_exact(tool.name, arguments))
            return "allowed for this session: exactly this action"
        from atlas.policy.facts import facts_for
        from atlas.policy.grant import write_rule

        facts = facts_for(tool.name, arguments, (), context, tool.annotations)
        placed = write_rule(self.home, facts)
        self.policy = load_policy(self.home)
        return (
            f"wrote rule {placed.rule.name} to {placed.where} (remove it with `atlas policy revoke {placed.rule.name}`)"
        )


class StricterOnly:
    """The policy where Atlas cannot know what the caller read (`atlas mcp serve`: the host's model
    may have read untrusted text Atlas never saw): `deny` rules and the guards' refusals hold, and
    nothing a rule allows skips the host's own approval, so no `allow` can apply after untrusted text."""

    def __init__(self, gate: PolicyGate) -> None:
        self.gate = gate

    def decide(
        self, tool: Declared, arguments: dict[str, Any], untrusted: Sequence[str], context: ToolContext
    ) -> Verdict:
        verdict = self.gate.decide(tool, arguments, untrusted, context)
        return verdict if verdict.decision == "deny" else Verdict("ask", "", verdict.note)

    def grant(self, scope: str, tool: Declared, arguments: dict[str, Any], context: ToolContext) -> str:
        raise ValueError("the host approves each call itself: no scope is granted here")
