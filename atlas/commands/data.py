"""`atlas data import` and `atlas data sync`: a maintainer's own GitHub project as a dataset folder."""

from __future__ import annotations

import shlex
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from atlas.foundation.errors import DataError
from atlas.foundation.sanitize import clean_line
from atlas.ui.render import make_console

if TYPE_CHECKING:
    from atlas.github.sync import Progress as StageReports

SHOWN_SKIPS = 10
SHOWN_LABELS = 60


def run_import(file: Path, to: Path, docs: Path | None) -> None:
    from atlas.github.importer import import_export

    report = import_export(file, to, docs=docs)
    console = make_console(for_tables=True)
    converted = report.converted
    console.print(
        f"Imported {len(converted.issues)} issues ({report.comments} comments) into {clean_line(to)}.", style="bold"
    )
    _print_skipped(console, converted.skipped, converted.pull_requests)
    _print_list(console, "labels", converted.labels())
    _print_list(console, "docs", report.docs)
    _ready_triage(console, to)
    _print_next(console, to)


def run_sync(repo_text: str, to: Path, docs: Path | None, *, full: bool, concurrency: int) -> None:
    from atlas.github.client import GitHubClient, api_url, find_token, parse_repo
    from atlas.github.errors import GitHubError
    from atlas.github.sync import sync_repo

    repo = parse_repo(repo_text)
    errors = make_console(stderr=True)
    base_url = api_url()
    token = find_token(base_url)
    if token is None:
        errors.print("No GITHUB_TOKEN and no `gh auth token`: public data only, 60 requests an hour.", style="dim")
    client = GitHubClient(token=token, base_url=base_url, on_wait=lambda text: errors.print(clean_line(text)))
    try:
        with client, _progress_bar(errors) as progress:
            report = sync_repo(client, repo, to, docs=docs, full=full, progress=progress, workers=concurrency)
    except GitHubError as exc:
        raise DataError(f"sync of {repo} stopped, nothing was written: {exc}") from None
    console = make_console(for_tables=True)
    if report.not_modified:
        console.print(
            f"{clean_line(repo)}: nothing changed since the last sync (GitHub answered 304, free of rate limit)."
        )
    else:
        console.print(
            f"{repo}: {report.new} new and {report.updated} changed issues, {report.comment_fetches} comment "
            f"lists fetched; {report.total} issues in {clean_line(to)}.",
            style="bold",
        )
    _print_skipped(console, report.skipped, report.pull_requests)
    console.print(f"{client.requests} requests to {clean_line(client.shown_url)}.", style="dim")
    # Also when nothing changed: a build an earlier sync did not finish (Ctrl-C) is finished now.
    _ready_triage(console, to)
    if report.new or report.updated:
        _print_next(console, to)


def _ready_triage(console: Console, to: Path) -> None:
    """Fit and keep what the triage tools could not build within a call (`triage/readiness.py`), with a bar on a
    terminal: the first `atlas ask` for labels answers at once. Ctrl-C skips it; the data is written already."""
    from atlas.foundation.config import atlas_home
    from atlas.triage.project import Project
    from atlas.triage.readiness import build, steps_for

    home = atlas_home()
    project = Project.open(to, home)
    steps = steps_for(project)
    if not steps:
        return
    errors = make_console(stderr=True)
    named = ", ".join(step.what for step in steps)
    errors.print(f"Readying triage for {project.corpus.count():,} issues: {named} (Ctrl-C skips it).", style="dim")
    started = time.perf_counter()
    try:
        with _progress_bar(errors) as progress:
            build(steps, progress)
    except KeyboardInterrupt:
        console.print("triage: skipped; the first `atlas triage --dry-run` builds it.")
        return
    console.print(f"triage: {named} kept for this version of the data ({time.perf_counter() - started:.0f} s).")


@contextmanager
def _progress_bar(console: Console) -> Iterator[StageReports | None]:
    """Bars for the issue pages and the comment lists, on a terminal; nothing on a pipe."""
    if not console.is_terminal:
        yield None
        return
    columns = (TextColumn("{task.description:>13}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    bar = Progress(*columns, console=console, transient=True)
    tasks: dict[str, TaskID] = {}

    def show(stage: str, done: int, total: int | None) -> None:
        if stage not in tasks:
            tasks[stage] = bar.add_task(stage, total=total)
        bar.update(tasks[stage], completed=done, total=total)

    with bar:
        yield show


def _print_skipped(console: Console, skipped: list[str], pull_requests: int) -> None:
    others = [line for line in skipped if not line.endswith(": a pull request")]
    if pull_requests:
        console.print(f"Skipped {pull_requests} pull requests.")
    if others:
        console.print(f"Skipped {len(others)} records:")
        for line in others[:SHOWN_SKIPS]:
            console.print(f"  {clean_line(line)}")
        if len(others) > SHOWN_SKIPS:
            console.print(f"  … and {len(others) - SHOWN_SKIPS} more")


def _print_list(console: Console, name: str, items: list[str]) -> None:
    shown = ", ".join(clean_line(item) for item in items[:SHOWN_LABELS])
    more = f", … ({len(items) - SHOWN_LABELS} more)" if len(items) > SHOWN_LABELS else ""
    console.print(f"{name} ({len(items)}): {shown or 'none'}{more}")


def _print_next(console: Console, to: Path) -> None:
    """What Atlas inferred, and questions that work on this project (each tried before it is offered)."""
    from atlas.commands.project_summary import summarize, summary_lines
    from atlas.foundation.config import atlas_home

    summary = summarize(to, atlas_home())
    for line in summary_lines(summary):
        console.print(clean_line(line))
    if summary.questions:
        console.print("Try:", style="dim")
    for question in summary.questions:
        console.print(f"  ORBIT_DATA={shlex.quote(str(to))} atlas ask {shlex.quote(question)}", style="dim")
    if not summary.comments_known or not summary.groups:
        console.print(f"  ORBIT_DATA={shlex.quote(str(to))} atlas inbox --only untriaged", style="dim")
