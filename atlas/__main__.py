"""`python -m atlas` runs the same command line as the `atlas` script."""

from __future__ import annotations

from atlas.cli import app

app(prog_name="atlas")
