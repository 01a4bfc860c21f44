"""Days named in words, for the offline planner's search filters: `since last Monday`, `this month`.

A time said in a request becomes a span of days, `[since, before)`, counted from today (the
machine's date): a calendar unit (`this week` from Monday, `last month` the whole previous month),
a count back from today (`the past 10 days`, `older than 2 weeks`), a weekday (`since Monday`, the
latest one before today), a month (`in March`, the latest March not in the future), a year or an
ISO day. Whether the span is about when issues were opened or when they last moved is said by the
words around it (`updated`, `no activity`, `stale` → last activity; otherwise the opening).

A time said with no number (`recently`, `lately`, `in the last while`) is the last `RECENT_DAYS` days, and
only where it says when issues were opened or active (`bugs opened recently`, `anything on streaming
lately?`), never of something else (`I recently upgraded`); the span is marked `vague`, for the answer to say
which days it took.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from atlas.offline.reading.lazy import lazy

_UNITS = {"day": 1, "week": 7, "month": 30, "quarter": 91, "year": 365}
_COUNTS = {"a": 1, "an": 1, "one": 1, "couple of": 2, "few": 3, "two": 2, "three": 3, "four": 4, "six": 6}
_WEEKDAYS = {name.lower(): n for n, name in enumerate(calendar.day_name)}
_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): n for n, name in enumerate(calendar.month_abbr) if name}
_COUNT = r"(?P<n{0}>\d{{1,3}}|a|an|one|two|three|four|six|few|couple\s+of)"
_UNIT = r"(?P<unit{0}>days?|weeks?|months?|quarters?|years?)"
_WEEKDAY = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
ANY_MONTH = _MONTH.replace("?P<month>", "?:")
"""A month's name, as `_MONTH` reads it, with no group of its own."""
_ORDINAL = r"(?:st|nd|rd|th)?"
_DAY = r"(?P<day_{0}>[0-3]?\d)" + _ORDINAL
"""A day of the month beside its month's name: `feb 1`, `1st of march`, `march 12th, 2024`."""
_ISO = r"(?P<iso>(?:19|20)\d\d(?:-[01]\d(?:-[0-3]\d)?)?)"
_SPAN_RE = lazy(
    r"\b(?P<lead>since|from|after|before|until|till|in|on|during|over|within|for|older\s+than|more\s+than)?\s*"
    r"(?P<the>the\s+)?(?:"
    rf"(?P<rel>last|past|previous|this|current)\s+(?:{_COUNT.format(1)}\s+)?{_UNIT.format(1)}"
    rf"|{_COUNT.format(2)}\s+{_UNIT.format(2)}\s+(?P<ago>ago)"
    rf"|(?P<counted>{_COUNT.format(3)}\s+{_UNIT.format(3)})"
    rf"|(?:(?P<which>last|this|past)\s+)?{_WEEKDAY}"
    r"|(?P<day>yesterday|today)"
    rf"|(?:(?P<month_which>last|this)\s+)?{_MONTH}"
    rf"(?:\s+{_DAY.format('then')}(?![\d:]|\.\d))?(?:,?\s+(?P<month_year>(?:19|20)\d\d))?"
    rf"|{_DAY.format('first')}\s+(?:of\s+)?{_MONTH.replace('<month>', '<month_then>')}"
    r"(?:,?\s+(?P<year_then>(?:19|20)\d\d))?"
    rf"|(?:year\s+)?{_ISO}"
    r")(?![\w-])",
    re.I,
)
_ACTIVITY_RE = lazy(
    r"\b(?:updated|update|changed|active|activity|touched|moved|commented|comments?|stale|quiet|silent|idle|dormant|"
    r"untouched|inactive|no\s+(?:reply|response|answer)|nothing\s+(?:has\s+)?(?:happened|moved|changed))\b",
    re.I,
)
ACTIVITY_PHRASE_RE = lazy(
    r"\b(?:(?:with|having|and|that\s+(?:have|had|got))\s+)?(?:(?:no|not\s+been|not|without|zero)\s+(?:any\s+)?)?"
    r"(?:updated|update|updates|changed|activity|touched|commented|comments?|repl(?:y|ies)|response|answer"
    r"|stale|idle|dormant|inactive|quiet|silent|untouched)\b|(?:[-:,]\s*)?\bnothing\s+(?:has\s+)?(?:happened|moved|changed)\b",
    re.I,
)
"""The words of an activity filter, taken out of the search words once the filter says them (`stale issues - nothing
happened since 2022`)."""
_NOT_SINCE_RE = lazy(
    r"\b(?:no|not|never|nothing|without|untouched|stale|idle|dormant|inactive|quiet|silent)\b|n't\b", re.I
)


RECENT_DAYS = 30
"""The days `recently`, `lately` or `in the last while` stand for."""
_VAGUE = (
    r"(?P<vague{0}>recently|lately|of\s+late|(?:in|over|during|within)\s+(?:the\s+)?(?:last|past)\s+(?:little\s+)?while"
    r"|in\s+recent\s+(?:days|weeks|times))"
)
_EVENT = r"(?:opened|filed|reported|created|raised|submitted|posted|logged|came\s+in|updated|active|touched|commented)"
_VAGUE_RE = lazy(
    rf"\b{_EVENT}\s+(?:(?:here|in|on|to|the|tracker|repo|this|project|again)\s+){{0,3}}{_VAGUE.format(1)}\b"
    rf"|\b(?P<before>recently|newly)\s+(?:been\s+)?{_EVENT}\b"
    rf"|\b{_VAGUE.format(2)}\s*[?.!]*\s*$",
    re.I,
)
"""`bugs opened recently`, `recently filed issues`, `any crashes lately?`: a time with no number said of the issues
sought, by its verb, or at the end of a sentence about them (`_SOUGHT_RE`)."""
_SOUGHT_RE = lazy(
    r"\b(?:issues|bugs|tickets|reports|requests|anything|something|any\s+[\w-]+|about|regarding|mentioning)\b", re.I
)
"""`any crashes lately?`, `anything about streaming lately?`: what says a sentence ending in `lately` seeks issues."""


@dataclass(frozen=True)
class Span:
    """Days from `since` (included) to `before` (excluded), about openings or about the last activity."""

    since: date | None
    before: date | None
    activity: bool
    start: int
    end: int
    said: str
    vague: bool = False
    """Said with no number (`recently`): the last `RECENT_DAYS` days, which the answer says it took."""


def today() -> date:
    """The day relative dates count from (a function, so a test can fix it)."""
    return date.today()


_ORDINAL_DAY = r"[0-3]?\d" + _ORDINAL
_POINT = (
    rf"(?:(?:{_ORDINAL_DAY}\s+(?:of\s+)?)?[a-z]{{3,9}}\.?(?:\s+{_ORDINAL_DAY}(?![\d:]|\.\d))?(?:,?\s+(?:19|20)\d\d)?"
    r"|(?:19|20)\d\d(?:-[01]\d(?:-[0-3]\d)?)?)"
)
RANGE_RE = lazy(
    rf"\b(?:between|from)\s+(?P<first>{_POINT})\s+(?:and|to|until|till|through|-)\s+(?P<last>{_POINT})(?![\w-])", re.I
)
"""`between march and may 2024`, `from 2023-06 to 2024-01`: from the first day of one to the last of the other."""


_DAY_NUMBER_RE = lazy(rf"(?<![\w.]){_ORDINAL_DAY}(?![\w:]|\.\d)", re.I)
_MONTH_BEFORE_RE = lazy(
    rf"(?:\b(?:since|on|from|after|before|until|till|by)\s+may|\b(?!may\b){ANY_MONTH})\s+$",
    re.I,
)
_MONTH_AFTER_RE = lazy(rf"\s+(?:of\s+)?{ANY_MONTH}(?!\w)", re.I)


def month_days(text: str) -> list[tuple[int, int]]:
    """Where a day is named by its month (`feb 1`, `1st of march`): its number is that day, not an issue (`may 3 be
    closed?` is one). The numbers are found first, as prose holds few of them."""
    return [
        number.span()
        for number in _DAY_NUMBER_RE.finditer(text)
        if _MONTH_BEFORE_RE.search(text, max(0, number.start() - 16), number.start())
        or _MONTH_AFTER_RE.match(text, number.end())
    ]


YEAR_AFTER_ISSUES_RE = lazy(
    r"(?:(?<=\bissues)|(?<=\bbugs)|(?<=\btickets)|(?<=\breports))\s+(?P<year>(?:19|20)\d\d)"
    r"(?=\s*(?:[?.!,;]|$|\b(?:and|or|open|closed|only|pls|please)\b))",
    re.I,
)
"""`issues 2023`, `mariosasko bugs 2023`: a year said right after the issues, with no word that makes it a time; read
as `in 2023` where no issue of that number is meant."""


_TIME_ALONE_RE = lazy(rf"^\s*(?=(?:{ANY_MONTH}|(?:19|20)\d\d)(?![\w-]))", re.I)


def time_alone(text: str) -> str:
    """`2023`, `march 2024` said alone (`what about 2023?`): the time, as `in 2023` says it."""
    return _TIME_ALONE_RE.sub("in ", text, count=1)


_WEEK_OF_MONTH_RE = lazy(
    r"\b(?:(?P<lead>in|during|over|on|from)\s+)?(?:the\s+)?(?P<which>first|1st|second|2nd|third|3rd|fourth|4th|last|final)"
    rf"\s+week\s+(?:of|in)\s+(?P<month>{ANY_MONTH})(?:,?\s+(?P<year>(?:19|20)\d\d))?(?![\w-])",
    re.I,
)
"""`the last week of january 2025`, `first week of march`: seven days of a named month."""
_WEEK_NUMBER = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3}


def _week_of_month_in(text: str, now: date) -> Span | None:
    """Days 1–7 of the month for its first week, 8–14 for the second …, its last seven days for the last; a month
    with no year is the latest one not in the future, as `in March` is."""
    match = _WEEK_OF_MONTH_RE.search(text)
    if match is None:
        return None
    number = _MONTHS[match.group("month").lower().rstrip(".")]
    year = int(match.group("year") or (now.year if number <= now.month else now.year - 1))
    end = _next_month(date(year, number, 1))
    which = match.group("which").lower()
    since = end - timedelta(days=7) if which in {"last", "final"} else date(year, number, 1 + 7 * _WEEK_NUMBER[which])
    activity = bool(_ACTIVITY_RE.search(text))
    return Span(
        since, since + timedelta(days=7), activity, match.start(), match.end(), " ".join(match.group(0).split())
    )


_PART_OF_RE = lazy(
    r"\b(?:(?:in|during|over|on|from)\s+)?(?:the\s+)?(?P<end>first|last|final)\s+"
    rf"(?:{_COUNT.format('part')}\s+)?(?P<unit>days?|weeks?|months?)\s+(?:of|in)\s+"
    rf"(?:(?P<month>{ANY_MONTH})(?:,?\s+(?P<month_year>(?:19|20)\d\d))?|(?P<year>(?:19|20)\d\d))(?![\w-])",
    re.I,
)
"""`the last 90 days of 2024`, `the first 2 weeks of march`, `last 3 months of 2023`: that many from one end of a
year or a month."""


def _part_of_in(text: str, now: date) -> Span | None:
    """The days a count of units takes from the start or the end of the year or month said; a month with no year
    is the latest one not in the future, as `in March` is."""
    match = _PART_OF_RE.search(text)
    if match is None:
        return None
    if match.group("year"):
        start = date(int(match.group("year")), 1, 1)
        end = date(start.year + 1, 1, 1)
    else:
        number = _MONTHS[match.group("month").lower().rstrip(".")]
        year = int(match.group("month_year") or (now.year if number <= now.month else now.year - 1))
        start = date(year, number, 1)
        end = _next_month(start)
    said = " ".join((match.group("npart") or "").lower().split())
    count = max(int(said) if said.isdigit() else _COUNTS.get(said, 1), 1)
    unit = match.group("unit").lower().rstrip("s")
    if match.group("end").lower() == "first":
        since, before = start, min(_later(start, count, unit), end)
    else:
        since, before = max(_later(end, -count, unit), start), end
    activity = bool(_ACTIVITY_RE.search(text))
    return Span(since, before, activity, match.start(), match.end(), " ".join(match.group(0).split()))


def _later(day: date, count: int, unit: str) -> date:
    """`count` days, weeks or calendar months after `day` (before it, when negative)."""
    if unit != "month":
        return day + timedelta(days=count * _UNITS[unit])
    months = day.year * 12 + day.month - 1 + count
    return date(months // 12, months % 12 + 1, 1)


def _range_in(text: str, now: date) -> Span | None:
    for match in RANGE_RE.finditer(text):
        last = _point(match.group("last"), now)
        first_year = re.search(r"(?:19|20)\d\d", match.group("first"))
        first = _point(match.group("first"), now, None if first_year or last is None else last[0])
        if first is None or last is None or first[0] >= last[1]:
            continue
        activity = bool(_ACTIVITY_RE.search(text))
        return Span(first[0], last[1], activity, match.start(), match.end(), " ".join(match.group(0).split()))
    return None


def _point(said: str, now: date, same_year_as: date | None = None) -> tuple[date, date] | None:
    """The days one end of a range names; a month without its year takes the other end's (`march` in
    `between march and may 2024`), a year earlier when it comes later in the year than that end."""
    match = _SPAN_RE.fullmatch(f"in {said}")
    days = _days(match, now) if match and (_month(match) or match.group("iso")) else None
    if days is None or days[0] is None or days[1] is None:
        return None
    if same_year_as is not None and match is not None and _month(match):
        year = same_year_as.year - (1 if days[0].month > same_year_as.month else 0)
        if days[1] - days[0] == timedelta(days=1):  # `between jan 15 and feb 1 2025`: a day
            return _month_day(days[0].month, days[0].day, str(year), now)
        start = date(year, days[0].month, 1)
        return start, _next_month(start)
    return days[0], days[1]


_ONWARDS_RE = lazy(r"\s*(?:(?:or|and)\s+(?:later|after(?:wards)?|newer|since)|onwards?|on(?=\s*[?.!,;]|\s*$))\b", re.I)
"""`2024 or later`, `from March onwards`: the time and all after it."""
_STATE_BEFORE_RE = lazy(r"\b(?:open|closed|unresolved|resolved|fixed)\s*$", re.I)
"""`still open today`: a state as it stands now, no day."""


def span_in(text: str, now: date | None = None) -> Span | None:
    """The first time the words name, as a span of days; None when they name none."""
    now = now or today()
    if found := _range_in(text, now) or _week_of_month_in(text, now) or _part_of_in(text, now):
        return found
    for match in _SPAN_RE.finditer(text):
        lead = (match.group("lead") or "").lower()
        named = _month(match) or match.group("iso") or (match.group("weekday") and not match.group("which"))
        if named and not lead and not match.group("month_which"):
            continue  # `May` the verb, `2026` a number: a month, a year or a weekday is a time after `in`, `since` …
        if match.group("day") and not lead and _STATE_BEFORE_RE.search(text, 0, match.start()):
            continue  # `still open today`: the state as it stands, not the day the issues came
        days = _days(match, now)
        if days is None:
            continue
        since, before = days
        # `updated in the last 3 weeks` vs `no activity in the last 3 weeks`: the second means before it
        activity = bool(_ACTIVITY_RE.search(text))
        negated = activity and bool(_NOT_SINCE_RE.search(text[: match.start()]))
        # `older than 2 weeks`, `open for 3 weeks`, `no reply in 10 days`: everything before that day
        for_long = lead == "for" and bool(match.group("counted"))
        if lead in {"before", "until", "till"} or lead.startswith(("older", "more")) or negated or for_long:
            since, before = None, since or before
        elif lead in {"since", "after"}:
            since = before if lead == "after" and before else since  # after March: from April on
            before = None if match.group("day") != "today" or lead == "after" else before
        elif match.group("counted") and lead not in {"in", "within", "for", "over", "during"}:
            continue  # `3 weeks` alone is a length, not a time: `took 3 weeks`
        end = match.end()
        if since and (onwards := _ONWARDS_RE.match(text, end)):  # `in 2024 or later`: from then on
            before, end = None, onwards.end()
        return Span(since, before, activity, match.start(), end, " ".join(text[match.start() : end].split()))
    return _vague_span(text, now)


def _vague_span(text: str, now: date) -> Span | None:
    """`opened recently`, `lately`: the last `RECENT_DAYS` days, where the words say it of the issues."""
    match = _VAGUE_RE.search(text)
    if match is None:
        return None
    group = next(name for name in ("vague1", "before", "vague2") if match.group(name))
    start, end = match.span(group)
    if group == "vague2" and not _SOUGHT_RE.search(re.split(r"[.?!]", text[:start])[-1]):
        return None  # `has anyone hit this lately?`: said of something else
    activity = bool(_ACTIVITY_RE.search(text))
    return Span(now - timedelta(days=RECENT_DAYS), None, activity, start, end, match.group(group), vague=True)


def _days(match: re.Match[str], now: date) -> tuple[date | None, date | None] | None:
    """The span a match names, `[since, before)`; `before` None when it runs to today."""
    if match.group("rel") or match.group("ago") or match.group("counted"):
        return _relative(match, now)
    if weekday := match.group("weekday"):
        back = (now.weekday() - _WEEKDAYS[weekday.lower()]) % 7 or 7
        if (match.group("which") or "").lower() == "this" and back == 7:
            back = 0
        day = now - timedelta(days=back)
        return day, day + timedelta(days=1)
    if day_word := match.group("day"):
        day = now - timedelta(days=1 if day_word.lower() == "yesterday" else 0)
        return day, day + timedelta(days=1)
    if month := _month(match):
        number = _MONTHS[month.lower()]
        if day_said := match.group("day_first") or match.group("day_then"):
            return _month_day(number, int(day_said), match.group("month_year") or match.group("year_then"), now)
        past = (match.group("month_which") or "").lower() == "last"  # `last december` in December: a year ago
        year = int(match.group("month_year") or (now.year if number < now.month + (0 if past else 1) else now.year - 1))
        return date(year, number, 1), _next_month(date(year, number, 1))
    return _iso(match.group("iso"))


def _month(match: re.Match[str]) -> str | None:
    """The month a match names, before its day (`march 3`) or after it (`3rd of march`)."""
    return match.group("month") or match.group("month_then")


def _month_day(month: int, day: int, year_said: str | None, now: date) -> tuple[date, date] | None:
    """One day named by its month and its number; with no year, the latest such day not after today."""
    try:
        found = date(int(year_said) if year_said else now.year, month, day)
        if not year_said and found > now:
            found = date(now.year - 1, month, day)
    except ValueError:
        return None  # `feb 30`: no such day
    return found, found + timedelta(days=1)


def _relative(match: re.Match[str], now: date) -> tuple[date | None, date | None]:
    which = next(n for n in "123" if match.group(f"unit{n}"))
    unit = match.group(f"unit{which}").lower().rstrip("s")
    said = " ".join((match.group(f"n{which}") or "").lower().split())
    count = int(said) if said.isdigit() else _COUNTS.get(said, 0)
    rel = (match.group("rel") or "").lower()
    if match.group("ago"):
        return now - timedelta(days=count * _UNITS[unit]), None
    # `in the last week`, `from the last month`: counted back from today; `from last month`: the calendar month
    rolling = (match.group("lead") or "").lower() in {"in", "within", "over", "during"} or (
        bool(match.group("the")) and rel == "last"
    )
    if rel in {"this", "current"} or (rel in {"last", "previous"} and not count and not rolling):
        start = _unit_start(unit, now)
        if rel in {"this", "current"}:
            return start, None
        previous = _unit_start(unit, start - timedelta(days=1))
        return previous, start
    return now - timedelta(days=max(count, 1) * _UNITS[unit]), None


def _unit_start(unit: str, day: date) -> date:
    """The first day of the calendar week (Monday), month, quarter or year that holds `day`."""
    if unit == "day":
        return day
    if unit == "week":
        return day - timedelta(days=day.weekday())
    if unit == "month":
        return day.replace(day=1)
    if unit == "quarter":
        return date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    return date(day.year, 1, 1)


def _next_month(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def _iso(text: str) -> tuple[date, date] | None:
    parts = [int(part) for part in text.split("-")]
    try:
        if len(parts) == 1:
            return date(parts[0], 1, 1), date(parts[0] + 1, 1, 1)
        if len(parts) == 2:
            return date(parts[0], parts[1], 1), _next_month(date(parts[0], parts[1], 1))
        day = date(parts[0], parts[1], parts[2])
    except ValueError:
        return None  # `2026-13`: not a day
    return day, day + timedelta(days=1)
