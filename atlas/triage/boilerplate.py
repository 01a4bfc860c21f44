"""What every issue of a project shares, learned from the project: issue-form headings and template text.

A line found in a large share of the issues ("### Describe the bug", "Steps to reproduce:", "User
Agent: ...") says which form was filled in, not what went wrong; it would make any two reports of
one form look alike. Hidden HTML comments (a form's instructions, which GitHub does not show) go
too. What is left is what the reporter wrote.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable

SHARE = 0.05
"""A line in at least this share of the issues is the form's, not the reporter's."""
MIN_ISSUES = 5
"""Fewer issues than this prove nothing about a line."""
_HIDDEN = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_SPACES = re.compile(r"\s+")


def line_key(line: str) -> str:
    return _SPACES.sub(" ", line.strip().casefold())


def visible(body: str) -> str:
    return _HIDDEN.sub("", body)


def learn(bodies: Iterable[str], share: float = SHARE) -> frozenset[str]:
    """The lines (as `line_key` folds them) found in at least `share` of the bodies."""
    seen: Counter[str] = Counter()
    count = 0
    for body in bodies:
        count += 1
        seen.update({key for key in map(line_key, visible(body).splitlines()) if key})
    floor = max(MIN_ISSUES, share * count)
    return frozenset(line for line, n in seen.items() if n >= floor)


def strip(body: str, common: Collection[str]) -> str:
    """The body without hidden comments and without the project's common lines."""
    lines = visible(body).splitlines()
    return "\n".join(line for line in lines if line_key(line) not in common)
