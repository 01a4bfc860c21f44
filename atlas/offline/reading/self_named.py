"""The person asking, when a request is about their own issues: `I'm lhoestq, show my open issues`.

The data knows people by the issues they opened, not who is typing. A person who says who they are (`I'm
lhoestq`, `this is severo`) in the message or earlier in the chat is that author from then on: `my issues`,
`issues I opened`, `what did I file` name them. Asked with no login said, the answer says so rather than
searching for the word `my`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from atlas.offline.reading.authors_and_days import LOGIN
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.people import ProjectPeople

_INTRO = rf"\b(?:i'?m|i\s+am|this\s+is|it'?s|me\s*=)\s+@?(?P<login>{LOGIN})(?![\w-]|\.\w)(?:\s+here)?"
_INTRO_RE = lazy(_INTRO, re.I)
INTRODUCTION_RE = lazy(rf"^\W*(?:(?:hi|hello|hey|ok|so)\b\W*)?{_INTRO}\W*$", re.I)
"""A request that only says who is asking: `I'm lhoestq.`, `hi, this is severo`."""
_ISSUES = r"(?:issues?|bugs?|tickets?|reports?|requests?|prs?|ones|stuff)"
_MINE_RE = lazy(
    rf"\bmy\s+(?:(?:own|open|closed|new|old|latest|recent|oldest|newest|feature|bug)\s+){{0,2}}{_ISSUES}\b"
    r"|\b(?:i|i'?ve|i\s+have|i\s+had)\s+(?:ever\s+|already\s+)?(?:opened|filed|reported|created|raised|submitted)\b"
    r"|\b(?:did|have|do)\s+i\s+(?:ever\s+)?(?:open|file|report|create|raise|submit)(?:ed|d)?\b"
    r"|\b(?:by|from)\s+me\b",
    re.I,
)
"""Words asking for the issues the person asking opened."""
_MY_RE = lazy(r"\bmy\b", re.I)
_OPENED = r"(?:opened|filed|reported|created|raised|submitted)\b"
_I_RE = lazy(rf"\b(?:i'?ve|i\s+have|i\s+had|i)\s+(?=(?:ever\s+|already\s+)?{_OPENED})", re.I)
_DID_I_RE = lazy(r"\b(did|have|do)\s+i\s+(?=(?:ever\s+)?(?:open|file|report|create|raise|submit)(?:ed|d)?\b)", re.I)
_BY_ME_RE = lazy(r"\b(by|from)\s+me\b", re.I)
UNKNOWN_SELF = (
    "I do not know who you are on this project: say `I'm <login>` first (the login that opened your issues), "
    "or ask for `issues by <login>`."
)


def introduced(login: str) -> str:
    """What the answer says to a person who said who they are."""
    return f"Noted: you are {login}. `my issues` now means the issues {login} opened."


def self_login(messages: Iterable[str], people: ProjectPeople) -> str | None:
    """The login the person said is theirs, the latest said; only one of the project's authors."""
    found: str | None = None
    for message in messages:
        for intro in _INTRO_RE.finditer(message):
            found = people.login(intro.group("login")) or found
    return found


def without_introduction(text: str) -> str:
    """The request without the words that say who is asking (`this is severo here: my newest issues`)."""
    return _INTRO_RE.sub(" ", text).strip(" ,:;.-")


def asks_for_own(text: str) -> bool:
    """Whether the words ask for the issues the person asking opened."""
    return bool(_MINE_RE.search(text))


def mine_named(text: str, login: str | None) -> str:
    """`my open issues`, `issues I filed`, `what did I file` with the login said for `my`, `I` and `me`."""
    if login is None or not asks_for_own(text):
        return text
    text = _MY_RE.sub(f"{login}'s", text)
    text = _I_RE.sub(f"{login} ", text)
    text = _DID_I_RE.sub(rf"\1 {login} ", text)
    return _BY_ME_RE.sub(rf"\1 {login}", text)
