"""Whether a comment pattern lets free text through, so cannot be a fixed comment.

An allow that holds after untrusted text must be a fixed comment: whoever wrote the issue steers
the model, so a pattern with room for any words or a link (`(?s).*`, `Thanks.*`, `[^<]+`, `\\S+`)
is a blanket allow. A pattern may vary only in ways that spell nothing: a repeat (`*`, `+`,
`{2,}`) may take letters, or spaces and punctuation, but never both; so `#\\d+`, `v\\d+(\\.\\d+)*`
and `\\w+` pass, and `[\\w ]+` does not. Read with Python's own parser (the structure only; nothing
is matched), so any pattern is judged in time linear in its length.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

_parser: Any = importlib.import_module("re._parser")  # no stubs: the parse tree is read by name

LETTERS = frozenset("aZ")
"""Stand-ins for every letter: `\\w`, `[a-z]` and `.` take one of them, as they take words."""
SEPARATORS = frozenset(" \n\t:/.@<>[]()#!,?&=%*`~|\\\"'+;$^{}")
"""What joins letters into prose, markup, a mention or a link."""
PROBES = LETTERS | SEPARATORS
_CATEGORIES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


def free_text_problem(pattern: str) -> str | None:
    """Why `pattern` is not a fixed comment (in a few words), or None when it is one."""
    try:
        parsed = _parser.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return "this pattern is not one Python's own parser reads, so nothing shows it is fixed"
    try:
        _, free = _walk(list(parsed))
    except RecursionError:
        return "this pattern is nested too deeply to show it is fixed"
    if free:
        return "this pattern repeats characters that spell any words or a link (as `.*` does)"
    return None


def _spells(alphabet: frozenset[str]) -> bool:
    return bool(alphabet & LETTERS) and bool(alphabet & SEPARATORS)


def _walk(items: list[tuple[Any, Any]]) -> tuple[frozenset[str], bool]:
    """The probe characters the items may match, and whether a repeat among them spells free text."""
    alphabet: frozenset[str] = frozenset()
    free = False
    for op, argument in items:
        taken, inner_free = _item(str(op), argument)
        alphabet |= taken
        free = free or inner_free
    return alphabet, free


def _item(op: str, argument: Any) -> tuple[frozenset[str], bool]:
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        _, most, body = argument
        alphabet, free = _walk(list(body))
        return alphabet, free or (most > 1 and _spells(alphabet))
    if op == "SUBPATTERN":
        return _walk(list(argument[-1]))
    if op == "ATOMIC_GROUP":
        return _walk(list(argument))
    if op == "BRANCH":
        return _union([_walk(list(branch)) for branch in argument[1]])
    if op == "GROUPREF_EXISTS":
        return _union([_walk(list(branch)) for branch in argument[1:] if branch is not None])
    return frozenset(probe for probe in PROBES if _takes(op, argument, probe)), False


def _union(parts: list[tuple[frozenset[str], bool]]) -> tuple[frozenset[str], bool]:
    return frozenset().union(*(alphabet for alphabet, _ in parts)), any(free for _, free in parts)


def _takes(op: str, argument: Any, probe: str) -> bool:
    """Whether one character-matching item takes `probe` (either case: a stricter reading)."""
    cases = {probe, probe.lower(), probe.upper()}
    if op == "ANY":
        return True
    if op == "LITERAL":
        return chr(argument) in cases
    if op == "NOT_LITERAL":
        return chr(argument) not in cases or len(cases) > 1
    if op == "IN":
        negated = any(str(inner) == "NEGATE" for inner, _ in argument)
        hit = any(_in_set(str(inner), value, case) for inner, value in argument for case in cases)
        return hit != negated or (negated and len(cases) > 1)
    return False  # anchors, lookarounds and back-references take no character of their own


def _in_set(op: str, value: Any, probe: str) -> bool:
    if op == "LITERAL":
        return chr(value) == probe
    if op == "RANGE":
        return bool(value[0] <= ord(probe) <= value[1])
    if op == "CATEGORY":
        return re.fullmatch(_CATEGORIES.get(str(value), r"[\s\S]"), probe) is not None
    return False
