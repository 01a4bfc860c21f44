"""Process-wide state a command leaves behind, put back after each test: tests run commands in
this process (`invoke`), one after another, and each must start as a fresh `atlas` would."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from atlas.executor.threads import forget_abandoned
from atlas.runtime.toolset import builtin_modules
from atlas.tools.registry import catalogue_snapshot, restore_catalogue
from atlas.tracker.journal import forget_warnings


def declare_builtins() -> None:
    """The built-in tools are declared once, when their modules are first imported (a run imports each
    at its tool's first use): here, before any snapshot, so none loses them."""
    assert builtin_modules()


@contextmanager
def fresh_process_state() -> Iterator[None]:
    snapshot = catalogue_snapshot()
    try:
        yield
    finally:
        restore_catalogue(snapshot)
        forget_warnings()
        forget_abandoned()
        if "atlas.mcp.host" in sys.modules:  # the MCP SDK only where a test brought it in
            sys.modules["atlas.mcp.host"].reset_host()
        if "atlas.state.postgres.database" in sys.modules:  # psycopg only where a test brought it in
            sys.modules["atlas.state.postgres.database"].forget_databases()
