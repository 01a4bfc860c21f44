"""Arguments and results checked against an MCP server's JSON schemas, in bounded time.

An MCP tool describes its arguments (and maybe its result) with a JSON schema, not a pydantic
model. The executor validates every call with `args_model.model_validate` (a failure is
`bad_args`, and the call never leaves Atlas); a model class built per tool runs `jsonschema`
there and keeps the arguments as they came.

A schema comes from the server, and so do its regular expressions: `^(a|aa)+$` against forty
`a`s and a `!` backtracks for hours in Python's `re`, holding the interpreter lock (no deadline,
no Ctrl-C). So `pattern`, `patternProperties` and `additionalProperties` are checked with the
`regex` module, which lets other threads run while it matches and stops at a timeout; a whole
check gets `CHECK_BUDGET_S`. A pattern too slow to check is the server's fault: the arguments are
refused without a round trip, a result is `protocol`. A schema `regex` cannot compile, or whose
`unevaluatedProperties` would need patterns matched outside these keywords, is refused whole.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any, ClassVar

import regex
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError, best_match
from pydantic import BaseModel, ConfigDict, model_validator

from atlas.foundation.bounded_regex import MATCH_TIMEOUT_S, PATTERN_LIMIT
from atlas.foundation.bounded_regex import PatternTooSlow as PatternTooSlow  # raised by first_error
from atlas.foundation.bounded_regex import compiled as _compiled

CHECK_BUDGET_S = 1.0
"""All the matches of one check together."""


_deadline: ContextVar[float] = ContextVar("atlas_schema_deadline", default=0.0)


def _search(pattern: str, text: str) -> bool:
    remaining = _deadline.get() - time.monotonic()
    if remaining <= 0:
        raise PatternTooSlow(pattern)
    try:
        return _compiled(pattern).search(text, timeout=min(MATCH_TIMEOUT_S, remaining)) is not None
    except TimeoutError:
        raise PatternTooSlow(pattern) from None


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, extra: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [k for k in instance if k not in properties and not any(_search(p, k) for p in patterns)]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and extras:
        yield ValidationError(f"Additional properties are not allowed ({', '.join(map(repr, sorted(extras)))})")


BoundedValidator = validators.extend(
    Draft202012Validator,
    {"pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties},
)


def _walk(schema: Any) -> Iterator[tuple[str, Any]]:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                yield key, value
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)


def schema_problem(schema: Any) -> str | None:
    """Why Atlas cannot check against `schema` (one line), or None when it can."""
    if not isinstance(schema, dict):
        return "the schema is not an object"
    try:
        BoundedValidator.check_schema(schema)
    except SchemaError as exc:
        return f"the schema is not valid JSON Schema: {exc.message}"
    except RecursionError:
        return "the schema is nested too deeply"
    patterns: list[str] = []
    keys: set[str] = set()
    for key, value in _walk(schema):
        keys.add(key)
        if key == "pattern" and isinstance(value, str):
            patterns.append(value)
        elif key == "patternProperties" and isinstance(value, dict):
            patterns.extend(value)
    if "unevaluatedProperties" in keys and "patternProperties" in keys:
        return "unevaluatedProperties with patternProperties is not checked by Atlas"
    for pattern in patterns:
        if len(pattern) > PATTERN_LIMIT:
            return f"a pattern is longer than {PATTERN_LIMIT} characters"
        try:
            _compiled(pattern)
        except regex.error as exc:
            return f"the pattern {pattern[:80]!r} does not compile: {exc}"
    return None


def first_error(validator: Draft202012Validator, instance: Any) -> str | None:
    """The most relevant error of `instance` against the validator's schema, as `where: what`; None when
    it fits. PatternTooSlow when the schema's patterns take longer than CHECK_BUDGET_S."""
    token = _deadline.set(time.monotonic() + CHECK_BUDGET_S)
    try:
        error = best_match(validator.iter_errors(instance))
    except RecursionError:
        return "arguments: nested too deeply to check"
    finally:
        _deadline.reset(token)
    if error is None:
        return None
    where = ".".join(str(part) for part in error.absolute_path) or "arguments"
    return f"{where}: {error.message}"


def bounded_validator(schema: dict[str, Any]) -> Draft202012Validator:
    """A validator for a schema `schema_problem` accepted."""
    validator: Draft202012Validator = BoundedValidator(schema)
    return validator


class JsonSchemaArgs(BaseModel):
    """Arguments of a tool described by a JSON schema; `arguments()` gives them back as sent."""

    model_config = ConfigDict(extra="allow")
    validator: ClassVar[Draft202012Validator | None] = None

    @model_validator(mode="before")
    @classmethod
    def _check_schema(cls, value: Any) -> Any:
        if cls.validator is not None:
            try:
                problem = first_error(cls.validator, value)
            except PatternTooSlow as exc:
                raise ValueError(
                    f"the server's schema has a pattern too slow to check ({str(exc)[:80]!r}); the call was not sent"
                ) from None
            if problem is not None:
                raise ValueError(problem)
        return value

    def arguments(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def args_model_for(tool_name: str, schema: dict[str, Any]) -> type[JsonSchemaArgs]:
    """A model class that validates against `schema`, which `schema_problem` accepted."""
    return type(f"Args_{tool_name}", (JsonSchemaArgs,), {"validator": bounded_validator(schema)})
