"""Reading the order a request wants its issues in: the oldest or newest opened, the most or least recently
active, the most commented. Each is a sort of `search_issues` (its `order`), never words to search for.
"""

from __future__ import annotations

import re

from atlas.offline.reading.lazy import lazy

_ACTIVE = r"(?:updated|active|touched|changed|moved|commented(?:\s+on)?)"
_ORDERS: tuple[tuple[str, str], ...] = (
    # Most specific first: "most recently active" before "most recent", "least recently" before "recently".
    (
        "least_recently_updated",
        rf"\bleast\s+recently\s+{_ACTIVE}|\blongest\s+(?:without|with\s+no)\s+(?:any\s+)?(?:activity|updates?|"
        rf"comments?|replies)|\b(?:(?:sitting|lying|left)\s+(?:around\s+)?)?(?:inactive|quiet|untouched|idle)\s+(?:the\s+)?longest"
        r"|\bstalest\b",
    ),
    ("recently_updated", rf"\b(?:most\s+)?recently\s+{_ACTIVE}|\blast\s+{_ACTIVE}|\bmost\s+active\b"),
    (
        "most_requested",
        r"\b(?:the\s+)?most\s+(?:requested|wanted|asked[\s-]for|demanded)(?:\s+(?:features?|"
        r"feature\s+requests|enhancements?|things|stuff|ones|additions))?\b"
        r"|\b(?:people|users|folks|everyone|the\s+community)\s+(?:are\s+|is\s+|keep\s+)?(?:ask|beg|clamou?r|want)(?:ing)?"
        r"\s+(?:for\s+)?(?:the\s+)?most\b",
    ),
    (
        "most_complained",
        r"\b(?:the\s+)?most\s+(?:complained[\s-]about|reported)(?:\s+(?:problems?|issues?|bugs?|things|stuff))?\b"
        r"|\b(?:people|users|folks|everyone|the\s+community)\s+(?:are\s+|is\s+|keep\s+)?(?:complain|report|moan|gripe)"
        r"(?:ing|s)?\s+(?:about\s+)?(?:the\s+)?most\b|\b(?:biggest|top|main|most\s+common)\s+(?:complaints?|pain\s+points?)\b",
    ),
    (
        "most_commented",
        r"\bmost\s+(?:commented(?:\s+on)?|discussed|debated|replied(?:\s+to)?|popular|upvoted)|\b(?:with\s+)?(?:the\s+)?most\s+"
        r"(?:comments|replies|discussion)\b",
    ),
    (
        "oldest",
        r"\b(?:oldest|earliest)(?:\s+(?:ones?\s+)?first)?\b|\b(?:very\s+)?first\s+ever\b|(?<=open\s)(?:the\s+)?"
        r"longest\b|\b(?:been\s+(?:open|around|sitting)|waiting)\s+(?:the\s+)?longest\b"
        # `… that have been sitting around forever`: the oldest, said as how long they have waited
        r"|(?:\b(?:that|which)\s+)?(?:\b(?:have|has)\s+)?\bbeen\s+(?:(?:sitting|lying|hanging)\s+around|open)"
        r"\s+(?:forever|for\s+(?:ages|years|ever|so\s+long|a\s+(?:long|very\s+long)\s+time))\b"
        # `lhoestq's first issue`, `the first bug reported`: one issue, the first of them; never `good first issue`
        r"|(?:^|(?<=\bthe\s)|(?<='s\s)|(?<=\bmy\s)|(?<=\b(?:his|her|our|its)\s)|(?<=\btheir\s))(?:very\s+)?first"
        r"(?=\s+(?:[\w:-]+\s+)?(?:issue|bug|ticket|report)\b(?!s))"
        r"|\b(?:(?:sorted|ordered|sort(?:\s+them)?|order(?:\s+them)?)\s+)?by\s+age\b",
    ),
    (
        "newest",
        r"\b(?:newest|latest)(?:\s+(?:ones?\s+)?first)?\b|\bmost\s+recent(?:ly\s+(?:opened|filed|reported|created))?"
        r"\b|\blast\s+(?:filed|opened|reported|created)\b"
        # `when was the last bug filed?`: the words between stay, they say which issues.
        r"|\bthe\s+last(?=\s+(?:[\w:-]+\s+){1,3}(?:filed|opened|reported|created|raised|submitted)\b)"
        # `give 5 last issues`: the newest, where `last` is no time (`last month's issues`, `last week issues`)
        r"|(?<=\d\s)last(?!\s+(?:week|month|year|day|quarter|time|release|version)s?\b)"
        r"(?=\s+(?:[\w:-]+\s+)?(?:issues|bugs|tickets|reports|requests)\b)",
    ),
)
_SORT_VERB_RE = lazy(
    r"\b(?:sort(?:ed)?|order(?:ed)?|re-?order(?:ed)?|rank(?:ed)?|arrange[ds]?)(?:\s+(?:them|those|these|it|the\s+"
    r"(?:list|results?|hits|issues|ones)))?(?:\s+(?:by|with))?(?:\s+the)?\s*$",
    re.IGNORECASE,
)
"""`sort them oldest first`, `order by newest`: the verb that asks for the order, no word to search for."""
INBOX_BY_DATE = ("newest", "oldest")
"""The orders `list_inbox` takes besides its own (the most severe first): by the date opened."""
_KIND_ASKED = {"most_requested": "feature requests", "most_complained": "bugs"}
"""The issues an order by what people ask for means: the kind, whose label the project's own words find."""
ORDER_RE = lazy("|".join(f"(?P<{name}>{pattern})" for name, pattern in _ORDERS), re.IGNORECASE)
"""Any order said in words; the group that matched names it."""


def order_in(text: str) -> tuple[str | None, str]:
    """The order the words ask for (a `search_issues` order), and the words without it."""
    found = ORDER_RE.search(text)
    if found is None or found.lastgroup is None:
        return None, text
    if found.lastgroup in _KIND_ASKED:  # what people ask for or complain about: those issues, the most discussed first
        return "most_commented", f"{text[: found.start()]} {_KIND_ASKED[found.lastgroup]} {text[found.end() :]}"
    rest = text[found.end() :]
    if (again := ORDER_RE.search(rest)) and again.lastgroup == found.lastgroup:  # `oldest …, sitting around forever`
        rest = rest[: again.start()] + " " + rest[again.end() :]
    return found.lastgroup, _SORT_VERB_RE.sub(" ", text[: found.start()]) + " " + rest
