"""Deciding what one request does, for the offline planner's frame parser.

The act comes from the request's cue words (the grammar: add, remove, drop, comment, reply, if,
still, how many, newest …) and its entities (issues, labels, quoted text). A side effect is planned
only when a request says so in the imperative, names the issue (or follows one that did) and names
what to do with it; a question about an action ("should #41 be S1?") is answered by reading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from atlas.label_names import resolve_label
from atlas.offline.act import LEAD, PRONOUN_RE, Act, targets
from atlas.offline.backlog import backlog_act
from atlas.offline.comments import COMMENT_RE, DRAFT_RE, ISSUE_QUOTE_RE, comment_act, comment_help, draft_act
from atlas.offline.conditions import (
    CONDITION_RE,
    OTHERWISE_RE,
    also,
    conditional,
    if_so,
    only_the,
    otherwise,
    whichever,
)
from atlas.offline.entities import action_targets, issue_refs, label_refs
from atlas.offline.frames import Request, quoted_texts
from atlas.offline.issue_refs import CODE_RE
from atlas.offline.label_acts import label_change, label_help
from atlas.offline.later import Later
from atlas.offline.lazy import lazy
from atlas.offline.plan import PlannedCall, codes_in, doc_aliases, docs_in, read_lookups
from atlas.offline.requests import cannot_do
from atlas.offline.search import Search, names_people_or_days, people_and_days, search_in, wants_search
from atlas.offline.sections import content_words, heading_name
from atlas.offline.topics import best_section
from atlas.offline.vocabulary import Vocabulary

QUESTION_RE = lazy(
    r"^\s*(?:what|which|should|would|does|do|is|are|how|why|who|when|has|have|did)\b|\b(?:what|which)\s+labels?\b", re.I
)
_THANKS_RE = lazy(r"^\s*(?:(?:ok(?:ay)?|great|perfect|cool)[,!.\s]+)?(?:thanks|thank\s+you|thx|cheers)\b", re.I)
_NEWEST_RE = lazy(r"\b(?:newest|latest|most\s+recent(?:ly)?|last\s+(?:filed|opened|reported|created))\b", re.I)
_READ_VERB_RE = lazy(r"\b(?:open|show|read|pull|get|display|see|what'?s|whats|what\s+is)\b", re.I)
_COUNT_RE = lazy(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b", re.I)
_SUGGEST_RE = lazy(
    r"\b(?:what|which)\s+labels?\b|\blabels?\s+(?:fit|suit|apply|would|should)|\bhow\s+(?:would|should)\s+(?:you|we|i)\s+"
    r"(?:label|tag|triage)\b|\b(?:suggest|propose)\s+(?:some\s+)?labels?\b",
    re.I,
)
_SIMILAR_RE = lazy(
    r"\b(?:duplicates?|dupes?|dup|similar|same\s+as|related\s+(?:issues?|to)|already\s+(?:reported|filed)\s+as)\b", re.I
)
_ABOUT_THE_ONE_BEFORE_RE = lazy(
    r"\b(?:similar|related|duplicate|dupe)\s+(?:ones?|issues?|tickets?|reports?|bugs?)\b|\bany\s+(?:duplicates|dupes)\b"
    r"|\b(?:duplicates|dupes)\s*\??\s*$|\b(?:ones?|issues?)\s+like\s+(?:it|this|that)\b"
    r"|\b(?:labels?\s+(?:would|should)\s+(?:fit|suit|apply)|suggest(?:ed)?\s+labels?)\s*\??\s*$",
    re.I,
)
"""A similar-issues or label question that names no issue: about the one talked of just before."""
_SAME_RE = lazy(
    r"\b(?:the\s+)?same(?:\s+(?:comment|text|message|note|reply|thing|words))?\s+(?:on|to|under|for|in)\b"
    r"|\b(?:post|leave|put|add|do|repeat|copy|apply)\s+(?:it|that|this)\s+(?:on|to|under)\s+(?:issue\s+)?#?\d",
    re.I,
)
"""The action just before, again: `the same on 87`, `post it on #92 too`."""
_SYMPTOM_ASK_RE = lazy(
    r"\bthere\s+(?:is|are)\s+(?:already\s+)?(?:an?|any)\s+(?:\w+\s+)?(?:issues?|tickets?|bugs?|reports?)\b"
    r"|\bknown\s*\w*\s*\?|\b(?:issue|ticket)s?\s*\?\s*$"
    r"|\b(?:somebody|someone|anyone|anybody)\s+(?:else\s+)?(?:\w+\s+){0,2}?(?:this|it|that)\s+before\b"
    r"|\bany(?:one|body)\s+(?:else\s+)?(?:asked|had|requested)\b"
    r"|\b(?:is|are)\s+there\s+(?:already\s+)?(?:an?|any)\s+(?:\w+\s+)?(?:issues?|tickets?|bugs?|reports?)\b|\bknown\s*(?:issue|bug|problem)?\s*\?"
    r"|\b(?:is\s+(?:this|that|it)\s+)?(?:already\s+)?(?:tracked|filed|reported|logged)\b|\bseen\s+(?:\w+\s+)?before\b"
    r"|\b(?:has\s+)?any(?:one|body)\s+(?:else\s+)?(?:reported|raised|filed|seen|hit)\b|\braised\s+(?:this\s+)?before\b"
    r"|\b(?:do|did)\s+we\s+have\s+(?:an?|any)\s+(?:issue|ticket)|\bissue\s+(?:i|we)\s+can\s+(?:point|link)\b"
    r"|\bknown\s+(?:issue|bug|problem)\b|\bexisting\s+(?:issue|ticket)\b|\bwhich\s+(?:issue|ticket)\s+is\s+(?:this|it)\b",
    re.I,
)
_MEANING_RE = lazy(r"\bmean(?:s|ing)?\b|\bwhat\s+(?:is|are)\b|\bdefin(?:e|ition)\b|\bstand\s+for\b", re.I)
_ONLY_VERB_RE = lazy(
    LEAD + r"(?:label|tag|mark|do|fix|change|update)\s+(?:it|this|that|them|both)(?:\s+(?:accordingly|too|as\s+well|"
    r"please|pls|then|now))*\s*[.!?]*\s*",
    re.I,
)
_ANYTHING_RE = lazy(
    LEAD
    + r"(?:is\s+there\s+|do\s+we\s+have\s+|got\s+)?(?:anything|something|any\s+(?:issues?|tickets?|reports?|bugs?))"
    r"(?:\s+(?:still\s+)?(?P<state>open|closed|filed|in\s+the\s+tracker))?\s+"
    r"(?:about|on|regarding|mentioning|related\s+to|for|around)\s+",
    re.I,
)
_DOCS_RE = lazy(r"(?<![:/-])\b(?:docs?|documentation|guide|manual|section|page)\b(?![:/-]\w)", re.I)
"""A doc named as what is wanted; `comp:docs` is a label, not a doc."""
_DOC_ASK_RE = lazy(
    r"(?<![:/-])\b(?:docs?|documentation|documented|document|guide|manual|page|section)\b(?![:/-]\w)|\bwhere\s+(?:do|does|is|are|can)\b"
    r"|\bhow\s+(?:(?:do|can|should|would|does)\s+)?(?:i|we|you|it|one)\b|\bhow\s+to\b|\bwhat\s+does\b.+\bdo\b"
    r"|\b(?:explains?|describes?|covers?)\b",
    re.I,
)
_RANKING_RE = lazy(r"\b(?:most|top|rank(?:ed|ing)?|leaderboard)\b", re.I)
_ISSUE_PRONOUN_RE = lazy(r"\b(?:it|its|them|both|that\s+one|this\s+one)\b", re.I)
"""`explain the codes it cites` after `show 41`: a request about the issue named before, not a doc ask."""
_ERROR_WORDS_RE = lazy(r"\b(?:errors?|codes?|exceptions?|fails?|failed|failing)\b", re.I)
_SEARCHY_RE = lazy(
    LEAD
    + r"(?:search|find|look|list|show|give|get|any|are|is|what|which|how|open|closed|all|do\s+we|have\s+we|gibt|hay)\b",
    re.I,
)
_DOC_REQUEST_RE = lazy(
    LEAD + r"(?:show|open|read|pull|get|grab|fetch|look|check|see|display|give|point|find|send|link|tell\s+me|where|"
    r"which|what|how|is|are|do|does|any)\b",
    re.I,
)
"""How a request for a doc starts when it is not a question: `point me to …`, `give me the short version …`."""
_READ_START_RE = lazy(LEAD + r"(?:show|open|read|pull|get|grab|fetch|look\s+at|check|see|display)\b", re.I)


def act_of(
    request: Request,
    text: str,
    context: Sequence[int],
    vocabulary: Vocabulary,
    tools: frozenset[str],
    before: Act | None,
    earlier: Sequence[int] = (),
) -> Act:
    """What the request does; a lookup unless its words ask for one of the acts below."""
    typed = request.unmasked()
    if _THANKS_RE.match(text) and "?" not in text and not issue_refs(text) and not CODE_RE.search(text):
        return Act("none", typed)  # `thanks, that's everything for this audit`: a closing remark asks for nothing
    if act := _conditional_act(request, text, context, vocabulary, before):
        return act
    if (terse := ISSUE_QUOTE_RE.match(text)) and len(quoted_texts(request)) == 1:
        issue_id = int(terse.group(1))  # `87: 'backoff fix lands in 2.8.4'`
        return Act("comment", typed, targets=[issue_id], comments=[(issue_id, quoted_texts(request)[0])])
    if act := _same_again(text, typed, before):
        return act
    if act := draft_act(request, text, context):
        return act
    if COMMENT_RE.match(text) and not DRAFT_RE.search(text):
        if act := comment_act(request, text, context):
            return only_the(text, act)
        if not QUESTION_RE.match(text):
            return Act("none", typed, notes=[comment_help(targets(text, context))])
    if not QUESTION_RE.match(text) and (
        act := label_change(
            _labels_shown(request, text, vocabulary.labels), context, vocabulary.labels, before.text if before else ""
        )
    ):
        return only_the(text, act)
    if not QUESTION_RE.match(text) and (act := label_help(text, context, vocabulary.labels)):
        return act
    if act := backlog_act(text, typed):
        return act
    if act := _triage_read(text, context, tools, earlier):
        return act
    if _MEANING_RE.search(text) and not issue_refs(text) and (act := _label_meaning(text, vocabulary)):
        return act
    notes: list[str] = []
    ranking = _RANKING_RE.search(text) and not issue_refs(text)
    if ranking and (rest := cannot_do(text, notes)) != text and not re.search(r"\w", rest):
        return Act("none", typed, notes=notes)  # `who reported the most bugs?`: a ranking no search makes
    about_issue = bool(issue_refs(text)) or bool(context and _ISSUE_PRONOUN_RE.search(text))
    # `which doc explains how many connections …`: a doc named as what is wanted comes before a count
    doc_named = _DOCS_RE.search(text) and not about_issue and not CODE_RE.search(text)
    if doc_named and (act := _doc_ask(text, vocabulary, before)):
        return act
    if _NEWEST_RE.search(text) and not issue_refs(text):
        return _newest(text, vocabulary.labels)
    if _COUNT_RE.search(text) and not issue_refs(text):
        return Act("count", typed, search=search_in(request.unmasked(text), notes, vocabulary.labels), notes=notes)
    if _SYMPTOM_ASK_RE.search(text) and not issue_refs(text) and not names_people_or_days(text):
        return Act("symptom", typed)
    if (
        _DOC_ASK_RE.search(text)
        and not about_issue
        and not CODE_RE.search(text)
        and (act := _doc_ask(text, vocabulary, before))
    ):
        return act
    if not issue_refs(text) and (act := _search_act(request, text, vocabulary)):
        return act
    if context and _ONLY_VERB_RE.fullmatch(text):
        return Act("none", typed)  # `#77 needs S2, label it`: the verb the request before already served
    return Act("lookup", typed, issue_ids=issue_refs(text) if _READ_START_RE.match(text) else [])


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
        return Act("comment", typed, targets=ids, comments=[(issue_id, body) for issue_id in ids])
    labels = list(dict.fromkeys(label for _, label in before.labels))
    return Act("labels", typed, targets=ids, labels=[(issue_id, label) for issue_id in ids for label in labels])


def _search_act(request: Request, text: str, vocabulary: Vocabulary) -> Act | None:
    """`anything open about backfills?`, `find closed bugs mentioning Postgres`, `open S1s?`."""
    notes: list[str] = []
    typed = request.unmasked()
    if _ANYTHING_RE.match(text) and not _DOCS_RE.search(text):
        state = match.group("state") if (match := _ANYTHING_RE.match(text)) else None
        lead = f"{state} about " if state in {"open", "closed"} else "about "  # `anything open on …`: still open
        words = _ANYTHING_RE.sub(lead, text, count=1)
        return Act("search", typed, search=search_in(words, notes, vocabulary.labels), notes=notes)
    if _is_search(text, vocabulary.labels):
        search = search_in(request.unmasked(text), notes, vocabulary.labels)
        return Act("search", typed, search=search, notes=notes, codes=codes_in(typed))
    return None


def _conditional_act(
    request: Request, text: str, context: Sequence[int], vocabulary: Vocabulary, before: Act | None
) -> Act | None:
    """A request that waits for a check: its own condition, or the one of the request before."""
    if before is not None and before.kind == "conditional":
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
    if not ids and _ABOUT_THE_ONE_BEFORE_RE.search(text):
        ids = list(context or earlier)[:1]
    if not ids:
        return None
    if _SUGGEST_RE.search(text):
        tool = "suggest_labels"
    elif _SIMILAR_RE.search(text) and len(issue_refs(text)) < 2:
        tool = "find_similar"  # `is 42 the same as 10?` names both: reading them answers it
    else:
        return None
    act = Act("lookup", text, issue_ids=ids[:1])
    if tool in tools:
        act.reads = [PlannedCall(tool, {"issue_id": ids[0]})]
    return act


def _newest(text: str, labels: Sequence[str]) -> Act:
    notes: list[str] = []
    words = re.sub(LEAD + r"(?:open|show|read|pull\s+up|get|display)\b", " ", text, flags=re.I)
    search = search_in(words, notes, labels)
    search = Search(query=None, state=search.state, label=search.label, labels=search.labels, limit=search.limit)
    singular = re.search(r"\b(?:issue|ticket|bug|one|report)\b(?!s)", text, re.I)
    act = Act("newest", text, search=search, notes=notes)
    if (singular and _READ_VERB_RE.search(text)) or (singular and not re.search(r"\d", text)):
        act.later.append(Later(read_first_hit=True))
    return act


def _label_meaning(text: str, vocabulary: Vocabulary) -> Act | None:
    """`what does severity S1 mean?`: the doc section that defines the label, not an error that mentions it."""
    refs = [ref for ref in label_refs(text, vocabulary.labels, words=False) if ref.known]
    if not refs or CODE_RE.search(text):
        return None
    prefix, _, value = refs[0].label.partition(":")
    for section in vocabulary.best_sections([prefix, value, *value.split("-")], limit=6):
        if section.doc_id != "error-codes":
            call = PlannedCall(
                "get_doc_section", {"doc_id": section.doc_id, "heading": heading_name(section, vocabulary)}
            )
            return Act("meaning", text, reads=[call])
    return None


def _doc_ask(text: str, vocabulary: Vocabulary, before: Act | None) -> Act | None:
    """`where do we document the precedence of …`, `how do I run it under systemd`: a doc named, else the
    section whose heading and text best hold the question's words (error sections only for errors).
    A doc ask with no topic of its own (`is there a page I can link them to?`) is about the request before."""
    if not (QUESTION_RE.match(text) or "?" in text or _DOC_REQUEST_RE.match(text)):
        return None  # `thanks, that's everything for this docs audit`: a remark, not an ask
    named = read_lookups(text, vocabulary)
    folded = text.casefold()
    if any(name.casefold() in folded for name in vocabulary.error_names):
        return None  # `explain ScheduleDrift`: an error named
    if docs_in(text, doc_aliases(vocabulary)) or named.codes or named.list_docs or named.search or named.notes:
        return None  # a doc, a list of docs or a search named in so many words: the lookup reader plans it
    words = [w for w in content_words(_DOCS_RE.sub(" ", text)) if not w.isdigit()]
    errors = bool(_ERROR_WORDS_RE.search(text))
    # A section must hold most of the question's weight: a question the docs do not answer gets none.
    section = best_section(words, vocabulary, errors=errors)
    if before is not None and before.kind in {"lookup", "symptom", "none"} and not before.issue_ids:
        # `… run it under systemd. Is there a page we could send them?`: the topic is said before the ask
        topic = best_section(
            [*words, *(w for w in content_words(before.text) if not w.isdigit())],
            vocabulary,
            errors=errors,
            headed=True,
        )
        section = topic or section
    if section is None:
        return None
    call = PlannedCall("get_doc_section", {"doc_id": section.doc_id, "heading": heading_name(section, vocabulary)})
    return Act("doc", text, reads=[call])


def _only_filters(text: str, labels: Sequence[str]) -> bool:
    """`open S1s?`, `are there any open S1s since Monday?`, `closed comp:api`: nothing but a state, labels, an
    author or a time, asked for or asked about, which is a search."""
    refs = [ref for ref in label_refs(text, labels, words=False) if ref.known]
    if not refs:
        return False
    rest = text
    for ref in sorted(refs, key=lambda r: -r.start):
        rest = rest[: ref.start] + " " + rest[ref.end :]
    rest, _ = people_and_days(rest, [])
    return not _FILTER_FILLER_RE.sub("", rest)


_FILTER_FILLER_RE = lazy(
    r"\b(?:open|closed|all|any|the|list|show|me|and|or|please|pls|issues?|ones?|are|is|there|do|we|have|got|"
    r"anything|still|with|labell?ed|tagged|label|what|which|rn|now|currently|right)\b|[^\w]",
    re.I,
)
"""Words that ask whether issues exist or to see them: `are there any`, `still`, `rn`."""


def _is_search(text: str, labels: Sequence[str]) -> bool:
    """A request for issues by words, state or label, said as a search (`find …`, `any open …`, `open S1s?`)."""
    if _only_filters(text, labels):
        return True
    return (
        wants_search(text) and (bool(_SEARCHY_RE.match(text)) or len(text.split()) <= 5) and not PRONOUN_RE.search(text)
    )
