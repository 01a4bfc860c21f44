"""The `atlas state` command group: wiring only, as in `atlas.cli`."""

from __future__ import annotations

from pathlib import Path

import typer

from atlas.cli.options import command_group, examples

state_app = command_group("A team's shared state (ATLAS_STATE_URL): move a local state folder's history into it.")


@state_app.command("push", epilog=examples("atlas state push", "atlas state push --from ~/.local/state/atlas"))
def state_push(
    source: str | None = typer.Option(
        None, "--from", metavar="DIR", help="The state folder to copy (default: this one's local files)."
    ),
) -> None:
    """Copy a local state folder's tracker actions, applied plans and call log into the shared database,
    once: pushing again adds nothing twice."""
    from atlas.commands import guarded
    from atlas.commands.state import run_push

    guarded(lambda: run_push(Path(source) if source else None), state=True)
