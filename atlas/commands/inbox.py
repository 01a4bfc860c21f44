"""`atlas inbox`: the open issues that need a maintainer, most severe first (unknown after the worst), then oldest."""

from __future__ import annotations

import json

from atlas.config import atlas_home, data_dir
from atlas.errors import AtlasError, ToolError
from atlas.triage.memory import last_seen, remember_seen
from atlas.triage.own_writes import commented_through_atlas
from atlas.triage.project import Project
from atlas.triage.signals import InboxItem, inbox
from atlas.ui.render import data_table, make_console


def _severity(item: InboxItem) -> str:
    """The label, `unknown` where one is expected and missing, nothing where the issue takes none."""
    return item.severity.label or ("unknown" if item.severity.unknown else "")


REASONS = ("untriaged", "unanswered", "waiting", "new", "stale")


def run_inbox(*, as_json: bool, limit: int | None, only: str | None = None) -> None:
    data, home = data_dir(), atlas_home()
    try:
        project = Project.open(data, home)
        identity = project.corpus.identity()
        seen = last_seen(home, identity)
        items = inbox(project, seen_until=seen, commented=commented_through_atlas(project))
        newest = max((issue.created_at for issue in project.corpus.newest(1)), default="")
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    remember_seen(home, identity, newest)
    if only is not None:
        items = [item for item in items if any(reason.startswith(only) for reason in item.reasons)]
    shown = items[:limit] if limit else items
    if as_json:
        for item in shown:
            print(json.dumps(item.as_dict(), ensure_ascii=False))
        return
    console = make_console(for_tables=True)
    if not shown:
        console.print("Nothing needs you: every open issue is labelled, answered and active.", style="dim")
        return
    rows = [(f"#{i.issue.id}", _severity(i), f"{i.age_days}d", i.issue.title, "; ".join(i.reasons)) for i in shown]
    console.print(data_table(("issue", "severity", "age", "title", "why"), rows, right=("age",), cut=("title",)))
    first = " (first inbox: new issues are marked from the next one on)" if seen is None else ""
    console.print(f"{len(items)} open issues need a look{first}.", style="dim")
