"""`atlas inbox`: the open issues that need a maintainer, most severe first (unknown after the worst), then oldest."""

from __future__ import annotations

from atlas.config import atlas_home, data_dir
from atlas.errors import AtlasError, ToolError
from atlas.json_out import print_json
from atlas.notices import warn
from atlas.triage.groups import no_groups_note
from atlas.triage.memory import last_seen, remember_seen
from atlas.triage.own_writes import commented_through_atlas
from atlas.triage.project import Project
from atlas.triage.settings import CONFIG_FILE
from atlas.triage.signals import InboxItem, inbox
from atlas.ui.render import data_table, make_console


def _severity(item: InboxItem) -> str:
    """The label, `unknown` where one is expected and missing, nothing where the issue takes none."""
    return item.severity.label or ("unknown" if item.severity.unknown else "")


THREAD_REASONS = ("unanswered", "waiting", "stale")
"""What only the comments can show."""
COMMENTS_UNKNOWN = (
    "This project's data holds no comments (the export carried none), so whether an issue was answered, is "
    "waiting or is stale is unknown; `atlas data sync` fetches the comments."
)


def _all_clear(only: str | None, known: bool) -> str:
    """What an empty inbox says: only what the data could show."""
    if only is not None:
        return f"no open issue is {only}"
    return "every open issue is labelled, answered and active" if known else "every open issue is labelled"


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
    try:
        remember_seen(home, identity, newest)
    except ToolError as exc:  # the shared state went away: the next inbox marks these new again
        warn(f"this inbox was not remembered: {exc}")
    known = project.corpus.comments_known()
    notes = [] if project.groups else [no_groups_note(project.corpus.label_sets(), str(home / CONFIG_FILE))]
    notes += [] if known else [COMMENTS_UNKNOWN]
    if only is not None and only.startswith(THREAD_REASONS) and not known:
        raise AtlasError(COMMENTS_UNKNOWN)
    if only is not None:
        items = [item for item in items if any(reason.startswith(only) for reason in item.reasons)]
    shown = items[:limit] if limit else items
    if as_json:
        for item in shown:
            print_json(item.as_dict())
        return
    console = make_console(for_tables=True)
    for note in notes:
        make_console(stderr=True).print(note, style="yellow")
    if not shown:
        console.print(f"Nothing needs you: {_all_clear(only, known)}.", style="dim")
        return
    rows = [(f"#{i.issue.id}", _severity(i), f"{i.age_days}d", i.issue.title, "; ".join(i.reasons)) for i in shown]
    console.print(data_table(("issue", "severity", "age", "title", "why"), rows, right=("age",), cut=("title",)))
    first = " (first inbox: new issues are marked from the next one on)" if seen is None else ""
    console.print(f"{len(items)} open issues need a look{first}.", style="dim")
