"""The triage commands (`inbox`, `similar`, `triage`, `apply`): wiring only, as in `atlas.cli`."""

from __future__ import annotations

from pathlib import Path

import typer

from atlas.cli.options import examples, since_day


def register_triage(app: typer.Typer) -> None:
    app.command(
        short_help="What needs a maintainer: untriaged, unanswered, waiting, new, stale.",
        epilog=examples("atlas inbox", "atlas inbox --only untriaged", "atlas inbox --json | jq .id"),
    )(inbox)
    app.command(
        short_help='Issues like #N, best first: score, state and what they share; "nothing close" when none is.',
        epilog=examples("atlas similar 109", "atlas similar 109 --json"),
    )(similar)
    app.command(
        short_help="One reviewed plan of labels and comments for many issues (--dry-run, --plan, --eval).",
        epilog=examples(
            "atlas triage --untriaged",
            "atlas triage 131 132 --dry-run",
            "atlas triage --untriaged --plan plan.json",
            "atlas triage --eval",
            "atlas triage 131 --jsonl > events.jsonl",
        ),
    )(triage)
    app.command(
        "apply",
        short_help="Apply a saved triage plan: each item re-checked, reviewed, and never applied twice.",
        epilog=examples("atlas apply plan.json"),
    )(apply_plan)


def inbox(
    as_json: bool = typer.Option(False, "--json", help="One JSON object per issue and line."),
    limit: int | None = typer.Option(None, "-n", "--limit", min=1, help="Only the first N issues."),
    only: str | None = typer.Option(
        None, "--only", metavar="WHY", help="Only issues with this reason: untriaged, unanswered, waiting, new, stale."
    ),
    order: str = typer.Option(
        "urgent", "--order", metavar="ORDER", help="urgent (most severe, then oldest), newest or oldest opened first."
    ),
    about: str = typer.Option("", "--about", metavar="WORDS", help="Only issues with all these words."),
    since: str | None = typer.Option(None, "--since", metavar="DAY", help="Only issues opened on or after DAY."),
    label: str = typer.Option("", "--label", metavar="NAME", help="Only issues carrying this label."),
) -> None:
    """The open issues that need a maintainer, most severe first, then oldest. Nothing is changed."""
    from atlas.commands import guarded
    from atlas.commands.inbox import REASONS, run_inbox
    from atlas.triage.inbox_filter import InboxFilter
    from atlas.triage.inbox_order import INBOX_ORDERS

    if only is not None and only not in REASONS:
        raise typer.BadParameter(f"{only!r} is not one of {', '.join(REASONS)}", param_hint="--only")
    chosen = next((known for known in INBOX_ORDERS if known == order), None)
    if chosen is None:
        raise typer.BadParameter(f"{order!r} is not one of {', '.join(INBOX_ORDERS)}", param_hint="--order")
    narrowed = InboxFilter(about, since_day(since), label)
    guarded(lambda: run_inbox(as_json=as_json, limit=limit, only=only, order=chosen, narrowed=narrowed), state=True)


def similar(
    issue_id: int = typer.Argument(..., min=1, help="The issue's number, e.g. 109."),
    limit: int = typer.Option(5, "-n", "--limit", min=1, max=50, help="How many similar issues (1-50)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object."),
) -> None:
    """Issues like #N, with a score and what they share (words, error codes, stack lines). Advice only."""
    from atlas.commands import guarded
    from atlas.commands.similar import run_similar

    guarded(lambda: run_similar(issue_id, limit=limit, as_json=as_json))


def triage(
    issues: list[int] | None = typer.Argument(None, metavar="[N]...", help="The issues to triage."),  # noqa: B008
    untriaged: bool = typer.Option(False, "--untriaged", help="Every open issue with an empty label group."),
    limit: int = typer.Option(20, "--limit", min=1, max=1000, help="At most this many issues (1-1000)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the exact actions; change nothing."),
    plan: str | None = typer.Option(None, "--plan", metavar="FILE", help="Save the plan as JSON for `atlas apply`."),
    evaluate: bool = typer.Option(False, "--eval", help="Replay the project's history and score the proposals."),
    as_json: bool = typer.Option(False, "--json", help="With --eval or --dry-run: one JSON object."),
    jsonl: bool = typer.Option(
        False, "--jsonl", help="The run as JSON events, one per line; exit 3 when actions were denied."
    ),
) -> None:
    """Propose labels (and comments where useful) for many issues; review them as one numbered plan.

    With no terminal, only what an approval rule allows is applied; the rest is denied and listed."""
    from atlas.commands import guarded

    if jsonl and (evaluate or as_json or plan):
        raise typer.BadParameter("--jsonl cannot be combined with --eval, --json or --plan", param_hint="--jsonl")
    if evaluate:
        from atlas.commands.triage_eval import run_triage_eval

        guarded(lambda: run_triage_eval(as_json=as_json))
        return
    from atlas.commands.triage import TriageOptions, run_triage

    options = TriageOptions(
        issues=list(issues or []),
        untriaged=untriaged,
        limit=limit,
        dry_run=dry_run,
        plan=Path(plan) if plan else None,
        as_json=as_json,
        jsonl=jsonl,
    )
    raise typer.Exit(guarded(lambda: run_triage(options), state=True))


def apply_plan(
    file: str = typer.Argument(..., help="A plan saved by `atlas triage --plan FILE`."),
    jsonl: bool = typer.Option(
        False, "--jsonl", help="The run as JSON events, one per line; exit 3 when actions were denied."
    ),
) -> None:
    """Apply a saved plan: items whose issue changed since are skipped; the rest are reviewed, then applied once.

    With no terminal, only what an approval rule allows is applied; the rest is denied and listed."""
    from atlas.commands import guarded
    from atlas.commands.apply import run_apply

    raise typer.Exit(guarded(lambda: run_apply(Path(file), jsonl=jsonl), state=True))
