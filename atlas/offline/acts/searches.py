"""Requests said as a search, for the offline planner's frame parser: `anything open about backfills?`, `find
closed bugs mentioning Postgres`, `open S1s?`, and searches in an order (`the oldest open bug`, read after).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from atlas.offline.acts.act import LEAD, PRONOUN_RE, RELATIVE_RE, SUGGEST_RE, Act, Intent
from atlas.offline.acts.docs import DOCS_RE
from atlas.offline.acts.later import SOMEWHERE, Later
from atlas.offline.plan import PlannedCall, codes_in
from atlas.offline.reading.authors_and_days import names_people_or_days, people_and_days
from atlas.offline.reading.entities import LabelRef, label_refs
from atlas.offline.reading.frames import Request
from atlas.offline.reading.labels import LabelHit, labels_in_words
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.likeness import SIMILAR_RE
from atlas.offline.reading.search import search_in, wants_search
from atlas.offline.reading.search_clauses import IN_THEIR_TEXT_RE, without_idle
from atlas.offline.reading.search_labels import label_named_first, named_label, one_of_a_label
from atlas.offline.reading.unread_filters import names_unread
from atlas.offline.reading.vocabulary import Vocabulary

STATE_RE = lazy(r"\b(?:still\s+)?(?:open|closed)\b", re.I)
_READ_VERB_RE = lazy(r"\b(?:open|show|read|pull|get|display|see|what'?s|whats|what\s+is)\b", re.I)
_ANYTHING_RE = lazy(
    LEAD + r"(?:is\s+there\s+|do\s+we\s+have\s+|got\s+|(?:did|has|is)\s+)?(?:anything|something"
    r"|any\s+(?:issues?|tickets?|reports?|bugs?)|(?:any|some)(?:one|body)\s+(?:else\s+)?(?:already\s+)?(?:been\s+)?(?:complain|report|ask|talk|writ|mention|see|hit"
    r"|hav|run\w*\s+into)\w*(?:\s+(?:problems?|issues?|trouble|errors?|crash(?:es)?|failures?)(?=\s+with\b))?)"
    r"(?:\s+(?P<new>new|recent))?(?:\s+(?:still\s+)?(?P<state>open|closed|filed|in\s+the\s+tracker))?"
    r"(?:\s+(?:that|which)(?:'s|\s+is|\s+are))?\s+"  # `anything open that's about a regression?`
    r"(?:about|on|regarding|mentioning|related\s+to|for|around|with)\s+",
    re.I,
)
_SEARCHY_RE = lazy(
    LEAD + r"(?:(?:i|we)(?:\s+am|'m|\s+are|'re)?\s+(?=search|look))?"  # `I'm looking for …`
    r"(?:search(?:ing)?|find|look(?:ing)?|list|show|give|get|dig\s+up|track\s+down|hunt\s+down|round\s+up|share"
    r"|any|anything|everything|every|something|stuff|are|is|what|which|how|where|open"
    r"|closed|all|do\s+we|have\s+we|gibt|hay"
    r"|(?:did|has|have|does)(?=\s+@?[\w.-]+\s+(?:file|open|report|raise|create|submit|post|write)\w*\b)"
    r"|tell\s+me\s+about|summari[sz]e)\b"
    r"|^\s*(?:[\w:-]+\s+){0,3}?(?:issues|bugs|tickets|reports|requests)\b"
    r"|\w.*?(?:\s+-+|[,;:])\s+(?:(?:are|is)\s+there\s+)?any\s+(?:(?:open|closed|new|recent|existing)\s+)?"
    r"(?:issues|bugs|tickets|reports)\b",  # `OOM in map - any open reports?`: the topic said first
    re.I,
)
"""A request said as a search: a verb that asks for issues, or a plural naming them first (`S2 bugs that …`)."""


_ISSUE_NOUN_RE = lazy(r"\b(?:issues|bugs|tickets|reports|requests|enhancements)\b", re.I)
_LIKE_QUOTED_RE = lazy(
    LEAD + r"(?:(?:find|search|show(?:\s+me)?|list|any|are\s+there|is\s+there)\s+)*(?:(?:any|an|the)\s+)?"
    r"(?:(?:anything|something|issues?|tickets?|bugs?|reports?|ones?)\s+)?"
    r"(?:(?:that\s+(?:is|are|looks?)\s+)?(?:similar|related)(?:\s+(?:issues?|tickets?|bugs?|reports?|ones?))?\s+to|like"
    r"|(?:dupes?|dups?|duplicates?)\s+(?:of|for)"
    r"|(?:the\s+)?same\s+as)\s+(?=\"Q\d+\")",
    re.I,
)
"""`similar to 'KeyError …'`, `similar issues to "map is slow"`, `dupes of "load_dataset hangs"`: issues like a text
quoted, no issue named."""


_FIND_QUOTED_RE = lazy(
    LEAD + r"(?:find|search(?:\s+for)?|grep(?:\s+for)?|look\s+(?:up|for))\s+(?:(?:issues?|tickets?|bugs?)\s+"
    r"(?:for|with|mentioning|containing)\s+)?(?P<quote>\"Q\d+\")(?P<after>.*)$",
    re.I | re.S,
)
"""`find "slow with num_proc"`: the quoted words are what is sought, whatever words they hold."""


def search_act(request: Request, text: str, vocabulary: Vocabulary) -> Act | None:
    """`anything open about backfills?`, `find closed bugs mentioning Postgres`, `open S1s?`."""
    notes: list[str] = []
    typed = request.unmasked()
    if like := _LIKE_QUOTED_RE.match(text):  # the quoted words are the topic, as after `issues similar to`
        search = search_in(request.unmasked("issues similar to " + text[like.end() :]), notes, vocabulary.labels)
        return Act(Intent.SEARCH, typed, search=search, notes=notes)
    if sought := _FIND_QUOTED_RE.match(text):  # the same, sought as they are: no label read inside them
        words = f"issues {sought['after']} about {sought['quote']}"  # `… in open bugs`: the filters said after it
        search = search_in(request.unmasked(words), notes, vocabulary.labels, vocabulary.people)
        return Act(Intent.SEARCH, typed, search=search, notes=notes)
    if (match := _ANYTHING_RE.match(text)) and not DOCS_RE.search(text):
        state = match.group("state")
        lead = f"{state} about " if state in {"open", "closed"} else "about "  # `anything open on …`: still open
        words = _ANYTHING_RE.sub(lead, text, count=1)
        search = search_in(request.unmasked(words), notes, vocabulary.labels, vocabulary.people)
        if match.group("new") and search.order is None and not (search.created_since or search.updated_since):
            search = replace(search, order="newest")  # `anything new about webdataset?`: the newest first
        return Act(Intent.SEARCH, typed, search=search, notes=notes)
    if _is_search(text, vocabulary):
        search = search_in(request.unmasked(text), notes, vocabulary.labels, vocabulary.people)
        return Act(Intent.SEARCH, typed, search=search, notes=notes, codes=codes_in(typed))
    return None


_ASKED_OF_IT_RE = lazy(
    r"\b(?:(?:similar|related)(?:\s+(?:issues?|ones?))?|duplicates?|dupes?|dups?)\s+(?:to|of|for)\b"
    r"|\b(?:suggest|propose)\s+(?:some\s+)?labels?\s+(?:for|on)\b",
    re.I,
)
"""What is asked of the one issue an order names (`similar issues to the oldest open bug`): no topic."""


_NUMBER_WORDS = {"two": "2", "three": "3", "four": "4", "five": "5", "both": "2"}
_COMPARED_RE = lazy(
    LEAD + r"(?:compare|contrast|diff)\s+(?:the\s+)?(?P<n>two|three|four|five|[2-5])(?=\s+(?:\w+\s+)?"
    r"(?:oldest|newest|latest|most\s+recent|earliest|most\s+commented|least\s+recently)\b)",
    re.I,
)
"""`compare the two oldest open bugs`: a few issues chosen by an order, to be set side by side (at most five)."""


def ordered(text: str, vocabulary: Vocabulary) -> Act:
    """`the 3 newest issues about parquet`, `oldest open bug?`: a search sorted as said; one issue asked for
    (`the oldest open bug`) is read in full after."""
    notes: list[str] = []
    if compared := _COMPARED_RE.match(text):  # `compare the two oldest open bugs`: that many, read side by side
        count = int(_NUMBER_WORDS.get(compared.group("n").lower(), compared.group("n")))
        search = search_in(text[compared.end() :], notes, vocabulary.labels, vocabulary.people)
        act = Act(Intent.ORDERED, text, search=replace(search, limit=count), notes=notes)
        act.later.append(Later(read_first_hit=True, compared=count))
        return act
    # `open the oldest bug` asks to read it; `open speech issues, oldest first` asks for open ones.
    verb = r"(?:show|read|pull\s+up|get|display|open(?=\s+(?:me|up|the|a|an|our|my)\b))\b"
    words = _ASKED_OF_IT_RE.sub(" ", re.sub(LEAD + verb, " ", text, flags=re.I))
    # The topic stays (`the 3 newest issues about parquet`): without it the newest issues of any topic would pass
    # for an answer.
    search = search_in(words, notes, vocabulary.labels, vocabulary.people)
    unnamed = text  # `… without the good first issue label`: a label's name says no single issue
    folded = text.casefold()
    for name in (name for name in vocabulary.labels if " " in name and name.casefold() in folded):
        unnamed = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", unnamed, flags=re.I)
    singular = re.search(r"\b(?:issue|ticket|bug|one|report)\b(?!s)", unnamed, re.I) or one_of_a_label(
        text, vocabulary.labels
    )
    act = Act(Intent.ORDERED, text, search=search, notes=notes)
    if (singular and _READ_VERB_RE.search(text)) or (singular and not re.search(r"\d", text)):
        asked = "suggest_labels" if SUGGEST_RE.search(text) else "find_similar" if SIMILAR_RE.search(text) else None
        then = [PlannedCall(asked, {"issue_id": SOMEWHERE})] if asked else []  # `suggest labels for the newest …`
        act.later.append(Later(read_first_hit=True, on_first_hit=then))
    return act


def _spelled_whole(hit: LabelHit, text: str) -> bool:
    """A label of several words said as it is spelled (`good first issue`): no other words are read that way."""
    return hit.literal and len(text[hit.start : hit.end].split()) > 1


def only_filters(text: str, labels: Sequence[str]) -> bool:
    """`open S1s?`, `are there any open S1s since Monday?`, `closed comp:api`: nothing but a state, labels, an
    author or a time, asked for or asked about, which is a search."""
    named, text = named_label(text, labels)  # `everything labelled good first issue`: after a label word
    refs = [ref for ref in label_refs(text, labels, words=False) if ref.known]
    # `open dataset requests`: a label named whole in words, with a state; `any good first issues?`: a label of
    # several words, spelled as it is (one word, as `docs` in `list docs`, is as often a noun)
    state = bool(STATE_RE.search(text))
    refs += [
        LabelRef(hit.label, hit.start, hit.end)
        for hit in labels_in_words(text, labels)
        if hit.exact and (state or _spelled_whole(hit, text))
    ]
    if not refs and named not in labels:
        return False
    rest = text
    for ref in sorted(refs, key=lambda r: -r.start):
        rest = rest[: ref.start] + " " + rest[ref.end :]
    rest, _ = people_and_days(rest, [])
    return not _FILTER_FILLER_RE.sub("", rest)


_FILTER_FILLER_RE = lazy(
    r"\b(?:open|closed|all|any|the|list|show|me|and|or|please|pls|issues?|ones?|are|is|there|do|we|have|got|only|just|"
    r"anything|everything|still|with|labell?ed|tagged|label|what|which|rn|now|currently|right|too|also)\b|[^\w]",
    re.I,
)
"""Words that ask whether issues exist or to see them: `are there any`, `still`, `rn`, `only` (`list bug, only
open`)."""


def _is_search(text: str, vocabulary: Vocabulary) -> bool:
    """A request for issues by words, state or label, said as a search (`find …`, `any open …`, `open S1s?`)."""
    if only_filters(without_idle(text), vocabulary.labels):  # `open enhancements nobody has touched`
        return True
    # A state beside a time or an author (`stuff opened before 2021 that's still open`) is a filter, said any way.
    filtered = bool(STATE_RE.search(text) and names_people_or_days(text, vocabulary.people))
    asked = bool(_SEARCHY_RE.match(text)) or len(text.split()) <= 5 or filtered or names_unread(text)
    said, _ = people_and_days(
        RELATIVE_RE.sub(" ", IN_THEIR_TEXT_RE.sub(" ", text)), []
    )  # `with X in them`: no reference
    named = (
        wants_search(text, vocabulary.people)
        or any(_spelled_whole(hit, text) for hit in labels_in_words(text, vocabulary.labels))  # `some good first issue`
        or label_named_first(text, vocabulary.labels)
        or named_label(text, vocabulary.labels)[0] is not None  # `everything tagged dataset-viewer that's open`
    )
    pointed = PRONOUN_RE.search(said)  # `show them`: issues named before; `open issues … list them all`: these
    return named and asked and not (pointed and not _ISSUE_NOUN_RE.search(said, 0, pointed.start()))
