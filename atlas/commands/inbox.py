"""`atlas inbox`: the open issues that need a maintainer, most severe first (unknown after the worst), then oldest."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

from atlas.config import atlas_home, data_dir
from atlas.errors import AtlasError, ToolError
from atlas.triage.memory import last_seen, remember_seen
from atlas.triage.project import Project
from atlas.triage.signals import InboxItem, inbox_items
from atlas.ui.line_table import write_table
from atlas.ui.render import make_console


def commented_through_atlas(project: Project) -> set[int]:
    from atlas.dataset_source import dataset_identity
    from atlas.tracker.journal import MockTracker

    try:
        records = MockTracker(project.corpus.home, dataset_identity(project.corpus.data)).records()
    except ToolError:
        return set()
    return {r["issue_id"] for r in records if r["action"] == "post_comment"}


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
        found = inbox_items(project, seen_until=seen, commented=commented_through_atlas(project))
        newest = max((issue.created_at for issue in project.corpus.newest(1)), default="")
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    remember_seen(home, identity, newest)
    wanted = (item for item in found if only is None or any(reason.startswith(only) for reason in item.reasons))
    shown = _read(itertools.islice(wanted, limit) if limit else wanted, print_json=as_json)
    if as_json:
        return
    console = make_console(for_tables=True)
    if not shown:
        console.print("Nothing needs you: every open issue is labelled, answered and active.", style="dim")
        return
    rows = [(f"#{i.issue.id}", _severity(i), f"{i.age_days}d", i.issue.title, "; ".join(i.reasons)) for i in shown]
    write_table(console, ("issue", "severity", "age", "title", "why"), rows, right=("age",), cut=("title",))
    first = " (first inbox: new issues are marked from the next one on)" if seen is None else ""
    if limit and len(shown) == limit and next(wanted, None) is not None:
        # The rest was never read: how many more need a look is what a whole `atlas inbox` works out.
        console.print(
            f"The first {len(shown)} open issues that need a look{first}; without -n, all of them.", style="dim"
        )
        return
    console.print(f"{len(shown)} open issues need a look{first}.", style="dim")


def _read(items: Iterator[InboxItem], *, print_json: bool) -> list[InboxItem]:
    """The items, each printed as a JSON line as soon as it is known when `print_json`."""
    read = []
    try:
        for item in items:
            if print_json:
                print(json.dumps(item.as_dict(), ensure_ascii=False))
            else:
                read.append(item)
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    return read
