"""A plan's items reviewed as one numbered list and applied through the executor: approved, idempotent, logged.

The review is the approval: the executor is given exactly the items a person approved (with their
edits), runs each tool's own check first (an item that would change nothing is not written), and
every call goes to the call log and the tracker (the mock one, or GitHub) as a call from `ask` does.
The session and call ids come from the plan's checksum and item numbers, so a plan applied again
after a crash reuses the same idempotency keys: a comment is never posted twice.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from atlas.calllog import CallLog, CallLogWriter
from atlas.events import ApprovalRequest
from atlas.executor.executor import ToolExecutor
from atlas.messages import ToolCall
from atlas.sanitize import clean_line
from atlas.tools.registry import ToolContext, load_registry
from atlas.triage.journal import record_applied
from atlas.triage.plan import PlanItem
from atlas.triage.project import Project
from atlas.ui.plan_review import PlanReview, ReviewEntry
from atlas.ui.render import make_console

COMMENT_LIMIT = 4000


@dataclass(frozen=True)
class Applied:
    item: PlanItem
    ok: bool
    changed: bool
    message: str


def action_line(item: PlanItem) -> str:
    """The exact call, as `--dry-run` prints it and the executor will run it."""
    return f"{item.tool}({', '.join(f'{k}={v!r}' for k, v in item.arguments.items())})"


def entry(item: PlanItem) -> ReviewEntry:
    if item.tool == "post_comment":
        return ReviewEntry(
            item.n, f"{item.headline()} ({item.why})", str(item.arguments["body"]), item.arguments["body"]
        )
    return ReviewEntry(item.n, item.headline(), item.why, str(item.arguments["label"]))


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


def review(project: Project, items: list[PlanItem]) -> list[PlanItem] | None:
    """The items a person approved (as edited); None when there is no terminal to ask on."""
    by_number = {item.n: item for item in items}

    def edit(number: int, text: str) -> ReviewEntry:
        by_number[number] = edited_item(project, by_number[number], text)
        return entry(by_number[number])

    decided = PlanReview().review([entry(item) for item in items], edit)
    if decided is None:
        return None
    _, numbers = decided
    return [by_number[item.n] for item in items if item.n in numbers]


def execute(items: list[PlanItem], checksum: str, data: Path, home: Path) -> list[Applied]:
    """Run the approved items through the executor; each item's outcome, in plan order."""
    if not items:
        return []
    session = f"plan-{checksum[:12]}"
    registry = load_registry().filtered(lambda spec: spec.name in ("add_label", "post_comment"))
    calls = [ToolCall(item.tool, json.dumps(item.arguments, ensure_ascii=False), f"item-{item.n}") for item in items]
    approved = {call.call_id: item.arguments for call, item in zip(calls, items, strict=True)}

    def approve(request: ApprovalRequest) -> bool:
        return approved.get(request.call_id) == request.arguments

    executor = ToolExecutor(
        registry,
        timeout_s=15.0,
        approve=approve,
        approve_batch=lambda requests: {r.call_id for r in requests if approve(r)},
        observers=[CallLogWriter(CallLog.at_home(home), session)],
        session=session,
        context=ToolContext(data=data, home=home, session=session),
    )
    outputs = asyncio.run(executor.run_all(calls))
    results = [_applied(item, output) for item, output in zip(items, outputs, strict=True)]
    record_applied(home, checksum, [r.item.n for r in results if r.ok])
    return results


def _applied(item: PlanItem, output: dict[str, Any]) -> Applied:
    try:
        envelope = json.loads(output["output"])
    except (KeyError, TypeError, ValueError):
        return Applied(item, False, False, "no result")
    if envelope.get("ok"):
        data = envelope.get("data") or {}
        changed = bool(data.get("changed", True)) if isinstance(data, dict) else True
        return Applied(item, True, changed, "done" if changed else "nothing to change")
    error = envelope.get("error") or {}
    return Applied(item, False, False, f"{error.get('kind', 'failed')}: {error.get('message', '')}")


def report(results: list[Applied]) -> int:
    """One line per item; the exit code is 1 when an approved item failed."""
    console = make_console()
    for result in results:
        mark = "✓" if result.ok else "✗"
        console.print(f"{mark} {result.item.n}. {clean_line(result.item.headline())}: {clean_line(result.message)}")
    return 0 if all(result.ok for result in results) else 1
