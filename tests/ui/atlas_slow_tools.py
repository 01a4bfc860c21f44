"""A tool module for the terminal tests (loaded through ATLAS_TOOL_MODULES): a nap of a given length."""

from __future__ import annotations

import time

from pydantic import BaseModel, Field

from atlas.tools.registry import ToolContext, tool


class NapArgs(BaseModel):
    seconds: float = Field(ge=0, le=30)


@tool(NapArgs, timeout_s=30)
def nap(args: NapArgs, ctx: ToolContext) -> dict[str, float]:
    """Sleep for the given number of seconds, then say so."""
    time.sleep(args.seconds)
    return {"slept": args.seconds}
