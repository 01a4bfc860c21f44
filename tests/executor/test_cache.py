"""Cached reads: a repeated read inside its TTL is answered from the cache and logged `cached`; a write
drops the reads it changes; every built-in tool states its TTL, and `atlas tools` shows it."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from atlas.executor.cache import CACHED
from atlas.executor.executor import ToolExecutor
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import ToolContext
from tests.support.executor_fakes import SleepArgs, call, registry, spec
from tests.support.run import atlas_env, invoke, logged_calls, write_script


def run(executor: ToolExecutor, name: str, **arguments: Any) -> dict[str, Any]:
    output = asyncio.run(executor.run_one(call(name, f"c{len(executor.log)}", **arguments)))
    return json.loads(output["output"])  # type: ignore[no-any-return]


def test_a_repeated_read_is_cached_and_a_label_on_41_drops_41s_reads_only(tmp_path: Path) -> None:
    executor = ToolExecutor(load_registry(), approve=lambda request: True, context=ToolContext(home=tmp_path))
    first = run(executor, "get_issue", issue_id=41)
    run(executor, "get_issue", issue_id=87)
    run(executor, "search_issues", query="lease")
    again = run(executor, "get_issue", issue_id=41)
    assert again == first and "comp:api" not in first["data"]["labels"] + first["data"].get("tracker_labels", [])
    assert (executor.log[-1].message, executor.log[-1].attempts) == (CACHED, 0)
    assert run(executor, "add_label", issue_id=41, label="comp:api")["side_effect_done"] is True
    fresh = run(executor, "get_issue", issue_id=41)
    assert (executor.log[-1].message, executor.log[-1].attempts) == (None, 1)  # read again, not from the cache
    assert "comp:api" in fresh["data"]["labels"] + fresh["data"].get("tracker_labels", [])
    run(executor, "search_issues", query="lease")
    assert executor.log[-1].attempts == 1  # searches show labels: dropped too
    run(executor, "get_issue", issue_id=87)
    assert executor.log[-1].message == CACHED  # #87 was not changed


def test_a_cached_read_of_untrusted_text_still_names_its_source(tmp_path: Path) -> None:
    executor = ToolExecutor(load_registry(), context=ToolContext(home=tmp_path))
    run(executor, "get_issue", issue_id=92)
    turn = executor.new_turn(2)
    asyncio.run(executor.run_one(call("get_issue", "again", issue_id=92), turn=turn))
    assert executor.log[-1].message == CACHED and any("#92" in source for source in turn.untrusted_sources)


def counting(calls: list[float]) -> Any:
    def fn(args: SleepArgs, ctx: ToolContext) -> dict[str, int]:
        calls.append(time.monotonic())
        return {"n": len(calls)}

    return fn


def test_the_ttl_ends_the_cache_and_zero_never_caches() -> None:
    calls: list[float] = []
    short = spec("short", counting(calls), cache_ttl_s=0.3)
    never = spec("never", counting(calls), cache_ttl_s=0)
    executor = ToolExecutor(registry(short, never))
    run(executor, "short"), run(executor, "short")
    assert len(calls) == 1
    time.sleep(0.35)
    run(executor, "short")
    assert len(calls) == 2
    run(executor, "never"), run(executor, "never")
    assert len(calls) == 4


def test_a_write_that_declares_nothing_drops_every_cached_read() -> None:
    calls: list[float] = []
    read = spec("read", counting(calls), cache_ttl_s=60, cache_tags=lambda args: {"x"})
    write = spec("write", counting([]), side_effect=True)
    executor = ToolExecutor(registry(read, write), approve=lambda request: True)
    run(executor, "read"), run(executor, "read"), run(executor, "write"), run(executor, "read")
    assert len(calls) == 2


def test_every_built_in_tool_states_its_ttl_and_atlas_tools_shows_it(tmp_path: Path) -> None:
    specs = load_registry(extra_modules=[]).values()
    assert all(spec.cache_ttl_s is not None for spec in specs), [s.name for s in specs if s.cache_ttl_s is None]
    assert all(spec.cache_ttl_s == 0 and spec.invalidates is not None for spec in specs if spec.side_effect)
    assert all(spec.cache_tags is not None for spec in specs if spec.cache_ttl_s)
    shown = invoke("tools", env=atlas_env(tmp_path)).stdout
    get_issue = next(line for line in shown.splitlines() if line.startswith("get_issue"))
    add_label = next(line for line in shown.splitlines() if line.startswith("add_label"))
    assert "cache" in shown and "60 s" in get_issue and "0 s" in add_label


def test_atlas_ask_logs_a_cached_call(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    read = {"calls": [{"name": "get_issue", "arguments": {"issue_id": 41}}]}
    script = write_script(tmp_path, [read, read, {"text": "done"}])
    assert invoke("ask", "--model", script, "#41 twice", env=env).code == 0
    assert [(c["kind"], c["message"], c["attempts"]) for c in logged_calls(env)] == [
        ("ok", None, 1),
        ("ok", CACHED, 0),
    ]
