"""The lookup reader: the reads of the requests no recogniser took, planned at once, in round-one order.

Issues (named, bare or in ranges), comparisons, errors to explain, doc pages and sections and error codes. It
plans no action and no search, and what no tool can do (close, assign, rank) never reaches it: those are acts (`acts/`).
"""

from __future__ import annotations

import re

from atlas.foundation.config import data_dir
from atlas.offline.lookups.docs import alias_pattern, doc_aliases, docs_in, quoted_headings, with_heading
from atlas.offline.lookups.unplanned import docs_by_topic, unanswered, unplanned_lookups
from atlas.offline.plan import Plan, codes_in, project_examples
from atlas.offline.reading.entities import slashed_pairs
from atlas.offline.reading.issue_refs import CODE_RE, MAX_ISSUES, bare_issue_ids, issue_ids_in
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.references import COMPARE_RE
from atlas.offline.reading.vocabulary import Vocabulary, vocabulary_of
from atlas.offline.reading.words import corrected, plain, spelled_out

MAX_EXPLICIT_CODES = 6

_ERROR_NAME_RE = lazy(r"(?<![\w-])([A-Z][a-z]+(?:[A-Z]+[a-z]+)+)\b")
_ASKS_MEANING_RE = lazy(r"\b(?:what|mean|means|meaning|explain|error|errors|code)\b", re.IGNORECASE)
"""`LeaseExpired`: how error names are spelled; looked up only when nothing else was asked."""
EXPLAIN_RE = lazy(
    r"\b(?:explain|interpret|decode|meaning)\b"
    r"|\b(?:errors?|error codes?|codes?)\s+(?:in|of|from|on|cited|mentioned|referenced|reported|raised|behind)\b"
    r"|\bwhat\s+(?:errors?|error codes?|codes?)\b"
    r"|\b(?:cites?|cited|mentions?|reports?)\s+(?:which|what)?\s*(?:errors?|error codes?|codes?)\b",
    re.IGNORECASE,
)
_LIST_DOCS_RE = lazy(
    r"\b(?:what|which|list|show|available|all|index|every)\b.*\b(?:docs|documentation|doc pages|pages|guides)\b"
    r"|\b(?:docs|documentation)\b.*\b(?:are there|exist|available|do you have|can you read)\b"
    r"|^\s*(?:the\s+)?(?:docs|documentation)\s*[?.!]?\s*$",
    re.IGNORECASE,
)

_WHOLE_ISSUE_RE = lazy(
    r"\b(?:show|read|open|display|view|see|print|pull\s+up)\b|\bin\s+full\b|\b(?:whole|entire|full)\b"
    r"|\bcomments?\b|\bthread\b",
    re.IGNORECASE,
)
"""A person who asks to see or read an issue (or its comments) wants all of it, not an excerpt."""


def read_lookups(question: str, vocabulary: Vocabulary | None = None) -> Plan:
    """The reads of the lookup requests the acts hand on, in round-one order (what no tool can do, the acts
    already took out and said in a note: `acts.unsupported`)."""
    vocabulary = vocabulary if vocabulary is not None else vocabulary_of(data_dir())
    plan = Plan(question=question, examples=project_examples(vocabulary))
    text = plain(question)
    text = corrected(spelled_out(text), vocabulary.words)
    plan.issue_ids = issue_ids_in(text)
    bare = bare_issue_ids(CODE_RE.sub(" ", text))
    plan.issue_ids += [issue_id for issue_id in bare if issue_id not in plan.issue_ids]
    plan.issue_ids += [n for _, n in slashed_pairs(text) if n not in plan.issue_ids]  # `29/79 same?`
    plan.issue_ids = plan.issue_ids[:MAX_ISSUES]
    plan.compare = len(plan.issue_ids) >= 2 and bool(COMPARE_RE.search(text))
    plan.explain = bool(plan.issue_ids) and bool(EXPLAIN_RE.search(text))
    plan.whole = bool(plan.issue_ids) and not plan.compare and not plan.explain and bool(_WHOLE_ISSUE_RE.search(text))
    aliases = doc_aliases(vocabulary)
    plan.docs = [with_heading(doc, heading, text, vocabulary) for doc, heading in docs_in(text, aliases)]
    doc_codes = [h for doc, h in plan.docs if doc == "error-codes" and h and CODE_RE.fullmatch(h)]
    plan.docs = [(doc, heading) for doc, heading in plan.docs if heading not in doc_codes]
    plan.codes = codes_in(text)[:MAX_EXPLICIT_CODES]
    plan.codes += [code for code in doc_codes if code not in plan.codes]
    names = [name for name in _ERROR_NAME_RE.findall(text) if name in vocabulary.error_names]
    plan.codes += [name for name in names if vocabulary.error_names[name] not in plan.codes][:MAX_EXPLICIT_CODES]
    if plan.codes and plan.docs == [("error-codes", None)]:
        plan.docs = []  # "the error-codes doc on ORB-1101" asks for the code's section, not the page
    plan.docs += [doc for doc in quoted_headings(text, vocabulary) if doc not in plan.docs]
    if not plan.docs:
        plan.docs = docs_by_topic(text, vocabulary)
    plan.list_docs = not plan.docs and bool(_LIST_DOCS_RE.search(text))
    if plan.first_calls():
        plan.notes += unanswered(plain(question), vocabulary.words)
    elif not plan.notes:
        patterns = {doc: [alias_pattern(words)] for doc, words in aliases.items()}
        codes, docs = unplanned_lookups(text, vocabulary, patterns, asks_meaning=bool(_ASKS_MEANING_RE.search(text)))
        plan.codes, plan.docs = codes or plan.codes, docs or plan.docs
    return plan
