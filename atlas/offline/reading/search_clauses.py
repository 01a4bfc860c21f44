"""Clauses of a search request said beside its topic, for `search.py`: the state said as what is not wanted or as
an afterthought, and words asked for in titles alone (which the search tool cannot do, so it is said).
"""

from __future__ import annotations

import re

from atlas.offline.reading.lazy import lazy

_NOT_STATE_RE = lazy(
    r",?\s*(?:but\s+|and\s+)?(?:not|excluding|except(?:\s+for)?|without)\s+(?:the\s+|any\s+)?(?P<state>open|closed)"
    r"(?:\s+(?:ones|issues|bugs|tickets))?\b(?!\s+(?:labels?|tags?)\b)",
    re.I,
)
"""`…, but not the closed ones`, `excluding open issues`: the other state asked for."""
_STATE_LAST_RE = lazy(
    r"(?:\s*[,;(-]\s*|\s+(?=(?:only|just)\b)|\s+(?=(?:open|closed)\s+(?:ones\s+)?only\b))"
    r"(?:(?:only|just)\s+(?:the\s+)?)?(?P<state>open|closed)(?:\s+(?:ones|issues|bugs|tickets))?(?:\s+only)?"
    r"\s*\)?\s*[?.!]*\s*$",
    re.I,
)
"""`issues about shuffle, open only`, `… only closed ones`: the state said as an afterthought, at the end."""
_IN_TITLES_RE = lazy(r"\bin\s+(?:the|their|its)\s+titles?\b|\btitles?\s+(?:contain|mention|say|with|has|have)", re.I)
_TEXT_ANYWHERE = (
    "The search finds words in titles, bodies and comments alike, not in titles alone: some of these issues may "
    "have them only in their text."
)


def titles_only(text: str) -> list[str]:
    """The note for words asked for in titles alone (`… 'cache' in the title`): the tool searches all the text."""
    return [_TEXT_ANYWHERE] if _IN_TITLES_RE.search(text) else []


def state_said_first(text: str) -> str:
    """`bugs mentioning windows, but not the closed ones`: the state left, said first (`open bugs mentioning …`);
    `…, open only`: the state said last, said first."""
    if said := _NOT_STATE_RE.search(text):
        left = "open" if said.group("state").lower() == "closed" else "closed"
        return f"{left} {text[: said.start()]} {text[said.end() :]}"
    if said := _STATE_LAST_RE.search(text):
        return f"{said.group('state')} {text[: said.start()]}"
    return text
