"""The backlog read tools: `list_inbox` (what `atlas inbox` lists) and `plan_triage` (what `atlas triage`
plans), for models in `ask` and `chat`. Both only read: a plan is shown for a person to review; its labels
are added with `add_label` (approved one by one) or by `atlas triage`, which reviews and applies it once.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal, NamedTuple

from atlas.orbit.db import IssueId
from atlas.orbit.issues import ISSUE_TTL_S, search_tags
from atlas.tools.arguments import Arg
from atlas.tools.registry import ToolContext, tool
from atlas.triage.inbox_order import InboxOrder
from atlas.triage.tools import TRIAGE_TIMEOUT_S, missing_issue, require_kept

Reason = Literal["untriaged", "unanswered", "waiting", "new", "stale"]


class InboxArgs(NamedTuple):
    only: Annotated[Reason | None, Arg(description="Only issues listed for this reason.")] = None
    limit: Annotated[int, Arg(ge=1, le=50, description="The most issues to return (1-50), first in `order`.")] = 20
    order: Annotated[
        InboxOrder,
        Arg(description="urgent: the most severe first, then the oldest; newest or oldest: by the date opened alone."),
    ] = "urgent"
    about: Annotated[
        str,
        Arg(max_length=200, description="Only issues with all these plain words (as search_issues)."),
    ] = ""
    opened_since: Annotated[
        date | None,
        Arg(description="Only issues opened on or after this day (YYYY-MM-DD)."),
    ] = None
    label: Annotated[
        str,
        Arg(max_length=100, description="Only issues carrying this label, as the project spells it (list_labels)."),
    ] = ""


class TriageArgs(NamedTuple):
    issue_ids: Annotated[tuple[IssueId, ...], Arg(max_length=50, description="The issues to triage.")] = ()
    untriaged: Annotated[
        bool,
        Arg(description="With no issue_ids: the newest open issues with a label group missing."),
    ] = False
    limit: Annotated[int, Arg(ge=1, le=50, description="The most issues to plan for (1-50).")] = 10


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
    oldest, unless `order` asks for the newest or the oldest opened first; narrowed to a topic (`about`), a
    `label` and issues opened since a day when asked. `counts` says how many there are for each reason."""
    from atlas.triage.inbox_filter import InboxFilter
    from atlas.triage.memory import last_seen
    from atlas.triage.own_writes import commented_through_atlas
    from atlas.triage.project import project_for
    from atlas.triage.signals import COMMENTS_UNKNOWN, THREAD_REASONS, inbox_items

    project = project_for(ctx.data, ctx.home)
    known = project.corpus.comments_known()
    if args.only in THREAD_REASONS and not known:  # unknown, not zero: the data cannot say who is waiting
        return {"total": None, "counts": {}, "issues": [], "comments_known": False, "note": COMMENTS_UNKNOWN}
    seen = last_seen(ctx.home, project.corpus.identity())
    within = InboxFilter(args.about, args.opened_since, args.label).issue_ids(ctx.data, ctx.home)
    commented = commented_through_atlas(project)
    items = list(inbox_items(project, seen_until=seen, commented=commented, order=args.order, within=within))
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
    newest = next((issue.created_at[:10] for issue in project.corpus.newest(1)), None)
    if not items and args.opened_since and newest and newest < args.opened_since.isoformat():
        notes.insert(0, f"No issue in this data was opened on or after {args.opened_since}: the newest on {newest}.")
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
        found = {issue_id: project.corpus.get(issue_id) for issue_id in dict.fromkeys(args.issue_ids)}
        absent = [issue_id for issue_id, issue in found.items() if issue is None]
        if absent:
            raise missing_issue(ctx, absent[0])
        issues = [issue for issue in found.values() if issue is not None][: args.limit]
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
