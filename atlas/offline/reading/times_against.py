"""Two times set against each other in one request (`how many issues were opened in march 2024 vs march 2023`,
`bugs this month vs last month`): the request asked once for each time, as two requests would ask it.
"""

from __future__ import annotations

import re

from atlas.offline.reading.dates import Span, span_in
from atlas.offline.reading.lazy import lazy

_AGAINST_RE = lazy(r"\s+(?:vs\.?|versus|compared?\s+(?:to|with)|against)\s+", re.I)
_LEAD_RE = lazy(r"(?P<lead>in|during|over|for|from|on)\s+", re.I)
"""The word a time says first (`in march 2024`), which the second time may leave out (`vs march 2023`)."""


_HOW_IT_COMPARES_RE = lazy(
    r",?\s+(?:and\s+)?how\s+(?:does|did|do)\s+(?:that|it|this|those)\s+compare\s+(?=to\b|with\b)", re.I
)
"""`… in 2024, and how does that compare to 2023?`: the two times set against each other, said as a question."""


def times_set_against(text: str) -> tuple[str, str] | None:
    """The request once with the time before `vs` and once with the time after it, each in the first one's place;
    None unless a time ends right before `vs` and another starts right after it."""
    text = _HOW_IT_COMPARES_RE.sub(" compared ", text)
    for against in _AGAINST_RE.finditer(text):
        first = _time_ending_at(text, against.start())
        if first is None:
            continue
        second = _time_starting_at(text, against.end(), first.said)
        if second is None:
            continue
        said_second, end = second
        rest = text[end:]
        return text[: against.start()] + rest, text[: first.start] + said_second + rest
    return None


def _time_ending_at(text: str, end: int) -> Span | None:
    """The time said last before `end`, when it ends there: the first span the words from some word start on name,
    tried from the nearest word back."""
    starts = [word.start() for word in re.finditer(r"\S+", text[:end])]
    for start in reversed(starts[-6:]):
        span = span_in(text[start:end])
        if span is not None and span.start == 0 and span.end == end - start:
            return Span(span.since, span.before, span.activity, start, end, span.said, span.vague)
    return None


def _time_starting_at(text: str, start: int, first_said: str) -> tuple[str, int] | None:
    """The time said right at `start`, as it reads in the first one's place, and where it ends; a time said
    without the first one's lead word (`vs march 2023` after `in march 2024`) takes that word."""
    words = [start + word.end() for word in re.finditer(r"\S+", text[start:])][:6]
    lead = _LEAD_RE.match(first_said)
    for end in reversed(words):  # the longest time said there
        said = text[start:end].rstrip("?.!,;")
        for candidate in (said, f"{lead.group('lead')} {said}" if lead else None):
            if candidate is None:
                continue
            span = span_in(candidate)
            if span is not None and span.start == 0 and span.end == len(candidate):
                return candidate, start + len(said)
    return None
