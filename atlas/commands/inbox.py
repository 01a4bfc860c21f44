"""`atlas inbox`: the open issues that need a maintainer, most severe first (unknown after the worst), then oldest;
or by the date opened (`--order newest`, `--order oldest`)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from atlas.foundation.config import atlas_home, data_dir
from atlas.foundation.errors import AtlasError, ToolError
from atlas.foundation.notices import warn
from atlas.triage.groups import no_groups_note
from atlas.triage.inbox_filter import InboxFilter
from atlas.triage.inbox_order import InboxOrder
from atlas.triage.memory import last_seen, remember_seen
from atlas.triage.own_writes import commented_through_atlas
from atlas.triage.project import Project
from atlas.triage.settings import CONFIG_FILE
from atlas.triage.signals import COMMENTS_UNKNOWN, THREAD_REASONS, InboxItem, inbox_items
from atlas.ui.json_out import print_json
from atlas.ui.line_table import write_table
from atlas.ui.render import make_console


def _severity(item: InboxItem) -> str:
    """The label, `unknown` where one is expected and missing, nothing where the issue takes none."""
    return item.severity.label or ("unknown" if item.severity.unknown else "")


def _all_clear(only: str | None, known: bool, narrowed: InboxFilter) -> str:
    """What an empty inbox says: only what the data could show."""
    if narrowed:
        return f"no open issue {narrowed.describe()} is {only or 'listed'}"
    if only is not None:
        return f"no open issue is {only}"
    return "every open issue is labelled, answered and active" if known else "every open issue is labelled"


REASONS = ("untriaged", "unanswered", "waiting", "new", "stale")


def run_inbox(
    *,
    as_json: bool,
    limit: int | None,
    only: str | None = None,
    order: InboxOrder = "urgent",
    narrowed: InboxFilter | None = None,
) -> None:
    data, home = data_dir(), atlas_home()
    narrowed = narrowed or InboxFilter()
    try:
        project = Project.open(data, home)
        identity = project.corpus.identity()
        seen = last_seen(home, identity)
        within = narrowed.issue_ids(data, home)
        commented = commented_through_atlas(project)
        found = inbox_items(project, seen_until=seen, commented=commented, order=order, within=within)
        newest = max((issue.created_at for issue in project.corpus.newest(1)), default="")
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    try:
        remember_seen(home, identity, newest)
    except ToolError as exc:  # the shared state went away: the next inbox marks these new again
        warn(f"this inbox was not remembered: {exc}")
    known = project.corpus.comments_known()
    notes = [] if project.groups else [no_groups_note(project.most_used, str(home / CONFIG_FILE))]
    notes += [] if known else [COMMENTS_UNKNOWN]
    if only is not None and only.startswith(THREAD_REASONS) and not known:
        raise AtlasError(COMMENTS_UNKNOWN)
    wanted = (item for item in found if only is None or any(reason.startswith(only) for reason in item.reasons))
    shown = _read(itertools.islice(wanted, limit) if limit else wanted, as_json=as_json)
    if as_json:
        return
    console = make_console(for_tables=True)
    for note in notes:
        make_console(stderr=True).print(note, style="yellow")
    if not shown:
        console.print(f"Nothing needs you: {_all_clear(only, known, narrowed)}.", style="dim")
        return
    rows: list[tuple[str, ...]] = [
        (f"#{i.issue.id}", _severity(i), f"{i.age_days}d", i.issue.title, "; ".join(i.reasons)) for i in shown
    ]
    headers: tuple[str, ...] = ("issue", "severity", "age", "title", "why")
    if not any(row[1] for row in rows):  # a project with no severity scale gets no empty column
        headers, rows = headers[:1] + headers[2:], [row[:1] + row[2:] for row in rows]
    write_table(console, headers, rows, right=("age",), cut=("title",))
    first = " (first inbox: new issues are marked from the next one on)" if seen is None else ""
    scope = f" {narrowed.describe()}" if narrowed else ""
    if limit and len(shown) == limit and next(wanted, None) is not None:
        # The rest was never read: how many more need a look is what a whole `atlas inbox` works out.
        console.print(
            f"The first {len(shown)} open issues{scope} that need a look{first}; without -n, all of them.", style="dim"
        )
        return
    console.print(f"{len(shown)} open issues{scope} need a look{first}.", style="dim")


def _read(items: Iterator[InboxItem], *, as_json: bool) -> list[InboxItem]:
    """The items, each printed as a JSON line as soon as it is known when `as_json`."""
    read = []
    try:
        for item in items:
            if as_json:
                print_json(item.as_dict())
            else:
                read.append(item)
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    return read
