"""Days read against the project's data: counted back from its end, not from today (`the last 6 months of the data`),
a yearless day it holds, and a year where it has no issue of that number.

An export or an old sync ends when it was taken; a maintainer who knows it asks for the data's last months. The
words become the day they start from (`since 2024-08-27`), which every time filter reads, so the issues' opening
or last activity is filtered as the rest of the request says.
"""

from __future__ import annotations

import re
from datetime import timedelta

from atlas.offline.reading.dates import ANY_MONTH, YEAR_AFTER_ISSUES_RE, span_in
from atlas.offline.reading.issue_numbers import ProjectIssues
from atlas.offline.reading.lazy import lazy

_AMOUNT = r"(?P<n>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve)?\s*"
_UNIT = r"(?P<unit>days?|weeks?|months?|years?)"
_DATA = r"(?:the\s+)?(?:data(?:set)?|export|import|dump|snapshot)"
_OF_THE_DATA_RE = lazy(
    rf"\b(?:(?:in|during|over|from|within)\s+)?(?:(?P<owner>{_DATA})'s|the)\s+(?:last|past|final|latest)\s+{_AMOUNT}{_UNIT}"
    rf"(?P<of>\s+(?:of|in)\s+{_DATA}\b)?",
    re.I,
)


def from_the_data_end(text: str, issues: ProjectIssues) -> str:
    """The words with each span counted back from the data's end said as the day it starts, and a day or month said
    without its year that comes after the data's end given the year it last had in the data; as they are when the
    data's last day is unknown."""
    text = _yearless_in_the_data(text, issues)
    said_of_the_data = any(said.group("owner") or said.group("of") for said in _OF_THE_DATA_RE.finditer(text))
    if not said_of_the_data or (last := issues.last_day()) is None:
        return text

    def day(said: re.Match[str]) -> str:
        if not (said.group("owner") or said.group("of")):  # `the last 3 months`: counted from today
            return said.group(0)
        amount = said.group("n") or "1"
        span = span_in(f"the last {amount} {said.group('unit')}", now=last + timedelta(days=1))
        return f"since {span.since.isoformat()}" if span is not None and span.since is not None else said.group(0)

    return _OF_THE_DATA_RE.sub(day, text)


_YEARLESS_RE = lazy(rf"\b{ANY_MONTH}\b(?![^,;?!]*\b(?:19|20)\d\d\b)", re.I)
"""A month named with no year after it (`since feb 20`, `in March`), read as the latest one not in the future."""


def _yearless_in_the_data(text: str, issues: ProjectIssues) -> str:
    """`anything new since feb 20` on data that ends a year ago: the feb 20 before the data's end (`feb 20 2025`), as
    the latest such day after it holds nothing; as it is when the day is not after the data's end."""
    if not _YEARLESS_RE.search(text):
        return text
    span = span_in(text)
    if span is None or span.since is None or not _YEARLESS_RE.search(span.said):
        return text
    last = issues.last_day()
    if last is None or span.since <= last:
        return text
    in_the_data = span_in(text, now=last + timedelta(days=1))
    if in_the_data is None or in_the_data.since is None or in_the_data.since > last:
        return text
    return f"{text[: span.end]} {in_the_data.since.year}{text[span.end :]}"


def years_not_issues(text: str, issues: ProjectIssues) -> str:
    """`mariosasko bugs 2023`: a year said right after the issues, where the project has no issue of that number, is
    the year they were opened (`in 2023`); a number the project has an issue of stays that issue."""

    def year(said: re.Match[str]) -> str:
        return f" in {said['year']}" if issues.has(int(said["year"])) is False else said.group(0)

    return YEAR_AFTER_ISSUES_RE.sub(year, text)
