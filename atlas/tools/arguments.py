"""A built-in tool's arguments as a record: checked against its declared schema without pydantic.

A built-in tool's arguments are a `NamedTuple` whose fields say their limits with `Arg`
(`issue_id: Annotated[int, Arg(ge=1, description=...)]`). A call's arguments are checked against
the JSON schema the tool was offered with (`builtin_tools.json`): types exact as in JSON (`true`
is not 1, `"41"` is not 41), no unknown field, every required one, every limit. Arguments that
pass become the record, their dates `date`s and their lists tuples. Anything else, and anything
the check does not know how to judge, is validated by the record's pydantic twin (the same fields
and limits as a pydantic model, made only then): its errors are the ones the model reads, word for
word as a pydantic arguments model says them, and arguments it accepts become the record too.

So a run whose calls are well formed never imports pydantic for them; the twin also makes the
record's JSON schema, which `python -m atlas.runtime.tool_list` writes into the list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, get_args, get_origin, get_type_hints

if TYPE_CHECKING:
    from pydantic import BaseModel


class Arg(NamedTuple):
    """A record field's description and limits, as pydantic's `Field` takes them."""

    description: str | None = None
    ge: int | None = None
    le: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    """For a string its characters, for a sequence its items."""


def is_record(args_model: type) -> bool:
    """Whether `args_model` is an arguments record (a `NamedTuple`) rather than a pydantic model."""
    return issubclass(args_model, tuple) and hasattr(args_model, "_fields")


_DECLARED: dict[type, Mapping[str, Any]] = {}
"""Each record's JSON schema as its tool was offered (the built-in list), once its tool is used."""


def declare_schema(record: type, schema: Mapping[str, Any]) -> None:
    """Check `record`'s arguments against `schema` from now on (the list holds it equal to the twin's)."""
    if is_record(record):
        _DECLARED[record] = schema


def checked_record(record: type, arguments: Any) -> Any | None:
    """`arguments` as `record` when its declared schema surely accepts them; None when the twin must judge."""
    schema = _DECLARED.get(record)
    values = accepted(schema, arguments) if schema is not None else None
    return None if values is None else record(**values)


def _fields(record: type) -> tuple[str, ...]:
    fields: tuple[str, ...] = getattr(record, "_fields")  # noqa: B009 - a NamedTuple's, unknown to `type`
    return fields


def arguments_data(args: object) -> dict[str, Any]:
    """A call's arguments as plain data (a record's fields, a pydantic model's dump in JSON's forms but
    for dates and tuples, which `json.dumps(..., default=str)` writes as the model's dump does)."""
    if isinstance(args, tuple) and hasattr(args, "_asdict"):
        return dict(args._asdict())
    return dict(args.model_dump(mode="json"))  # type: ignore[attr-defined]


def record_of(record: type, model: BaseModel) -> Any:
    """The twin's validated instance as the record (its lists tuples)."""
    values = {name: getattr(model, name) for name in _fields(record)}
    return record(**{name: tuple(value) if isinstance(value, list) else value for name, value in values.items()})


_NO: tuple[bool, Any] = (False, None)
_ALLOWED = {
    "integer": frozenset({"type", "minimum", "maximum"}),
    "boolean": frozenset({"type"}),
    "string": frozenset({"type", "minLength", "maxLength", "enum", "format"}),
    "array": frozenset({"type", "items", "minItems", "maxItems"}),
}
"""What the check judges of each JSON type; a schema saying anything else is left to the twin."""
_NOTES = frozenset({"title", "description", "default"})
_OBJECT = frozenset({"type", "title", "properties", "required", "additionalProperties"})
"""What the check judges of an arguments object."""


def accepted(schema: Mapping[str, Any], arguments: Any) -> dict[str, Any] | None:
    """The record's field values when `arguments` surely meet `schema`; None when they may not."""
    if not isinstance(arguments, dict) or schema.get("type") != "object":
        return None
    if schema.get("additionalProperties") is not False or not set(schema) <= _OBJECT:
        return None
    properties: Mapping[str, Any] = schema.get("properties", {})
    if any(name not in properties for name in arguments):
        return None
    if any(name not in arguments for name in schema.get("required", ())):
        return None
    values: dict[str, Any] = {}
    for name, value in arguments.items():
        ok, values[name] = _value(properties[name], value)
        if not ok:
            return None
    return values


def _value(schema: Mapping[str, Any], value: Any) -> tuple[bool, Any]:
    """(True, the value as the record holds it) when `value` surely meets `schema`, else (False, None)."""
    options = schema.get("anyOf")
    if options is not None:
        if not set(schema) <= _NOTES | {"anyOf"} or len(options) != 2 or options[1] != {"type": "null"}:
            return _NO
        return (True, None) if value is None else _value(options[0], value)
    kind = schema.get("type")
    if not isinstance(kind, str) or kind not in _ALLOWED or not set(schema) <= _ALLOWED[kind] | _NOTES:
        return _NO
    return _CHECKS[kind](schema, value)


def _within(schema: Mapping[str, Any], number: int, low: str, high: str) -> bool:
    least: int = schema.get(low, number)
    most: int = schema.get(high, number)
    return least <= number <= most


def _integer(schema: Mapping[str, Any], value: Any) -> tuple[bool, Any]:
    return (True, value) if type(value) is int and _within(schema, value, "minimum", "maximum") else _NO


def _boolean(_schema: Mapping[str, Any], value: Any) -> tuple[bool, Any]:
    return (True, value) if type(value) is bool else _NO


def _string(schema: Mapping[str, Any], value: Any) -> tuple[bool, Any]:
    if type(value) is not str or not _within(schema, len(value), "minLength", "maxLength"):
        return _NO
    if not value.isascii() and not _encodes(value):
        return _NO  # a lone surrogate: JSON cannot carry it, the twin says so
    if "enum" in schema and value not in schema["enum"]:
        return _NO
    shape = schema.get("format")
    if shape is None:
        return True, value
    return _day(value) if shape == "date" else _NO


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _day(text: str) -> tuple[bool, Any]:
    """A day written YYYY-MM-DD; any other form a date may take is the twin's to judge."""
    digits = text[:4] + text[5:7] + text[8:]
    if len(text) != 10 or text[4] != "-" or text[7] != "-" or not (digits.isascii() and digits.isdigit()):
        return _NO
    try:
        return True, date.fromisoformat(text)
    except ValueError:
        return _NO


def _array(schema: Mapping[str, Any], value: Any) -> tuple[bool, Any]:
    if type(value) is not list or not _within(schema, len(value), "minItems", "maxItems"):
        return _NO
    items = schema.get("items")
    if items is None:
        return _NO
    kept = []
    for item in value:
        ok, checked = _value(items, item)
        if not ok:
            return _NO
        kept.append(checked)
    return True, tuple(kept)


_CHECKS: dict[str, Callable[[Mapping[str, Any], Any], tuple[bool, Any]]] = {
    "integer": _integer,
    "boolean": _boolean,
    "string": _string,
    "array": _array,
}


_TWINS: dict[type, type[BaseModel]] = {}


def pydantic_twin(record: type) -> type[BaseModel]:
    """A pydantic model with `record`'s name, fields, defaults and limits (no unknown field allowed),
    made once."""
    twin = _TWINS.get(record)
    if twin is None:
        twin = _TWINS[record] = _made_twin(record)
    return twin


def _made_twin(record: type) -> type[BaseModel]:
    from pydantic import ConfigDict, Field, create_model

    hints = get_type_hints(record, include_extras=True)
    fields: dict[str, Any] = {}
    defaults: dict[str, Any] = getattr(record, "_field_defaults")  # noqa: B009
    for name in _fields(record):
        kind, arg = _split(hints[name])
        limits = _field_limits(arg)
        default = defaults.get(name, ...)
        if isinstance(default, tuple) and not default:
            fields[name] = (kind, Field(default_factory=list, **limits))
        else:
            fields[name] = (kind, Field(default, **limits))
    config = ConfigDict(extra="forbid", defer_build=True)
    model: type[BaseModel] = create_model(record.__name__, __config__=config, __module__=record.__module__, **fields)
    return model


def _split(hint: Any) -> tuple[Any, Arg | None]:
    """A field's type (its inner `Arg`s made pydantic `Field`s) and its own `Arg`."""
    if get_origin(hint) is Annotated:
        inner, *extras = get_args(hint)
        arg = next((extra for extra in extras if isinstance(extra, Arg)), None)
        return _pydantic_type(inner), arg
    return _pydantic_type(hint), None


def _pydantic_type(hint: Any) -> Any:
    """`hint` with each `Annotated[X, Arg(...)]` inside it made `Annotated[X, Field(...)]`."""
    from pydantic import Field

    origin = get_origin(hint)
    if origin is Annotated:
        inner, *extras = get_args(hint)
        metadata = [Field(**_field_limits(extra)) if isinstance(extra, Arg) else extra for extra in extras]
        return Annotated[(_pydantic_type(inner), *metadata)]
    if origin is tuple:
        item, *more = get_args(hint)
        if more != [Ellipsis]:
            raise TypeError(f"an arguments record's sequence is a tuple[X, ...], not {hint}")
        return list[_pydantic_type(item)]  # type: ignore[misc]  # pydantic's errors for it say "List"
    return hint


def _field_limits(arg: Arg | None) -> dict[str, Any]:
    return {} if arg is None else {key: value for key, value in arg._asdict().items() if value is not None}
