"""The `atlas` command line: wiring only."""

from __future__ import annotations

import typer

from atlas import __version__

app = typer.Typer(no_args_is_help=True, add_completion=False)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"atlas {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """Atlas answers Orbit maintainers' questions through tools."""
