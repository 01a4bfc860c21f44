"""A search that narrows the one before: `how many open enhancement issues, and which ones mention streaming?`.

`which ones`, `which of them`, `of those, which …` after a search or a count ask about the same issues: the
filters said before (state, labels, author, days) hold, and this request's own words add the topic (or,
with none, keep the one before). A count that names nothing of its own (`… how many are there?`) counts
the search before it. A request of filters alone (`and since 2024?`, `what about the closed ones?`, `only
bugs`) asks the search, count or tally before it again with those filters.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace
from typing import Any

from atlas.offline.acts.act import Act, Intent
from atlas.offline.acts.later import Later
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.dates import time_alone
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.ordering import INBOX_BY_DATE, order_in
from atlas.offline.reading.search import Search, asks_count, search_in
from atlas.offline.reading.vocabulary import Vocabulary

NARROWING_RE = lazy(
    r"^\W*(?:and\s+|but\s+|so\s+)?(?:(?:which|what)\s+(?:of\s+(?:them|those|these)|ones)|of\s+(?:them|those|these)\b"
    r"\s*,?\s*(?:which|what)(?:\s+ones)?|which(?=\s+(?:mention|mentions|talk|are|were|have|has|contain|say)\b)"
    r"|(?:list|show(?:\s+me)?|give\s+me)\s+(?:the\s+ones|them|those|these)(?=\s+(?:still\s+|that\s+|which\s+)?\w))\b",
    re.I,
)
_OF_THOSE_RE = lazy(
    r"\bhow\s+many\s+(?:of\s+(?:them|those|these)\s+)?(?:are|is|were|was|remain|got|have\s+been|has\s+been)\b"
    r"|\bhow\s+many\s+of\s+(?:them|those|these)\b",
    re.I,
)
"""`how many are still open?`, `how many of them were closed?`: a count of the issues found before, said by a verb
with no noun of its own."""
_NOUNS = r"issues?|bugs?|tickets?|reports?|requests?|enhancements?|features?|anything|something"
ISSUE_NOUN_RE = lazy(rf"\b(?:{_NOUNS}|ones?)\b", re.I)


def _only_a_time_counted(own: Search, text: str) -> bool:
    """`how many in 2024?` after a count: only a time of opening is said, no issues of its own (`how many issues in
    2024?` counts all of them)."""
    timed = own.created_since is not None or own.created_before is not None
    alone = replace(own, created_since=None, created_before=None) == Search(count=True)
    return timed and alone and not ISSUE_NOUN_RE.search(text)


_ONES_ALONE_RE = lazy(rf"^(?!.*\b(?:{_NOUNS})\b).*\bones\b", re.I)
"""`how many speech ones?`: the issues said before, named by `ones` alone."""
_ASKED_OF_IT_RE = lazy(r"^\W*(?:and\s+)?(?:is|was|are|were)\s+(?:it|that|this|they|those)\b", re.I)
"""`is it closed?`: a yes or no asked of what was found, no filter of a search."""
_FILTERS = ("state", "author", "created_since", "created_before", "updated_since", "updated_before")
_AGAIN_RE = lazy(r"^\W*(?:and|but|what\s+about|how\s+about|only|just|now)\b\s*(?:for\s+|with\s+|in\s+(?=the\b))?", re.I)
"""How a request of filters alone points back at the one before."""
_ONLY_LAST_RE = lazy(r"(?:\s+(?:ones|issues))?\s+only\s*[.!?]*\s*$", re.I)
"""`…, open only`, `2024 ones only`: filters alone said after the search they narrow."""


def narrowed(text: str, typed: str, before: Act | None, vocabulary: Vocabulary) -> Act | None:
    """The search of the request before, narrowed by this one's words; None when this one does not point back."""
    if _ASKED_OF_IT_RE.match(text):
        return None  # `…, and is it closed?`: a question of the issue found, which its reading answers
    if before is not None and (again := _asked_again(text, typed, before, vocabulary)):
        return again
    if before is not None and before.intent is Intent.INBOX and (inbox := _inbox_reordered(text, typed, before)):
        return inbox
    counted = _search_of_tally(before) if before is not None else None
    if counted is not None and (again := _ordered_again(text, typed, counted, vocabulary)):
        return replace(again, narrows_before=False)  # `… counted by year, then the five oldest`: both, in that order
    if before is None or before.search is None:
        return None
    if again := _ordered_again(text, typed, before.search, vocabulary):
        return again
    notes: list[str] = []
    said = NARROWING_RE.match(text)
    if said is None:
        own = search_in(text, notes, vocabulary.labels, vocabulary.people) if asks_count(text) else None
        if own is not None and own.query is None and _OF_THOSE_RE.search(text):  # `how many are still open?`
            return Act(Intent.COUNT, typed, search=replace(within(own, before.search), count=True, limit=None))
        if own is not None and before.search.count and _only_a_time_counted(own, text):  # `…, and how many in 2024?`
            search = replace(before.search, created_since=own.created_since, created_before=own.created_before)
            return Act(Intent.COUNT, typed, search=search, notes=notes)
        if own is not None and own.query is None and _ONES_ALONE_RE.search(text) and before.search.count:
            # `how many vision issues are open, and how many speech ones?`: the count before, of this label
            return Act(Intent.COUNT, typed, search=replace(within(own, before.search), count=True), notes=notes)
        if own is None or own != Search(count=own.count):
            return None  # a count of its own subject (`how many closed ones?` names a state)
        return Act(Intent.COUNT, typed, search=replace(before.search, count=True, limit=None), notes=notes)
    own = search_in(text[said.end() :], notes, vocabulary.labels, vocabulary.people)
    if own.query and before.search.query:  # `which of them mention parquet?`: those words among the hits before
        own = replace(own, query=f"{before.search.query} {own.query}", any_words=False)
    if own.label and before.search.label:  # `which of those are bugs?`: the labels before, and this one
        held = (before.search.label, *before.search.labels)
        own = replace(own, labels=tuple(name for name in dict.fromkeys([*own.labels, *held]) if name != own.label))
    return Act(Intent.SEARCH, typed, search=within(own, before.search), notes=notes)


def _asked_again(text: str, typed: str, before: Act, vocabulary: Vocabulary) -> Act | None:
    """The search, count or tally before, asked again with the filters this request says and nothing else."""
    lead, last = _AGAIN_RE.match(text), _ONLY_LAST_RE.search(text)
    searched = before.search is not None and before.intent in {Intent.SEARCH, Intent.COUNT, Intent.ORDERED}
    tallied = before.intent is Intent.TALLY and len(before.reads) == 1
    # `…, open, newest first`: filters alone, no issues of their own and no question of which
    bare = lead is None and last is None and not ISSUE_NOUN_RE.search(text) and not NARROWING_RE.match(text)
    if (lead is None and last is None and not bare) or not (searched or tallied):
        return None
    notes: list[str] = []
    rest = text[lead.end() :] if lead else text[: last.start()] if last else text
    own = search_in(_said_alone(rest, vocabulary), notes, vocabulary.labels, vocabulary.people)
    said = {name: value for name, value in own.arguments().items() if name not in {"query", "limit", "count_only"}}
    if own.query or (own.count and not (tallied and _OF_THOSE_RE.search(rest))) or not (said or own.limit):
        return None  # `…per year, and how many of those are still open?`: the tally before, of the open ones
    if own.limit:  # `… the most issues? top 5`: as many as said
        said["limit"] = own.limit
    if before.search is not None:
        search = within(own, before.search)
        search = replace(
            search, order=search.order or before.search.order
        )  # `sort them oldest first`, then `and 2021?`
        if before.intent is Intent.COUNT:
            search = replace(search, count=True, limit=None)
        only = bare or last is not None or bool(lead and re.match(r"\W*(?:only|just)\b", text, re.I))
        return Act(before.intent, typed, search=search, notes=notes, narrows_before=only)
    call = before.reads[0]
    reads = [PlannedCall(call.name, {**call.arguments, **said})]
    only_a_limit = set(said) == {"limit"}  # `top 5`: the tally before, as many
    return Act(Intent.TALLY, typed, reads=reads, notes=notes, narrows_before=only_a_limit)


def _said_alone(rest: str, vocabulary: Vocabulary) -> str:
    """`what about 2023?`, `and mariosasko?`: a time or one of the project's authors named alone, as a filter."""
    word = rest.strip(" ?.!@")
    login = vocabulary.people.login(word) if word and " " not in word else None
    return f"by {login}" if login else time_alone(rest)


def _inbox_reordered(text: str, typed: str, before: Act) -> Act | None:
    """`the oldest ones first` after an inbox: the same inbox by the date opened; None for any other words."""
    order, rest = order_in(text)
    if order not in INBOX_BY_DATE or search_in(re.sub(r"\bones?\b", " ", rest, flags=re.I), []) != Search():
        return None
    call = before.reads[0]
    return Act(Intent.INBOX, typed, reads=[PlannedCall(call.name, {**call.arguments, "order": order})])


def _ordered_again(text: str, typed: str, before: Search, vocabulary: Vocabulary) -> Act | None:
    """`how many open bugs, and what's the oldest one?`: the issues of the search before, in the order said; the
    one asked for is read. None when the words name issues of their own (`the oldest closed ones`)."""
    order, rest = order_in(text)
    if order is None:
        return None
    notes: list[str] = []
    words = re.sub(r"(?<![\d\s])\s*\bones?\b|^\s*ones?\b", " ", rest, flags=re.I)  # `the 5 ones`: how many stays
    own = search_in(words, notes, vocabulary.labels, vocabulary.people)
    if replace(own, limit=None) != Search():
        return None
    act = Act(Intent.ORDERED, typed, search=replace(before, count=False, order=order, limit=own.limit), notes=notes)
    act.narrows_before = not before.count  # `… list them oldest first`: the same issues, listed once, in that order
    if re.search(r"\bone\b", text, re.I):
        act.later.append(Later(read_first_hit=True))
    return act


def _search_of_tally(before: Act) -> Search | None:
    """The issues a count by group counted, as a search of them; None for any other act."""
    if before.intent is not Intent.TALLY or len(before.reads) != 1:
        return None
    said = before.reads[0].arguments
    kept = {name: said[name] for name in (*_FILTERS, "query", "label", "unlabelled") if said.get(name)}
    return Search(**kept, labels=tuple(said.get("labels") or ()), any_labels=tuple(said.get("any_labels") or ()))


def within(own: Search, earlier: Search) -> Search:
    """`own` with the filters (and the topic) it does not say itself taken from `earlier`; a count is asked anew."""
    kept: dict[str, Any] = {name: getattr(earlier, name) for name in (*_FILTERS, "query") if getattr(own, name) is None}
    if own.author is None:
        kept["more_authors"] = earlier.more_authors
    if own.label is None and not own.unlabelled and not own.any_labels:
        kept.update(
            label=earlier.label, labels=earlier.labels, unlabelled=earlier.unlabelled, any_labels=earlier.any_labels
        )
    if not own.without_labels:
        kept["without_labels"] = earlier.without_labels  # `not labelled bug`, then `and which are closed?`
    return replace(own, **kept)


assert set(_FILTERS) <= {field.name for field in fields(Search)}
