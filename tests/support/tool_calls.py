"""Tool calls run as the executor runs a model's, for tests of what a model reads back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from atlas.executor.executor import ToolExecutor
from atlas.foundation.config import bundled_data_dir
from atlas.protocol.messages import ToolCall
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import ToolContext


def run_calls(home: Path, calls: list[dict[str, object]], data: Path | None = None) -> list[dict[str, object]]:
    """The calls' envelopes as the executor hands them to a model, on `data` (the bundled Orbit data unless given)."""
    context = ToolContext(data=data or bundled_data_dir(), home=home)
    executor = ToolExecutor(load_registry().read_only(), context=context)
    made = [ToolCall(str(c["name"]), json.dumps(c["arguments"]), f"call-{n}") for n, c in enumerate(calls)]
    return [json.loads(output["output"]) for output in asyncio.run(executor.run_all(made))]
