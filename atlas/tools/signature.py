"""Whether a function can be a tool: called as `fn(args, ctx)` with its arguments model."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def signature_problem(fn: Callable[..., Any], args_model: type[Any]) -> str | None:
    """Why `fn` cannot be called as `fn(args, ctx)` with an `args_model`, in one line; None when it can."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None  # a builtin or a C function: nothing to read, it is judged when called
    params = list(signature.parameters.values())
    positional = [p for p in params if p.kind in _POSITIONAL]
    open_ended = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
    required = [p for p in params if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    expected = f"def {fn.__name__}(args: {args_model.__name__}, ctx: ToolContext)"
    shown = ", ".join(_shown(p) for p in params) or "no parameters"
    if (len(positional) < 2 and not open_ended) or len(required) > 2 or any(p not in positional for p in required):
        return f"tool {fn.__name__!r} must be declared as {expected}, its arguments one pydantic model; not ({shown})"
    try:
        first = typing.get_type_hints(fn).get(positional[0].name) if positional else None
    except Exception:  # an annotation that does not resolve (a name only imported for type checking)
        first = None
    if isinstance(first, type) and not issubclass(args_model, first):
        return (
            f"tool {fn.__name__!r} must be declared as {expected}: its first parameter is annotated "
            f"{first.__name__}, but Atlas passes it a {args_model.__name__}"
        )
    return None


def _shown(param: inspect.Parameter) -> str:
    """`query: str` as written, whether the annotation is a string (postponed) or an object."""
    if param.annotation is param.empty:
        return param.name
    annotation = param.annotation
    return f"{param.name}: {annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)}"
