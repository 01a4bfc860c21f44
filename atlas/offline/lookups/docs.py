"""Doc pages and sections named in a request: by the doc's id, title or usual words, by a quoted heading,
or by a heading's words beside the doc's name (`the pgbouncer part of the brokers doc`)."""

from __future__ import annotations

import functools
import re

from atlas.offline.plan import codes_in
from atlas.offline.reading.issue_refs import CODE_RE
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.pattern_cache import compile_cached
from atlas.offline.reading.search_labels import strip_quotes
from atlas.offline.reading.sections import (
    content_words,
    heading_in,
    heading_name,
    section_named,
    under_the_parent_said,
)
from atlas.offline.reading.topics import best_section
from atlas.offline.reading.vocabulary import Vocabulary

DOC_ALIASES: dict[str, tuple[str, ...]] = {
    "error-codes": ("error-codes", "error codes", "error-code", "error code", "errors"),
    "configuration": ("configuration", "config", "configuring"),
    "brokers": ("brokers", "broker"),
    "leases": ("leases", "lease"),
    "scheduling": ("scheduling", "scheduler", "schedules"),
    "deployment": ("deployment", "deploying", "deploy"),
    "upgrading": ("upgrading", "upgrades", "upgrade"),
    "troubleshooting": ("troubleshooting", "troubleshoot"),
    "workers": ("workers", "worker"),
    "api": ("http api", "api"),
    "cli": ("command line", "command-line", "cli"),
}
"""Words maintainers use for the bundled docs (longest first within a doc), beyond the doc ids and
titles learned from the docs folder (`doc_aliases`)."""


_QUOTED_RE = lazy(r"\"([^\"\n]{2,80})\"|'([^'\n]{2,80})'")


QUOTED_HEADING_SCORE = 90
"""A quoted heading is typed nearly as it is written: `'Backoff delays'`, `"orbit jobs"`."""


_DOC_NOUN = r"(?:docs?|documentation|page|guide|section|chapter|reference|manual)"


def _heading(raw: str) -> str | None:
    heading = strip_quotes(raw.strip().rstrip("?.!,;:").strip())
    heading = re.sub(r"^(?:the|a|an)\s+", "", heading, flags=re.IGNORECASE)
    heading = re.sub(r"\s+section$", "", heading, flags=re.IGNORECASE).strip()
    code = codes_in(heading)
    if code and CODE_RE.fullmatch(heading):
        return code[0]
    return heading or None


def doc_aliases(vocabulary: Vocabulary) -> dict[str, tuple[str, ...]]:
    """Each doc of the docs folder with the words for it: its id, its title, and the usual words.

    With no docs folder, the bundled docs' words: a request for one is still planned, and the tool
    then says what it could not read.
    """
    if not vocabulary.docs:
        return DOC_ALIASES
    aliases: dict[str, tuple[str, ...]] = {}
    for doc in vocabulary.docs:
        learned = [doc, doc.replace("-", " "), vocabulary.titles.get(doc, doc).lower()]
        words = dict.fromkeys(alias for alias in [*DOC_ALIASES.get(doc, ()), *learned] if alias)
        aliases[doc] = tuple(sorted(words, key=len, reverse=True))
    return aliases


def alias_pattern(words: tuple[str, ...]) -> str:
    return "(?:" + "|".join(re.escape(alias).replace(r"\ ", r"[\s-]") for alias in words) + ")"


def docs_in(text: str, aliases: dict[str, tuple[str, ...]]) -> list[tuple[str, str | None]]:
    """Doc pages the question names, each with the section it asks for (None: the whole page).

    A doc named inside another doc's section request ("the api section of configuration") is
    that section's name, not a page of its own. Each shape is one pattern for every doc at once.
    """
    by_alias = {_folded(alias): doc for doc, words in aliases.items() for alias in words}
    with_heading, whole = _doc_shapes(tuple(sorted(by_alias, key=len, reverse=True)))
    sectioned: dict[str, tuple[int, int, str, str | None]] = {}
    plain: dict[str, tuple[int, int, str, str | None]] = {}
    for pattern in with_heading:
        for match in pattern.finditer(text):
            doc = by_alias.get(_folded(match.group("a")))
            if doc and doc not in sectioned:
                sectioned[doc] = (match.start(), match.end(), doc, _heading(match.group("h")))
    for pattern in whole:
        for match in pattern.finditer(text):
            doc = by_alias.get(_folded(match.group("a")))
            if doc and doc not in sectioned and doc not in plain:
                plain[doc] = (match.start(), match.end(), doc, None)
    inside = [hit for hit in plain.values() if any(s <= hit[0] < e for s, e, _, _ in sectioned.values())]
    found = sorted([*sectioned.values(), *(hit for hit in plain.values() if hit not in inside)])
    return [(doc, heading) for _, _, doc, heading in found]


def _folded(alias: str) -> str:
    return re.sub(r"[\s-]+", " ", alias.lower()).strip()


@functools.lru_cache(maxsize=4)
def _doc_shapes(words: tuple[str, ...]) -> tuple[list[re.Pattern[str]], list[re.Pattern[str]]]:
    """The ways a question names a doc (with a section, or whole), for all of the docs' words."""
    end = r"(?=[?!,;]|\.(?:\s|$)|\s+and\s|\s+then\s|$)"
    name = "(?P<a>" + "|".join(re.escape(w).replace(r"\ ", r"[\s-]") for w in words) + ")"
    alias = name + r"(?:\.md)?"
    with_heading = (
        rf"\bsection\s+(?:on|about|for|called|titled|named)\s+(?P<h>.+?)\s+(?:in|of|from)\s+(?:the\s+)?{alias}\b",
        rf"\b{alias}\s+{_DOC_NOUN}\s+(?:says?|said)\s+(?:about|on|regarding)\s+(?P<h>.+?){end}",
        rf"\b{name}\.md\s+(?:says?\s+|said\s+)?(?:about|on|regarding)\s+(?P<h>.+?){end}",
        rf"\b{alias}\s+{_DOC_NOUN}(?:'s)?\s+(?:section\s+)?(?:on|about|for|regarding)\s+(?P<h>.+?){end}",
        rf"(?:\bthe\s+|^\s*(?:show\s+(?:me\s+)?(?:the\s+)?)?)(?P<h>[\"'`\[]?(?!the\b)[\w.:-]+(?:\s+(?!the\b)[\w.:-]+){{0,2}}[\"'`\]]?)\s+"
        rf"(?:section|part)\s+(?:of|in|from)\s+(?:the\s+)?{alias}\b",
    )
    whole = (
        rf"\b{alias}\s+{_DOC_NOUN}\b",
        rf"\b{_DOC_NOUN}\s+(?:on|about|for|of)\s+(?:the\s+)?{alias}\b",
        rf"\b{name}\.md\b",
        rf"^\s*(?:show|open|read|get|display)\s+(?:me\s+)?(?:the\s+)?{alias}\s*[?.!]?\s*$",
    )
    return [compile_cached(p, re.IGNORECASE) for p in with_heading], [compile_cached(p, re.IGNORECASE) for p in whole]


def quoted_headings(text: str, vocabulary: Vocabulary) -> list[tuple[str, str | None]]:
    """`read the 'Backoff delays' section`, `the cli doc's 'orbit leases' and 'orbit jobs'`: a quoted text that
    is a heading of the docs, near enough word for word, is that section."""
    found: list[tuple[str, str | None]] = []
    for match in _QUOTED_RE.finditer(text):
        quoted = (match.group(1) or match.group(2)).strip().casefold()
        exact = [s for s in vocabulary.sections if s.heading.casefold() == quoted and not CODE_RE.match(s.heading)]
        exact = under_the_parent_said(exact, text, vocabulary)
        words = content_words(quoted)
        section = (
            exact[0]
            if len(exact) == 1
            else section_named(words, None, vocabulary, score=QUOTED_HEADING_SCORE, whole=True)
        )
        if section is not None and (doc := (section.doc_id, heading_name(section, vocabulary))) not in found:
            found.append(doc)
    return found


def with_heading(doc: str, heading: str | None, text: str, vocabulary: Vocabulary) -> tuple[str, str | None]:
    """A whole doc asked for with other words that name one of its headings: that section."""
    if heading is not None:
        return doc, _section_holding(doc, heading, vocabulary)
    aliases = {word for alias in doc_aliases(vocabulary).get(doc, (doc,)) for word in re.findall(r"[a-z]+", alias)}
    words = [w for w in content_words(text) if w not in aliases and not w.isdigit() and not w.startswith("#")]
    return doc, heading_in(words, doc, vocabulary)


def _section_holding(doc: str, heading: str, vocabulary: Vocabulary) -> str:
    """What a doc is asked about (`what the deployment page says about terminationGracePeriodSeconds`): the heading
    said when the doc has one like it (or the docs are unknown: the tool says what it lacks), else the heading of the
    doc's section that holds the words."""
    words = content_words(heading)
    if CODE_RE.fullmatch(heading) or not vocabulary.headings_of(doc) or section_named(words, doc, vocabulary):
        return heading
    section = best_section(words, vocabulary, doc)
    if section is None or section.doc_id != doc or codes_in(section.heading):
        return heading  # an error's section is read by its code, which the words name too
    return heading_name(section, vocabulary)
