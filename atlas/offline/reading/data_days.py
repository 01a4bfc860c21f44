"""Days counted back from the end of the project's data, not from today: `the last 6 months of the data`.

An export or an old sync ends when it was taken; a maintainer who knows it asks for the data's last months. The
words become the day they start from (`since 2024-08-27`), which every time filter reads, so the issues' opening
or last activity is filtered as the rest of the request says.
"""

from __future__ import annotations

import re
from datetime import timedelta

from atlas.offline.reading.dates import span_in
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
    """The words with each span counted back from the data's end said as the day it starts; as they are when the
    data's last day is unknown."""
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
