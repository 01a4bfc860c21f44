"""The plan: what a message asks for, as calls, handed from the acts and the lookups to the answer.

Plans come from the user's words only: nothing here ever sees a tool result. The one thing the
planner takes from results, the `ORB-NNNN` codes an issue cites (for "explain the error in #41"),
is read in `model.py`; nothing else an issue or a doc says can add, change or drop a call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from atlas.offline.reading.issue_refs import CODE_RE
from atlas.offline.reading.label_usage import example_label
from atlas.offline.reading.search import Search
from atlas.offline.reading.vocabulary import Vocabulary

MAX_CITED_CODES = 4
"""Enough to explain an issue; a log dump citing a dozen codes should not fan out a dozen reads."""


@dataclass(frozen=True)
class ProjectExamples:
    """The project's own words for the examples: its most used label, one of its error codes and docs (if any)."""

    label: str = "bug"
    code: str | None = None
    doc: str | None = None


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


def project_examples(vocabulary: Vocabulary) -> ProjectExamples:
    """The project's most used label, first error code and first doc, for the examples the planner gives."""
    code = next(iter(vocabulary.error_names.values()), None)
    return ProjectExamples(example_label(vocabulary.labels), code, vocabulary.docs[0] if vocabulary.docs else None)
