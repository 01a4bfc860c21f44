"""Plugin authors as users: the documented example tool works as written; a wrong signature is refused in one line."""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
from pathlib import Path

from tests.support.run import Run, invoke

PAGE = Path(__file__).resolve().parents[2] / "docs" / "writing-a-tool.md"


def atlas(*args: str, plugins: str, path: Path) -> Run:
    """`atlas ARGS` in this process with the plugin folder on the import path, as PYTHONPATH puts it."""
    env = {**os.environ, "ATLAS_TOOL_MODULES": plugins, "PYTHONPATH": str(path), "COLUMNS": "200"}
    sys.path.insert(0, str(path))
    try:
        return invoke(*args, env=env)
    finally:
        sys.path.remove(str(path))


def page_example() -> str:
    section = PAGE.read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None
    return match.group(1)


def test_the_documented_example_is_a_working_plugin(tmp_path: Path) -> None:
    (tmp_path / "atlas_wordcount.py").write_text(page_example(), encoding="utf-8")
    listed = atlas("tools", plugins="atlas_wordcount", path=tmp_path)
    assert listed.returncode == 0 and listed.stderr == "", listed.stderr
    assert "count_words" in listed.stdout and "Count the words in a piece of text." in listed.stdout
    script = tmp_path / "script.json"
    turns = [{"calls": [{"name": "count_words", "arguments": {"text": "three little words"}}]}, {"text": "Done."}]
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    asked = atlas("ask", "--json", "-m", f"replay:{script}", "count", plugins="atlas_wordcount", path=tmp_path)
    assert asked.returncode == 0, asked.stderr
    (call,) = json.loads(asked.stdout)["calls"]
    assert call["kind"] == "ok" and call["name"] == "count_words"


def test_a_tool_written_like_other_libraries_take_them_is_refused_where_declared(tmp_path: Path) -> None:
    plugin = """
        from pydantic import BaseModel
        from atlas.tools.registry import tool

        class QueryArgs(BaseModel):
            query: str

        @tool(QueryArgs)
        def my_tool(query: str) -> str:
            '''Look something up.'''
            return query
        """
    (tmp_path / "llm_style_plugin.py").write_text(textwrap.dedent(plugin), encoding="utf-8")
    listed = atlas("tools", plugins="llm_style_plugin", path=tmp_path)
    assert listed.returncode == 0 and "my_tool" not in listed.stdout and "get_issue" in listed.stdout
    assert listed.stderr.splitlines() == [
        "atlas: warning: tool module 'llm_style_plugin' could not be imported (TypeError: tool 'my_tool' must be "
        "declared as def my_tool(args: QueryArgs, ctx: ToolContext), its arguments one pydantic model; "
        "not (query: str)); skipped"
    ]


def test_a_first_parameter_annotated_with_another_type_is_refused(tmp_path: Path) -> None:
    plugin = """
        from pydantic import BaseModel
        from atlas.tools.registry import ToolContext, tool

        class QueryArgs(BaseModel):
            query: str

        @tool(QueryArgs)
        def lookup(query: str, ctx: ToolContext) -> str:
            '''Look something up.'''
            return query
        """
    (tmp_path / "typed_plugin.py").write_text(textwrap.dedent(plugin), encoding="utf-8")
    listed = atlas("tools", plugins="typed_plugin", path=tmp_path)
    assert listed.returncode == 0 and "lookup" not in listed.stdout
    (warning,) = listed.stderr.splitlines()
    assert "first parameter is annotated str, but Atlas passes it a QueryArgs" in warning and "skipped" in warning
