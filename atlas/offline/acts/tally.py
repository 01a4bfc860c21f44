"""Asks how issues split up: `who reported the most bugs?`, `open issues per label`, `how many issues each year?`,
`open vs closed feature requests`, `enhancements vs bugs`, `what percent of issues are bugs?`: one `count_issues_by`
call, grouped as asked, filtered by the rest of the words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from typing import Any

from atlas.offline.acts.act import Act, Intent
from atlas.offline.acts.narrowing import ISSUE_NOUN_RE, within
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.dates import today
from atlas.offline.reading.labels import labels_in_words
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.search import Search, search_in
from atlas.offline.reading.vocabulary import Vocabulary

_OPENED = (
    r"(?:reported|filed|opened|created|raised|submitted|wrote|reports|files|opens|creates|raises|writes|posted"
    r"|reporting|filing|opening|creating|raising|submitting|writing|posting)"
)
_PEOPLE = r"(?:authors?|reporters?|users?|people|contributors?|posters?|submitters?|folks)"
_EACH = r"\b(?:per|by|for\s+each|each)\s+"
_NOT_AFTER = "".join(rf"(?<!\b{word}\s)" for word in ("in", "for", "within", "over", "than"))
_EACH_TIME = rf"\b(?:per|by(?:\s+the)?|each|every|{_NOT_AFTER}a)\s+"
"""`how many a month`, not `in a month` or `older than a year` (a time)."""
_MOST = r"(?:most|highest|biggest|largest|busiest|worst|peak|record|fewest|least|lowest|smallest|quietest)"
_FEWEST_RE = lazy(r"\b(?:fewest|least|lowest|smallest|quietest)\b", re.I)
"""`which label has the fewest open issues?`, `the quietest month`: the smallest groups first."""
_BUSIEST = (
    r"\b(?:which|what)\s+{unit}s?(?P<kind>\s+(?:of|in)\s+(?:19|20)\d\d)?\s+(?:had|has|saw|got|brought|was|were|did)\s+"
    r"(?:we\s+(?:get|see|have)\s+)?"
    r"(?:the\s+)?" + _MOST + r"\b|\b(?:busiest|worst|peak|biggest|record|quietest)\s+{unit}s?\b"
    r"|\b(?:in\s+)?(?:which|what)\s+{unit}\s+(?:were|was)\s+(?:the\s+)?" + _MOST + r"\b"
)
"""`which month had the most new issues`, `the busiest year for bugs`: the months or years, the busiest first."""
_SAID = {
    "author": rf"\bwho(?:'s|\s+has|\s+have)?\s+(?:\w+\s+)?{_OPENED}\s+(?:the\s+)?most\b(?:\s+(?:of\s+)?(?:the\s+)?)?"
    rf"|\b(?:how\s+many|(?:the\s+)?number\s+of|count\s+(?:of\s+)?(?:the\s+)?)\s*(?:distinct|different|unique|individual"
    rf"|separate)\s+{_PEOPLE}\b"
    rf"|\b(?:which|what)\s+{_PEOPLE}\s+(?:have\s+|has\s+)?{_OPENED}\s+(?:the\s+)?most\b"
    rf"|\b(?:which|what)\s+{_PEOPLE}\s+(?:have\s+|has\s+)?{_OPENED}\s+(?:more\s+than|over|at\s+least)\s+\d+\b"
    rf"|\b(?:top|most\s+active|biggest|busiest|leading)\s+(?:\d{{1,2}}\s+)?(?:(?P<kind>(?:issue|bug|ticket)s?)\s+)?{_PEOPLE}\b"
    r"(?:\s+by\s+(?:number|count)\s+of)?"
    rf"|\b(?:which|what)\s+{_PEOPLE}\s+(?:are|is)\s+(?:the\s+)?most\s+active\b|{_EACH}(?:author|reporter|user|person)\b"
    rf"|\brank(?:ing)?\s+(?:of\s+)?(?:the\s+)?{_PEOPLE}\b",
    "label": rf"{_EACH}label\b|\blabel\s+(?:breakdown|distribution|counts?|split)\b"
    r"|\b(?:breakdown|distribution|split|counts?|tally)\s+(?:of|by|per)\s+(?:the\s+)?labels?\b"
    r"|\b(?:which|what)\s+labels?\s+(?:have|has|carry|carries|get|gets|are\s+on)\s+(?:the\s+)?(?:most|fewest|least)\b"
    r"|\b(?<!with\s)(?<!with\sthe\s)(?<!have\s)(?<!have\sthe\s)(?<!has\s)(?<!has\sthe\s)(?:most|top)\s+"
    r"(?:\d{1,2}\s+)?(?:(?:common|used|frequent|popular)\s+)?labels?\b|\bmost[- ]used\s+labels?\b"
    r"|\blabels?\s+(?:is|are|gets?)\s+(?:used|applied|put\s+on)?\s*(?:the\s+)?most\b",
    "month": rf"{_EACH_TIME}month\b(?!\s+ago)|\bmonth\s+by\s+month\b|\bmonthly\b|{_BUSIEST.format(unit='month')}",
    "year": rf"{_EACH_TIME}year\b(?!\s+ago)|\byear\s+by\s+year\b|\byearly\b|\bannually\b|{_BUSIEST.format(unit='year')}"
    r"|\b(?P<first>(?:19|20)\d\d)\s+(?:vs|versus)\s+(?P<second>(?:19|20)\d\d)\b",
    # `open or closed`, `open and closed` ask for all of them, not for the split.
    "state": r"\bopen\s+(?:(?:right\s+)?now\s+|currently\s+|today\s+)?(?:vs\.?|versus|against)\s+closed\b"
    r"|(?:(?<=\bhave\s)|(?<=\bhas\s)|(?<=\bare\s))open\s+(?:and|&)\s+closed\b"  # `how many does X have open and closed`
    r"|\bclosed\s+(?:vs\.?|versus|against)\s+open\b"
    r"|\b(?:in\s+total|altogether|overall|in\s+all)\s*,?\s*(?:both\s+)?open\s+(?:and|&)\s+closed\b"  # `in total, …`
    r"|\bhow\s+many\b(?=[^,?]*?,?\s+and\s+(?:are|is|were)\s+(?:any|some|all|none)(?:\s+of\s+(?:them|those))?"
    r"\s+(?:still\s+)?(?:open|closed)\b)"  # `how many has X opened, and are any still open?`: both, by state
    r"|\b(?:split|ratio|breakdown)\s+(?:between|of)\s+open\s+(?:and|vs\.?|versus|to)\s+closed\b"
    r"|\bhow\s+many\s+(?P<kind>(?:(?!and\b)[\w:-]+\s+){0,3}?)(?:(?:are|is|were)\s+)?(?:still\s+)?(?:open|closed),?\s+(?:and|vs\.?)"
    r"\s+how\s+many\b(?=(?:\s+(?:are|were|is|have\s+been|got|remain|of\s+them|of\s+those|still))*"
    r"\s+(?:closed|open|resolved|fixed)\b|\s*[?.!]*$)"  # not `…, and how many speech ones?` (a count of its own)
    rf"|{_EACH}state\b",
}
"""How each grouping is said, in the order they are tried."""
_GROUPS = tuple((by, lazy(words, re.I)) for by, words in _SAID.items())
_OF_THEM_RE = lazy(r"\b(?:of|among(?:st)?|from)\s+(?:them|those|these)\b", re.I)
"""`who reported the most of them?`: the issues of the request before, counted."""
_VERSUS_RE = lazy(r"\b[\w-]+(?:\s+[\w-]+)?(?P<vs>\s+(?:vs|versus)\s+)[\w-]+(?:\s+[\w-]+)?", re.I)
_SHARE_RE = lazy(
    r"(?:\b(?:percent(?:age)?|share|proportion|fraction)|%)\s+of\s+(?:the\s+|our\s+|all\s+)?(?P<population>.+?)\s+"
    r"(?:are|is|were|have|has|had|got|get|gets|carry|carried)\s+(?P<predicate>.+)$",
    re.I,
)
"""`what percent of issues are bugs?`, `what share of bugs are still open?`: the issues said, split by what they
are; the answer gives each group's share of them."""
_AMONG_RE = lazy(
    r"\b(?:percent(?:age)?|share|proportion|fraction)\s+of\s+(?:the\s+)?(?P<predicate>.+?)\s+"
    r"(?P<join>among(?:st)?|within|in|of)\s+(?:the\s+|all\s+|our\s+)?(?P<population>.+?)\s*[?.!]*$",
    re.I,
)
"""`what's the share of bugs among open issues?`, `percentage of enhancements in 2024`: the same share, the issues said
last."""
_OUT_OF_RE = lazy(
    r"\bhow\s+many(?:\s+(?:issues|ones|tickets|of\s+them))?\s+(?:were|are|got|have\s+been|has\s+been)\s+"
    r"(?P<predicate>(?:still\s+)?\w+)\s+out\s+of\s+(?:all\s+)?(?:the\s+|our\s+)?(?P<population>(?!them\b).+?)\s*[?.!]*$",
    re.I,
)
"""`how many were closed out of all bugs?`: a state's share of the issues said."""
_OPENED_VS_CLOSED_RE = lazy(
    r"\b(?:(?:did|has|have|does)\s+(?!(?:we|you|they|i|people|users|folks|anyone|someone)\b)@?(?P<who>[\w.-]+)\s+)?"
    r"(?:opened|open|filed|file|reported|report)\s+"
    r"(?P<joined>vs\.?|versus|against|compared\s+(?:to|with)|and)\s+(?:closed|close|resolved|resolve|fixed|fix)\b",
    re.I,
)
"""`issues opened vs closed in 2024`, `how many did lhoestq open and close`: the split by state now; the data keeps
who opened an issue and when, not who closed it or when."""
_OPENED_BY_RE = lazy(r"\b(?:did|has|have|does)\s+(?P<who>@?[\w.-]+)\s*$", re.I)
"""The subject said before the state's word, when that word is the verb (`did albertvillanova open`)."""
_RATIO_RE = lazy(r"\b(?:the\s+)?ratio\s+(?:of|between)\s+(?P<a>.+?)\s+(?:to|and|vs\.?|versus)\s+(?P<b>.+)", re.I)
_MORE_OR_RE = lazy(
    r"\b(?:more|fewer|less)\s+(?P<a>[\w:-]+(?:\s+[\w:-]+)?)\s+(?:or|than)\s+(?P<b>[\w:-]+(?:\s+[\w:-]+)?)", re.I
)
_MORE_RE = lazy(r"\b(?:more|fewer|less)\b", re.I)
_YEARS_OR_RE = lazy(r"\b(?P<first>(?:19|20)\d\d)\s+or\s+(?:in\s+)?(?P<second>(?:19|20)\d\d)\b", re.I)
"""`… in 2023 or 2024`, beside `more`: two years set against each other."""
_YEARS_COMPARED_RE = lazy(
    r"\b(?P<first>(?:19|20)\d\d)\s+(?:compared?\s+(?:to|with)|against|with)\s+(?P<second>(?:19|20)\d\d)\b", re.I
)
_YEARS_SAID_RE = lazy(
    r"\b(?:this\s+year|(?:this|the\s+current)\s+one)\s+(?:vs\.?|versus|compared\s+(?:to|with)|against)\s+last\s+(?:year|one)\b"
    r"|\blast\s+year\s+(?:vs\.?|versus|compared\s+(?:to|with)|against)\s+this\s+(?:year|one)\b",
    re.I,
)
_LIMIT_RE = lazy(r"\b(?:top|first)\s+(\d{1,2})\b|\b(\d{1,2})\s+(?:most|top|biggest|busiest|leading)\b", re.I)
_FILLER_RE = lazy(
    r"\bhow\s+(?:are|is)\s+(?:we|things|it)\s+(?:doing|going|looking)(?:\s+(?:on|with|for))?"
    r"|\b(?:who(?:'s|\s+(?:is|are|was|were))?|how\s+many|number\s+of|count(?:s|ed)?|breakdown|broken\s+down"
    r"|split(?:\s+up)?|break\s+down|compar(?:e|ed|ing)|of(?!\s+(?:(?:19|20)\d\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)\b)"
    r"|among|across|in\s+all|total|overall|all\s+time|ever|were|was|are|is"
    r"|reporting|filing|opening|creating|raising|submitting|posting|"  # `top 5 people reporting bugs`
    r"there|the|show|me|give|list|get|by\s+(?:number|count)|rank(?:ed|ing)?|leaderboard|so\s+far)\b",
    re.I,
)


def tally_act(
    text: str, typed: str, vocabulary: Vocabulary, tools: frozenset[str], searched: Search | None = None
) -> Act | None:
    """The act when the words ask how issues split by author, label, state, year or month; None otherwise.
    `searched`: the search of the request before, whose issues are counted when these words point back at them (`who
    reported the most of them?`), or split by state, name no issues of their own (`how many in total, open and
    closed?`)."""
    if "count_issues_by" not in tools:
        return None
    text = _OUT_OF_RE.sub(r"share of \g<population> are \g<predicate>", text)  # `how many were closed out of all bugs`
    if not _SHARE_RE.search(text):
        text = _AMONG_RE.sub(_share_said_first, text)
    if share := _SHARE_RE.search(text):
        return _share_act(share, typed, vocabulary)
    notes: list[str] = []
    text = _sides_said(text, notes)
    found = next(((by, said) for by, pattern in _GROUPS if (said := pattern.search(text))), None)
    set_against: list[str] = []
    if found is None and (versus := _two_labels(text, vocabulary.labels)):
        text, found, set_against = versus[0], ("label", versus[1]), versus[2]
    if found is None:
        return None
    by, said = found
    # `top bug reporters`: the kind said before the people is a filter of the issues counted.
    kind = said.groupdict().get("kind") or ""
    kind = re.sub(r"^\s*of\s+(?=(?:19|20)\d\d)", " in ", kind)  # `which month of 2024 had the most`: in 2024
    if by == "state":  # `how many issues did albertvillanova open and how many …`: the one who opened them
        kind = _OPENED_BY_RE.sub(r"by \g<who> ", kind)
    before = text[: said.start()]
    if years := said.groupdict().get("first"):  # `in 2022 vs 2023`: a count each year, over those years
        before = re.sub(r"\b(?:in|during|from|of|for)\s*$", " ", before, flags=re.I)
        first, second = sorted((years, said.group("second")))  # `in 2024 vs 2023`: the span is the same
        kind += f" between {first} and {second}"
    rest = _FILLER_RE.sub(" ", before + f" {kind} " + text[said.end() :])
    if by == "state":  # `open vs closed bugs`: the states are the groups, not a filter
        rest = re.sub(r"\b(?:open|closed)\b", " ", rest, flags=re.I)
    search = search_in(rest, notes, vocabulary.labels, vocabulary.people)
    if searched is not None and (_OF_THEM_RE.search(text) or (by == "state" and not ISSUE_NOUN_RE.search(text))):
        search = within(search, searched)
        if by == "state":  # the states are the groups
            search = replace(search, state=None)
    arguments = _count_arguments(search)
    if set_against:  # only the issues of the two labels compared, so both are among the groups shown
        arguments["any_labels"] = set_against
    arguments |= {"by": by, **_order_and_limit(by, said.group(0), text, search)}
    return Act(Intent.TALLY, typed, reads=[PlannedCall("count_issues_by", arguments)], notes=notes)


def _order_and_limit(by: str, said: str, text: str, search: Search) -> dict[str, Any]:
    """The groups' order (`the fewest`, `the busiest month`) and how many (`top 5`; every month of a year)."""
    ordered: dict[str, Any] = {}
    if _FEWEST_RE.search(said):
        ordered["fewest_first"] = True
    elif by in {"month", "year"} and re.search(_MOST, said, re.I):
        ordered["busiest_first"] = True
    if limit := _LIMIT_RE.search(text):
        ordered["limit"] = max(1, int(limit.group(1) or limit.group(2)))
    elif (spanned := _groups_in_span(by, search)) is not None:
        ordered["limit"] = spanned  # `monthly count of new issues in 2022`: every month of it, not the latest ten
    return ordered


def _groups_in_span(by: str, search: Search) -> int | None:
    """How many months a count by month over a span of opening days has, where that is more than the tool shows by
    default (at most 50, its most); None otherwise."""
    if by != "month" or not (search.created_since and search.created_before):
        return None
    since, before = date.fromisoformat(search.created_since), date.fromisoformat(search.created_before)
    months = (before.year - since.year) * 12 + before.month - since.month + (before.day > 1)
    return min(50, months) if months > 10 else None  # ten or fewer: the tool's default shows them all


def _sides_said(text: str, notes: list[str]) -> str:
    """The words with what is set against what said as `A vs B`: opened vs closed (a note when only who opened is
    known), a ratio, `more A or B`, two years, this year and the last."""
    said_closed = _OPENED_VS_CLOSED_RE.search(text)
    if said_closed and (said_closed.group("who") or said_closed.group("joined").lower() != "and"):
        who = said_closed.group("who")
        if who:
            notes.append(
                f"The data does not record who closed an issue: these are the issues {who} opened, split by "
                "whether they are open or closed now."
            )
        text = f"{text[: said_closed.start()]} {f'by {who} ' if who else ''}open vs closed {text[said_closed.end() :]}"
    text = _RATIO_RE.sub(r"\g<a> vs \g<b>", text)  # `the ratio of bugs to feature requests`: the two side by side
    if _MORE_RE.search(text) and _YEARS_OR_RE.search(text):  # `were there more bugs in 2023 or 2024?`: side by side
        text = _MORE_RE.sub(" ", _YEARS_OR_RE.sub(r"\g<first> vs \g<second>", text))
    text = _MORE_OR_RE.sub(r"\g<a> vs \g<b>", text)  # `are there more open bugs or open enhancements`: the same
    if _YEARS_COMPARED_RE.search(text):  # `per year, how does 2021 compare to 2024?`: those two years, side by side
        text = re.sub(rf"{_EACH_TIME}year\b", " ", _YEARS_COMPARED_RE.sub(r"\g<first> vs \g<second>", text), flags=re.I)
    year = today().year  # `this year vs last year`: the two years by number, as `2025 vs 2026` is read
    text = _YEARS_SAID_RE.sub(f"{year - 1} vs {year}", text)
    return text


def _two_labels(text: str, labels: Sequence[str]) -> tuple[str, re.Match[str], list[str]] | None:
    """Two labels set against each other (`enhancements vs bugs`; `which label has more open issues: vision or
    speech?`): the words as read, the match of the two, and their names."""
    if versus := _labels_versus(text, labels):
        return text, *versus
    if _MORE_RE.search(text):
        either = _MORE_RE.sub(" ", re.sub(r"(?<=\s)or(?=\s)", "vs", text, flags=re.I))
        if versus := _labels_versus(either, labels):
            return either, *versus
    return None


def _labels_versus(text: str, labels: Sequence[str]) -> tuple[re.Match[str], list[str]] | None:
    """`enhancements vs bugs`, `bugs versus dataset requests`: two of the project's labels set against each
    other, which a count by label answers side by side; the match spans the two names and no other word."""
    for versus in _VERSUS_RE.finditer(text):
        vs_start, vs_end = versus.span("vs")
        starts = _word_starts(text, versus.start(), vs_start)[::-1]  # the word nearest the `vs` first
        left = next(((at, label) for at in starts if (label := _label_named(text[at:vs_start], labels))), None)
        ends = _word_ends(text, vs_end, versus.end())
        right = next(((at, label) for at in ends if (label := _label_named(text[vs_end:at], labels))), None)
        if left and right and (found := _VERSUS_RE.match(text, left[0], right[0])):
            return found, [left[1], right[1]]
    return None


def _word_starts(text: str, start: int, end: int) -> list[int]:
    return [start + word.start() for word in re.finditer(r"[\w-]+", text[start:end])]


def _word_ends(text: str, start: int, end: int) -> list[int]:
    return [start + word.end() for word in re.finditer(r"[\w-]+", text[start:end])]


def _label_named(words: str, labels: Sequence[str]) -> str | None:
    """A label named whole, else the one the project's words for a kind mean (`feature requests`)."""
    if named := next((hit.label for hit in labels_in_words(words, labels) if hit.exact), None):
        return named
    meaning = getattr(labels, "meaning", None)
    return meaning(words.strip().lower()) if meaning is not None and re.fullmatch(r"[\w -]+", words.strip()) else None


def _count_arguments(search: Search) -> dict[str, Any]:
    """A search's filters as `count_issues_by` takes them: no count, no limit, no empty words."""
    arguments = {key: value for key, value in search.arguments().items() if key not in {"count_only", "limit"}}
    if not arguments.get("query"):
        arguments.pop("query", None)
    return arguments


def _share_said_first(among: re.Match[str]) -> str:
    """`share of bugs among open issues` as `share of open issues are bugs`; `in 2024` stays a time of the issues."""
    population = among.group("population")
    if among.group("join").lower() == "in":
        population = f"issues in {population}"
    return f"share of {population} are {among.group('predicate')}"


def _share_act(share: re.Match[str], typed: str, vocabulary: Vocabulary) -> Act:
    """The issues said (`open issues`), counted by state when the share asked is a state's, else by label."""
    by = (
        "state"
        if re.search(r"\b(?:open|closed|resolved|fixed|unresolved)\b", share.group("predicate"), re.I)
        else "label"
    )
    notes: list[str] = []
    search = search_in(share.group("population"), notes, vocabulary.labels, vocabulary.people)
    arguments = _count_arguments(search)
    if by == "state":
        arguments.pop("state", None)
    arguments["by"] = by
    return Act(Intent.TALLY, typed, reads=[PlannedCall("count_issues_by", arguments)], notes=notes)
