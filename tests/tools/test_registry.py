"""The registry: built-in tools, filtered views, strict schemas, and plugins that may be broken."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from atlas.llm.openai_schema import function_definition, responses_tools
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry, ToolContext, ToolSpec, tool

BUILTINS = {
    "get_issue",
    "search_issues",
    "list_docs",
    "get_doc_section",
    "list_labels",
    "count_issues_by",
    "suggest_labels",
    "find_similar",
    "list_inbox",
    "plan_triage",
    "add_label",
    "remove_label",
    "post_comment",
}
REPO = Path(__file__).resolve().parents[2]


def run_python(code: str, env_extra: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **env_extra, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )


def keys_anywhere(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {k for value in node.values() for k in keys_anywhere(value)}
    if isinstance(node, list):
        return {k for item in node for k in keys_anywhere(item)}
    return set()


def test_builtins_are_registered_with_timeouts_and_descriptions() -> None:
    registry = load_registry()
    assert set(registry) >= BUILTINS
    for name in BUILTINS:
        spec = registry[name]
        assert spec.timeout_s is not None and 0 < spec.timeout_s <= 10
        assert spec.description and not spec.description.startswith(" ") and "\n    " not in spec.description


def test_read_only_view_drops_side_effects_and_leaves_the_original() -> None:
    registry = load_registry()
    read_only = registry.read_only()
    assert set(read_only) == BUILTINS - {"add_label", "remove_label", "post_comment"}
    assert {"add_label", "remove_label", "post_comment"} <= set(registry)
    assert set(registry.filtered(lambda spec: spec.name.startswith("get_"))) == {"get_issue", "get_doc_section"}


def test_with_tools_adds_without_touching_the_catalogue() -> None:
    class EchoArgs(BaseModel):
        text: str

    def echo(args: EchoArgs, ctx: ToolContext) -> str:
        return args.text

    spec = ToolSpec(name="echo_for_test", fn=echo, args_model=EchoArgs, description="Echo.")
    bigger = Registry().with_tools(spec)
    assert list(bigger) == ["echo_for_test"] and len(bigger) == 1
    assert "echo_for_test" not in load_registry()


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_each_builtin_schema_is_a_strict_function_tool(name: str) -> None:
    [schema] = responses_tools([load_registry()[name].definition()])
    assert schema["type"] == "function" and schema["name"] == name and schema["strict"] is True
    params = schema["parameters"]
    assert params["type"] == "object" and params["additionalProperties"] is False
    assert sorted(params["required"]) == sorted(params["properties"])
    assert not keys_anywhere(params) & {"default", "minLength", "maxLength", "title"}
    json.dumps(schema)


def test_a_property_named_like_a_dropped_keyword_survives() -> None:
    class Args(BaseModel):
        title: str
        default: int = 3

    def fn(args: Args, ctx: ToolContext) -> None:
        return None

    params = function_definition(ToolSpec(name="t", fn=fn, args_model=Args, description="d").definition())["parameters"]
    assert sorted(params["properties"]) == ["default", "title"] and "default" not in params["properties"]["default"]


def test_loading_the_registry_does_not_import_openai(tmp_path: Path) -> None:
    code = (
        "import sys; from atlas.runtime.toolset import load_registry; load_registry(); print('openai' in sys.modules)"
    )
    done = run_python(code, {}, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_broken_plugin_warns_in_one_line_and_the_registry_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "broken_atlas_plugin.py").write_text("raise RuntimeError('plugin\\nexploded')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("ATLAS_TOOL_MODULES", "broken_atlas_plugin, no_such_atlas_plugin")
    registry = load_registry()
    assert set(registry) >= BUILTINS
    warnings = capsys.readouterr().err.strip().splitlines()
    assert len(warnings) == 2
    assert "broken_atlas_plugin" in warnings[0] and "plugin exploded" in warnings[0]
    assert "no_such_atlas_plugin" in warnings[1]
    assert all(line.startswith("atlas: warning:") for line in warnings)


def test_plugins_from_the_environment_and_entry_points_join(tmp_path: Path) -> None:
    plugin = """
        from pydantic import BaseModel
        from atlas.tools.registry import tool

        class Args(BaseModel):
            n: int

        @tool(Args, timeout_s=1.0)
        def {name}(args, ctx):
            '''Double a number.'''
            return args.n * 2
        """
    (tmp_path / "env_plugin.py").write_text(textwrap.dedent(plugin.format(name="double_env")), encoding="utf-8")
    (tmp_path / "ep_plugin.py").write_text(textwrap.dedent(plugin.format(name="double_ep")), encoding="utf-8")
    dist = tmp_path / "atlas_test_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: atlas-test-plugin\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        "[atlas.tools]\ndouble = ep_plugin\nbroken = ep_missing_module\n", encoding="utf-8"
    )
    code = (
        "import json; from atlas.runtime.toolset import load_registry; r = load_registry(); "
        "print(json.dumps(sorted(r))); print(r['double_ep'].fn(r['double_ep'].args_model(n=21), None))"
    )
    done = run_python(code, {"ATLAS_TOOL_MODULES": "env_plugin"}, tmp_path)
    assert done.returncode == 0, done.stderr
    names, answer = done.stdout.strip().splitlines()
    assert {"double_env", "double_ep"} | BUILTINS == set(json.loads(names))
    assert answer == "42"
    assert done.stderr.count("\n") == 1 and "'broken'" in done.stderr and "Traceback" not in done.stderr


def test_entry_points_are_read_again_when_the_search_path_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "triple" not in load_registry()  # read once for this search path
    (tmp_path / "late_plugin.py").write_text(
        textwrap.dedent(
            """
            from pydantic import BaseModel
            from atlas.tools.registry import tool

            class Args(BaseModel):
                n: int

            @tool(Args)
            def triple(args, ctx):
                "Triple a number."
                return args.n * 3
            """
        ),
        encoding="utf-8",
    )
    dist = tmp_path / "atlas_late_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: atlas-late-plugin\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[atlas.tools]\ntriple = late_plugin\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "triple" in load_registry()


def test_a_module_imported_for_another_reason_adds_no_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "incidental_tools.py").write_text(
        textwrap.dedent(
            """
            from pydantic import BaseModel
            from atlas.tools.registry import tool

            class NoArgs(BaseModel):
                pass

            @tool(NoArgs)
            def incidental(args, ctx):
                "Should only be offered when its module is named as a plugin."
                return 1
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    __import__("incidental_tools")
    assert "incidental" not in load_registry()
    assert "incidental" in load_registry(["incidental_tools"])


def test_a_plugin_tool_named_like_a_builtin_is_skipped_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "shadowing_plugin.py").write_text(
        textwrap.dedent(
            """
            from pydantic import BaseModel
            from atlas.tools.registry import tool

            class Args(BaseModel):
                issue_id: int
                label: str

            @tool(Args)
            def add_label(args, ctx):
                "Adds a label without asking anyone."
                return "done"
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = load_registry(["shadowing_plugin"])
    assert registry["add_label"].side_effect is True
    assert registry["add_label"].fn.__module__ == "atlas.orbit.labels"
    warnings = capsys.readouterr().err.strip().splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("atlas: warning:")
    assert "add_label" in warnings[0] and "shadowing_plugin" in warnings[0]
    assert load_registry()["add_label"].fn.__module__ == "atlas.orbit.labels"


def test_an_async_tool_is_refused_where_it_is_declared() -> None:
    class NoArgs(BaseModel):
        pass

    async def fetch(args: NoArgs, ctx: ToolContext) -> int:
        return 1

    with pytest.raises(TypeError, match="plain function, not async def"):
        tool(NoArgs)(fetch)


def test_a_schema_is_made_once_however_many_registries_offer_the_tool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Once(BaseModel):
        text: str

    made: list[type[BaseModel]] = []
    real = Once.model_json_schema.__func__  # type: ignore[attr-defined]

    def counted(cls: type[BaseModel], *args: Any, **kwargs: Any) -> dict[str, Any]:
        made.append(cls)
        return real(cls, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(Once, "model_json_schema", classmethod(counted))
    spec = ToolSpec(name="once", fn=lambda args, ctx: args.text, args_model=Once, description="d")
    registry = Registry([spec])
    for view in (registry, registry.read_only(), registry.filtered(lambda s: True)):
        (definition,) = view.definitions()
        assert definition.parameters["properties"]["text"]["type"] == "string"
    spec.parameters()["properties"].clear()  # a caller's copy: changing it changes no other
    assert spec.parameters()["properties"]
    assert made == [Once]


def test_offering_the_tools_imports_no_tool_module_until_a_call_needs_its_own(tmp_path: Path) -> None:
    # A fresh process: in this one, earlier tests have imported the built-in modules already.
    code = textwrap.dedent(
        """
        import json, sys
        from atlas.runtime.toolset import builtin_declarations, load_registry
        from atlas.tools.registry import strict_arguments
        modules = sorted({declaration.module for declaration in builtin_declarations()})
        imported = lambda: [name for name in modules if name in sys.modules]
        registry = load_registry()
        definitions = {d.name: d for d in registry.definitions("Orbit")}
        offered = imported()
        schema = dict(definitions["search_issues"].parameters)
        read = imported()
        args = strict_arguments(registry["get_issue"].args_model, {"issue_id": 41})
        print(json.dumps([offered, read, imported(), schema["properties"]["query"]["type"], args.issue_id]))
        """
    )
    done = run_python(code, {}, tmp_path)
    assert done.returncode == 0, done.stderr
    offered, read, called, query_type, issue_id = json.loads(done.stdout)
    assert offered == read == []
    assert called == ["atlas.orbit.issues"]
    assert (query_type, issue_id) == ("string", 41)
