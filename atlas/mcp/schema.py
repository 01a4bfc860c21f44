"""Arguments checked against a JSON schema: a pydantic model the executor validates like any other.

An MCP tool describes its arguments with a JSON schema, not a pydantic model. The executor
validates every call with `args_model.model_validate` (a failure is `bad_args`, and the call
never leaves Atlas); a model class built per tool runs `jsonschema` there and keeps the
arguments as they came.
"""

from __future__ import annotations

from typing import Any, ClassVar

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match
from pydantic import BaseModel, ConfigDict, model_validator


class JsonSchemaArgs(BaseModel):
    """Arguments of a tool described by a JSON schema; `arguments()` gives them back as sent."""

    model_config = ConfigDict(extra="allow")
    validator: ClassVar[Draft202012Validator | None] = None

    @model_validator(mode="before")
    @classmethod
    def _check_schema(cls, value: Any) -> Any:
        if cls.validator is not None:
            error = best_match(cls.validator.iter_errors(value))
            if error is not None:
                where = ".".join(str(part) for part in error.absolute_path) or "arguments"
                raise ValueError(f"{where}: {error.message}")
        return value

    def arguments(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def args_model_for(tool_name: str, schema: dict[str, Any]) -> type[JsonSchemaArgs]:
    """A model class that validates against `schema`; a schema that is itself invalid checks nothing
    here (the server still validates), rather than hiding the tool."""
    try:
        Draft202012Validator.check_schema(schema)
        validator: Draft202012Validator | None = Draft202012Validator(schema)
    except SchemaError:
        validator = None
    return type(f"Args_{tool_name}", (JsonSchemaArgs,), {"validator": validator})
