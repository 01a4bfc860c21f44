"""Issue numbers and error codes as people write them: `#41`, `issues 41 and 87`, `ORB-1101`, a bare `41`.

A leaf of the planner: the frame parser's entities and the plan both read references here.
"""

from __future__ import annotations

import calendar
import re

from atlas.offline.reading.dates import RANGE_RE, month_days
from atlas.offline.reading.lazy import lazy

MAX_ISSUES = 8
"""The most issues one message reads."""

CODE_RE = lazy(r"\bORB[-_ ]?(\d{4})\b", re.IGNORECASE)
RAISED_RE = lazy(
    r"\b(?P<name>[A-Z][A-Za-z]*(?:Error|Exception)|(?<=[a-z_]\.)[A-Z][a-z]+(?:[A-Z][a-z]*)+(?=[ \t]*:))\b"
    r"(?:[ \t]*:[ \t]*(?P<message>[^\n?`]{3,160}?)(?=[ \t]+--?[ \t]|[ \t]+—|[ \t]*[?\n`]|[ \t]*$))?"
)
"""An exception a report or a request shows, `TypeError: 'NoneType' object is not callable`, `pyarrow.lib.ArrowInvalid:
cannot mix …` (a name of any ending after its module): its name, and its message up to the line's end (or a question,
a closing backtick, or a ` - ` after it)."""
_ISSUE_WORD = r"(?:issues?|tickets?|bugs?)"
_ISSUE_LIST_RE = lazy(
    rf"\b{_ISSUE_WORD}\s+#?(\d+)\b((?:\s*(?:,|\band\b|&|\bor\b|\bvs\.?|\bversus\b|\bwith\b)\s*(?:{_ISSUE_WORD}\s+)?#?\d+\b)*)",
    re.IGNORECASE,
)
_YEARS_COMPARED_RE = lazy(
    r"(?:issues|tickets|bugs)\s+(?:19[89]\d|20\d\d)(?:\s*(?:,|\bvs\.?|\bversus\b)\s*(?:19[89]\d|20\d\d))+", re.I
)
"""`bugs 2023 vs 2024`: issues of one year set against another's, not issues #2023 and #2024."""
_HASH_RE = lazy(r"(?<![\w&])#(\d+)\b")
_BARE_PAIR_RE = lazy(r"\b(?:compare|between)\s+(\d+)\s*(?:,|and|with|to|vs\.?|versus)\s*(\d+)\b", re.I)
_SHOW_BARE_IDS_RE = lazy(
    r"^\s*(?:show|open|read|get|display|fetch|pull\s+up)\s+(?:me\s+)?(\d+(?:\s*(?:,|and|&)\s*\d+)*)\s*[?.!]?\s*$", re.I
)
"""`show me 41 and 87`: bare numbers are issue ids only when they are all the question asks for."""
_FIELD_OF_RE = lazy(
    r"^\s*(\d{1,5})(?:'s)?\s+(?:labels?|comments?|status|state|title|author|details|body|summary)\s*[?.!]*\s*$", re.I
)
"""`7421 labels?`, `7400's status`: one issue and what of it is asked, the number first."""


def _time_ranges(text: str) -> list[tuple[int, int]]:
    """Where the words name a span of time (`between 2022 and 2023`) or a day (`since feb 1`): its numbers are years
    and days, not issues."""
    return [match.span() for match in RANGE_RE.finditer(text)] + month_days(text)


def _within(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


def issue_ids_in(text: str) -> list[int]:
    """`#41`, `issue 41`, `issues 41 and 87`, `#41, #87 and #92`: ids in order, once each."""
    hits: list[tuple[int, int]] = [(m.start(), int(m.group(1))) for m in _HASH_RE.finditer(text)]
    times = _time_ranges(text)
    for match in _BARE_PAIR_RE.finditer(text):
        if not _within(match.start(), times):
            hits += [(match.start(group), int(match.group(group))) for group in (1, 2)]
    for match in [*_ISSUE_LIST_RE.finditer(text), *_SHOW_BARE_IDS_RE.finditer(text), *_FIELD_OF_RE.finditer(text)]:
        if _YEARS_COMPARED_RE.fullmatch(match.group(0)):
            continue
        hits += [(match.start() + d.start(), int(d.group())) for d in re.finditer(r"\d+", match.group(0))]
    ids: list[int] = []
    for _, issue_id in sorted(hits):
        if issue_id not in ids:
            ids.append(issue_id)
    return ids


_BARE_NUMBER_RE = lazy(
    r"(?<![\w.#:/'\"=+-])(\d{1,5})(?![\w./%\"-]|'(?!s\b)|:(?!\s)|\.\d|[-–]\d)"
)  # `of 7400: …`, `7400's`
_UNIT_AFTER_RE = lazy(
    r"^\s*(?:s|ms|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|kb|mb|gb|%|x|×|workers?|"
    r"jobs?|tabs?|rows?|times?|pods?|replicas?|threads?|process(?:es)?|schedules?|entries|nodes?|tasks?|retries|"
    r"attempts?|items?|issues|bugs|tickets|people|users|am|pm|o'?clock|more|of|newest|oldest|latest|most"
    # `500 / 504 server errors`, `a 413 response`: HTTP status codes
    r"|(?:(?:[/,]|or|and)\s*\d{3}\s+)?(?:http\s+)?(?:server\s+)?(?:errors?|status(?:es)?|responses?|gateway))\b",
    re.IGNORECASE,
)
_NOT_AN_ID_BEFORE = frozenset(
    re.findall(
        r"\S+",
        """
        top first latest last newest oldest sev severity priority every after than within python version v
        redis postgres valkey traefik port since before until from to by over under about around only
        limit section step chapter part page line round attempt rank number exit code status errno signal
        pid http a an
        """,
    )
)
"""Words after which a number is a count, a version or a time; "bump 95 to ..." is read as a label first."""
KIND_OF_ISSUES = (
    r"\s+(?:(?!(?:and|or|with|vs|to|from|than|like|as|in|on|of|is|are)\b)[a-z][\w:-]*\s+){1,3}"
    r"(?:issues|bugs|tickets|reports|requests)\b"
)
_KIND_OF_ISSUES_AFTER_RE = lazy("^" + KIND_OF_ISSUES, re.I)
"""`3 good first issues`, `5 open bugs`: a number, a few words saying which kind, then issues: a count."""
_LIKENED_TO_RE = lazy(
    r"\b(?:similar|related|same|identical|duplicates?|dupes?|dup)"
    r"(?:\s+(?:ones?|issues?|tickets?|bugs?|reports?|problems?))?\s+(?:to|as|of)\s*$"
    r"|\b(?:repl(?:y|ied|ies)|respond(?:ed|s)?|responses?|answer(?:ed|s)?|comment(?:ed|s)?|linked|posted)\s+(?:to|on)\s*$",
    re.I,
)
"""`similar to 7394`, `similar issues to 7394`, `a dup of 41`, `did anyone reply to 7400`: what an issue is likened
or replied to is an issue, though `to` and `of` precede counts."""
_TOLD_ABOUT_RE = lazy(
    r"\b(?:tell\s+(?:me|us)|know|talk|anything|more|info(?:rmation)?|details?|news|update|what|how)\s+about\s*$", re.I
)
"""`tell me about 7423`, `what about 7400?`: the number said last is what the person asks about, not about a count."""
_CLAUSE_END_RE = lazy(r"\s*(?:[?.!,;]|$)")
_IN_TOPIC_RE = lazy(
    r"\b(?:mentioning|mentions?|about|regarding|concerning|involving|containing|matching|referenc(?:ing|es?|ed)|cit(?:ing|es?)"
    r"|(?:problems?|issues?|errors?|trouble|bugs?|crash(?:es)?|failures?)\s+with"
    r"|(?<=anything\s)on(?=\s+(?!(?:the|a|an|it|this|that)\b)))\s+"
    r"(?!(?:issues?|tickets?|bugs?|#)\b)(?:[\w.+-]+\s+){1,3}$"
    r"|\b(?:working\s+on|looking\s+(?:at|into))\s+(?:(?:the|a|an|this|that)\s+)?(?:[a-z][\w.+-]*\s+){1,2}$",
    re.I,
)
"""`issues mentioning pyarrow 15`, `bugs about python 3`, `problems with fsspec 2024`, `is anyone working on the
pyarrow 19 incompatibility`: a number inside the topic is a version, not an issue."""
_YEAR_BEFORE = frozenset({"in", "during", "of", "vs", "versus"}) | {
    name.lower() for name in (*calendar.month_name, *calendar.month_abbr) if name
}
"""Words after which a number from 1900 to 2099 is a year: `in 2025`, `since january 2025`, `Mar 2024`, `2022 vs
2023`."""
_YEAR_AGAINST_RE = lazy(r"\s*(?:vs\.?|versus|compared?\s+(?:to|with)|against)\s*(?:19|20)\d\d\b", re.I)
_NOT_A_COUNT = frozenset(
    {"details", "thanks", "please", "does", "was", "has", "is", "says", "seems", "looks", "status"}
)
"""Words ending in s that may follow an issue number: "isssue 19 details", "41 thanks"."""


def bare_issue_ids(text: str) -> list[int]:
    """Numbers typed without `#` that are issue ids: not counts, versions, durations or times."""
    ids: list[int] = []
    times = _time_ranges(text)
    for match in _BARE_NUMBER_RE.finditer(text):
        if _within(match.start(), times):
            continue  # `between 2022 and 2023`: the ends of a time
        before = re.findall(r"[a-z]+", text[max(0, match.start() - 40) : match.start()].lower())[-1:]
        likened = _LIKENED_TO_RE.search(text[max(0, match.start() - 40) : match.start()]) or (
            _TOLD_ABOUT_RE.search(text[max(0, match.start() - 40) : match.start()])
            and _CLAUSE_END_RE.match(text[match.end() :])
            and not re.fullmatch(r"(?:19|20)\d\d", match.group(1))  # `anything about 2024?`: a year, as before
        )
        after_text = text[match.end() :]
        counted = _UNIT_AFTER_RE.match(after_text) or _KIND_OF_ISSUES_AFTER_RE.match(after_text)
        topic = _IN_TOPIC_RE.search(text[max(0, match.start() - 60) : match.start()])
        if not likened and ((before and before[0] in _NOT_AN_ID_BEFORE) or counted or topic):
            continue
        after = re.match(r"\s+([a-z]{4,})\b", text[match.end() :], re.IGNORECASE)
        if after and after.group(1).lower().endswith("s") and after.group(1).lower() not in _NOT_A_COUNT:
            continue  # "3 schedulers", "12 replicas": a count of things
        year_like = re.fullmatch(r"(?:19|20)\d\d", match.group(1))
        if year_like and ((before and before[0] in _YEAR_BEFORE) or _YEAR_AGAINST_RE.match(after_text)):
            continue  # "in 2025", "since january 2025", "2023 vs 2024": a year
        if (number := int(match.group(1))) > 0 and number not in ids:
            ids.append(number)
    return ids
