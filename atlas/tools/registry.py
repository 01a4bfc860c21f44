"""The tool registry: `@tool` declares a tool, `load_registry()` gathers built-ins and plugins.

A tool is a plain function `fn(args: ArgsModel, ctx: ToolContext) -> data` whose arguments are
a pydantic model. Registries are immutable mappings by name; `read_only()` and `filtered()`
return new ones, so a `--read-only` run never even offers a side-effect tool to the model.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from atlas import config

ENTRY_POINT_GROUP = "atlas.tools"
BUILTIN_MODULES = ("atlas.tools.orbit", "atlas.tools.docs", "atlas.tools.labels", "atlas.tools.tracker")

ArgsT = TypeVar("ArgsT", bound=BaseModel)


@dataclass(frozen=True)
class ToolContext:
    """What a tool may know about the run: where the data and the state live, and its call's key."""

    data: Path = field(default_factory=config.data_dir)
    home: Path = field(default_factory=config.atlas_home)
    session: str = ""
    idempotency_key: str | None = None


ToolFn = Callable[[Any, ToolContext], Any]
PreviewFn = Callable[[Any, ToolContext], str]
UntrustedFn = Callable[[Any, Any], list[str]]


@dataclass(frozen=True)
class ToolSpec(Generic[ArgsT]):
    """One tool as the executor and the model see it."""

    name: str
    fn: Callable[[ArgsT, ToolContext], Any]
    args_model: type[ArgsT]
    description: str
    side_effect: bool = False
    idempotent: bool = True
    timeout_s: float | None = None
    preview: Callable[[ArgsT, ToolContext], str] | None = None
    """For side effects: a one-look description of what approving would change."""
    untrusted: Callable[[ArgsT, Any], list[str]] | None = None
    """For tools that return outsiders' text: names its sources (`issue #92`) from args and data."""
    editable: str | None = None
    """For side effects: the text argument a person may edit at the prompt (a comment's `body`)."""
    check: Callable[[ArgsT, ToolContext], Any] | None = None
    """For side effects, run before anyone is asked: the result when the call would change nothing,
    None when it would (then it is asked); raising says it would be refused (then it fails unasked)."""

    def schema(self) -> dict[str, Any]:
        """The model-facing function tool (strict JSON schema), built by the openai SDK."""
        # Imported here: `import openai` costs about a second and only the OpenAI model needs it.
        from openai import pydantic_responses_function_tool

        schema = dict(pydantic_responses_function_tool(self.args_model, name=self.name, description=self.description))
        schema["parameters"] = _without_keywords(schema["parameters"], STRICT_UNSUPPORTED)
        return schema


STRICT_UNSUPPORTED = frozenset({"default", "minLength", "maxLength", "title"})
"""Dropped from model-facing schemas: strict mode makes every property required (so a default
says nothing) and the API refuses some keywords. Pydantic still enforces them on the arguments."""


def _without_keywords(node: Any, drop: frozenset[str]) -> Any:
    if isinstance(node, dict):
        # "properties" maps names to schemas: a property may itself be called "title" or "default".
        return {
            key: (
                {name: _without_keywords(sub, drop) for name, sub in value.items()}
                if key == "properties" and isinstance(value, dict)
                else _without_keywords(value, drop)
            )
            for key, value in node.items()
            if key == "properties" or key not in drop
        }
    if isinstance(node, list):
        return [_without_keywords(item, drop) for item in node]
    return node


_CATALOGUE: dict[str, ToolSpec[Any]] = {}


def tool(
    args_model: type[ArgsT],
    *,
    side_effect: bool = False,
    idempotent: bool = True,
    timeout_s: float | None = None,
    name: str | None = None,
    description: str | None = None,
    preview: Callable[[ArgsT, ToolContext], str] | None = None,
    untrusted: Callable[[ArgsT, Any], list[str]] | None = None,
    check: Callable[[ArgsT, ToolContext], Any] | None = None,
    editable: str | None = None,
) -> Callable[[Callable[[ArgsT, ToolContext], Any]], Callable[[ArgsT, ToolContext], Any]]:
    """Declare a tool; it joins every registry loaded after its module is imported."""

    def decorate(fn: Callable[[ArgsT, ToolContext], Any]) -> Callable[[ArgsT, ToolContext], Any]:
        if inspect.iscoroutinefunction(fn):
            # Tools run in worker threads under a deadline; a coroutine would come back unawaited.
            raise TypeError(f"tool {fn.__name__!r} must be a plain function, not async def")
        spec = ToolSpec(
            name=name or fn.__name__,
            fn=fn,
            args_model=args_model,
            description=inspect.cleandoc(description or fn.__doc__ or ""),
            side_effect=side_effect,
            idempotent=idempotent,
            timeout_s=timeout_s,
            preview=preview,
            untrusted=untrusted,
            check=check,
            editable=editable,
        )
        taken = _CATALOGUE.get(spec.name)
        if taken is not None and _module_of(taken.fn) != _module_of(fn):
            # The first declaration keeps the name (built-ins are imported first): a plugin must not
            # silently replace a tool (a side effect with one that asks nobody) or make it vanish.
            owner = _module_of(taken.fn)
            _warn(f"tool {spec.name!r} from {_module_of(fn)!r} is skipped: {owner!r} declares it already")
            return fn
        _CATALOGUE[spec.name] = spec
        return fn

    return decorate


class Registry(Mapping[str, ToolSpec[Any]]):
    """An immutable set of tools by name."""

    def __init__(self, specs: Iterable[ToolSpec[Any]] = ()) -> None:
        self._specs: dict[str, ToolSpec[Any]] = {spec.name: spec for spec in specs}

    def __getitem__(self, name: str) -> ToolSpec[Any]:
        return self._specs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __repr__(self) -> str:
        return f"Registry({sorted(self._specs)})"

    def filtered(self, keep: Callable[[ToolSpec[Any]], bool]) -> Registry:
        return Registry(spec for spec in self._specs.values() if keep(spec))

    def read_only(self) -> Registry:
        """The same tools without side effects: they are not offered to the model at all."""
        return self.filtered(lambda spec: not spec.side_effect)

    def with_tools(self, *specs: ToolSpec[Any]) -> Registry:
        return Registry([*self._specs.values(), *specs])

    def schemas(self) -> list[dict[str, Any]]:
        return [spec.schema() for spec in self._specs.values()]


def _warn(message: str) -> None:
    # One line, whatever the plugin's exception text holds.
    print(f"atlas: warning: {' '.join(message.split())}", file=sys.stderr)


def _import_plugin(module: str) -> bool:
    try:
        importlib.import_module(module)
    except Exception as exc:  # a broken plugin must never stop Atlas
        _warn(f"tool module {module!r} could not be imported ({type(exc).__name__}: {exc}); skipped")
        return False
    return True


def _module_of(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__module__", "") or ""


def _declared_in(spec: ToolSpec[Any], modules: set[str]) -> bool:
    module = _module_of(spec.fn)
    return any(module == name or module.startswith(name + ".") for name in modules)


def load_registry(extra_modules: Iterable[str] | None = None) -> Registry:
    """Built-in tools, then `ATLAS_TOOL_MODULES`, then the `atlas.tools` entry points.

    Only tools declared in those modules (or their submodules) join: a module that happens to
    have been imported for another reason adds nothing to what the model is offered.
    """
    wanted = set(BUILTIN_MODULES)
    for module in BUILTIN_MODULES:
        importlib.import_module(module)
    for module in config.tool_modules() if extra_modules is None else extra_modules:
        if _import_plugin(module):
            wanted.add(module)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            entry.load()
        except Exception as exc:
            _warn(f"tool plugin {entry.name!r} could not be loaded ({type(exc).__name__}: {exc}); skipped")
        else:
            wanted.add(entry.module)
    return Registry(spec for spec in _CATALOGUE.values() if _declared_in(spec, wanted))
