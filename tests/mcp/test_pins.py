"""Pinned MCP tools: recorded at `atlas mcp add`/`trust`, a changed or new tool held back, a removed one
reported, a pin file edited by hand refused — against the real test server, which changes its tools."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from atlas.mcp.config import ServerConfig
from atlas.mcp.host import McpHost
from atlas.mcp.pins import PIN_FILE, PinError, admitted, compare, load_pins, record
from tests.mcp.conftest import TEST_SERVER, server_config
from tests.support.run import assert_no_traceback, atlas_env, invoke, logged_calls, write_script


def listed(host: McpHost, config: ServerConfig) -> list[object]:
    return list(host.tools(config, timeout_s=20))


CHANGES = "rug-pull,schema,hint,added,removed"
"""Five tools changed at once, each in its own way (`mcp_test_server.py`)."""
HELD = [
    "tool echo held back: description changed: 'Return the text as it was sent.' → 'Return",
    "tool slow held back: input_schema.properties.seconds.type changed: 'number' → 'string'",
    "tool whoami held back: new since the server was pinned",
    "tool wipe held back: annotations.destructiveHint changed: true → false",
]


def test_each_tool_that_changed_after_pinning_is_held_back_with_a_one_line_diff(host: McpHost, tmp_path: Path) -> None:
    pinned_as = server_config("t")
    record(tmp_path, pinned_as, host.tools(pinned_as, timeout_s=20))
    # One server whose description, schema and hint of one tool each changed, with a tool added and
    # one removed: each change is its tool's own line, and no other tool is held back.
    changed = host.tools(server_config("v", env={"ATLAS_TEST_VARIANT": CHANGES}), timeout_s=20)
    review = compare(load_pins(tmp_path)["t"], pinned_as, changed)
    assert [line[: len(expected)] for line, expected in zip(review.held, HELD, strict=False)] == HELD, review.held
    assert len(review.held) == len(HELD), review.held
    assert review.removed == ["picture"]
    offered = {tool.name for tool in review.offered}
    assert offered == {tool.name for tool in changed} - {"echo", "slow", "whoami", "wipe"}  # held back: not offered
    assert {"note", "hang", "matcher"} <= offered
    unchanged = compare(load_pins(tmp_path)["t"], pinned_as, host.tools(pinned_as, timeout_s=20))
    assert not unchanged.held and not unchanged.removed


def test_a_changed_command_holds_every_tool_back(host: McpHost, tmp_path: Path) -> None:
    config = server_config("t")
    tools = host.tools(config, timeout_s=20)
    record(tmp_path, config, tools)
    moved = ServerConfig(name="t", command=sys.executable, args=[str(TEST_SERVER), "--other"])
    review = compare(load_pins(tmp_path)["t"], moved, tools)
    assert not review.offered and all("command changed" in line for line in review.held)


def write_config(home: Path, variant: str = "") -> None:
    home.mkdir(parents=True, exist_ok=True)
    env = f'env = {{ ATLAS_TEST_VARIANT = "{variant}" }}\n' if variant else ""
    (home / "config.toml").write_text(
        f"[mcp_servers.t]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(TEST_SERVER))}]\n{env}",
        encoding="utf-8",
    )


@pytest.mark.usefixtures("patient_start")
def test_through_the_cli_a_rug_pull_is_held_until_trusted_again(tmp_path: Path, added_home: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(added_home, home)  # after `atlas mcp add t -- python mcp_test_server.py`
    env = atlas_env(home)
    pins = json.loads((home / PIN_FILE).read_text(encoding="utf-8"))["servers"]["t"]
    assert pins["tools"]["echo"]["description"] == "Return the text as it was sent."
    assert pins["tools"]["echo"]["annotations"] == {"readOnlyHint": True}
    assert pins["tools"]["slow"]["input_schema"]["properties"]["seconds"]["type"] == "number"
    write_config(home, "rug-pull")  # the server now describes echo differently
    script = write_script(tmp_path, [{"calls": [{"name": "t__echo", "arguments": {"text": "hi"}}]}, {"text": "ok"}])
    asked = invoke("ask", "--model", script, "echo hi", env=env)
    assert asked.code == 0, asked
    assert_no_traceback(asked)
    assert "MCP server t: tool echo held back: description changed:" in asked.stderr
    assert "atlas mcp trust t" in asked.stderr
    assert [call["kind"] for call in logged_calls(env)] == ["unknown_tool"]  # never offered, never run
    listed_now = invoke("mcp", "list", env=env)
    assert "echo" not in listed_now.stdout.split("slow")[0].split("│")[-1]
    trusted = invoke("mcp", "trust", "t", env=env)
    assert trusted.code == 0, trusted
    assert "tool echo approved: description changed:" in trusted.stdout
    again = invoke("ask", "--model", script, "echo hi", env=env)
    assert "held back" not in again.stderr and logged_calls(env)[-1]["kind"] == "ok"


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda text: text.replace("Return the text", "Send me the text"), "its digest does not match its pins"),
        (lambda text: text[: len(text) // 2], "(not JSON)"),
        (lambda text: json.dumps({"format": 1, "servers": {"t": {"tools": []}}}), "not the shape Atlas writes"),
    ],
)
@pytest.mark.usefixtures("patient_start")
def test_a_pin_file_edited_or_damaged_is_one_line(tmp_path: Path, added_home: Path, edit: object, says: str) -> None:
    home = tmp_path / "home"
    shutil.copytree(added_home, home)
    started = tmp_path / "server-was-started"
    with (home / "config.toml").open("a", encoding="utf-8") as config:  # the pins stay those of `t`
        config.write(f"env = {{ ATLAS_TEST_STARTED = {json.dumps(str(started))} }}\n")
    env = atlas_env(home)
    path = home / PIN_FILE
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")  # type: ignore[operator]
    with pytest.raises(PinError, match="changed outside Atlas or is damaged"):
        load_pins(home)
    for args in (("mcp", "list"), ("mcp", "trust", "t"), ("tools",)):
        run = invoke(*args, env=env)
        assert run.code == 2, (args, run)
        assert_no_traceback(run)
        text = run.stderr.decode() if isinstance(run.stderr, bytes) else run.stderr
        [error] = text.splitlines()  # no server started: no warning of its listing either
        assert says in error, text
    assert not started.exists()  # the pin file is read before any server starts, not after


ECHO_CALL = [{"calls": [{"name": "t__echo", "arguments": {"text": "hi"}}]}, {"text": "ok"}]
OUTPUT_CHANGE = "MCP server t: tool echo held back: output_schema.properties.result.description changed: (absent) → "


@pytest.mark.usefixtures("patient_start")
def test_a_changed_output_schema_is_held_until_trusted_again(tmp_path: Path, added_home: Path) -> None:
    """The server keeps echo's name, description and arguments, and rewrites what its result is said to be."""
    home = tmp_path / "home"
    shutil.copytree(added_home, home)
    env = atlas_env(home)
    pins = json.loads((home / PIN_FILE).read_text(encoding="utf-8"))["servers"]["t"]["tools"]
    assert pins["echo"]["output_schema"]["properties"]["result"] == {"title": "Result", "type": "string"}
    assert pins["picture"]["output_schema"] is None  # declares none: one appearing later is a change too
    write_config(home, "output")
    script = write_script(tmp_path, ECHO_CALL)
    asked = invoke("ask", "--model", script, "echo hi", env=env)
    assert asked.code == 0, asked
    assert_no_traceback(asked)
    assert OUTPUT_CHANGE in asked.stderr, asked.stderr
    assert "atlas mcp trust t" in asked.stderr
    assert [call["kind"] for call in logged_calls(env)] == ["unknown_tool"]  # never offered, never run
    trusted = invoke("mcp", "trust", "t", env=env)
    assert trusted.code == 0, trusted
    assert "tool echo approved: output_schema.properties.result.description changed:" in trusted.stdout
    again = invoke("ask", "--model", script, "echo hi", env=env)
    assert "held back" not in again.stderr and logged_calls(env)[-1]["kind"] == "ok"


def older_pin_file(home: Path) -> dict[str, object]:
    """The pin file as Atlas wrote it before output schemas were pinned: no `output_schema` in any
    pin, and the digest of those pins (sha256 of their sorted JSON, as the file format has it)."""
    path = home / PIN_FILE
    document = json.loads(path.read_text(encoding="utf-8"))
    for entry in document["servers"].values():
        for pin in entry["tools"].values():
            del pin["output_schema"]
    digest = json.dumps(document["servers"], sort_keys=True, ensure_ascii=True).encode("ascii")
    document["digest"] = hashlib.sha256(digest).hexdigest()
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return document


@pytest.mark.usefixtures("patient_start")
def test_an_older_pin_file_still_loads_and_its_output_schemas_are_pinned_from_then_on(
    tmp_path: Path, added_home: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(added_home, home)
    env = atlas_env(home)
    older_pin_file(home)
    script = write_script(tmp_path, ECHO_CALL)
    asked = invoke("ask", "--model", script, "echo hi", env=env)
    assert asked.code == 0 and "held back" not in asked.stderr, asked  # nothing changed: nothing held
    assert logged_calls(env)[-1]["kind"] == "ok"
    pins = load_pins(home)["t"]["tools"]  # the digest still holds
    assert pins["echo"]["output_schema"]["properties"]["result"]["type"] == "string"
    assert pins["picture"]["output_schema"] is None
    write_config(home, "output")  # and from then on, a change is held back
    changed = invoke("ask", "--model", script, "echo hi", env=env)
    assert OUTPUT_CHANGE in changed.stderr, changed.stderr
    assert logged_calls(env)[-1]["kind"] == "unknown_tool"


def test_an_older_pin_does_not_adopt_the_output_schema_of_a_tool_that_changed_otherwise(
    host: McpHost, tmp_path: Path
) -> None:
    """A tool held back for another change gets no part pinned from its changed listing."""
    pinned_as = server_config("t")
    record(tmp_path, pinned_as, host.tools(pinned_as, timeout_s=20))
    older_pin_file(tmp_path)
    changed = host.tools(server_config("w", env={"ATLAS_TEST_VARIANT": "rug-pull,output"}), timeout_s=20)
    assert [tool.name for tool in admitted(tmp_path, pinned_as, changed) if tool.name == "echo"] == []
    pins = load_pins(tmp_path)["t"]["tools"]
    assert "output_schema" not in pins["echo"]  # held back: its new output schema is not taken
    assert pins["slow"]["output_schema"]["properties"]["result"]["type"] == "string"
