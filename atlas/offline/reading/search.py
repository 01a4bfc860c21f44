"""Reading a search request into `search_issues` arguments, for the offline planner.

State and label words become filters, as do an author (`by svetlana-k`) and a time (`since last
Monday`: `authors_and_days.py`); a number becomes the limit, and what is left of the user's words
becomes the query. "How many" (or a leading "number of") asks the tool for the count alone.
What the tool cannot do (sort) is said in a note instead of being searched for as words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from atlas.offline.reading.authors_and_days import names_people_or_days, people_and_days
from atlas.offline.reading.issue_refs import KIND_OF_ISSUES
from atlas.offline.reading.label_lists import LABEL_LIST_RE, label_list
from atlas.offline.reading.label_usage import issues_carrying
from atlas.offline.reading.labels import label_from_token, severity_label
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.ordering import ORDER_RE, order_in
from atlas.offline.reading.people import ProjectPeople
from atlas.offline.reading.search_clauses import (
    idle_without_time,
    quotes_masked,
    state_said_first,
    titles_only,
    topic_alone,
    without_framing,
    without_function_words,
)
from atlas.offline.reading.search_labels import (
    LABEL_FILTER_RE,
    QUERY_LEAD_RE,
    SEARCH_FILLER,
    bare_label,
    excluded_labels,
    label_before_word,
    meant_label,
    more_labels,
    named_label,
    typo_labels,
    with_kind,
    word_label,
)
from atlas.offline.reading.unread_filters import names_unread, without_unread_filters
from atlas.offline.reading.who_for import without_who_for

_SEARCH_NOUN_RE = lazy(
    r"\b(issues|bugs|tickets|reports|(?:feature|enhancement|dataset|change)\s+requests)\b"
    r"|^\W*(?:(?:show|list|give)\s+(?:me\s+)?)?the\s+[\w-]+\s+ones\b"
    r"|\bproblems?\s+(?:with|in|about)\b"
    r"|\b(?:(?:any|an?|every)\s+(?:(?:open|closed)\s+)?|open\s+|closed\s+)(?:issue|ticket|bug|report)\s+"
    r"(?:that|which|about|mentioning|for|on|regarding)\b"
    r"|\b(?:everything|anything|something|stuff|all)\s+(?:(?:still\s+)?(?:open|closed|new|recent)\s+)?"
    r"(?:about|regarding|mentioning|related\s+to|to\s+do\s+with)\b",
    re.I,
)
_SEARCH_VERB_RE = lazy(
    r"\b(search|find|look(?:ing)?\s+for|grep|dig\s+up|track\s+down|hunt\s+down|round\s+up)\b", re.IGNORECASE
)
_STATE_OR_KIND_RE = lazy(
    r"\bwhat'?s\s+(?:still\s+)?(?:open|closed)\b|\bquestions\b|\bwhich\s+(?:issue|ticket|bug)\b"
    r"|^\s*(?:the\s+)?(?:ones\s+)?(?:labell?ed|tagged)\b",
    re.I,
)
_SEVERITY_RE = lazy(
    r"\b(?:sev(?:erity)?[\s:-]*S?|S(?=[1-4]\s+(?:issues|bugs|tickets|reports)\b))(?P<n>[1-4])\b", re.IGNORECASE
)
"""`S1 issues`, `sev2`, `severity 3`: the severity labels; a bare `S3` elsewhere may be Amazon S3."""
NO_LABEL_RE = lazy(
    r"\b(?:(?:with|having|that\s+have|that\s+has|have|has)\s+)?(?:no|without\s+(?:a\s+|any\s+)?)\s*labels?\b"
    r"|\b(?:un|not\s+)labell?ed\b|\b(?:that\s+)?(?:nobody|no\s+one|no-one)\s+(?:has\s+|have\s+)?(?:labell?ed|tagged)\b"
    r"|\bnever\s+(?:got|had|received|been\s+given)\s+(?:a\s+|any\s+)?labels?\b",
    re.I,
)
"""`with no label`, `without any labels`, `unlabelled`: issues that carry none."""
_KIND_NOUN_RE = lazy(r"\b(?:bugs|feature\s+requests)\b", re.I)
"""Kinds of issue most projects have a label for; where this one has none, the word is searched."""
_COUNT_RE = lazy(
    r"\bhow\s+many\b|\b(?:the\s+|a\s+)?(?:total\s+)?(?:number|count)\s+of\b"
    r"|\bhow\s+much(?=\s+(?:[\w:-]+\s+){0,2}?(?:issues|bugs|tickets|reports|requests|enhancements)\b)"
    r"|^\W*(?:(?:can|could|would)\s+(?:you|u)\s+|please\s+|pls\s+|just\s+)*count\b|\bcount\s*[?.!]*\s*$",
    re.I,
)
_TOPIC_BEFORE_RE = lazy(
    r"\b(?:about|mentioning|mentions?|regarding|concerning|involving|containing|matching|referencing)\s+$", re.I
)
"""`issues about the number of workers`: a `number of` that is the topic searched for, not a count asked."""
_NOW_RE = lazy(
    r"\b(?:rn|right\s+now|at\s+the\s+moment|atm|currently|these\s+days|in\s+total|overall|(?:of\s+)?all[\s-]time)\b"
    r"|(?:(?<=\bopen\s)|(?<=\bclosed\s))(?:as\s+of\s+)?today\b|\bso\s+far\b|\bto\s+date\b",
    re.I,
)
"""Words that only say "as things stand": never a topic, never a time span."""
_POINT_OUT_RE = lazy(r"\b(?:point\s+out|let\s+(?:me|us)\s+know|tell\s+(?:me|us))\b", re.I)
"""`… and point out which one is the oldest`: the asking, no words to search for."""
_LATELY_RE = lazy(r"\blately\b", re.I)
"""`lately` where it is no time of the issues (`dates.py` reads `bugs filed lately`): as things stand, no topic."""
SEARCH_MAX = 20
"""The most hits one search returns (the tool's own limit)."""
_LIMIT_RE = lazy(
    r"\b(?:top|first|latest|last|newest)\s+(\d{1,3})\b|\b(\d{1,3})\s+(?:open\s+|closed\s+)?(?:issues|bugs|tickets|ones)\b"
    r"|\b(\d{1,3})\s+(?:newest|latest|oldest|last|most\s+recent)\b|^[^\w#]*(\d{1,2})\W*$",  # `newest 5`: its order read
    re.IGNORECASE,
)
_KIND_COUNT_RE = lazy(
    rf"(?<![#\w.])(?<!sev\s)(?<!severity\s)(?<!priority\s)(\d{{1,3}})"
    rf"(?={KIND_OF_ISSUES}|\s+(?:issues|bugs|tickets|reports|requests)\b)",
    re.IGNORECASE,
)
"""How many, said before the kind of issues wanted: `5 open bugs`, `3 good first issues`, `10 [most recent] bugs`."""


@dataclass(frozen=True)
class Search:
    query: str | None = None
    state: str | None = None
    label: str | None = None
    labels: tuple[str, ...] = ()
    """Further labels every hit must have (`open scheduler bugs`: comp:scheduler, then type:bug)."""
    any_labels: tuple[str, ...] = ()
    """Labels of which a hit needs one (`tagged docs or question`)."""
    without_labels: tuple[str, ...] = ()
    """Labels no hit may have (`bugs but not enhancement`, `open issues without the bug label`)."""
    limit: int | None = None
    author: str | None = None
    more_authors: tuple[str, ...] = ()
    """Other authors, one of whom opened each hit (`by albertvillanova or lhoestq`): a search each (`alternatives`)."""
    created_since: str | None = None
    created_before: str | None = None
    updated_since: str | None = None
    updated_before: str | None = None
    """Days as `YYYY-MM-DD`: opened, or last active, on or after `since` and before `before`."""
    count: bool = False
    """Only how many issues match (`how many open bugs?`)."""
    unlabelled: bool = False
    """Only issues with no label at all (`open issues with no label`)."""
    any_words: bool = False
    """Issues with any of the query's words (`about streaming or arrow`), not all of them."""
    order: str | None = None
    """How the hits are sorted (`oldest`, `least_recently_updated`, …: `ordering.py`); None, the tool's default."""

    def arguments(self) -> dict[str, Any]:
        args: dict[str, Any] = {"query": self.query or ""}
        if self.state:
            args["state"] = self.state
        if self.label:
            args["label"] = self.label
        if self.labels:
            args["labels"] = list(self.labels)
        if self.any_labels:
            args["any_labels"] = list(self.any_labels)
        if self.without_labels:
            args["without_labels"] = list(self.without_labels)
        for name in ("author", "created_since", "created_before", "updated_since", "updated_before"):
            if value := getattr(self, name):
                args[name] = value
        if self.unlabelled:
            args["unlabelled"] = True
        if self.any_words:
            args["any_words"] = True
        if self.count:
            args["count_only"] = True
            return args
        if self.limit:
            args["limit"] = self.limit
        if self.order and (self.query or self.order != "newest"):  # with no words the tool lists the newest
            args["order"] = self.order
        return args


def asks_count(text: str) -> re.Match[str] | None:
    """Where the words ask only how many issues match: `how many …`, `number of open S1s?`, `count the open
    bugs`, `open S1 count?`; None when they do not (`issues about the number of workers` is a topic)."""
    for match in _COUNT_RE.finditer(text):
        if not _TOPIC_BEFORE_RE.search(text[: match.start()]):
            return match
    return None


def _count_before_kind(text: str) -> tuple[str, int | None]:
    """`5 open bugs`, `3 good first issues`: how many, taken out before the labels are read from the words."""
    if re.search(r"\b(?:top|first|latest|last|newest)\s+\d", text, re.I) or not (found := _KIND_COUNT_RE.search(text)):
        return text, None
    return text[: found.start()] + " " + text[found.end() :], int(found.group(1))


def search_in(text: str, notes: list[str], labels: Sequence[str] = (), people: ProjectPeople | None = None) -> Search:
    """Search filters: state and label words, an author, a limit, and the topic as the query."""
    text = without_unread_filters(without_who_for(text), notes)
    text = _LOOK_FOR_ISSUES_RE.sub("search ", text)  # `looking for bugs about …`: `for` leads no topic there
    notes += titles_only(text)
    counted, text = _cut(asks_count(text), text)  # the most hits there are: fewer is every match; `number` no topic
    order, text = order_in(_NOW_RE.sub(" ", _POINT_OUT_RE.sub(" ", state_said_first(text))))
    text, kind_count = (text, None) if counted else _count_before_kind(text)
    text, filters = people_and_days(text, notes, people)
    order, text = idle_without_time(text, order, notes, counted=bool(counted), filters=filters)
    more_authors = tuple(filters.pop("more_authors", "").split())
    text = _LATELY_RE.sub(" ", text)
    excluded, text = excluded_labels(text, labels)  # `not labelled streaming`: one label left out, not all
    unlabelled, text = _cut(NO_LABEL_RE.search(text), text)
    chosen, either, rest = _labels_named(text, labels)
    chosen = [name for name in chosen if name not in excluded]  # `bugs not labelled bug`: the kind is only a noun
    chosen, rest, taken = (chosen, rest, []) if either else typo_labels(chosen, rest, labels)
    if unlabelled:  # `bugs w/o labels`: issues with no label are not of any label, so the kind is only a noun
        chosen, either, taken = [], (), []
    notes += [
        f"This project has no label “{said}”: I took `{label}`, the nearest of its labels." for said, label in taken
    ]
    label = chosen[0] if chosen else None
    limit, rest = _limit_in(rest, counted=bool(counted), kind_count=kind_count)
    rest = without_framing(rest)  # `the word "deprecated" in the title`, `closed as duplicates`
    lead = QUERY_LEAD_RE.search(quotes_masked(rest))
    said = rest[lead.start("q") :] if lead else ""
    either_words = False
    if lead:
        query, either_words = _either_words(said)
        outside = rest[: lead.start()]
    else:
        words = re.findall(r"[\w:.'-]*\w[\w:.'-]*", rest)  # a dash alone (`OOM - any reports?`) is no word
        query = " ".join(
            word for word in words if word.lower().strip(".,?!;:'\"").replace("'", "") not in SEARCH_FILLER
        )
        outside = rest
    query = topic_alone(query)
    if all(word.lower() in SEARCH_FILLER for word in re.findall(r"[\w']+", query)):
        query = ""  # `with the comp:docs label`: the label was the whole topic
    if not chosen and labels and not unlabelled:
        query = _kind_without_label(rest, query, notes)
    state = state_in(outside + " " + said[len(query) :])
    if unlabelled and not counted:
        state = state or "open"  # `unlabelled issues`: the backlog still to label; a count counts them all
    return Search(
        query=without_function_words(query, said or rest) or None,
        state=state,
        label=label,
        labels=tuple(chosen[1:]),
        any_labels=either,
        without_labels=excluded,
        limit=limit,
        count=bool(counted),
        unlabelled=bool(unlabelled),
        any_words=either_words and len(query.split()) > 1,
        order=None if counted else order,
        more_authors=more_authors,
        **filters,
    )


_LOOK_FOR_ISSUES_RE = lazy(
    r"\b(?:search(?:ing)?|look(?:ing)?)\s+for\s+(?=(?:[\w:-]+\s+){0,3}(?:issue|bug|ticket|report|request)s?\b)",
    re.I,
)


def _cut(found: re.Match[str] | None, text: str) -> tuple[re.Match[str] | None, str]:
    """What was found, and the words without it."""
    return found, text if found is None else text[: found.start()] + " " + text[found.end() :]


def _limit_in(rest: str, *, counted: bool, kind_count: int | None) -> tuple[int | None, str]:
    """How many hits to show (`top 20`, `5 open bugs`; none for a count), and the words without it."""
    limit_match = _LIMIT_RE.search(rest)
    limit = int(next(n for n in limit_match.groups() if n)) if limit_match and not counted else None
    if limit_match:
        rest = rest[: limit_match.start()] + " " + rest[limit_match.end() :]
    return kind_count or limit, rest


def _labels_named(text: str, labels: Sequence[str]) -> tuple[list[str], tuple[str, ...], str]:
    """The labels every hit must have (the most specific first), those of which one will do (`tagged docs or
    question`), and the words left."""
    listed, either, text = label_list(text, labels)
    if not listed and not either and (said := label_before_word(text, labels))[0]:
        listed, text = [str(said[0])], said[1]  # `open bugs with the streaming label`
    if either:  # `bugs tagged streaming or arrow`: one of those, and the label the kind's word means
        meant, text = _label_meant(text, labels)
        return ([meant] if meant and meant not in listed else []), tuple(listed), text
    label, rest = (listed[0], text) if listed else named_label(text, labels)
    label_match = None if label else LABEL_FILTER_RE.search(text)
    if label_match:
        label = label_from_token(label_match.group("label"), labels) or label_match.group("label")
        rest = text[: label_match.start()] + " " + text[label_match.end() :]
    if label is None and (found := bare_label(rest, labels)):
        label, rest = found.group(1), rest[: found.start()] + " " + rest[found.end() :]
    elif label is None and (found := _SEVERITY_RE.search(rest)) and (hit := severity_label(found.group(0), labels)):
        label, rest = hit.label, rest[: found.start()] + " " + rest[found.end() :]
    if label is None:
        label, rest = _label_meant(rest, labels)
    chosen, rest = with_kind(*more_labels(rest, labels, label), labels)
    chosen += [name for name in listed if name not in chosen]
    return sorted(chosen, key=lambda name: issues_carrying(labels, name)), (), rest


def _label_meant(text: str, labels: Sequence[str]) -> tuple[str | None, str]:
    """A label named whole, then one the project's words mean, then one named by a word only it has; the words
    left."""
    label = None
    for read in (partial(word_label, exact=True), meant_label, word_label):
        if label is None and labels:
            label, text = read(text, labels)
    return label, text


_LISTED_RE = lazy(r"\s*,\s*(?:or\s+)?|\s+or\s+", re.I)


def alternatives(topic: str) -> list[str]:
    """`pickle, arbitrary code execution or trust_remote_code`: three alternatives, each of a few words; none when the
    words list no more than two (`streaming or arrow` is read word by word). The list is said with commas and an
    `or`, or with an `or` between each (`pickle or arbitrary code execution or trust_remote_code`)."""
    ors = len(re.findall(r"\bor\b", topic, re.I))
    if not ors or ("," not in topic and ors < 2):
        return []
    parts = [part for part in _LISTED_RE.split(topic.strip(" ?.!")) if part]
    listed = [re.sub(r"^(?:an?|the)\s+", "", part, flags=re.I) for part in parts]  # `or a CVE`: the word
    return listed if len(listed) > 2 and all(len(part.split()) <= 4 for part in listed) else []


def _either_words(topic: str) -> tuple[str, bool]:
    """`streaming or arrow`: the topic's words without the `or`s, and whether one of them will do; `load_dataset
    and timeout` needs both words, as every topic does, and the `and` is no word to find. A list of alternatives
    (`pickle, arbitrary code execution or trust_remote_code`) is each alternative as one phrase."""
    alone = re.sub(r"(?<=[\w\"'`])\s+or\s+(?=[\w\"'`])", " ", topic, flags=re.I)
    if listed := alternatives(topic):  # `pickle, arbitrary code execution or trust_remote_code`
        return " ".join("-".join(part.split()) for part in listed), True
    both = re.sub(r"^both\s+|(?<=[\w\"'`])\s+and\s+(?=[\w\"'`])", " ", alone, flags=re.I).strip()
    if both != topic:  # `"out of memory" or OOM`: a quoted alternative is one phrase, as the tool reads `a-b`
        both = re.sub(r"\"([^\"]+)\"|`([^`]+)`|(?<!\w)'(.+?)'(?!\w)", _one_phrase, both)
    return both, alone != topic


def _one_phrase(quoted: re.Match[str]) -> str:
    return "-".join(next(text for text in quoted.groups() if text is not None).split())


_OPEN_AS_VERB = "".join(
    rf"(?<!\b{word}\s)" for word in ("did", "do", "does", "anyone", "anybody", "someone", "somebody", "who", "i", "we")
)
"""`did anyone open bugs about audio`: `open` said as what someone did, not as the issues' state."""


def state_in(text: str) -> str | None:
    """`open` or `closed` when the words outside the topic say one of them (and not the other)."""
    opened = re.search(rf"{_OPEN_AS_VERB}\b(open|unresolved)\b", text, re.IGNORECASE)
    closed = re.search(r"\b(closed|resolved|fixed)\b", text, re.IGNORECASE)
    return "open" if opened and not closed else "closed" if closed and not opened else None


def _kind_without_label(rest: str, query: str, notes: list[str]) -> str:
    """`open bugs` on a project with no label meaning bug: the word is searched, and the answer says why."""
    kind = _KIND_NOUN_RE.search(rest)
    if kind is None:
        return query
    said = kind.group(0).lower()
    instead = "searched your other words" if query else "searched for the word instead"
    notes.append(f"This project has no label that means {said}; I {instead}.")
    return query or re.sub(r"s$", "", said)


def wants_search(text: str, people: ProjectPeople | None = None) -> bool:
    """Whether the words ask for issues by topic, state, label or author, or for what was filed in a time."""
    return bool(
        _SEARCH_NOUN_RE.search(text)
        or names_people_or_days(text, people)
        or names_unread(text)
        or _SEARCH_VERB_RE.search(text)
        or LABEL_FILTER_RE.search(text)
        or LABEL_LIST_RE.search(text)
        or NO_LABEL_RE.search(text)
        or ORDER_RE.search(text)
        or _STATE_OR_KIND_RE.search(text)
    )
