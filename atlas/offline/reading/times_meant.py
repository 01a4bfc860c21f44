"""A time said by pointing back at the one before: `issues by lhoestq from 2024, and how many did albertvillanova open
that year?` — the year (or month) the request before searched, said by name."""

from __future__ import annotations

import re
from calendar import month_name
from datetime import date

from atlas.offline.reading.lazy import lazy

_THAT_TIME_RE = lazy(r"\b(?:in\s+|during\s+)?(?:(?:that|the)\s+same|that)\s+(?P<unit>year|month)\b", re.I)


def times_meant(text: str, since: str | None, before: str | None) -> str:
    """`that year`, `the same month` as the year or month the search before spanned (`since`, `before`: its days of
    opening); the text as it is when that search spanned no whole year or month."""
    if since is None or before is None:
        return text
    first, end = date.fromisoformat(since), date.fromisoformat(before)
    if first.day != 1 or end.day != 1:
        return text
    whole_year = first.month == 1 and end == date(first.year + 1, 1, 1)
    whole_month = end == date(first.year + first.month // 12, first.month % 12 + 1, 1)

    def named(said: re.Match[str]) -> str:
        unit = said.group("unit").lower()
        if unit == "year" and (whole_year or whole_month):
            return f"in {first.year}"
        if unit == "month" and whole_month:
            return f"in {month_name[first.month]} {first.year}"
        return said.group(0)

    return _THAT_TIME_RE.sub(named, text)
