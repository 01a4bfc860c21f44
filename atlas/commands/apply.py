"""`atlas apply FILE`: a saved plan applied later, each item re-checked against its issue now, never twice."""

from __future__ import annotations

from pathlib import Path

from atlas.commands.plan_run import plan_event, run_plan
from atlas.foundation.config import atlas_home, data_dir
from atlas.foundation.errors import AtlasError, ToolError
from atlas.foundation.sanitize import clean_line
from atlas.policy.load import load_policy
from atlas.triage.journal import applied
from atlas.triage.own_writes import atlas_comments
from atlas.triage.plan import PlanItem, fingerprints
from atlas.triage.plan_file import read_plan
from atlas.triage.project import Project
from atlas.ui.jsonl import JsonlEvents, streamed
from atlas.ui.render import make_console


def still_valid(
    project: Project, items: list[PlanItem], prints: dict[int, str], home: Path
) -> tuple[list[PlanItem], list[str]]:
    """The items whose issue is as it was when the plan was made, and a line for each one skipped."""
    issues = project.corpus.many(sorted({item.issue_id for item in items}))
    now = fingerprints(project, list(issues.values()), atlas_comments(home, project.corpus.data))
    kept, skipped = [], []
    for item in items:
        if item.issue_id not in issues:
            skipped.append(f"{item.n}. {item.headline()}: skipped, the issue is no longer in the data")
        elif now[item.issue_id] != prints.get(item.issue_id):
            skipped.append(f"{item.n}. {item.headline()}: skipped, the issue changed since the plan was made")
        else:
            kept.append(item)
    return kept, skipped


def run_apply(path: Path, *, jsonl: bool = False) -> int:
    return streamed(lambda events: _apply(path, events)) if jsonl else _apply(path, None)


def _apply(path: Path, events: JsonlEvents | None) -> int:
    data, home = data_dir(), atlas_home()
    policy = load_policy(home)  # a policy it cannot read stops the run before the plan is read
    if events is not None:
        events.run_started("apply_started", plan=str(path))
    try:
        project = Project.open(data, home)
        plan = read_plan(path, project.corpus.identity())
        checksum = plan.checksum()
        done = applied(home, checksum)
        fresh = [item for item in plan.items if item.n not in done]
        kept, skipped = still_valid(project, fresh, plan.fingerprints, home)
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    if events is not None:
        plan_event(events, kept, checksum, already_applied=sorted(done), skipped=skipped)
    console = make_console(stderr=events is not None)  # with --jsonl, standard output is the events' alone
    for item in plan.items:
        if item.n in done:
            console.print(
                f"{item.n}. {clean_line(item.headline())}: already applied ({done[item.n]}), skipped", style="dim"
            )
    for line in skipped:
        console.print(clean_line(line), style="yellow")
    if not kept:
        console.print("Nothing left to apply in this plan.")
        return 0 if events is None else events.ended([])
    return run_plan(project, kept, checksum, policy, console, events, show_plan=lambda: None)
