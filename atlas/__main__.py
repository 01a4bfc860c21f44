"""`python -m atlas` runs the CLI."""

from atlas.cli import app

app(prog_name="atlas")
