"""The tool registry: `@tool` declares a tool, `gather_registry()` gathers built-ins and plugins.

A tool is a plain function `fn(args: ArgsModel, ctx: ToolContext) -> data` whose arguments are
a pydantic model, or for a built-in tool an arguments record (`atlas.tools.arguments`). Registries
are immutable mappings by name; `read_only()` and `filtered()` return new ones, so a `--read-only`
run never even offers a side-effect tool to the model.
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from atlas.foundation import config
from atlas.foundation.errors import BadArguments, describe
from atlas.foundation.notices import warn
from atlas.tools.arguments import checked_record, declare_schema, is_record, pydantic_twin, record_of
from atlas.tools.declared import PROJECT_DEFAULT, PROJECT_MARK, ToolDeclaration, read_declarations
from atlas.tools.definition import SchemaWhenRead, ToolDefinition
from atlas.tools.entry_points import entry_points_of
from atlas.tools.signature import signature_problem

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from pydantic import BaseModel, ConfigDict

ENTRY_POINT_GROUP = "atlas.tools"

ArgsT = TypeVar("ArgsT")
"""A tool's arguments: a pydantic model, or an arguments record (`atlas.tools.arguments`)."""

ARGS_CONFIG: ConfigDict = {"extra": "forbid", "defer_build": True}
"""A pydantic arguments model's settings: no unknown argument, and its validator built at its first
call rather than at import (each costs about a millisecond to build)."""


class WriteLimits(NamedTuple):
    """What a side effect must still meet when its record is written: checked by the tracker under its
    journal's lock, with every process's records in view, so two runs racing cannot both pass."""

    rule: str = ""
    """The allow rule that let it through (its counts below), empty when a person decided."""
    max_per_issue: int | None = None
    max_per_run: int | None = None
    """Counted over the rule's records on the issue, and over those of this run's session."""
    first_comment: bool = False
    """A drafted comment: posted only on an issue Atlas has not commented on."""


NO_LIMITS = WriteLimits()
"""A call that no rule let through: nothing more to meet when its record is written."""


@dataclass(frozen=True)
class ToolContext:
    """What a tool may know about the run: where the data and the state live, and its call's key."""

    data: Path = field(default_factory=config.data_dir)
    home: Path = field(default_factory=config.atlas_home)
    session: str = ""
    idempotency_key: str | None = None
    tracker: str = field(default_factory=config.tracker_setting)
    """Where side effects go (`ATLAS_TRACKER`), read once with the rest of the run's settings."""
    decided_by: str | None = None
    """Who approved this side effect (`person`, `rule:NAME`, `session`): kept with what it wrote."""
    limits: WriteLimits = NO_LIMITS
    """What its record must still meet when it is written (the tracker checks, under its lock)."""


ToolFn = Callable[[Any, ToolContext], Any]
PreviewFn = Callable[[Any, ToolContext], str]
UntrustedFn = Callable[[Any, Any], list[str]]


class ToolSpec(NamedTuple, Generic[ArgsT]):
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
    input_schema: dict[str, Any] | None = None
    """The JSON schema of the arguments when it comes from elsewhere (an MCP server) rather than
    from `args_model`; `args_model` then checks arguments against it."""
    breaker_key: str | None = None
    """Tools sharing a source share its circuit breaker (an MCP server's tools); None: the tool's own."""
    editable: str | None = None
    """For side effects: the text argument a person may edit at the prompt (a comment's `body`)."""
    annotations: dict[str, bool] | None = None
    """An MCP tool's hints (`read_only`, `destructive`, `idempotent`, `open_world`), for policy rules."""
    check: Callable[[ArgsT, ToolContext], Any] | None = None
    """For side effects, run before anyone is asked: the result when the call would change nothing,
    None when it would (then it is asked); raising says it would be refused (then it fails unasked)."""
    cache_ttl_s: float | None = None
    """How long a read's result stays fresh within a conversation; 0 (and None: not stated) never cached."""
    cache_tags: Callable[[ArgsT], Iterable[str]] | None = None
    """For reads: what the result depends on (`issue:41`); a write invalidating one of them drops it."""
    invalidates: Callable[[ArgsT], Iterable[str]] | None = None
    """For side effects: the tags a write changes; None drops every cached read."""

    def parameters(self) -> dict[str, Any]:
        """The JSON schema of the arguments, as neutral as the tool: no provider's dialect.

        Adapters turn it into their wire format (`atlas.llm.openai_schema`); a foreign schema (an
        MCP server's) is passed on as its server wrote it.
        """
        if self.input_schema is not None:
            return self.input_schema
        return copy.deepcopy(_json_schema(self.args_model))

    def definition(self, project: str = PROJECT_DEFAULT) -> ToolDefinition:
        """The tool as a model is told of it: data only. A built-in tool's `{project}` names the active project
        (a foreign schema's description is passed on as its server wrote it)."""
        described = self.description.replace(PROJECT_MARK, project) if self.input_schema is None else self.description
        return ToolDefinition(
            name=self.name,
            description=described,
            parameters=self.parameters() if self.input_schema is not None else SchemaWhenRead(self.parameters),
            side_effect=self.side_effect,
            idempotent=self.idempotent,
            strict=self.input_schema is None,
        )


_SCHEMAS: dict[type, dict[str, Any]] = {}


def _json_schema(args_model: type) -> dict[str, Any]:
    """An arguments model's JSON schema (a record's, its pydantic twin's), made once: pydantic builds it
    afresh on every call, and every new registry (a read-only one, a filtered one) asks for each of its
    tools' schemas."""
    schema = _SCHEMAS.get(args_model)
    if schema is None:
        model: type[BaseModel] = pydantic_twin(args_model) if is_record(args_model) else args_model
        schema = _SCHEMAS[args_model] = model.model_json_schema()
    return schema


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
    cache_ttl_s: float | None = None,
    cache_tags: Callable[[ArgsT], Iterable[str]] | None = None,
    invalidates: Callable[[ArgsT], Iterable[str]] | None = None,
) -> Callable[[Callable[[ArgsT, ToolContext], Any]], Callable[[ArgsT, ToolContext], Any]]:
    """Declare a tool; it joins every registry loaded after its module is imported."""

    def decorate(fn: Callable[[ArgsT, ToolContext], Any]) -> Callable[[ArgsT, ToolContext], Any]:
        if inspect.iscoroutinefunction(fn):
            # Tools run in worker threads under a deadline; a coroutine would come back unawaited.
            raise TypeError(f"tool {fn.__name__!r} must be a plain function, not async def")
        problem = signature_problem(fn, args_model)
        if problem is not None:
            # Said where the tool is declared (its plugin is skipped), not as a TypeError at its first call.
            raise TypeError(problem)
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
            cache_ttl_s=cache_ttl_s,
            cache_tags=cache_tags,
            invalidates=invalidates,
        )
        owner = _owner_of(spec.name)
        if owner is not None and owner != _module_of(fn):
            # The first declaration keeps the name, and a built-in's is first even before its module is
            # imported: a plugin must not silently replace a tool (a side effect with one that asks
            # nobody) or make it vanish.
            _warn(f"tool {spec.name!r} from {_module_of(fn)!r} is skipped: {owner!r} declares it already")
            return fn
        _CATALOGUE[spec.name] = spec
        return fn

    return decorate


Declared = ToolSpec[Any] | ToolDeclaration
"""A tool of a registry as it stands: its spec, or a built-in's declaration until it is first used."""


class Registry(Mapping[str, ToolSpec[Any]]):
    """An immutable set of tools by name. A declared built-in's module is imported when its spec is
    first read (`registry[name]`); its name, flags and definition are read without it (`declared`)."""

    def __init__(self, specs: Iterable[Declared] = ()) -> None:
        self._specs: dict[str, Declared] = {spec.name: spec for spec in specs}
        self._definitions: tuple[str, tuple[ToolDefinition, ...]] | None = None

    def __getitem__(self, name: str) -> ToolSpec[Any]:
        spec = self._specs[name]
        if isinstance(spec, ToolDeclaration):
            spec = self._specs[name] = _imported(spec)
        return spec

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __repr__(self) -> str:
        return f"Registry({sorted(self._specs)})"

    def declared(self, name: str) -> Declared:
        """The tool's spec, or its declaration when its module has not been imported: never imports it."""
        return self._specs[name]

    def definitions(self, project: str = PROJECT_DEFAULT) -> tuple[ToolDefinition, ...]:
        """What a model is offered: each tool's definition, in the registry's order, naming `project` (made once
        per project)."""
        if self._definitions is None or self._definitions[0] != project:
            self._definitions = (project, tuple(spec.definition(project) for spec in self._specs.values()))
        return self._definitions[1]

    def filtered(self, keep: Callable[[Declared], bool]) -> Registry:
        """The tools `keep` keeps, judged by what they declare (no module is imported for it)."""
        return Registry(spec for spec in self._specs.values() if keep(spec))

    def read_only(self) -> Registry:
        """The same tools without side effects: they are not offered to the model at all."""
        return self.filtered(lambda spec: not spec.side_effect)

    def with_tools(self, *specs: ToolSpec[Any]) -> Registry:
        return Registry([*self._specs.values(), *specs])


_RESERVED: dict[str, str] = {}
"""Built-in tools' names and the modules that declare them, known before those modules are imported."""


def _owner_of(name: str) -> str | None:
    """The module that declares the tool `name` (a built-in's, even before it is imported); None: nobody."""
    taken = _CATALOGUE.get(name)
    return _module_of(taken.fn) if taken is not None else _RESERVED.get(name)


def _imported(declaration: ToolDeclaration) -> ToolSpec[Any]:
    """The declared tool's spec, its module imported (the built-ins' modules are also imported by statements,
    in `atlas.runtime.toolset`, where the architecture checks see them); a stale list is said in one line."""
    importlib.import_module(declaration.module)
    spec = _CATALOGUE.get(declaration.name)
    if spec is None or _module_of(spec.fn) != declaration.module:
        name, module = declaration.name, declaration.module
        raise LookupError(f"built-in tool {name!r} is listed but {module!r} does not declare it")
    declare_schema(spec.args_model, declaration.parameters)
    return spec


def _warn(message: str) -> None:
    # One line, whatever the plugin's exception text holds.
    warn(f"{' '.join(message.split())}")


def _import_plugin(module: str, on_problem: Callable[[str], None]) -> bool:
    try:
        importlib.import_module(module)
    except Exception as exc:  # a broken plugin must never stop Atlas
        on_problem(f"tool module {module!r} could not be imported ({type(exc).__name__}: {exc}); skipped")
        return False
    return True


def _module_of(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__module__", "") or ""


def _declared_in(spec: ToolSpec[Any], modules: set[str]) -> bool:
    module = _module_of(spec.fn)
    return any(module == name or module.startswith(name + ".") for name in modules)


def gather_registry(
    builtin_list: Path,
    extra_modules: Iterable[str] | None = None,
    *,
    on_problem: Callable[[str], None] | None = None,
) -> Registry:
    """The built-in tools of `builtin_list` (their modules imported at their first use), then the tools
    of `ATLAS_TOOL_MODULES`, then those of the `atlas.tools` entry points. The built-in list lives
    above this layer (`atlas.runtime.toolset`).

    Only tools declared in those modules (or their submodules) join: a module that happens to
    have been imported for another reason adds nothing to what the model is offered.
    """
    on_problem = on_problem or _warn
    declared = read_declarations(builtin_list)
    _RESERVED.update((declaration.name, declaration.module) for declaration in declared)
    wanted: set[str] = set()
    for module in config.tool_modules() if extra_modules is None else extra_modules:
        if _import_plugin(module, on_problem):
            wanted.add(module)
    for entry in _plugin_entries(tuple(sys.path)):
        try:
            entry.load()
        except Exception as exc:
            on_problem(f"tool plugin {entry.name!r} could not be loaded ({type(exc).__name__}: {exc}); skipped")
        else:
            wanted.add(entry.module)
    return Registry([*declared, *(spec for spec in _CATALOGUE.values() if _declared_in(spec, wanted))])


@functools.cache
def _plugin_entries(search_path: tuple[str, ...]) -> tuple[EntryPoint, ...]:
    """The `atlas.tools` entry points found on `search_path`, read once for it: reading them opens
    the metadata of every installed distribution (about 10 ms), which nothing installs into while
    a command runs; a search path that changed is read again."""
    return entry_points_of(ENTRY_POINT_GROUP, search_path)


def catalogue_snapshot() -> dict[str, ToolSpec[Any]]:
    """The tools declared so far in this process, for `restore_catalogue`."""
    return dict(_CATALOGUE)


def restore_catalogue(snapshot: dict[str, ToolSpec[Any]]) -> None:
    """Forget the tools declared since `snapshot`, and the modules that declared them, so that
    importing such a module again declares its tools again (a process that runs commands one
    after another, as the tests do, starts each from the same catalogue)."""
    for name in [name for name in _CATALOGUE if name not in snapshot]:
        sys.modules.pop(_module_of(_CATALOGUE.pop(name).fn), None)
    _CATALOGUE.update(snapshot)


def strict_arguments(args_model: type[ArgsT], arguments: Any) -> ArgsT:
    """The model's arguments as `args_model`, validated strictly: `true` is not 1 and `"41"` is not 41.

    Validated as the JSON the model sent (JSON-mode strictness): an integer field takes only a
    JSON integer, a string only a JSON string, while enums and dates still take their JSON forms.
    A record's arguments that its declared schema surely accepts are taken without pydantic; any
    others are judged by pydantic. Raises `BadArguments` (pydantic's words for each field), which the
    executor answers `bad_args`.
    """
    if is_record(args_model):
        checked = checked_record(args_model, arguments)
        if checked is not None:
            return checked  # type: ignore[no-any-return]
    return _validated(args_model, arguments, strict=True)


def lax_arguments(args_model: type[ArgsT], values: dict[str, Any]) -> ArgsT:
    """`values` as `args_model`, validated as pydantic validates Python values (a person's edit of a call's
    text, not the model's JSON). Raises `BadArguments`."""
    return _validated(args_model, values, strict=False)


def _validated(args_model: type[ArgsT], arguments: Any, *, strict: bool) -> ArgsT:
    import json

    from pydantic import ValidationError

    model: type[BaseModel] = pydantic_twin(args_model) if is_record(args_model) else args_model  # type: ignore[assignment]
    try:
        if strict:
            validated = model.model_validate_json(json.dumps(arguments), strict=True)
        else:
            validated = model.model_validate(arguments)
    except ValidationError as exc:
        raise BadArguments(describe(exc)) from None
    return record_of(args_model, validated) if is_record(args_model) else validated  # type: ignore[return-value]
