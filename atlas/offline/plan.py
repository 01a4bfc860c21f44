"""The plan (what a message asks for, as calls) and the lookup reader, the step that plans the reads of the
requests the acts left as lookups: issues, comparisons, docs, error codes, searches. Actions are the acts' alone.

Plans come from the user's words only: nothing here ever sees a tool result. The one thing the
planner takes from results, the `ORB-NNNN` codes an issue cites (for "explain the error in #41"),
is read in `model.py`; nothing else an issue or a doc says can add, change or drop a call.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from atlas.foundation.config import data_dir
from atlas.offline.answer.help import ProjectExamples
from atlas.offline.answer.issue_view import wants_whole_issue
from atlas.offline.reading.issue_refs import CODE_RE, bare_issue_ids, issue_ids_in
from atlas.offline.reading.label_usage import example_label
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.pattern_cache import compile_cached
from atlas.offline.reading.search import Search, search_in, strip_quotes, wants_search
from atlas.offline.reading.sections import content_words, heading_in, heading_name, section_named
from atlas.offline.reading.vocabulary import Vocabulary, vocabulary_of
from atlas.offline.reading.words import corrected, plain, spelled_out
from atlas.offline.requests import (
    cannot_do,
    docs_by_topic,
    search_clause,
    unanswered,
    unplanned_lookups,
)

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

MAX_ISSUES = 8
MAX_EXPLICIT_CODES = 6
MAX_CITED_CODES = 4
"""Enough to explain an issue; a log dump citing a dozen codes should not fan out a dozen reads."""

_ERROR_NAME_RE = lazy(r"(?<![\w-])([A-Z][a-z]+(?:[A-Z]+[a-z]+)+)\b")
_ASKS_MEANING_RE = lazy(r"\b(?:what|mean|means|meaning|explain|error|errors|code)\b", re.IGNORECASE)
"""`LeaseExpired`: how error names are spelled; looked up only when nothing else was asked."""
POLITE = (
    r"(?:^|(?<=[,;.!?:])|\band\s+|\bthen\s+|\balso\s+)\s*"
    r"(?:(?:please|pls|can you|could you|would you|kindly|go ahead and|i'?d like you to|i want you to)\s+)*"
)
"""Where a request can start: the question's start or a new clause ("show #87 and close #41 ...")."""
_UNSUPPORTED_RE = lazy(
    rf"{POLITE}(close|reopen|assign|unassign|delete|remove|unlabel|edit|merge|lock|unlock|rename|retitle|"
    r"transfer|pin)\b(?=[^.,;!?]*(?:#?\d|\bissues?\b|\bit\b|\bthem\b|\blabels?\b))",
    re.IGNORECASE,
)
_COMPARE_RE = lazy(r"\b(compare|comparison|contrast|differences?|differ|versus|vs\.?|side[- ]by[- ]side)\b", re.I)
EXPLAIN_RE = lazy(
    r"\b(?:explain|interpret|decode|meaning)\b"
    r"|\b(?:errors?|error codes?|codes?)\s+(?:in|of|from|on|cited|mentioned|referenced|reported|raised|behind)\b"
    r"|\bwhat\s+(?:errors?|error codes?|codes?)\b"
    r"|\b(?:cites?|cited|mentions?|reports?)\s+(?:which|what)?\s*(?:errors?|error codes?|codes?)\b",
    re.IGNORECASE,
)
_DOC_NOUN = r"(?:docs?|documentation|page|guide|section|chapter|reference|manual)"
_LIST_DOCS_RE = lazy(
    r"\b(?:what|which|list|show|available|all|index|every)\b.*\b(?:docs|documentation|doc pages|pages|guides)\b"
    r"|\b(?:docs|documentation)\b.*\b(?:are there|exist|available|do you have|can you read)\b"
    r"|^\s*(?:the\s+)?(?:docs|documentation)\s*[?.!]?\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PlannedCall:
    """One call the planner means to make: a tool name and its arguments."""

    name: str
    arguments: dict[str, Any]

    @property
    def key(self) -> str:
        """Identity of a call: the same tool with the same arguments is the same check."""
        return self.name + json.dumps(self.arguments, sort_keys=True)


@dataclass
class Plan:
    """What the question asks for, as understood from its words."""

    question: str
    issue_ids: list[int] = field(default_factory=list)
    compare: bool = False
    explain: bool = False
    codes: list[str] = field(default_factory=list)
    docs: list[tuple[str, str | None]] = field(default_factory=list)
    list_docs: bool = False
    search: Search | None = None
    labels: list[tuple[int, str]] = field(default_factory=list)
    whole: bool = False
    """The person asked to see or read the issue itself: the answer shows all of it."""
    notes: list[str] = field(default_factory=list)
    """Requests understood but not doable as asked, explained in the answer instead of called."""
    removals: list[tuple[int, str]] = field(default_factory=list)
    comments: list[tuple[int, str]] = field(default_factory=list)
    reads: list[PlannedCall] = field(default_factory=list)
    """Round-one reads beyond issues, codes, docs and the search: more searches, triage tools."""
    later: list[Any] = field(default_factory=list)
    """Round-two steps (`later.Later`): conditional actions, label families, the newest hit."""
    examples: ProjectExamples = field(default_factory=ProjectExamples)
    """The project's own words, for examples in what the planner says (its labels, codes and docs)."""
    suggestions: list[str] = field(default_factory=list)
    """When nothing was understood: the nearest requests that are (`find issues about redis timeouts`)."""

    @property
    def understood(self) -> bool:
        return bool(self.first_calls() or self.notes or self.later)

    def first_calls(self) -> list[PlannedCall]:
        """Round one: everything the question names directly, in the order it is answered."""
        calls = [PlannedCall("get_issue", {"issue_id": issue_id}) for issue_id in self.issue_ids]
        calls += [code_call(code) for code in self.codes]
        calls += [PlannedCall("get_doc_section", {"doc_id": doc, "heading": heading}) for doc, heading in self.docs]
        if self.list_docs:
            calls.append(PlannedCall("list_docs", {}))
        if self.search:
            calls.append(PlannedCall("search_issues", self.search.arguments()))
        return _unique(calls + self.reads + self.actions())

    def actions(self) -> list[PlannedCall]:
        """The side effects the user asked for at once: labels to add or remove, comments to post."""
        calls = [PlannedCall("add_label", {"issue_id": issue_id, "label": label}) for issue_id, label in self.labels]
        calls += [PlannedCall("remove_label", {"issue_id": i, "label": label}) for i, label in self.removals]
        for issue_id, body in self.comments:
            calls.append(PlannedCall("post_comment", {"issue_id": issue_id, "body": body}))
        return calls

    def later_actions(self) -> list[PlannedCall]:
        """The side effects round two may make (for the answer to know them as actions)."""
        return [call for step in self.later for call in step.actions]


def code_call(code: str) -> PlannedCall:
    return PlannedCall("get_doc_section", {"doc_id": "error-codes", "heading": code})


def _unique(calls: Iterable[PlannedCall]) -> list[PlannedCall]:
    seen: set[str] = set()
    kept = []
    for call in calls:
        if call.key not in seen:
            seen.add(call.key)
            kept.append(call)
    return kept


def codes_in(text: str) -> list[str]:
    """`ORB-NNNN` codes in order of first appearance, normalised."""
    found: list[str] = []
    for match in CODE_RE.finditer(text):
        code = f"ORB-{match.group(1)}"
        if code not in found:
            found.append(code)
    return found


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


def _alias_pattern(words: tuple[str, ...]) -> str:
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
        rf"(?:\bthe\s+|^\s*(?:show\s+(?:me\s+)?(?:the\s+)?)?)(?P<h>[\"'`\[]?[\w.:-]+(?:\s+[\w.:-]+){{0,2}}[\"'`\]]?)\s+"
        rf"(?:section|part)\s+(?:of|in|from)\s+(?:the\s+)?{alias}\b",
    )
    whole = (
        rf"\b{alias}\s+{_DOC_NOUN}\b",
        rf"\b{_DOC_NOUN}\s+(?:on|about|for|of)\s+(?:the\s+)?{alias}\b",
        rf"\b{name}\.md\b",
        rf"^\s*(?:show|open|read|get|display)\s+(?:me\s+)?(?:the\s+)?{alias}\s*[?.!]?\s*$",
    )
    return [compile_cached(p, re.IGNORECASE) for p in with_heading], [compile_cached(p, re.IGNORECASE) for p in whole]


_REFERENCE_RE = lazy(
    r"\b(?:that issue|this issue|the same issue|these issues|those issues|both of them|both|them|its|it)\b", re.I
)


def with_references(question: str, earlier: list[str]) -> str:
    """In a chat, "label it comp:core" after "#41": the pronoun becomes the issues the user last named.

    Only the user's own earlier messages are read, newest first.
    """
    named_here = issue_ids_in(question)
    if not (match := _REFERENCE_RE.search(question)):
        return question
    # With an id in the question, a pronoun is only a reference in "compare them with #87";
    # elsewhere ("comment on #41: it works now") it belongs to the user's own text.
    if named_here and not (len(named_here) == 1 and _COMPARE_RE.search(question) and "comment" not in question):
        return question
    for message in reversed(earlier):
        ids = [issue_id for issue_id in issue_ids_in(message) if issue_id not in named_here]
        if ids:
            named = " and ".join(f"#{issue_id}" for issue_id in ids[:MAX_ISSUES])
            return question[: match.start()] + named + question[match.end() :]
    return question


def last_named(earlier: list[str]) -> list[int]:
    """The issues the newest of the user's earlier messages that named any named."""
    return next((ids for message in reversed(earlier) if (ids := issue_ids_in(message))), [])


def project_examples(vocabulary: Vocabulary) -> ProjectExamples:
    """The project's most used label, first error code and first doc, for the examples the planner gives."""
    code = next(iter(vocabulary.error_names.values()), None)
    return ProjectExamples(example_label(vocabulary.labels), code, vocabulary.docs[0] if vocabulary.docs else None)


def read_lookups(question: str, vocabulary: Vocabulary | None = None) -> Plan:
    """The reads of the lookup requests the acts hand on, in round-one order; a request it cannot serve (close,
    assign, a ranking) is a note."""
    vocabulary = vocabulary if vocabulary is not None else vocabulary_of(data_dir())
    plan = Plan(question=question, examples=project_examples(vocabulary))
    text = plain(question)
    text = corrected(spelled_out(text), vocabulary.words)
    text = _take_unsupported(text, plan)
    text = cannot_do(text, plan.notes)
    plan.issue_ids = issue_ids_in(text)
    bare = bare_issue_ids(CODE_RE.sub(" ", text))
    plan.issue_ids += [issue_id for issue_id in bare if issue_id not in plan.issue_ids]
    plan.issue_ids = plan.issue_ids[:MAX_ISSUES]
    plan.compare = len(plan.issue_ids) >= 2 and bool(_COMPARE_RE.search(text))
    plan.explain = bool(plan.issue_ids) and bool(EXPLAIN_RE.search(text))
    plan.whole = bool(plan.issue_ids) and not plan.compare and not plan.explain and wants_whole_issue(text)
    aliases = doc_aliases(vocabulary)
    plan.docs = [_with_heading(doc, heading, text, vocabulary) for doc, heading in docs_in(text, aliases)]
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
    if wants_search(text) and not plan.issue_ids and not plan.list_docs and not plan.docs:
        plan.search = search_in(text, plan.notes, vocabulary.labels)
    elif (clause := search_clause(text)) is not None:
        plan.search = search_in(clause, plan.notes, vocabulary.labels)
    if plan.first_calls():
        plan.notes += unanswered(plain(question), vocabulary.words)
    elif not plan.notes:
        patterns = {doc: [_alias_pattern(words)] for doc, words in aliases.items()}
        codes, docs = unplanned_lookups(text, vocabulary, patterns, asks_meaning=bool(_ASKS_MEANING_RE.search(text)))
        plan.codes, plan.docs = codes or plan.codes, docs or plan.docs
    return plan


def quoted_headings(text: str, vocabulary: Vocabulary) -> list[tuple[str, str | None]]:
    """`read the 'Backoff delays' section`, `the cli doc's 'orbit leases' and 'orbit jobs'`: a quoted text that
    is a heading of the docs, near enough word for word, is that section."""
    found: list[tuple[str, str | None]] = []
    for match in _QUOTED_RE.finditer(text):
        quoted = (match.group(1) or match.group(2)).strip().casefold()
        exact = [s for s in vocabulary.sections if s.heading.casefold() == quoted and not CODE_RE.match(s.heading)]
        words = content_words(quoted)
        section = (
            exact[0]
            if len(exact) == 1
            else section_named(words, None, vocabulary, score=QUOTED_HEADING_SCORE, whole=True)
        )
        if section is not None and (doc := (section.doc_id, heading_name(section, vocabulary))) not in found:
            found.append(doc)
    return found


def _with_heading(doc: str, heading: str | None, text: str, vocabulary: Vocabulary) -> tuple[str, str | None]:
    """A whole doc asked for with other words that name one of its headings: that section."""
    if heading is not None:
        return doc, heading
    aliases = {word for alias in doc_aliases(vocabulary).get(doc, (doc,)) for word in re.findall(r"[a-z]+", alias)}
    words = [w for w in content_words(text) if w not in aliases and not w.isdigit() and not w.startswith("#")]
    return doc, heading_in(words, doc, vocabulary)


def _take_unsupported(text: str, plan: Plan) -> str:
    unsupported = _UNSUPPORTED_RE.search(text)
    if not unsupported:
        return text
    verb = unsupported.group(1).lower()
    clause_end = re.compile(r"[,;.!?](?:\s|$)|\s(?:and|then)\s").search(text, unsupported.end())
    clause = text[unsupported.end() : clause_end.start() if clause_end else len(text)]
    what = "labels" if re.search(r"\blabels?\b", clause, re.IGNORECASE) or verb == "unlabel" else "issues"
    if what == "labels" and verb in {"remove", "unlabel", "delete"}:
        plan.notes.append(f"To remove a label, name the issue and the label: `remove {plan.examples.label} from #41`.")
        return text[: unsupported.start()] + (text[clause_end.start() :] if clause_end else "")
    plan.notes.append(
        f"I cannot {verb} {what}: Atlas's tracker tools only add and remove labels and post comments (each after your "
        "approval)."
    )
    return text[: unsupported.start()] + (text[clause_end.start() :] if clause_end else "")
