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

from atlas.foundation.label_names import label_value, resolve_label, split_label
from atlas.offline.reading.authors_and_days import names_people_or_days, people_and_days
from atlas.offline.reading.entities import label_refs
from atlas.offline.reading.issue_refs import KIND_OF_ISSUES
from atlas.offline.reading.label_usage import files_topic, issues_carrying
from atlas.offline.reading.labels import LabelHit, label_from_token, labels_in_words, severity_label
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.ordering import ORDER_RE, order_in
from atlas.offline.reading.people import ProjectPeople

_SEARCH_NOUN_RE = lazy(
    r"\b(issues|bugs|tickets|reports|feature requests)\b|^\W*(?:show\s+me\s+)?the\s+[\w-]+\s+ones\b", re.I
)
_SEARCH_VERB_RE = lazy(r"\b(search|find|look(?:ing)?\s+for|grep)\b", re.IGNORECASE)
_LABEL_LEAD = r"\b(?:labell?ed|tagged|with\s+(?:the\s+)?labels?|having\s+(?:the\s+)?labels?|labels?)\s*[:=]?\s*"
_LABEL_FILTER_RE = lazy(
    _LABEL_LEAD + r"[\"'`]?(?P<label>[A-Za-z][\w.-]*:[A-Za-z0-9][\w.-]*)[\"'`]?",
    re.IGNORECASE,
)
_NAMED_LABEL_RE = lazy(
    _LABEL_LEAD + r"(?:(?P<quoted>\"[^\"]+\"|'[^']+'|`[^`]+`)|(?P<words>[\w.-]+(?:\s+[\w.-]+){0,3}))", re.IGNORECASE
)
"""`labelled "dataset request"`, `tagged good first issue`: a label of any spelling after a label word."""
_BARE_LABEL_RE = lazy(r"(?<![\w/])([A-Za-z][\w.-]*:[A-Za-z0-9][\w.-]*)")
_TEXT_LEAD_RE = lazy(r"\W*(?:that\s+)?(?:mention\w*|contain\w*|matching|referencing)\b", re.I)
"""`which ones mention streaming`: words asked for as text, never read as a label."""
_QUERY_LEAD_RE = lazy(
    r"\b(?:about|mentioning|mention|mentions|regarding|concerning|related\s+to|involving|containing|matching|"
    r"referencing|that\s+(?:mention|talk\s+about|discuss)|on\s+the\s+topic\s+of|with|for|on)\s+(?P<q>.+)$",
    re.IGNORECASE,
)
_SEVERITY_RE = lazy(
    r"\b(?:sev(?:erity)?[\s:-]*S?|S(?=[1-4]\s+(?:issues|bugs|tickets|reports)\b))(?P<n>[1-4])\b", re.IGNORECASE
)
"""`S1 issues`, `sev2`, `severity 3`: the severity labels; a bare `S3` elsewhere may be Amazon S3."""
NO_LABEL_RE = lazy(
    r"\b(?:(?:with|having|that\s+have|that\s+has|have|has)\s+)?(?:no|without\s+(?:a\s+|any\s+)?)\s*labels?\b"
    r"|\b(?:un|not\s+)labell?ed\b",
    re.I,
)
"""`with no label`, `without any labels`, `unlabelled`: issues that carry none."""
_KIND_NOUN_RE = lazy(r"\b(?:bugs|feature\s+requests)\b", re.I)
"""Kinds of issue most projects have a label for; where this one has none, the word is searched."""
_COUNT_RE = lazy(
    r"\bhow\s+many\b|\b(?:the\s+|a\s+)?(?:total\s+)?(?:number|count)\s+of\b"
    r"|^\W*(?:(?:can|could|would)\s+(?:you|u)\s+|please\s+|pls\s+|just\s+)*count\b|\bcount\s*[?.!]*\s*$",
    re.I,
)
_TOPIC_BEFORE_RE = lazy(
    r"\b(?:about|mentioning|mentions?|regarding|concerning|involving|containing|matching|referencing)\s+$", re.I
)
"""`issues about the number of workers`: a `number of` that is the topic searched for, not a count asked."""
_NOW_RE = lazy(r"\b(?:rn|right\s+now|at\s+the\s+moment|atm|currently|these\s+days|lately|in\s+total|overall)\b", re.I)
"""Words that only say "as things stand": never a topic, never a time span."""
SEARCH_MAX = 20
"""The most hits one search returns (the tool's own limit)."""
_LIMIT_RE = lazy(
    r"\b(?:top|first|latest|last|newest)\s+(\d{1,3})\b|\b(\d{1,3})\s+(?:open\s+|closed\s+)?(?:issues|bugs|tickets)\b"
    r"|\b(\d{1,3})\s+(?:newest|latest|oldest|most\s+recent)\b",
    re.IGNORECASE,
)
_KIND_COUNT_RE = lazy(rf"(?<![#\w.])(\d{{1,3}})(?={KIND_OF_ISSUES})", re.IGNORECASE)
"""How many, said before the kind of issues wanted: `5 open bugs`, `3 good first issues`."""
_SEARCH_FILLER = frozenset(
    re.findall(
        r"\w+",
        """
        find search look looking for list show me all any the issues bugs tickets reports ones open closed which
        what are
        there please that is get grep of in tracker and or but with can you give how many do we have feature requests
        latest newest recent does mean means still this issue ticket from users user people unresolved resolved fixed
        component components what's whats rn now currently right again also today every each everything stuff things
        anything something they them those these thats
        opened filed created reported submitted raised came arrived updated were was been did
        label labels labelled labeled tagged
        """,
    )
)
"""Words of a search request that are not its topic."""
_KIND_WORDS = frozenset({"bugs", "feature", "requests"})
"""Filler words that may still name a kind of issue the project has a label for."""


@dataclass(frozen=True)
class Search:
    query: str | None = None
    state: str | None = None
    label: str | None = None
    labels: tuple[str, ...] = ()
    """Further labels every hit must have (`open scheduler bugs`: comp:scheduler, then type:bug)."""
    limit: int | None = None
    author: str | None = None
    created_since: str | None = None
    created_before: str | None = None
    updated_since: str | None = None
    updated_before: str | None = None
    """Days as `YYYY-MM-DD`: opened, or last active, on or after `since` and before `before`."""
    count: bool = False
    """Only how many issues match (`how many open bugs?`)."""
    unlabelled: bool = False
    """Only issues with no label at all (`open issues with no label`)."""
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
        for name in ("author", "created_since", "created_before", "updated_since", "updated_before"):
            if value := getattr(self, name):
                args[name] = value
        if self.unlabelled:
            args["unlabelled"] = True
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


def strip_quotes(text: str) -> str:
    """`"text"`, `'text'` or `` `text` `` without the quotes."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1].strip()
    return text


def _named_label(text: str, labels: Sequence[str]) -> tuple[str | None, str]:
    """A label named after a label word, as the project spells it, and the words left; a quoted name the
    project does not have is kept as typed (the search then says which labels are near it)."""
    match = _NAMED_LABEL_RE.search(text)
    if match is None or not labels:
        return None, text
    if match.group("quoted"):
        name = strip_quotes(match.group("quoted"))
        label = resolve_label(name, labels) or name
        return label, text[: match.start()] + " " + text[match.end("quoted") :]
    words = list(re.finditer(r"[\w.-]+", match.group("words")))
    for last in reversed(words):  # the longest run of words that names one label: `good first issue`
        found = resolve_label(match.group("words")[: last.end()], labels)
        if found:
            return found, text[: match.start()] + " " + text[match.start("words") + last.end() :]
    return None, text


def _word_label(rest: str, labels: Sequence[str], *, exact: bool = False) -> tuple[str | None, str]:
    """A label named in words before the topic (`postgres broker issues`, `cli bugs`), and the words left.

    A label all of whose words were named is taken over one named by a distinctive word only
    (`redis bugs`: the label named `bug`, the word `redis` stays the query); the label on fewer issues leads.
    """
    lead = _QUERY_LEAD_RE.search(rest)
    scope = rest[: lead.start()] if lead else rest
    hits = [hit for hit in labels_in_words(scope, labels) if hit.exact or (not exact and _in_use(labels, hit.label))]
    if not hits and lead and not _TEXT_LEAD_RE.match(lead.group(0)):  # "what's open on the scheduler": a label
        topic = lead.group("q").strip().rstrip("?.!")
        whole = [hit for hit in labels_in_words(topic, labels) if hit.exact and _stands_for_topic(labels, hit.label)]
        if whole and re.fullmatch(r"(?:the\s+)?[\w -]+", topic) and len(topic.split()) <= 3:
            return whole[0].label, rest[: lead.start()]
    if not hits:
        return None, rest

    def rank(hit: LabelHit) -> tuple[bool, bool, int]:
        # A label said as it is spelled leads, then the most specific (on fewest issues).
        return (not hit.exact, not hit.literal, issues_carrying(labels, hit.label))

    best = min(hits, key=rank)
    if best.exact:
        rest = rest[: best.start] + " " + rest[best.end :]
    return best.label, rest


IN_USE = 5
"""A label on fewer issues is not taken for a topic's words: `about arrow` on a project whose `arrow`
label is on one issue is a search for the word."""


def _stands_for_topic(labels: Sequence[str], label: str) -> bool:
    """`about X`: X is the label only when the project uses it, on enough of the issues that say X."""
    return _in_use(labels, label) and files_topic(labels, label)


def _in_use(labels: Sequence[str], label: str) -> bool:
    carrying = issues_carrying(labels, label)
    return carrying == 0 or carrying >= IN_USE  # 0: counts unknown, the label alone decides


def _bare_label(text: str, labels: Sequence[str]) -> re.Match[str] | None:
    """A `prefix:value` token whose prefix is one of the project's (`area:cli`; a URL's `https:` is not)."""
    prefixes = {(split_label(label)[0] or "").casefold() for label in labels} - {""}
    for found in _BARE_LABEL_RE.finditer(text):
        if found.group(1).partition(":")[0].casefold() in prefixes:
            return found
    return None


_KIND_RE = lazy(
    r"(?:^|\b(?:the|all|any|open|closed|our|of|are|list|show|me|find)\s+)(?P<kind>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
    r"\s*(?:\b(?:issues|ones|tickets|reports)\b|[?.!]*\s*$)",
    re.IGNORECASE,
)
"""`the streaming ones`, `docs issues`, `open feature requests`: the words that say which kind of issue."""


def _meant_label(rest: str, labels: Sequence[str]) -> tuple[str | None, str]:
    """A label the project's words mean (`feature requests`: the label most such issues carry), and the words left."""
    meaning = getattr(labels, "meaning", None)
    lead = _QUERY_LEAD_RE.search(rest)
    scope = rest[: lead.start()] if lead else rest
    found = _KIND_RE.search(scope.strip())
    if meaning is None or found is None:
        return None, rest
    words = [word for word in found.group("kind").split() if word.lower() not in _SEARCH_FILLER - _KIND_WORDS]
    for size in range(len(words), 0, -1):
        phrase = " ".join(words[-size:])
        if label := meaning(phrase):
            # `redis issues` meaning the label with `redis` in its name: the word stays the topic too,
            # as when a label is named by a word only it has.
            named = set(re.findall(r"[a-z0-9]+", label.casefold())) & set(re.findall(r"[a-z0-9]+", phrase.lower()))
            return label, rest if named else re.sub(rf"\b{re.escape(phrase)}\b", " ", rest, count=1)
    return None, rest


def _count_before_kind(text: str) -> tuple[str, int | None]:
    """`5 open bugs`, `3 good first issues`: how many, taken out before the labels are read from the words."""
    if re.search(r"\b(?:top|first|latest|last|newest)\s+\d", text, re.I) or not (found := _KIND_COUNT_RE.search(text)):
        return text, None
    return text[: found.start()] + " " + text[found.end() :], int(found.group(1))


def search_in(text: str, notes: list[str], labels: Sequence[str] = (), people: ProjectPeople | None = None) -> Search:
    """Search filters: state and label words, an author, a limit, and the topic as the query."""
    counted = asks_count(text)  # the most hits there are: fewer than that is every match
    if counted:
        text = text[: counted.start()] + " " + text[counted.end() :]  # `number` is no topic
    order, text = order_in(_NOW_RE.sub(" ", text))
    text, kind_count = (text, None) if counted else _count_before_kind(text)
    text, filters = people_and_days(text, notes, people)
    unlabelled = NO_LABEL_RE.search(text)
    if unlabelled:
        text = text[: unlabelled.start()] + " " + text[unlabelled.end() :]
    label, rest = _named_label(text, labels)
    label_match = None if label else _LABEL_FILTER_RE.search(text)
    if label_match:
        label = label_from_token(label_match.group("label"), labels) or label_match.group("label")
        rest = text[: label_match.start()] + " " + text[label_match.end() :]
    if label is None and (found := _bare_label(rest, labels)):
        label, rest = found.group(1), rest[: found.start()] + " " + rest[found.end() :]
    elif label is None and (found := _SEVERITY_RE.search(rest)) and (hit := severity_label(found.group(0), labels)):
        label, rest = hit.label, rest[: found.start()] + " " + rest[found.end() :]
    # A label named whole, then one the project's words mean, then one named by a word only it has.
    for read in (partial(_word_label, exact=True), _meant_label, _word_label):
        if label is None and labels:
            label, rest = read(rest, labels)
    chosen, rest = _with_kind(*_more_labels(rest, labels, label), labels)
    label = chosen[0] if chosen else None
    limit_match = _LIMIT_RE.search(rest)
    limit = int(next(n for n in limit_match.groups() if n)) if limit_match and not counted else None
    limit = kind_count or limit
    if limit_match:
        rest = rest[: limit_match.start()] + " " + rest[limit_match.end() :]
    rest = re.sub(r"\b(?:search|look(?:ing)?)\s+for\b", "search", rest, flags=re.IGNORECASE)
    query_match = _QUERY_LEAD_RE.search(rest)
    if query_match:
        query = query_match.group("q")
        outside = rest[: query_match.start()]
    else:
        words = re.findall(r"[\w:.'-]+", rest)
        query = " ".join(
            word for word in words if word.lower().strip(".,?!;:'\"").replace("'", "") not in _SEARCH_FILLER
        )
        outside = rest
    query = _topic_alone(query)
    if all(word.lower() in _SEARCH_FILLER for word in re.findall(r"[\w']+", query)):
        query = ""  # `with the comp:docs label`: the label was the whole topic
    if not chosen and labels and not unlabelled:
        query = _kind_without_label(rest, query, notes)
    return Search(
        query=query or None,
        state=_state_in(outside + " " + (query_match.group("q") if query_match else "")[len(query) :]),
        label=label,
        labels=tuple(chosen[1:]),
        limit=limit,
        count=bool(counted),
        unlabelled=bool(unlabelled),
        order=None if counted else order,
        **filters,
    )


def _topic_alone(query: str) -> str:
    """The topic without what is said of the issues after it (`… that's still open`), a kind noun or an article."""
    query = re.sub(
        r"\s+(?:that|which)(?:'s|'re|\s+(?:are|were|is))\s+(?:still\s+)?(?:open|closed)\b.*$", "", query, flags=re.I
    )
    query = re.sub(r"\s+(?:issues|bugs|tickets)$", "", query.strip().rstrip("?.!"), flags=re.IGNORECASE)
    return strip_quotes(re.sub(r"^(?:the|a|an)\s+", "", query.strip(), flags=re.IGNORECASE))


def _state_in(text: str) -> str | None:
    """`open` or `closed` when the words outside the topic say one of them (and not the other)."""
    opened = re.search(r"\b(open|unresolved)\b", text, re.IGNORECASE)
    closed = re.search(r"\b(closed|resolved|fixed)\b", text, re.IGNORECASE)
    return "open" if opened and not closed else "closed" if closed and not opened else None


def _with_kind(chosen: list[str], rest: str, labels: Sequence[str]) -> tuple[list[str], str]:
    """`feature requests about streaming`: the label a kind's words mean, beside the label named."""
    if not chosen:
        return chosen, rest
    meant, rest_after = _meant_label(rest, labels)
    if meant is None or meant in chosen:
        return chosen, rest
    return sorted([*chosen, meant], key=lambda name: issues_carrying(labels, name)), rest_after


def _kind_without_label(rest: str, query: str, notes: list[str]) -> str:
    """`open bugs` on a project with no label meaning bug: the word is searched, and the answer says why."""
    kind = _KIND_NOUN_RE.search(rest)
    if kind is None:
        return query
    said = kind.group(0).lower()
    instead = "searched your other words" if query else "searched for the word instead"
    notes.append(f"This project has no label that means {said}; I {instead}.")
    return query or re.sub(r"s$", "", said)


def _more_labels(rest: str, labels: Sequence[str], label: str | None) -> tuple[list[str], str]:
    """Every label the words name (the one found first included), the most specific (on fewest issues) first;
    their words out."""
    found = [label] if label else []
    lead = _QUERY_LEAD_RE.search(rest)
    scope = rest[: lead.start()] if lead else rest
    by_a_word = {(hit.start, hit.label) for hit in labels_in_words(scope, labels) if not hit.exact}
    for ref in reversed(label_refs(scope, labels, distinctive=True)):
        rare = (ref.start, ref.label) in by_a_word and not _in_use(labels, ref.label)
        if ref.known and ref.label not in found and not rare:
            found.append(ref.label)
            rest = rest[: ref.start] + " " + rest[ref.end :]
    if len(found) > 1:
        for name in found:
            for word in re.findall(r"[a-z0-9]+", label_value(name).lower()):
                rest = re.sub(rf"\b{re.escape(word)}s?\b", " ", rest, flags=re.IGNORECASE)
    return sorted(found, key=lambda name: issues_carrying(labels, name)), rest


def wants_search(text: str, people: ProjectPeople | None = None) -> bool:
    """Whether the words ask for issues by topic, state, label or author, or for what was filed in a time."""
    return bool(
        _SEARCH_NOUN_RE.search(text)
        or names_people_or_days(text, people)
        or _SEARCH_VERB_RE.search(text)
        or _LABEL_FILTER_RE.search(text)
        or NO_LABEL_RE.search(text)
        or ORDER_RE.search(text)
        or re.search(
            r"\bwhat'?s\s+(?:still\s+)?(?:open|closed)\b|\bquestions\b|\bwhich\s+(?:issue|ticket|bug)\b"
            r"|^\s*(?:the\s+)?(?:ones\s+)?(?:labell?ed|tagged)\b",
            text,
            re.I,
        )
    )
