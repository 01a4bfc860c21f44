"""Deciding what one request does, for the offline planner's frame parser.

The act comes from the request's cue words (the grammar: add, remove, drop, comment, reply, if,
still, how many, newest …) and its entities (issues, labels, quoted text). A side effect is planned
only when a request says so in the imperative, names the issue (or follows one that did) and names
what to do with it; a question about an action ("should #41 be S1?") is answered by reading.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

from atlas.foundation.label_names import resolve_label
from atlas.offline.acts.act import ISSUE_PRONOUN_RE, LEAD, PRONOUN_RE, QUESTION_RE, SUGGEST_RE, Act, Intent, targets
from atlas.offline.acts.backlog import backlog_act, plan_for_found_before
from atlas.offline.acts.comments import COMMENT_RE, DRAFT_RE, ISSUE_QUOTE_RE, comment_act, comment_help, draft_act
from atlas.offline.acts.conditions import (
    CONDITION_RE,
    OTHERWISE_RE,
    also,
    conditional,
    if_so,
    only_the,
    otherwise,
    whichever,
)
from atlas.offline.acts.docs import DOC_ASK_RE, DOCS_RE, MEANING_RE, doc_ask, label_meaning
from atlas.offline.acts.labels import label_change, label_help
from atlas.offline.acts.narrowing import narrowed
from atlas.offline.acts.project_labels import label_list_act
from atlas.offline.acts.searches import STATE_RE, only_filters, ordered, search_act
from atlas.offline.acts.tally import tally_act
from atlas.offline.acts.topic_asks import topic_action_act, topic_ask_act
from atlas.offline.acts.unsupported import CLOSER_RE, beside_labels, unsupported
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.authors_and_days import names_people_or_days
from atlas.offline.reading.entities import action_targets, issue_refs
from atlas.offline.reading.frames import Request, quoted_texts
from atlas.offline.reading.issue_refs import CODE_RE
from atlas.offline.reading.label_lists import LABEL_LEAD
from atlas.offline.reading.label_usage import example_label
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.likeness import ABOUT_THE_ONE_BEFORE_RE, REPORTED_BEFORE_RE, SIMILAR_RE
from atlas.offline.reading.ordering import ORDER_RE
from atlas.offline.reading.search import Search, alternatives, asks_count, search_in
from atlas.offline.reading.search_labels import QUERY_LEAD_RE
from atlas.offline.reading.unread_filters import SINCE_RELEASE_RE
from atlas.offline.reading.vocabulary import Vocabulary

_THANKS_RE = lazy(r"^\s*(?:(?:ok(?:ay)?|great|perfect|cool)[,!.\s]+)?(?:thanks|thank\s+you|thx|cheers)\b", re.I)
_SAME_RE = lazy(
    r"\b(?:the\s+)?same(?:\s+(?:comment|text|message|note|reply|thing|words))?\s+(?:on|to|under|for|in)\b"
    r"|\b(?:post|leave|put|add|do|repeat|copy|apply)\s+(?:it|that|this)\s+(?:on|to|under)\s+(?:issue\s+)?#?\d",
    re.I,
)
"""The action just before, again: `the same on 87`, `post it on #92 too`."""
_SYMPTOM_ASK_RE = lazy(
    r"\bthere\s+(?:is|are)\s+(?:already\s+)?(?:(?:an?|any)\s+)?(?:\w+\s+)?(?:issues?|tickets?|bugs?|reports?)\b"
    r"|\bknown\s*\w*\s*\?|\b(?:issue|ticket)s?\s*\?\s*$"
    r"|\b(?:somebody|someone|anyone|anybody)\s+(?:else\s+)?(?:\w+\s+){0,2}?(?:this|it|that)\s+before\b"
    r"|\bany(?:one|body)\s+(?:else\s+)?(?:asked|had|requested)\b"
    r"|\b(?:did|has|have)\s+(?:somebody|someone|anyone|anybody)\s+(?:else\s+)?(?:already\s+(?:report|file|raise|mention)"
    r"(?:ed)?\b|(?:report|file|raise|mention)(?:ed)?\s+that\b)"
    r"|\b(?:is|are)\s+there\s+(?:already\s+)?(?:an?|any)\s+(?:\w+\s+)?(?:issues?|tickets?|bugs?|reports?)\b|\bknown\s*(?:issue|bug|problem)?\s*\?"
    r"|\b(?:is\s+(?:this|that|it)\s+)?(?:already\s+)?(?:tracked|filed|reported|logged)\b|\bseen\s+(?:\w+\s+)?before\b"
    r"|\b(?:has\s+)?any(?:one|body)\s+(?:else\s+)?(?:reported|raised|filed|seen|hit)\b|\braised\s+(?:this\s+)?before\b"
    r"|\b(?:do|did)\s+we\s+(?:already\s+)?have\s+(?:an?|any)\s+(?:issue|ticket)|\bissue\s+(?:i|we)\s+can\s+(?:point|link)\b"
    r"|\bknown\s+(?:issue|bug|problem)\b|\bexisting\s+(?:issue|ticket)\b|\bwhich\s+(?:issue|ticket)\s+is\s+(?:this|it)\b",
    re.I,
)
_KIND_FILED_RE = lazy(
    r"\bany\s+(?:[\w-]+\s+)?(?:issues|bugs|tickets|reports|feature\s+requests)\s+(?:been\s+)?(?:filed|reported|opened"
    r"|raised|logged)\s+(?:about|on|for|regarding|mentioning|since|after|before|in)\b",
    re.I,
)
_ONLY_VERB_RE = lazy(
    LEAD + r"(?:label|tag|mark|do|fix|change|update)\s+(?:it|this|that|them|both)(?:\s+(?:accordingly|too|as\s+well|"
    r"please|pls|then|now))*\s*[.!?]*\s*",
    re.I,
)
_RANKING_RE = lazy(r"\b(?:most|top|rank(?:ed|ing)?|leaderboard)\b", re.I)
_READ_START_RE = lazy(LEAD + r"(?:show|open|read|pull|get|grab|fetch|look\s+at|check|see|display)\b", re.I)


@dataclass(frozen=True)
class Reading:
    """One request as the recognisers see it: its words (corrected), the issues named before, the project."""

    request: Request
    text: str
    context: Sequence[int]
    vocabulary: Vocabulary
    tools: frozenset[str]
    before: Act | None
    earlier: Sequence[int]

    @property
    def typed(self) -> str:
        return self.request.unmasked()

    @property
    def unmasked(self) -> str:
        """The corrected words with what was quoted put back (`who reports the most "dataset bug" issues?`)."""
        return self.request.unmasked(self.text)

    @property
    def asks(self) -> bool:
        """Said as a question: answered by reading, never by an action."""
        return bool(QUESTION_RE.match(self.text))

    @property
    def names_issues(self) -> bool:
        return bool(issue_refs(self.text))


def _closing_remark(r: Reading) -> Act | None:
    """`thanks, that's everything for this audit`: asks for nothing."""
    closing = _THANKS_RE.match(r.text) and "?" not in r.text and not r.names_issues and not CODE_RE.search(r.text)
    return Act(Intent.NOTHING, r.typed) if closing else None


_MENTION_ONLY_RE = lazy(
    r"^\s*(?:also\s+|and\s+)?(?:ping|cc|mention|tag|notify|loop\s+in)\s+(?P<who>@[\w-]+(?:\s*(?:,|and|&)\s*@[\w-]+)*)"
    r"(?:\s+(?:in|on)\s+(?:it|there|the\s+comment))?\s*[.!]*$",
    re.I,
)


def _mention_in_comment(r: Reading) -> Act | None:
    """`comment on 4709 saying … and ping @Muennighoff`: the people pinged are named in that comment."""
    before = r.before
    if not r.request.joined or before is None or before.intent is not Intent.COMMENT or not before.comments:
        return None
    if not (said := _MENTION_ONLY_RE.match(r.text)):
        return None
    who = " ".join(re.findall(r"@[\w-]+", said.group("who")))
    before.comments[:] = [(issue_id, f"{body} (cc {who})") for issue_id, body in before.comments]
    return Act(Intent.NOTHING, r.typed)


def _quoted_on_issue(r: Reading) -> Act | None:
    """`87: 'backoff fix lands in 2.8.4'`: an issue and the text to post on it."""
    if not (terse := ISSUE_QUOTE_RE.match(r.text)) or len(quoted_texts(r.request)) != 1:
        return None
    issue_id = int(terse.group(1))
    return Act(Intent.COMMENT, r.typed, targets=[issue_id], comments=[(issue_id, quoted_texts(r.request)[0])])


def _comment(r: Reading) -> Act | None:
    if not COMMENT_RE.match(r.text) or DRAFT_RE.search(r.text):
        return None
    if act := comment_act(r.request, r.text, r.context):
        return only_the(r.text, act)
    ids = targets(r.text, r.context)
    return None if r.asks else Act(Intent.NOTHING, r.typed, notes=[comment_help(ids)], wants_text=bool(ids))


def _acted_on(r: Reading, named: Callable[[str], str]) -> Act | None:
    """The label or comment act of the request with its topic's issue named (`topic_asks.topic_action_act`)."""
    said = replace(r, request=Request(named(r.request.text), r.request.quoted), text=named(r.text), context=())
    conditional = _conditional_act(said.request, said.text, (), said.vocabulary, None)
    return conditional or _comment(said) or _labels(said)


def _labels(r: Reading) -> Act | None:
    if r.asks:
        return None
    shown = _labels_shown(r.request, r.text, r.vocabulary.labels)
    act = label_change(shown, r.context, r.vocabulary.labels, r.before.text if r.before else "")
    if act is None:
        return label_help(r.request.unmasked(r.text), r.context, r.vocabulary.labels)
    act.notes += [note for note in beside_labels(r.text) if note not in act.notes]
    return only_the(r.text, act)


def _ranking(r: Reading) -> Act | None:
    """`who reported the most bugs?`: a ranking no search makes, said in a note."""
    if not _RANKING_RE.search(r.text) or r.names_issues:
        return None
    act = _lookup(r)
    return act if act.intent is Intent.NOTHING and act.notes else None


def _about_issue(r: Reading) -> bool:
    # `explain the codes it cites` after `show 41`: about the issue named before, not a doc ask.
    return r.names_issues or bool(r.context and ISSUE_PRONOUN_RE.search(r.text))


def _doc_named(r: Reading) -> Act | None:
    """`which doc explains how many connections …`: a doc named as what is wanted comes before a count."""
    if not DOCS_RE.search(r.text) or _about_issue(r) or CODE_RE.search(r.text):
        return None
    return doc_ask(r.text, r.vocabulary, r.before)


def _doc_asked(r: Reading) -> Act | None:
    if not DOC_ASK_RE.search(r.text) or _about_issue(r) or CODE_RE.search(r.text):
        return None
    return doc_ask(r.text, r.vocabulary, r.before)


def _count(r: Reading) -> Act | None:
    if not asks_count(r.text) or r.names_issues:
        return None
    notes: list[str] = []
    search = search_in(r.request.unmasked(r.text), notes, r.vocabulary.labels, r.vocabulary.people)
    return Act(Intent.COUNT, r.typed, search=search, notes=notes)


_LABELLED_RE = lazy(LABEL_LEAD + r"(?:both\s+)?[\"'`]?\w", re.I)
"""A label named as a filter (`labelled streaming`, `with the label "dataset bug"`)."""


def _symptom(r: Reading) -> Act | None:
    # `any open streaming issues?`: a state asked for is a search, where a symptom is never open or closed.
    filtered = (
        names_people_or_days(r.text, r.vocabulary.people)
        or STATE_RE.search(r.text)
        or SINCE_RELEASE_RE.search(r.text)
        or only_filters(r.text, r.vocabulary.labels)  # `any good first issues?`: a label asked for
        or _LABELLED_RE.search(r.text)  # `any issues labelled both bug and streaming?`: labels asked for
        or _KIND_FILED_RE.search(r.text)  # `were any bugs filed about the 3.2.0 release?`: issues of a kind sought
        or ((lead := QUERY_LEAD_RE.search(r.text)) and alternatives(r.text[lead.start("q") :]))  # `about X, Y or Z`
    )
    # `What is ORB-1601, and is a 403 reported under it?`: a code named is looked up, not searched as a symptom
    asked = _SYMPTOM_ASK_RE.search(r.text) and not r.names_issues and not filtered and not CODE_RE.search(r.text)
    return Act(Intent.SYMPTOM, r.typed) if asked else None


def _search_before(r: Reading) -> Search | None:
    return r.before.search if r.before is not None else None


def _verb_served(r: Reading) -> Act | None:
    """`#77 needs S2, label it`: the verb the request before already served."""
    return Act(Intent.NOTHING, r.typed) if r.context and _ONLY_VERB_RE.fullmatch(r.text) else None


RECOGNISERS: tuple[Callable[[Reading], Act | None], ...] = (
    _closing_remark,
    lambda r: None if r.names_issues else topic_action_act(r.typed, r.text, r.vocabulary, partial(_acted_on, r)),
    lambda r: _conditional_act(r.request, r.text, r.context, r.vocabulary, r.before),
    _mention_in_comment,
    _quoted_on_issue,
    lambda r: _same_again(r.text, r.typed, r.before),
    lambda r: draft_act(r.request, r.text, r.context),
    _comment,
    _labels,
    lambda r: _lookup(r) if CLOSER_RE.search(r.text) else None,
    lambda r: plan_for_found_before(r.text, r.typed, _search_before(r)),
    lambda r: backlog_act(r.text, r.typed, r.vocabulary.labels, r.vocabulary.people),
    lambda r: None if r.names_issues else tally_act(r.unmasked, r.typed, r.vocabulary, r.tools, _search_before(r)),
    lambda r: label_list_act(r.text, r.typed, r.names_issues),
    lambda r: _triage_read(r.text, r.context, r.tools, r.earlier),
    lambda r: label_meaning(r.text, r.vocabulary) if MEANING_RE.search(r.text) and not r.names_issues else None,
    _ranking,
    _doc_named,
    lambda r: narrowed(r.text, r.typed, r.before, r.vocabulary),
    lambda r: ordered(r.text, r.vocabulary) if ORDER_RE.search(r.text) and not r.names_issues else None,
    _count,
    _symptom,
    _doc_asked,
    lambda r: None if r.names_issues else topic_ask_act(r.typed, r.text, r.vocabulary),
    lambda r: None if r.names_issues else search_act(r.request, r.text, r.vocabulary),
    _verb_served,
)
"""The recognisers in order: the first that knows the request decides its act; an action comes before a read
of the same words, a doc named before a count, and a lookup is what is left."""


def act_of(
    request: Request,
    text: str,
    context: Sequence[int],
    vocabulary: Vocabulary,
    tools: frozenset[str],
    before: Act | None,
    earlier: Sequence[int] = (),
) -> Act:
    """What the request does: the act of the first recogniser that knows it, else a lookup."""
    reading = Reading(request, text, context, vocabulary, tools, before, earlier)
    for recognise in RECOGNISERS:
        if act := recognise(reading):
            return act
    return _lookup(reading)


def _lookup(r: Reading) -> Act:
    """A request to read what it names, less what no tool can do (said in a note); nothing left, nothing to read."""
    notes: list[str] = []
    rest = unsupported(r.typed, notes, example_label(r.vocabulary.labels))
    if notes and not re.search(r"\w", rest):
        return Act(Intent.NOTHING, r.typed, notes=notes)
    ids = issue_refs(r.text) if _READ_START_RE.match(r.text) else []
    return Act(Intent.LOOKUP, rest, issue_ids=ids, notes=notes)


def _labels_shown(request: Request, text: str, labels: Sequence[str]) -> str:
    """`label #87 with 'severity:S2'`: a quoted text that is one of the project's labels is that label."""

    def shown(match: re.Match[str]) -> str:
        quoted = request.quoted[int(match.group(1))]
        return quoted if resolve_label(quoted, labels) else match.group(0)

    return re.sub(r"\"Q(\d+)\"", shown, text)


def _same_again(text: str, typed: str, before: Act | None) -> Act | None:
    """`… and post the same on 87`, `same comment on #87 and #92`, `label 41 comp:core and the same on 87`: what the
    request just before did (its comment, else its labels), on the issues this one names."""
    ids = action_targets(text)
    if before is None or not ids or not _SAME_RE.search(text) or not (before.comments or before.labels):
        return None
    if before.comments:
        body = before.comments[-1][1]
        return Act(Intent.COMMENT, typed, targets=ids, comments=[(issue_id, body) for issue_id in ids])
    labels = list(dict.fromkeys(label for _, label in before.labels))
    return Act(Intent.LABELS, typed, targets=ids, labels=[(issue_id, label) for issue_id in ids for label in labels])


def _conditional_act(
    request: Request, text: str, context: Sequence[int], vocabulary: Vocabulary, before: Act | None
) -> Act | None:
    """A request that waits for a check: its own condition, or the one of the request before."""
    if before is not None and before.intent is Intent.CONDITIONAL:
        if lead := OTHERWISE_RE.match(text):
            return otherwise(request, text[lead.end() :], before, vocabulary)
        if request.joined and not CONDITION_RE.search(text) and (act := also(request, text, before, vocabulary)):
            return act
    if before is not None and (act := if_so(request, text, context, before, vocabulary)):
        return act
    if act := whichever(request, text, context, vocabulary):
        return act
    if CONDITION_RE.search(text):
        return conditional(request, text, context, vocabulary)
    return None


def _triage_read(text: str, context: Sequence[int], tools: frozenset[str], earlier: Sequence[int] = ()) -> Act | None:
    """`is #109 a duplicate?`, `what labels fit #130?`; with no issue named, `and the similar ones?` asks about the
    issue of the request before, or of the conversation's earlier messages."""
    ids = issue_refs(text) or (list(context) if PRONOUN_RE.search(text) else [])
    if not ids and ABOUT_THE_ONE_BEFORE_RE.search(text):
        ids = list(context or earlier)[:1]
    if not ids:
        return None
    asked = ["suggest_labels"] if SUGGEST_RE.search(text) else []
    if (SIMILAR_RE.search(text) or REPORTED_BEFORE_RE.search(text)) and len(issue_refs(text)) < 2:
        asked.append("find_similar")  # `is 42 the same as 10?` names both: reading them answers it
    if not asked:
        return None
    act = Act(Intent.LOOKUP, text, issue_ids=ids[:1])
    act.reads = [PlannedCall(tool, {"issue_id": ids[0]}) for tool in asked if tool in tools]
    if "find_similar" in asked and (state := STATE_RE.search(text)):  # `similar issues to 7419 that are still open`
        wanted = state.group(0).lower()
        act.notes.append(
            f"Similar issues are ranked among all issues, open and closed; I cannot keep only the {wanted} ones, but "
            "each one's state is shown."
        )
    return act
