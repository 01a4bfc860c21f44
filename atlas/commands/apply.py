"""`atlas apply FILE`: a saved plan applied later, each item re-checked against its issue now, never twice."""

from __future__ import annotations

from pathlib import Path

from atlas.commands.plan_run import execute, report, review
from atlas.commands.triage import atlas_comments
from atlas.config import atlas_home, data_dir
from atlas.errors import AtlasError, ToolError
from atlas.sanitize import clean_line
from atlas.triage.journal import applied
from atlas.triage.plan import PlanItem, fingerprints
from atlas.triage.plan_file import read_plan
from atlas.triage.project import Project
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


def run_apply(path: Path) -> int:
    data, home = data_dir(), atlas_home()
    try:
        project = Project.open(data, home)
        plan = read_plan(path, project.corpus.identity())
        checksum = plan.checksum()
        done = applied(home, checksum)
        fresh = [item for item in plan.items if item.n not in done]
        kept, skipped = still_valid(project, fresh, plan.fingerprints, home)
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    console = make_console()
    for item in plan.items:
        if item.n in done:
            console.print(
                f"{item.n}. {clean_line(item.headline())}: already applied ({done[item.n]}), skipped", style="dim"
            )
    for line in skipped:
        console.print(clean_line(line), style="yellow")
    if not kept:
        console.print("Nothing left to apply in this plan.")
        return 0
    approved = review(project, kept)
    if approved is None:
        console.print("No terminal to review the plan on: nothing was applied.")
        return 0
    return report(execute(approved, checksum, data, home))
