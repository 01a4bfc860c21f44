"""`python -m atlas` runs the same command line as the `atlas` script."""

from __future__ import annotations

from atlas.cli import entry_point

if __name__ == "__main__":
    entry_point()
