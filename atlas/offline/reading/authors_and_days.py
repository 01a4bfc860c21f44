"""Who opened the issues sought and when, read out of a search request's words as filters.

An author (`by svetlana-k`, `from @lhoestq`, `has tomk filed`, or a bare name after `from` that is one of
the project's authors) and a span of days (`since last Monday`, `opened this month`, `no activity in 30
days`: `dates.py`); a sort asked for is said in a note, for the search ranks by match.
"""

from __future__ import annotations

import re

from atlas.offline.reading.dates import ACTIVITY_PHRASE_RE, RECENT_DAYS, YEAR_AFTER_ISSUES_RE, span_in
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.people import ProjectPeople

_NOT_A_LOGIN = (
    r"(?!(?:date|age|id|number|priority|severity|state|status|label|component|me|us|you|them|the|a|an"
    r"|any(?:one|body|thing)?|some(?:one|body|thing)?|every(?:one|body|thing)|all|no|nobody|nothing|no\s+one|we|i|they|he|she"
    r"|it|this|that|people"
    r"|(?:first-time|new|external|outside|other|regular|core)(?=\s+(?:reporters?|contributors?|users?|people|folks|authors?)))\b)"
)
"""Words that are never a login: a sort key, an article, a pronoun (`has anyone reported this?`, `did anything get
reported …` name no author), a kind of person (`by first-time reporters`)."""
_AUTHOR_RE = lazy(
    r"(?:\b(?:opened|filed|reported|created|written|raised|submitted|posted|authored)\s+|(?<=issues\s)|(?<=bugs\s)"
    rf"|(?<=tickets\s)|(?<=requests\s)|(?<=ones\s)|(?<=anything\s)|(?<=everything\s))by\s+{_NOT_A_LOGIN}"
    r"@?(?P<who>[A-Za-z0-9][\w.-]*[A-Za-z0-9]|[A-Za-z0-9])"
    r"|\b(?:from|by)\s+@(?P<at>[A-Za-z0-9][\w.-]*[A-Za-z0-9])"
    rf"|\b(?:has|have|did|does)\s+{_NOT_A_LOGIN}@?(?P<subject>[A-Za-z0-9][\w.-]*[A-Za-z0-9])"
    r"(?P<others>(?:\s*(?:,|\band\b|\bor\b|&)\s*@?[A-Za-z0-9][\w.-]*[A-Za-z0-9])*)\s+(?:(?!(?:have|has|got)\b)\w+\s+)?"
    r"(?:file|filed|open|opened|report|reported|create|created|raise|raised|submit|submitted|write|wrote|written)\b",
    re.IGNORECASE,
)
_SORT_RE = lazy(
    r"\b(?:(?:sort|sorted|order|ordered|group|grouped)\s+)?by\s+(?P<key>date|age|id|number|priority|severity|state"
    r"|status|label|component)\b",
    re.IGNORECASE,
)
_CLOSED_WHEN_RE = lazy(r"\b(?:closed|fixed|resolved|solved|shipped)\s*$", re.I)
"""`bugs closed last month`: days said of the closing, which the data does not keep (it keeps the opening)."""
LOGIN = r"[A-Za-z0-9][\w.-]*[A-Za-z0-9]"
"""What a login looks like: letters, digits, `.`, `_` and `-`, starting and ending with a letter or a digit."""
_NAMED_RE = lazy(
    rf"\b(?:from|by)\s+{_NOT_A_LOGIN}@?(?P<source>{LOGIN})(?![\w.-])"
    rf"|(?<![\w@.-]){_NOT_A_LOGIN}(?P<owner>{LOGIN})'s\b"
    rf"|\b(?:does|did|has|have)\s+{_NOT_A_LOGIN}(?P<holder>{LOGIN})\s+(?:have|got)\b"
    rf"|(?<![\w@.-]){_NOT_A_LOGIN}(?P<agent>{LOGIN})\s+(?:has\s+|have\s+|had\s+)?"
    r"(?:(?:ever|just|recently|first|last|originally|already)\s+)?(?:opened|filed|reported|created|raised|submitted|wrote)\b"
    rf"|\bwho\s+is\s+@?(?P<person>{LOGIN})(?![\w.-])"
    rf"|(?:(?<=\bissues\s)|(?<=\bbugs\s)|(?<=\btickets\s)|(?<=\breports\s))(?:of\s+)?{_NOT_A_LOGIN}@?(?P<member>{LOGIN})(?![\w.-])"
    rf"|\bwhat\s+(?:has|is|was)\s+{_NOT_A_LOGIN}@?(?P<worker>{LOGIN})\s+(?:been\s+)?(?:working\s+on|doing|up\s+to)\b"
    rf"|(?<![\w@.-]){_NOT_A_LOGIN}(?P<possessor>{LOGIN})(?=\s+(?:(?:open|closed|new|old|recent|latest|own)\s+)?"
    r"(?:issues|bugs|tickets|reports)\b)",
    re.I,
)
"""Where a name said with no `@` stands for a person: `open stuff from lhoestq`, `severo's open issues`, `issues of
lhoestq`, `issues lhoestq 2023`, `how many does lhoestq have`, `issues lhoestq (ever) opened`, `who is lhoestq?`,
`what has mariosasko been working on?`, `lhoestq issues from 2022` (the data knows people by the issues they opened);
an author only when the project knows one of that login, and, said before the issues with nothing to mark it as a
name, when few titles hold it as a word."""


_OPENED_THEN_RE = lazy(r"\b(?:opened|filed|reported|created|raised|submitted|posted)\s*$", re.I)
"""The verb a time of opening was said after: no word to search for once the time is a filter."""


def people_and_days(text: str, notes: list[str], people: ProjectPeople | None = None) -> tuple[str, dict[str, str]]:
    """The author and the span of days the words name, as filters, taken out of the words; a sort is said in
    `notes` (the search ranks by match, or lists the newest); `people`: the project's authors, for a name
    said with no `@` (`from lhoestq`, `severo's issues`)."""
    filters: dict[str, str] = {}
    if match := _AUTHOR_RE.search(text):
        filters["author"] = match.group("who") or match.group("at") or match.group("subject")
    elif found := _known_author(text, people):
        filters["author"], match = found
    if match:
        more, end = _more_authors(text, match.end(), people)
        more = _named_with(match, people) + more
        if more:
            filters["more_authors"] = " ".join(more)
        text = text[: match.start()] + " " + text[end:]
    text = YEAR_AFTER_ISSUES_RE.sub(r" in \g<year>", text)  # `issues by lhoestq 2023`, the author taken out
    if span := span_in(text):
        field = "updated" if span.activity else "created"
        if not span.activity and _CLOSED_WHEN_RE.search(text[: span.start]):
            notes.append(
                "The data keeps no closing dates: the days are when the issues were opened, and the state is today's."
            )
        if span.vague and span.since:
            what = "active" if span.activity else "opened"
            notes.append(
                f"“{span.said}” is read as the last {RECENT_DAYS} days: issues {what} since {span.since.isoformat()}; "
                "name a span (`the last 2 weeks`, `since March`) for another."
            )
        if span.since:
            filters[f"{field}_since"] = span.since.isoformat()
        if span.before:
            filters[f"{field}_before"] = span.before.isoformat()
        before = _OPENED_THEN_RE.sub(" ", text[: span.start]) if not span.activity else text[: span.start]
        text = before + " " + text[span.end :]  # `… mentioning fsspec opened in 2024`: the verb went with its time
        if span.activity:  # `with no activity`, `not updated`: said by the filter now
            text = ACTIVITY_PHRASE_RE.sub(" ", text)
    if match := _SORT_RE.search(text):
        notes.append(
            f"I cannot sort or group issues by {match.group('key').lower()}: a search lists the best matches first, "
            "or the newest when it has no words."
        )
        text = text[: match.start()] + " " + text[match.end() :]
    return text, filters


_AND_WHO_RE = lazy(
    rf"\s*(?:,\s*)?(?:\bor\b|\band\b|\bvs\.?|\bversus\b|&|,)\s*(?P<at>@)?(?P<who>{LOGIN})(?![\w.-])", re.I
)


def _more_authors(text: str, at: int, people: ProjectPeople | None) -> tuple[list[str], int]:
    """`by albertvillanova or lhoestq` (or `vs`): the other authors named right after the first, each one the project
    knows (or said with `@`), and where the last of them ends."""
    more: list[str] = []
    while joined := _AND_WHO_RE.match(text, at):
        login = joined.group("who") if joined.group("at") else people.login(joined.group("who")) if people else None
        if login is None:
            break
        more.append(login)
        at = joined.end()
    return more, at


def _named_with(match: re.Match[str], people: ProjectPeople | None) -> list[str]:
    """`did lhoestq and mariosasko open`: the other subjects of the verb that the project knows as authors."""
    others = match.groupdict().get("others") or ""
    logins = [(said.startswith("@"), said.lstrip("@")) for said in re.findall(rf"@?{LOGIN}", others)]
    known = [
        name if at else people.login(name) if people else None
        for at, name in logins
        if name.lower() not in {"and", "or"}
    ]
    return [login for login in known if login]


def _known_author(text: str, people: ProjectPeople | None) -> tuple[str, re.Match[str]] | None:
    """The first name standing for a person that is one of the project's authors, with where it was said."""
    if people is None:
        return None
    for match in _NAMED_RE.finditer(text):
        name = next(value for value in match.groups() if value is not None)
        if login := people.person(name) if match.group("possessor") else people.login(name):
            return login, match
    return None


def names_people_or_days(text: str, people: ProjectPeople | None = None) -> bool:
    """Whether the words filter issues by who opened them or by a time they were opened or active."""
    named = _AUTHOR_RE.search(text) or _known_author(text, people)
    if named:
        return True
    span = span_in(text)  # a time said of the issues sought: `opened this week`, `bugs from this year`
    # `recently`, `lately` are read only where they are said of the issues (`any crashes lately?`)
    return span is not None and (span.vague or bool(_FILED_RE.search(text) or _ISSUES_RE.search(text, 0, span.start)))


_ISSUES_RE = lazy(r"\b(?:issues|bugs|tickets|reports|requests)\b", re.I)
_FILED_RE = lazy(
    r"\b(?:opened|filed|reported|created|raised|submitted|came\s+in|new|updated|changed|happened|report|file|raise"
    r"|submit)\b",
    re.I,
)


_PRONOUN_RE = lazy(
    r"\b(?:(?P<subject>he|she)|(?P<owner>his|her(?=\s+(?!(?:for|about|to|on|in|with|and|or|if|that|what|the|an?"
    r"|again|too|please|know)\b)[a-z]))|(?P<object>him|her))\b",
    re.I,
)


def people_meant(text: str, author: str | None) -> str:
    """`how many bugs does he have`, `his open issues` after a search by `author`: the person named by login, as
    the words before it did; the text as it is when no author was said before."""
    if author is None:
        return text

    def named(found: re.Match[str]) -> str:
        return f"{author}'s" if found.group("owner") else author

    return _PRONOUN_RE.sub(named, text)
