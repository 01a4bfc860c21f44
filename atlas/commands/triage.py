"""`atlas triage`: one plan of labels (and comments where useful) for many issues, reviewed as one list.

`--dry-run` prints the exact actions, `--plan FILE` saves them for `atlas apply`; otherwise the
person reviews the numbered plan at the terminal and the approved items go through the executor
(with no terminal, the approval policy's rules alone decide). `--jsonl` writes the run as the
events `atlas ask --jsonl` writes (`atlas.ui.jsonl`), and its exit codes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from atlas.commands.plan_run import action_line, plan_event, run_plan
from atlas.foundation import statefiles
from atlas.foundation.config import atlas_home, data_dir, dataset_name
from atlas.foundation.errors import AtlasError, ToolError
from atlas.foundation.sanitize import clean, clean_line, write_line
from atlas.policy.load import load_policy
from atlas.triage.corpus import Issue
from atlas.triage.groups import no_groups_note
from atlas.triage.own_writes import atlas_comments, untriaged
from atlas.triage.plan import FILE_LIMIT, FORMAT, Plan, PlanError, build_plan
from atlas.triage.project import Project
from atlas.triage.settings import CONFIG_FILE
from atlas.ui.json_out import print_json
from atlas.ui.jsonl import JsonlEvents, streamed
from atlas.ui.render import make_console


@dataclass(frozen=True)
class TriageOptions:
    issues: list[int]
    untriaged: bool
    limit: int
    dry_run: bool
    plan: Path | None
    as_json: bool
    jsonl: bool = False


def chosen_issues(project: Project, options: TriageOptions) -> list[Issue]:
    if options.issues:
        found = [project.issue(issue_id) for issue_id in dict.fromkeys(options.issues)]
        return found[: options.limit]
    if not options.untriaged:
        raise AtlasError("name the issues to triage (atlas triage 131 132) or use --untriaged")
    return untriaged(project, options.limit)


def print_plan(plan: Plan, *, as_json: bool) -> None:
    if as_json:
        print_json({"actions": [asdict(item) for item in plan.items], "needs_a_human": plan.notes})
        return
    console = make_console()
    if not plan.items:
        console.print("Nothing to do: no label above the threshold and no comment worth drafting.")
    for item in plan.items:
        console.print(f"{item.n}. {clean_line(action_line(item) if item.tool == 'add_label' else item.headline())}")
        if item.tool == "post_comment":
            console.print("    " + clean(item.arguments["body"]).replace("\n", "\n    "), soft_wrap=True)
        console.print(f"    why: {clean_line(item.why)}", style="dim", soft_wrap=True)
    for note in plan.notes:
        console.print(clean_line(note), style="yellow")


def save_plan(plan: Plan, path: Path) -> None:
    """Written whole; a file that is not an Atlas plan is never replaced."""
    if path.exists():
        try:
            ours = json.loads(statefiles.read_text(path, limit=FILE_LIMIT, what="a plan")).get("format") == FORMAT
        except (OSError, ValueError, AttributeError, UnicodeDecodeError):
            ours = False
        if not ours:
            raise PlanError(f"{path} exists and is not an Atlas plan; choose another file")
    try:
        statefiles.replace_file(path, plan.to_json().encode("utf-8"), mode=0o644)
    except OSError as exc:
        raise PlanError(f"cannot write the plan {path}: {exc}") from None


def run_triage(options: TriageOptions) -> int:
    return streamed(lambda events: _triage(options, events)) if options.jsonl else _triage(options, None)


def _triage(options: TriageOptions, events: JsonlEvents | None) -> int:
    data, home = data_dir(), atlas_home()
    applying = options.plan is None and not options.dry_run and not options.as_json
    policy = load_policy(home) if applying else None  # a policy it cannot read stops the run before the plan
    if events is not None:
        events.run_started(
            "triage_started", issues=options.issues, untriaged=options.untriaged, dataset=dataset_name(data),
            dry_run=options.dry_run,
        )  # fmt: skip
    try:
        project = Project.open(data, home)
        if not project.groups:
            # Without a group there is nothing to propose: say so at once instead of fitting a model for nothing.
            raise AtlasError(no_groups_note(project.most_used, str(home / CONFIG_FILE)))
        issues = chosen_issues(project, options)
        plan = build_plan(project, issues, atlas_comments(home, data))
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    if events is not None:
        plan_event(events, plan.items, plan.checksum(), needs_a_human=plan.notes)
    if options.plan is not None:
        save_plan(plan, options.plan)
        count = len({item.issue_id for item in plan.items})
        saved = f"Saved {len(plan.items)} actions on {count} issues to {options.plan}"
        write_line(f"{saved}; apply with: atlas apply {options.plan}")
        return 0
    if events is not None and options.dry_run:
        return 0
    if options.dry_run or options.as_json:
        print_plan(plan, as_json=options.as_json)
        return 0
    assert policy is not None
    console = make_console(stderr=events is not None)  # with --jsonl, standard output is the events' alone
    for note in plan.notes:
        console.print(clean_line(note), style="yellow")
    if not plan.items:
        console.print("Nothing to apply.")
        return 0 if events is None else events.ended([])
    return run_plan(
        project,
        plan.items,
        plan.checksum(),
        policy,
        console,
        events,
        show_plan=lambda: print_plan(plan, as_json=False),
        hint=" (save it with --plan FILE, apply it later)",
    )
