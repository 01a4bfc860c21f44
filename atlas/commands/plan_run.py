"""A plan's items reviewed as one numbered list and applied through the executor: approved, idempotent, logged.

The review is the approval: every item goes to the executor, which runs each tool's own check
first (an item that would change nothing is not written), then the approval policy (a `deny` rule
wins over the person, `policy/plans.py`), then takes the person's answer: exactly the items they
approved, with their edits. With no terminal to review on, the rules alone decide and the rest is
denied. Every call goes to the call log and the tracker (the mock one, or GitHub) as a call from
`ask` does, with who decided. The session and call ids come from the plan's checksum and item
numbers, so a plan applied again after a crash reuses the same idempotency keys: a comment is never
posted twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from rich.console import Console

from atlas.calllog import CallLog
from atlas.foundation.errors import ToolError
from atlas.foundation.notices import warn
from atlas.foundation.sanitize import clean_line
from atlas.policy import plans
from atlas.policy.gate import PolicyGate
from atlas.policy.load import Policy
from atlas.protocol.events import ApprovalRequest, CallRecord, Listener
from atlas.protocol.messages import ToolCall
from atlas.runtime.session import CallSession, SessionOptions
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import ToolContext, WriteLimits
from atlas.triage.journal import record_applied
from atlas.triage.plan import PlanItem
from atlas.triage.project import Project
from atlas.ui.denied import print_denied
from atlas.ui.jsonl import JsonlEvents
from atlas.ui.plan_review import PlanReview, ReviewEntry

COMMENT_LIMIT = 4000


@dataclass(frozen=True)
class Applied:
    item: PlanItem
    ok: bool
    changed: bool
    message: str
    record: CallRecord | None = None
    """How the executor ended the call, with who decided."""

    @property
    def denied(self) -> bool:
        return self.record is not None and self.record.approved is False


def action_line(item: PlanItem) -> str:
    """The exact call, as `--dry-run` prints it and the executor will run it."""
    return f"{item.tool}({', '.join(f'{k}={v!r}' for k, v in item.arguments.items())})"


def entry(item: PlanItem, context: ToolContext, policy: Policy) -> ReviewEntry:
    grant, caution = plans.offered(item.tool, item.arguments, context, policy)
    if item.tool == "post_comment":
        body = str(item.arguments["body"])
        headline = f"{item.headline()} ({item.why})" + (f" ! {caution}" if caution else "")
        return ReviewEntry(item.n, headline, notes=(), editable=body, grant=grant, body=body)
    notes = (item.why, f"! {caution}") if caution else (item.why,)
    return ReviewEntry(item.n, item.headline(), notes=notes, editable=str(item.arguments["label"]), grant=grant)


def edited_item(project: Project, item: PlanItem, text: str) -> PlanItem:
    """The item with the person's text: a label of the same group the issue may get, or a comment."""
    if item.tool == "post_comment":
        body = text.strip("\n")
        if not body.strip() or len(body) > COMMENT_LIMIT:
            raise ValueError(f"a comment must have 1 to {COMMENT_LIMIT:,} characters")
        return replace(item, arguments={**item.arguments, "body": body}, why="edited by you")
    label = text.strip()
    old = str(item.arguments["label"])
    group = next((g for g in project.groups if old in g.labels), None)
    if group is None or label not in group.labels:
        allowed = ", ".join(group.labels) if group else old
        raise ValueError(f"{label!r} is not a label of this group; one of: {allowed}")
    if label in project.issue(item.issue_id).removed:
        raise ValueError(f"{label} was removed from #{item.issue_id} by a person")
    return replace(item, arguments={**item.arguments, "label": label}, why=f"{group.name}: {label} (chosen by you)")


@dataclass(frozen=True)
class Reviewed:
    items: list[PlanItem]
    """Every item, as the person left it (edited or not)."""
    approved: set[int] | None
    """The numbers they approved; None when there was no terminal to review on."""


def review(project: Project, items: list[PlanItem], context: ToolContext, policy: Policy) -> Reviewed:
    """The items as a person edited them and those they approved (`approved` None: no terminal).

    `p N` at the review writes a rule for each named item, as it was shown, before it is approved."""
    by_number = {item.n: item for item in items}

    def edit(number: int, text: str) -> ReviewEntry:
        by_number[number] = edited_item(project, by_number[number], text)
        return entry(by_number[number], context, policy)

    def grant(numbers: list[int]) -> list[str]:
        told, written = [], set()
        for n in numbers:
            item = by_number[n]
            same = (item.tool, str(item.arguments.get("label", item.arguments.get("body"))))
            if same not in written:  # two items adding the same label need one rule
                written.add(same)
                told.append(plans.write(item.tool, item.arguments, context))
        return told

    reviewer = PlanReview()
    if not reviewer.can_ask():
        return Reviewed(list(items), None)
    entries = [entry(item, context, policy) for item in items]
    decided = reviewer.review(entries, edit, grant, plans.where(context))
    edited = [by_number[item.n] for item in items]
    return Reviewed(edited, None if decided is None else decided[1])


def execute(
    reviewed: Reviewed, checksum: str, context: ToolContext, policy: Policy, *, shown_by: Listener | None = None
) -> list[Applied]:
    """Every item through the executor, decided as the module says; each item's outcome, in plan order.

    Each call goes to the call log, then to `shown_by` (the `--jsonl` stream) when there is one."""
    items = reviewed.items
    if not items:
        return []
    session = f"plan-{checksum[:12]}"
    registry = load_registry().filtered(lambda spec: spec.name in ("add_label", "post_comment"))
    calls = [ToolCall(item.tool, json.dumps(item.arguments, ensure_ascii=False), f"item-{item.n}") for item in items]
    numbers = reviewed.approved
    approved = {f"item-{item.n}": item.arguments for item in items if numbers is not None and item.n in numbers}

    def approve(request: ApprovalRequest) -> bool:
        request.decided_by.append("no-terminal" if numbers is None else "person")
        return approved.get(request.call_id) == request.arguments  # exactly what was shown and approved

    run = CallSession(
        tools=registry,
        call_log=CallLog.at_home(context.home),
        id=session,
        # A plan's comment is drafted for an issue Atlas has not commented on: so it must still be when it is posted.
        context=replace(context, session=session, limits=WriteLimits(first_comment=True)),
        options=SessionOptions(timeout_s=15.0),
        policy=plans.PlanPolicy(PolicyGate(policy, context.home), reviewed=numbers is not None),
    )
    run.attach(shown_by, approve=approve, approve_batch=lambda requests: {r.call_id for r in requests if approve(r)})
    try:
        outputs, records = run.run_calls(calls)
    finally:
        run.close()
    results = [
        _applied(item, output, records.get(call.call_id))
        for item, output, call in zip(items, outputs, calls, strict=True)
    ]
    try:
        record_applied(context.home, checksum, [r.item.n for r in results if r.ok])
    except ToolError as exc:  # the shared state went away: the tracker's records still keep each action once
        warn(f"which items were applied was not recorded: {exc}")
    return results


def _applied(item: PlanItem, output: dict[str, Any], record: CallRecord | None) -> Applied:
    try:
        envelope = json.loads(output["output"])
    except (KeyError, TypeError, ValueError):
        return Applied(item, False, False, "no result", record)
    if envelope.get("ok"):
        data = envelope.get("data") or {}
        changed = bool(data.get("changed", True)) if isinstance(data, dict) else True
        note = data.get("note") if isinstance(data, dict) else None  # why not: another run's comment is there
        return Applied(item, True, changed, "done" if changed else str(note or "nothing to change"), record)
    error = envelope.get("error") or {}
    return Applied(item, False, False, f"{error.get('kind', 'failed')}: {error.get('message', '')}", record)


def failed(results: list[Applied]) -> bool:
    """Whether an item that was to run (not denied) failed."""
    return any(not result.ok and not result.denied for result in results)


def report(console: Console, results: list[Applied]) -> int:
    """One line per item that was to run, then what was denied (by a rule, or for want of a
    terminal; what the person left out at the review they know); 1 when an item failed."""
    for result in results:
        if not result.denied:
            mark = "✓" if result.ok else "✗"
            line = f"{mark} {result.item.n}. {clean_line(result.item.headline())}: {clean_line(result.message)}"
            console.print(line, soft_wrap=True)
    records = [r.record for r in results if r.denied and r.record is not None and r.record.decided_by != "person"]
    print_denied(console, records)
    return 1 if failed(results) else 0


def run_plan(
    project: Project,
    items: list[PlanItem],
    checksum: str,
    policy: Policy,
    console: Console,
    events: JsonlEvents | None,
    *,
    show_plan: Callable[[], None],
    hint: str = "",
) -> int:
    """Review the items (or, with no terminal, leave them to the rules), apply them, say what happened;
    the exit code (with `--jsonl`, also 3 when something was denied)."""
    context = ToolContext(data=project.corpus.data, home=project.corpus.home)
    reviewed = review(project, items, context, policy)
    if reviewed.approved is None and events is None:
        show_plan()
    results = execute(reviewed, checksum, context, policy, shown_by=events)
    if reviewed.approved is None and not any(result.ok for result in results):
        console.print(f"No terminal to review the plan on: nothing was applied{hint}.", soft_wrap=True)
    elif reviewed.approved is None:
        console.print("No terminal to review the plan on: applied only what a rule allows.", soft_wrap=True)
    code = report(console, results)
    if events is None:
        return code
    return events.ended([r.record for r in results if r.record is not None], failed=failed(results))


def plan_event(events: JsonlEvents, items: list[PlanItem], checksum: str, **fields: Any) -> None:
    """The plan as one event: each item's exact call and why; the run's session from here on."""
    events.session = f"plan-{checksum[:12]}"
    shown = [{"n": i.n, "tool": i.tool, "arguments": i.arguments, "why": i.why} for i in items]
    events.emit("plan", items=shown, **fields)
