"""What Atlas reads from GitHub's issue JSON, and a check of real answers against it.

`sync`, `import` and the GitHub tracker read these fields with these types (`convert.py`,
`sync.py`, `tracker/github.py`); a field that changed type, or an enum that gained a value
(an issue's `state`, `state_reason`), would make them misread an issue, or skip it, silently.
`atlas doctor --contract` fetches a page of a repository's issues and a page of comments and
reports each difference in one line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from atlas.foundation.sanitize import clean_line

STRING, INTEGER, OBJECT, LIST, NULL = str, int, dict, list, type(None)


@dataclass(frozen=True)
class Field:
    path: str
    """A dotted path; `labels[].name` is the `name` of each item of `labels`."""
    types: tuple[type, ...]
    required: bool = True


ISSUE_FIELDS = (
    Field("number", (INTEGER,)),
    Field("title", (STRING,)),
    Field("body", (STRING, NULL)),
    Field("state", (STRING,)),
    Field("state_reason", (STRING, NULL), required=False),
    Field("labels", (LIST,)),
    Field("labels[].name", (STRING,)),
    Field("user", (OBJECT, NULL)),
    Field("user.login", (STRING,), required=False),
    Field("comments", (INTEGER,)),
    Field("created_at", (STRING,)),
    Field("updated_at", (STRING,)),
    Field("html_url", (STRING,), required=False),
)
COMMENT_FIELDS = (
    Field("id", (INTEGER,)),
    Field("body", (STRING, NULL)),
    Field("user", (OBJECT, NULL)),
    Field("user.login", (STRING,), required=False),
    Field("created_at", (STRING,)),
    Field("html_url", (STRING,), required=False),
)
ISSUE_ENUMS: dict[str, frozenset[str | None]] = {
    "state": frozenset({"open", "closed"}),
    "state_reason": frozenset({None, "completed", "not_planned", "reopened", "duplicate"}),
}
_NAMES = {STRING: "a string", INTEGER: "an integer", OBJECT: "an object", LIST: "a list", NULL: "null"}


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float):
        return "a number with a fraction"
    return _NAMES.get(type(value), type(value).__name__)


def _values(item: Any, path: str) -> Iterable[tuple[bool, Any]]:
    """(present, value) at `path` in `item`, one per list item for `[]` paths."""
    head, _, rest = path.partition(".")
    many = head.endswith("[]")
    key = head.removesuffix("[]")
    if not isinstance(item, Mapping) or key not in item:
        yield False, None
        return
    value = item[key]
    targets = value if many and isinstance(value, list) else [value]
    for target in targets:
        if rest:
            if target is not None:
                yield from _values(target, rest)
        else:
            yield True, target


def check_items(what: str, items: Any, fields: Iterable[Field], enums: Mapping[str, frozenset[Any]] = {}) -> list[str]:
    """One line per difference between the items and what Atlas reads (each difference once)."""
    if not isinstance(items, list):
        return [f"GitHub {what}: the answer is {_type_name(items)}, Atlas reads a list"]
    found: dict[tuple[str, str], str] = {}
    for item in items:
        where = f" (#{item.get('number')})" if isinstance(item, Mapping) and "number" in item else ""
        for spec in fields:
            for present, value in _values(item, spec.path):
                if not present:
                    if spec.required:
                        found.setdefault((spec.path, "missing"), f"GitHub {what}: field {spec.path} is missing{where}")
                elif not isinstance(value, spec.types) or isinstance(value, bool):
                    wanted = " or ".join(_NAMES[kind] for kind in spec.types)
                    line = f"GitHub {what}: field {spec.path} is {_type_name(value)}, Atlas reads {wanted}{where}"
                    found.setdefault((spec.path, "type"), line)
        for name, known in enums.items():
            value = item.get(name) if isinstance(item, Mapping) else None
            unknown = not isinstance(value, (str, NULL)) or value not in known
            if isinstance(item, Mapping) and name in item and unknown:
                shown = clean_line(repr(value))
                values = ", ".join(sorted(str(v) for v in known if v is not None))
                line = f"GitHub {what}: {name} has a value Atlas does not know: {shown}{where} (known: {values})"
                found.setdefault((name, f"enum {value!r}"), line)
    return list(found.values())
