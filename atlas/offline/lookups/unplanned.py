"""What the lookup reader finds beyond what is named outright: a doc topic with no doc named, a heading
named alone, an error by name or symptom, and questions no call answers.
"""

from __future__ import annotations

import re

from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.sections import (
    as_said,
    code_by_symptom,
    codes_named,
    content_words,
    heading_name,
    section_about,
    section_named,
)
from atlas.offline.reading.topics import best_section
from atlas.offline.reading.vocabulary import Section, Vocabulary

_DOCS_TOPIC_RE = lazy(
    r"(?<![\w:-])(?:docs?|documentation)\s+(?:say|says|said|have|has|mention|mentions|cover|covers)?\s*(?:about|on|regarding|"
    r"for)\s+(?P<topic>[^?!;]+)"
    r"|\bsections?\s+(?:on|about|called|named|titled)\s+(?P<named>[^?!;,]+)",
    re.IGNORECASE,
)
_IN_THE_DOCS_RE = lazy(r"\b(?:anything|something|what)\s+(?:in|on)\s+the\s+(?:docs|documentation)\b", re.I)
"""`jobs running twice — anything in the docs?`: the topic is the clause before these words. Found by
the anchor first, then the clause: a lazy group before the anchor would be tried at every start (quadratic)."""
_ERROR_INTENT_RE = lazy(
    r"(?<!\bno\s)(?<!\bzero\s)(?<!\bwithout\s)(?<!\bwithout\sany\s)(?<!\bwithout\san\s)\b(?:errors?|exceptions?|warnings?)\b"
    r"|\b(?:error|exit|status|return|which|what)\s+codes?\b|\bcodes?\s+ORB\b|\bwhat\s+does\s+.+\s+mean\b|\bmeaning\s+of\b",
    re.IGNORECASE,
)
"""An error looked up by what happened (`what error do you get when …`); not `no error in the logs`, nor `code` as
in a program (`in code`)."""
_DEFINITION_RE = lazy(
    r"^\W*(?:so\s+)?(?:what(?:'s|\s+is|\s+are|\s+does|\s+do)|how\s+(?:does|do)\s+.+\s+work\b|explain\b)", re.IGNORECASE
)
"""`what is the misfire policy?`, `how does the tick work?`: a term the docs may define, asked
with nothing else read; the section whose heading holds one of its words answers it."""
_DOC_WORD_RE = lazy(r"\b(?:docs?|documentation|guide|manual)\b", re.IGNORECASE)
_ASKED_CLAUSE_RE = lazy(r"(?:^|(?<=[.!?;,]))\s*(?P<clause>[^.!?;,]+\?)")
_PLANNABLE_RE = lazy(
    r"#|\d|\bORB\b|:\w|\b(?:issues?|tickets?|bugs?|docs?|documentation|section|page|guide|errors?|codes?|label|tag|"
    r"comment|reply|search|find|list|show|read|compare|explain|mean|means|questions|features?|similar|related|dupes?"
    r"|duplicates?|first|earlier|older|newer|oldest|newest|latest|opened|created|filed|open|closed|state)\b",
    re.IGNORECASE,
)
_JOINED_QUESTION_RE = lazy(
    r",?\s+and\s+(?=(?:is|are|was|were|do|does|did|has|have|which|what|who|when|how|why|whether)\b)", re.I
)
"""`which one came first and are they about the same thing?`: two questions, each answered or not on its own."""
NAMED_HEADING_SCORE = 80
"""A heading named with no doc around it must match closely: `choosing a broker`, `breaking changes`."""


def docs_by_topic(text: str, vocabulary: Vocabulary) -> list[tuple[str, str | None]]:
    """`what do the docs say about lease renewal`, `jobs running twice — anything in the docs?`: the best section."""
    match = _DOCS_TOPIC_RE.search(text)
    if match is not None:
        topic = match.group("topic") or match.group("named") or ""
    elif anchor := _IN_THE_DOCS_RE.search(text):
        topic = re.split(r"[?!;,.]", text[: anchor.start()])[-1]
    else:
        return []
    words = [word for word in content_words(topic) if not word.isdigit()]
    section = section_named(words, None, vocabulary, whole=True) or section_about(words, vocabulary)
    return [_read(section, text, vocabulary)] if section else []


def unplanned_lookups(
    text: str, vocabulary: Vocabulary, aliases: dict[str, list[str]], *, asks_meaning: bool
) -> tuple[list[str], list[tuple[str, str | None]]]:
    """When nothing else was asked, the codes or the doc section to read: an error named in words, a heading
    named alone, an error by symptom, or a topic in a doc named by its subject (`the scheduler when the
    clocks go back`)."""
    words = [word for word in content_words(text) if not word.isdigit()]
    if codes := codes_named(text, vocabulary):
        return codes[:1], []
    if section := section_named(
        [w for w in words if not re.search(r"\d", w)], None, vocabulary, score=NAMED_HEADING_SCORE, whole=True
    ):
        return [], [_read(section, text, vocabulary)]
    if _ERROR_INTENT_RE.search(text) and (code := code_by_symptom(text, vocabulary)):
        return [code], []
    if section := _topic_section(text, words, vocabulary, aliases):
        return [], [_read(section, text, vocabulary)]
    terms = [word for word in words if len(word) >= 4]  # `what's up`: no term
    if _DEFINITION_RE.search(text) and terms and (section := best_section(terms, vocabulary, headed=True)):
        return [], [_read(section, text, vocabulary)]  # `what is the misfire policy?`
    if asks_meaning:
        names = re.findall(r"(?<![\w-])([A-Z][a-z]+(?:[A-Z]+[a-z]+)+)\b", text)
        return list(dict.fromkeys(names))[:6], []
    return [], []


def _topic_section(
    text: str, words: list[str], vocabulary: Vocabulary, aliases: dict[str, list[str]]
) -> Section | None:
    """The best section of the doc the question names by its subject, or of any doc when it says "docs"."""
    for doc, patterns in aliases.items():
        if any(re.search(rf"\b{pattern}\b", text, re.IGNORECASE) for pattern in patterns):
            return section_about(_without(words, patterns), vocabulary, doc)
    return best_section(words, vocabulary) if _DOC_WORD_RE.search(text) else None


def _read(section: Section, text: str, vocabulary: Vocabulary) -> tuple[str, str]:
    """The doc and heading to read for a section found by the words (of a repeated heading, the one they name)."""
    chosen = as_said(section, text, vocabulary)
    return chosen.doc_id, heading_name(chosen, vocabulary)


def _without(words: list[str], patterns: list[str]) -> list[str]:
    return [word for word in words if not any(re.fullmatch(pattern, word, re.I) for pattern in patterns)]


def unanswered(question: str, vocabulary_words: frozenset[str]) -> list[str]:
    """Questions inside the question that no call can answer ("same root cause?"), said instead of ignored."""
    notes: list[str] = []
    asked = [
        " ".join(part.split()).rstrip("?") + "?"
        for match in _ASKED_CLAUSE_RE.finditer(question)
        for part in _JOINED_QUESTION_RE.split(match.group("clause"))
    ]
    for clause in asked:
        words = content_words(clause)
        if len(words) >= 2 and not _PLANNABLE_RE.search(clause) and any(w in vocabulary_words for w in words):
            notes.append(
                f"I did not answer “{clause}”: the offline planner looks things up and shows what it found, but it "
                "does not judge or summarise it. Read the results below, or ask a real model (set `OPENAI_API_KEY`)."
            )
    return notes
