"""The backlog read tools: `list_inbox` (what `atlas inbox` lists) and `plan_triage` (what `atlas triage`
plans), for models in `ask` and `chat`. Both only read: a plan is shown for a person to review; its labels
are added with `add_label` (approved one by one) or by `atlas triage`, which reviews and applies it once.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from atlas.orbit.db import IssueId
from atlas.orbit.issues import ISSUE_TTL_S, search_tags
from atlas.tools.registry import ARGS_CONFIG, ToolContext, tool
from atlas.triage.inbox_order import InboxOrder
from atlas.triage.tools import TRIAGE_TIMEOUT_S, require_kept

Reason = Literal["untriaged", "unanswered", "waiting", "new", "stale"]


class InboxArgs(BaseModel):
    model_config = ARGS_CONFIG

    only: Reason | None = Field(None, description="Only issues listed for this reason.")
    limit: int = Field(20, ge=1, le=50, description="The most issues to return (1-50), first in `order`.")
    order: InboxOrder = Field(
        "urgent",
        description="urgent: the most severe first, then the oldest; newest or oldest: by the date opened alone.",
    )


class TriageArgs(BaseModel):
    model_config = ARGS_CONFIG

    issue_ids: list[IssueId] = Field(default_factory=list, max_length=50, description="The issues to triage.")
    untriaged: bool = Field(False, description="With no issue_ids: the newest open issues with a label group missing.")
    limit: int = Field(10, ge=1, le=50, description="The most issues to plan for (1-50).")


def _inbox_sources(args: Any, data: Any) -> list[str]:
    items = data.get("issues", []) if isinstance(data, dict) else []
    return [f"issue #{item['id']}" for item in items if isinstance(item, dict) and "id" in item]


def _plan_sources(args: Any, data: Any) -> list[str]:
    ids = data.get("issues", []) if isinstance(data, dict) else []
    return [f"issue #{issue_id}" for issue_id in ids]


@tool(InboxArgs, timeout_s=TRIAGE_TIMEOUT_S, untrusted=_inbox_sources, cache_ttl_s=ISSUE_TTL_S, cache_tags=search_tags)
def list_inbox(args: InboxArgs, ctx: ToolContext) -> dict[str, Any]:
    """The open issues that need a maintainer and why (untriaged: a label group missing; unanswered; waiting on
    the reporter; new since the last `atlas inbox`; stale: no activity for a while), most severe first, then
    oldest, unless `order` asks for the newest or the oldest opened first. `counts` says how many there are
    for each reason."""
    from atlas.triage.memory import last_seen
    from atlas.triage.own_writes import commented_through_atlas
    from atlas.triage.project import project_for
    from atlas.triage.signals import COMMENTS_UNKNOWN, THREAD_REASONS, inbox

    project = project_for(ctx.data, ctx.home)
    known = project.corpus.comments_known()
    if args.only in THREAD_REASONS and not known:  # unknown, not zero: the data cannot say who is waiting
        return {"total": None, "counts": {}, "issues": [], "comments_known": False, "note": COMMENTS_UNKNOWN}
    seen = last_seen(ctx.home, project.corpus.identity())
    items = inbox(project, seen_until=seen, commented=commented_through_atlas(project), order=args.order)
    counts: dict[str, int] = {}
    for item in items:
        for reason in item.reasons:
            key = reason.split(":")[0].split(" ")[0]
            counts[key] = counts.get(key, 0) + 1
    if args.only is not None:
        items = [item for item in items if any(reason.startswith(args.only) for reason in item.reasons)]
    shown = [item.as_dict() for item in items[: args.limit]]
    result: dict[str, Any] = {"total": len(items), "counts": counts, "issues": shown, "comments_known": known}
    notes = [] if known else [COMMENTS_UNKNOWN]
    if len(items) > len(shown):
        notes.append(f"{len(items) - len(shown)} more: call again with a larger limit (at most 50).")
    if notes:
        result["note"] = " ".join(notes)
    return result


@tool(TriageArgs, timeout_s=TRIAGE_TIMEOUT_S, untrusted=_plan_sources, cache_ttl_s=ISSUE_TTL_S, cache_tags=search_tags)
def plan_triage(args: TriageArgs, ctx: ToolContext) -> dict[str, Any]:
    """A triage plan for issues, as `atlas triage --dry-run` makes it: labels for each empty label group (above
    the confidence threshold) and a comment draft where nobody has answered, each with why. Only a plan: nothing
    is changed. Show it to the user; each label is added with add_label if they ask."""
    from atlas.triage.own_writes import atlas_comments, untriaged
    from atlas.triage.plan import build_plan
    from atlas.triage.project import project_for

    project = project_for(ctx.data, ctx.home)
    if args.issue_ids:
        issues = [project.issue(issue_id) for issue_id in dict.fromkeys(args.issue_ids)][: args.limit]
    elif args.untriaged:
        issues = untriaged(project, args.limit)
    else:
        return {"issues": [], "actions": [], "note": "Name issue_ids, or set untriaged to plan for the backlog."}
    ids = [issue.id for issue in issues]
    command = "atlas triage " + (" ".join(map(str, ids)) if args.issue_ids else f"--untriaged --limit {args.limit}")
    require_kept(project, f"{command} --dry-run")
    plan = build_plan(project, issues, atlas_comments(ctx.home, ctx.data))
    return {
        "issues": ids,
        "actions": [
            {"n": item.n, "issue_id": item.issue_id, "tool": item.tool, "arguments": item.arguments, "why": item.why}
            for item in plan.items
        ],
        "needs_a_human": plan.notes,
        "note": f"Only a plan: nothing was changed. `{command}` reviews it and applies what you approve, once.",
    }
