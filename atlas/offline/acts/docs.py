"""Doc asks, for the offline planner's acts: the section a question about a topic or a label's meaning wants.

A question finds its section by its own words, weighed against the docs' headings and text (`topics`);
no topic is listed here. A doc, a list of docs or an error named in so many words is left to the lookups.
"""

from __future__ import annotations

import re

from atlas.offline.acts.act import LEAD, QUESTION_RE, Act, Intent
from atlas.offline.lookups.docs import doc_aliases, docs_in
from atlas.offline.lookups.reader import read_lookups
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.entities import label_refs
from atlas.offline.reading.issue_refs import CODE_RE
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.search import Search
from atlas.offline.reading.sections import as_said, content_words, heading_name
from atlas.offline.reading.topics import best_section
from atlas.offline.reading.vocabulary import Vocabulary

_WHAT_IT_COVERS = r"|\bcovers?\b|\bused\s+for\b|^\W*what(?:\s+is|\s+are|'s)\s.*\bfor\s*[?.!]*\s*$"
MEANING_RE = lazy(
    r"\bmean(?:s|ing)?\b|\bwhat\s+(?:is|are)\b|\bdefin(?:e|ition)\b|\bstand\s+for\b" + _WHAT_IT_COVERS, re.I
)

_MEANING_SAID_RE = lazy(r"\bmean(?:s|ing)?\b|\bstand\s+for\b|\bdefin(?:e|ed|ition)\b" + _WHAT_IT_COVERS, re.I)
"""`what does the dataset-viewer label cover?`, `what is the triage label for?`: what a label means, said outright."""

DOCS_RE = lazy(r"(?<![:/-])\b(?:docs?|documentation|guide|manual|section|page)\b(?![:/-]\w)", re.I)
"""A doc named as what is wanted; `comp:docs` is a label, not a doc."""

DOC_ASK_RE = lazy(
    r"(?<![:/-])\b(?:docs?|documentation|documented|document|guide|manual|page|section)\b(?![:/-]\w)|\bwhere\s+(?:do|does|is|are|can)\b"
    r"|\bhow\s+(?:(?:do|can|should|would|does)\s+)?(?:i|we|you|it|one)\b|\bhow\s+to\b|\bwhat\s+does\b.+\bdo\b"
    r"|\b(?:explains?|describes?|covers?)\b",
    re.I,
)

_DOC_REQUEST_RE = lazy(
    LEAD + r"(?:show|open|read|pull|get|grab|fetch|look|check|see|display|give|point|find|send|link|tell\s+me|where|"
    r"which|what|how|is|are|do|does|any)\b",
    re.I,
)
"""How a request for a doc starts when it is not a question: `point me to …`, `give me the short version …`."""

_ERROR_WORDS_RE = lazy(r"\b(?:errors?|codes?|exceptions?|fails?|failed|failing)\b", re.I)


def label_meaning(text: str, vocabulary: Vocabulary) -> Act | None:
    """`what does severity S1 mean?`: the doc section that defines the label, not an error that mentions it;
    where no doc does, the issues it is on."""
    # A label named by its words (`enhancement`, `good first issue`) only where a meaning is asked in so many
    # words: `what is the latest bug?` names no label to define.
    refs = [ref for ref in label_refs(text, vocabulary.labels, words=False) if ref.known]
    if not refs and _MEANING_SAID_RE.search(text):  # the label's whole name, not a word of it (`API`: comp:api)
        refs = [
            ref
            for ref in label_refs(text, vocabulary.labels)
            if ref.known and re.search(rf"(?<![\w:-]){re.escape(ref.label)}(?![\w:-])", text, re.I)
        ]
    if not refs or CODE_RE.search(text):
        return None
    prefix, _, value = refs[0].label.partition(":")
    for section in vocabulary.best_sections([prefix, value, *value.split("-")], limit=6):
        if section.doc_id != "error-codes":
            call = PlannedCall(
                "get_doc_section", {"doc_id": section.doc_id, "heading": heading_name(section, vocabulary)}
            )
            return Act(Intent.LABEL_MEANING, text, reads=[call])
    # No doc defines it: how the project uses it says what it means there.
    note = f"No doc defines the label `{refs[0].label}`; these are issues it is on, which show how it is used."
    return Act(Intent.SEARCH, text, search=Search(label=refs[0].label), notes=[note])


def doc_ask(text: str, vocabulary: Vocabulary, before: Act | None) -> Act | None:
    """`where do we document the precedence of …`, `how do I run it under systemd`: a doc named, else the
    section whose heading and text best hold the question's words (error sections only for errors).
    A doc ask with no topic of its own (`is there a page I can link them to?`) is about the request before."""
    if not (QUESTION_RE.match(text) or "?" in text or _DOC_REQUEST_RE.match(text)):
        return None  # `thanks, that's everything for this docs audit`: a remark, not an ask
    if re.search(r"\"Q\d+\"", text):
        return None  # `the 'Action required' section of the 2.7 → 2.8 notes`: a heading quoted, which lookups read
    named = read_lookups(text, vocabulary)
    folded = text.casefold()
    if any(name.casefold() in folded for name in vocabulary.error_names):
        return None  # `explain ScheduleDrift`: an error named
    if docs_in(text, doc_aliases(vocabulary)) or named.codes or named.list_docs or named.search or named.notes:
        return None  # a doc, a list of docs or a search named in so many words: the lookup reader plans it
    words = [w for w in content_words(DOCS_RE.sub(" ", text)) if not w.isdigit()]
    errors = bool(_ERROR_WORDS_RE.search(text))
    # A section must hold most of the question's weight: a question the docs do not answer gets none.
    section = best_section(words, vocabulary, errors=errors)
    if before is not None and before.intent in {Intent.LOOKUP, Intent.SYMPTOM, Intent.NOTHING} and not before.issue_ids:
        # `… run it under systemd. Is there a page we could send them?`: the topic is said before the ask
        topic = best_section(
            [*words, *(w for w in content_words(before.text) if not w.isdigit())],
            vocabulary,
            errors=errors,
            headed=True,
        )
        section = topic or section
    if section is None:
        return _docs_listed(text, vocabulary)
    section = as_said(section, text, vocabulary)  # `the action required for 2.7 to 2.8`: under the parent said
    call = PlannedCall("get_doc_section", {"doc_id": section.doc_id, "heading": heading_name(section, vocabulary)})
    return Act(Intent.DOC, text, reads=[call])


_HOW_TO_RE = lazy(r"\bhow\s+(?:(?:do|can|should|would|does)\s+)?(?:i|we|you|one)\b|\bhow\s+to\b", re.I)
"""A how-to question, which a doc answers: `how do I push a dataset to the hub`."""
_NO_DOCS_NOTE = (
    "This project's data holds no docs to answer how to do it; these are the issues that mention the question's "
    "words, which may say how others did."
)


def _docs_listed(text: str, vocabulary: Vocabulary) -> Act | None:
    """A doc asked for on a project whose data holds none: the list of docs, which says there are none, rather
    than a search of the issues that would pass for an answer. `open docs issues` asks for issues. A how-to
    question there also searches the issues for its words, said to be no doc's answer."""
    if vocabulary.docs or re.search(r"\b(?:issues?|bugs?|tickets?|reports?)\b", text, re.I):
        return None
    if DOCS_RE.search(text):
        return Act(Intent.DOC, text, reads=[PlannedCall("list_docs", {})])
    if _HOW_TO_RE.search(text) and (words := content_words(text)):
        return Act(Intent.SEARCH, text, search=Search(query=" ".join(words)), notes=[_NO_DOCS_NOTE])
    return None
