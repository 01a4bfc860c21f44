"""What Atlas inferred about a project, for a newcomer: its label groups, which label means a bug, whether
the data holds comments, and three questions that work on it.

Each question is planned by the offline planner and its search run before it is offered, so a
question that would find nothing, or read its words as another label, is never suggested.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atlas.foundation.errors import AtlasError, BadArguments, ToolError
from atlas.foundation.label_names import label_value
from atlas.foundation.stop_words import ENGLISH_STOP_WORDS
from atlas.offline.compose import read_question
from atlas.offline.reading.vocabulary import vocabulary_of
from atlas.orbit.issues import SearchArgs, search_issues
from atlas.tools.registry import ToolContext, strict_arguments
from atlas.triage.groups import LabelGroup
from atlas.triage.project import Project

BUG_QUESTION = "what are the open bugs?"
OPEN_SHARE = 0.4
"""A topic worth asking about now: at least this share of the titles saying it are of open issues
(a word every title says, `error`, is no topic; one of long-closed work is no question for today)."""
_TITLE_WORD = re.compile(r"[a-z][a-z_]{3,}")
_PLANNED = frozenset({"search_issues", "get_issue"})


@dataclass
class ProjectSummary:
    groups: list[LabelGroup]
    bug_label: str | None
    comments_known: bool
    questions: list[str] = field(default_factory=list)


def summarize(data: Path, home: Path, *, questions: bool = True) -> ProjectSummary:
    """The project as Atlas reads it (with questions that work on it); a dataset it cannot read is a one-line
    error."""
    try:
        project = Project.open(data, home)
        ctx = ToolContext(data=data, home=home)
        bug = _planned_label(BUG_QUESTION, data)
        summary = ProjectSummary(project.groups, bug, project.corpus.comments_known())
        if not questions:
            return summary
        if bug is not None and _finds(BUG_QUESTION, data, ctx):
            summary.questions.append(BUG_QUESTION)
        summary.questions += _label_question(project, data, ctx, bug) + _topic_question(project, data, ctx)
    except (ToolError, AtlasError) as exc:
        raise AtlasError(str(exc)) from None
    return summary


def _search_of(question: str, data: Path) -> dict[str, Any] | None:
    calls = read_question(question, vocabulary_of(data), _PLANNED, suggest=False).first_calls()
    return dict(calls[0].arguments) if len(calls) == 1 and calls[0].name == "search_issues" else None


def _planned_label(question: str, data: Path) -> str | None:
    search = _search_of(question, data)
    return str(search["label"]) if search and search.get("label") else None


def _finds(question: str, data: Path, ctx: ToolContext) -> bool:
    """Whether the search the planner reads in `question` finds an issue (its arguments validated as the
    executor validates a call's: a search they do not make finds nothing)."""
    search = _search_of(question, data)
    if search is None:
        return False
    try:
        args = strict_arguments(SearchArgs, search)
    except BadArguments:
        return False
    return bool(search_issues(args, ctx)["hits"])


def _label_question(project: Project, data: Path, ctx: ToolContext, bug: str | None) -> list[str]:
    """`issues labelled "dataset request"`: the most used label after the bug one, as the planner reads it."""
    used = Counter(label for labels in project.corpus.label_sets() for label in labels)
    for label, _ in used.most_common(5):
        if label == bug:
            continue
        name = f'"{label}"' if not re.fullmatch(r"[\w:.-]+", label) else label
        question = f"open issues labelled {name}"
        if _planned_label(question, data) == label and _finds(question, data, ctx):
            return [question]
    return []


def _topic_question(project: Project, data: Path, ctx: ToolContext) -> list[str]:
    """`find open issues about split`: a word many open titles share, mostly said of open issues."""
    everywhere: Counter[str] = Counter()
    for issue in project.corpus.newest(5000):
        everywhere.update(set(_TITLE_WORD.findall(issue.title.lower())))
    in_open: Counter[str] = Counter()
    for issue in project.corpus.newest(5000, state="open"):
        in_open.update(set(_TITLE_WORD.findall(issue.title.lower())))
    label_words = {w for label in project.known_labels for w in re.findall(r"[a-z]+", label_value(label).lower())}
    for word, _ in in_open.most_common(30):
        if word in label_words or word in ENGLISH_STOP_WORDS or in_open[word] < OPEN_SHARE * everywhere[word]:
            continue
        question = f"find open issues about {word}"
        search = _search_of(question, data)
        if search and search.get("query") == word and not search.get("label") and _finds(question, data, ctx):
            return [question]
    return []


def facts(summary: ProjectSummary) -> dict[str, Any]:
    """The summary as data (`atlas doctor --json`)."""
    return {
        "groups": {group.name: list(group.labels) for group in summary.groups},
        "bug_label": summary.bug_label,
        "comments_known": summary.comments_known,
    }


def summary_lines(summary: ProjectSummary) -> list[str]:
    """The summary as lines for a person."""
    lines = []
    if summary.groups:
        lines += [f"label groups: {'; '.join(group.shown for group in summary.groups)}"]
    else:
        lines += ["label groups: none found (only issues with no label count as untriaged; see `atlas inbox`)"]
    lines.append(f"bug label: {summary.bug_label or 'none found'}")
    lines.append(
        "comments: in the data"
        if summary.comments_known
        else "comments: not in the export, so who answered is unknown (`atlas data sync` fetches them)"
    )
    return lines


def summary_line(summary: ProjectSummary) -> str:
    """The summary in one short line (`atlas doctor`): the groups by name, their labels in `--json`."""
    groups = ", ".join(group.short for group in summary.groups) or "none"
    comments = "known" if summary.comments_known else "unknown"
    return f"groups: {groups} · bug label: {summary.bug_label or 'none'} · comments {comments}"
