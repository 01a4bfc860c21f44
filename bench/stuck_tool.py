"""A tool module loaded through ATLAS_TOOL_MODULES: a source that hangs for as long as it is told.

It has no deadline of its own, so the run's `--timeout` is the one that must hold.
"""

from __future__ import annotations

import time

from pydantic import BaseModel, Field

from atlas.tools.registry import ToolContext, tool


class StuckArgs(BaseModel):
    seconds: float = Field(ge=0, le=60)


@tool(StuckArgs)
def stuck(args: StuckArgs, ctx: ToolContext) -> dict[str, float]:
    """Wait for the given number of seconds before answering, like a source that stopped responding."""
    time.sleep(args.seconds)
    return {"slept": args.seconds}
