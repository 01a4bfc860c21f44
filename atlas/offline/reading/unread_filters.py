"""What a search request asks that no filter of `search_issues` reads: taken out of the words and said in a note,
so the rest is searched and the answer says what it could not tell (never words searched for in its place)."""

from __future__ import annotations

import re

from atlas.offline.reading.lazy import lazy

_LABEL_COUNT_RE = lazy(
    r"\b(?:with|having|(?:that\s+|which\s+)?(?:have|has|carry)|carrying)\s+(?:more\s+than\s+(?:one|two|three|\d+)|at\s+least\s+(?:two|three|\d+)"
    r"|multiple|several|many|lots\s+of|(?:two|three|\d+)\s+or\s+more|(?:the\s+)?(?:most|fewest|least))\s+labels?\b",
    re.I,
)
"""`with more than one label`, `with multiple labels`, `the issues with most labels`: how many labels an issue has."""
_KIND_OF_PERSON_RE = lazy(
    r"\b(?:opened\s+|filed\s+|reported\s+)?(?:by|from)\s+(?:the\s+)?(?P<kind>first[- ]time|new|external|outside|"
    r"non-maintainer|community)\s+(?:reporters?|contributors?|users?|people|folks|authors?|members?)\b",
    re.I,
)
"""`bugs opened by first-time reporters`: a kind of author, which the data does not record."""
SINCE_RELEASE_RE = lazy(
    r"\b(?:since|after|before|from)\s+(?:the\s+)?(?:(?:version|release|v)\s*)?v?\d+\.\d+(?:\.\d+)*(?:\s+(?:release|came\s+out|"
    r"was\s+released))?(?![\w.-]*\d{2}-|\s*(?:days?|weeks?|months?|years?|hours?|h|d)\b)",
    re.I,
)
"""`since 2.14`, `after v3.0 came out`, `after the 3.0 release`: a release named as a time, which the data (days
only) cannot place."""
_STATISTIC_RE = lazy(
    r"\b(?:the\s+)?(?:median|average|avg|mean|typical)\s+(?:age|lifetime|(?:resolution|response|closing|close)\s+time"
    r"|time\s+(?:(?:it\s+)?takes?\s+(?:us\s+|them\s+|you\s+)?)?(?:to|until|before)\s+(?:close|closing|fix|resolve|resolution"
    r"|(?:a\s+|the\s+)?first\s+(?:response|reply)))"
    r"(?:\s+(?:of|for|in))?\b",
    re.I,
)
"""`the median age of open bugs`, `average time to close`: a figure over the issues' days, which no tool computes."""
_WORKING_ON_RE = lazy(
    r"\b(?:is\s+|are\s+)?(?:any(?:one|body)|some(?:one|body)|who(?:'s|\s+is)?)\s+(?:already\s+)?(?:working\s+on"
    r"|assigned\s+to|looking\s+(?:at|into))\b",
    re.I,
)
"""`is anyone working on polars support`: who works on an issue, which the data (no assignees) does not say."""
_WORD = r"[\"'`]?[\w:.-]+[\"'`]?"
_WORDS_LEFT_OUT_RE = lazy(
    r"\b(?:(?:that|which)\s+)?(?:(?:(?:do|does|did)(?:n'?t|\s+not)|never)\s+(?:mention|say|contain|reference|talk\s+about)"
    r"|not\s+(?:mentioning|containing|referencing|about)|without\s+(?:the\s+)?words?)\s+"
    rf"{_WORD}(?:\s+(?:or|and|nor)\s+{_WORD})*",
    re.I,
)
"""`open issues that don't mention parquet`, `crashes not about windows`: words the issues must not hold, which a
search (it finds words) cannot leave out."""
_UNREAD = (
    (_LABEL_COUNT_RE, "I cannot tell issues apart by how many labels they carry; these are all that match the rest."),
    (
        _STATISTIC_RE,
        "I cannot work out a figure over the issues' days (“{said}”): the data keeps the day each was opened, not "
        "when it was closed or answered; these are the issues it would be taken over, the oldest first.",
    ),
    (
        _WORDS_LEFT_OUT_RE,
        "A search finds issues by the words they hold; it cannot leave out those that hold others (“{said}”): "
        "these are all that match the rest.",
    ),
    (
        _KIND_OF_PERSON_RE,
        "I cannot tell which authors are {kind} ones: the data keeps who opened each issue, not who they are; these "
        "are all that match the rest.",
    ),
    (
        _WORKING_ON_RE,
        "The data keeps no assignees: I cannot tell who works on an issue; here are the issues about it, whose "
        "threads may say.",
    ),
    (
        SINCE_RELEASE_RE,
        "The data keeps days, not releases: I cannot tell which issues came {said}; these are all that match the "
        "rest (a day works: `since 2024-06-01`).",
    ),
)
"""Each unread filter and its note (`{said}`: the words, `{kind}`: the kind of author said)."""


def without_unread_filters(text: str, notes: list[str]) -> str:
    """The words without what no filter reads, each said in a note."""
    for pattern, note in _UNREAD:
        if found := pattern.search(text):
            notes.append(note.format(said=found.group(0).strip(), kind=(found.groupdict().get("kind") or "").lower()))
            # what is worked on is the issues said; a figure over their days is shown as the days, the oldest first
            rest = " issues " if pattern is _WORKING_ON_RE else " oldest " if pattern is _STATISTIC_RE else " "
            text = text[: found.start()] + rest + text[found.end() :]
    return text


def names_unread(text: str) -> bool:
    """Whether the words ask for issues by something no filter reads (`is anyone working on …`, `since 2.14`)."""
    return any(pattern.search(text) for pattern, _ in _UNREAD[1:])
