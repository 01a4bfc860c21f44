"""Comment drafts for a plan, only where they fit the issue: a bug report lacking its version or log is
asked for them, and a likely earlier report is named in words that fit the kind of issue. Questions,
feature requests and docs issues are never asked for a traceback. A person approves (or edits) each
draft; none is posted on its own.

The kind comes from the issue's labels (its own and those proposed), read by their words (`type:bug`,
`dataset bug`, `enhancement`, `question`), else from how the reporter wrote it: a title asking
something is a question, one asking for something is a request, and text about a failure is a bug
report. The text is read without the project's form lines (`boilerplate.py`), so a form's "Describe
the bug" heading says nothing about the issue.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from atlas.triage import boilerplate
from atlas.triage.corpus import Issue
from atlas.triage.signatures import signature
from atlas.triage.similar import Match

VERSION = re.compile(r"\b\d+\.\d+(?:\.\d+)?(?:[ab]\d+|rc\d+)?\b")
LOG = re.compile(r"```|Traceback|^\s*(?:\d{4}-\d\d-\d\d|ERROR|WARN|INFO)\b", re.M)
FAILURE = re.compile(r"\b(?:error|fail\w*|crash\w*|exception|traceback|stuck|hang\w*|broken|empty|wrong|twice)\b", re.I)
ASKS = re.compile(
    r"^\W*(?:question|how|why|what|which|where|(?:is|are|can|could|does|do|should)(?!\s+not\b)(?!['’]))\b", re.I
)
REQUESTS = re.compile(
    r"^\W*(?:feature\b|add\b|adding\b|support\b|allow\b|implement\b|enable\b|expose\b|provide\b|request\b)", re.I
)
LABEL_KINDS = {
    "bug": ("bug", "defect", "crash", "regression"),
    "question": ("question", "discussion", "support", "help"),
    "request": ("feature", "enhancement", "request", "proposal", "idea"),
    "docs": ("documentation", "docs", "doc"),
}
"""What the words of a label say the issue is (`type:bug`, `dataset bug`, `kind/feature`, `enhancement`)."""
LIKELY_SAME = 0.5
"""A similar earlier issue's score from which it is named in a comment draft."""
_WORDS = re.compile(r"[a-z]+")


def kind_from_labels(labels: list[str]) -> str | None:
    """bug, question, request or docs, as the labels' words say (a bug label wins); None when none says."""
    words = {word for label in labels for word in _WORDS.findall(label.casefold())}
    for kind, names in LABEL_KINDS.items():
        if words.intersection(names):
            return kind
    return None


def kind_of(issue: Issue, labels: list[str], common: Collection[str] = ()) -> str | None:
    """The kind of issue: from its labels, else from how it is written; None when nothing tells."""
    said = kind_from_labels(labels)
    if said is not None:
        return said
    title = issue.title.strip()
    if title.endswith("?") or ASKS.match(title):
        return "question"
    if REQUESTS.match(title):
        return "request"
    return "bug" if FAILURE.search(f"{title}\n{boilerplate.strip(issue.body, common)}") else None


def missing_details(issue: Issue, common: Collection[str] = ()) -> list[str]:
    """What a bug report lacks for a maintainer to start: the version, and the log when it failed.

    The whole body is searched for them (a form's code fence holds a log; an exception's name is
    the error quoted); the failure is looked for in the reporter's own words."""
    text = f"{issue.title}\n{issue.body}"
    wanted = []
    if not VERSION.search(text):
        wanted.append("the version you run, and your operating system")
    quoted = LOG.search(text) or signature(text).codes  # a log, or at least the error it ended with
    if FAILURE.search(f"{issue.title}\n{boilerplate.strip(issue.body, common)}") and not quoted:
        wanted.append("the log or traceback around the failure, as text")
    return wanted


def comment_draft(issue: Issue, labels: list[str], same: Match | None, common: Collection[str] = ()) -> str | None:
    """One comment for the issue, or None when there is nothing worth asking or saying.

    `same` is the most similar issue filed before this one."""
    kind = kind_of(issue, labels, common)
    parts = []
    wanted = missing_details(issue, common) if kind == "bug" else []
    if wanted:
        asked = "\n".join(f"- {item}" for item in wanted)
        parts.append(f"Thanks for the report. To look into it we need a little more:\n\n{asked}")
    if same is not None and same.score >= LIKELY_SAME:
        parts.append(_earlier(kind, same))
    return "\n\n".join(parts) if parts else None


def _earlier(kind: str | None, same: Match) -> str:
    shared = ", ".join([*same.codes, *same.frames][:3]) or ", ".join(same.words[:3])
    state = "open" if same.state == "open" else "closed"
    named = f"#{same.id} ({state}: “{same.title}”)"
    if kind == "question":
        return f"This may have been asked before in {named}; both mention {shared}. Does the answer there help?"
    if kind in ("request", "docs"):
        return (
            f"This may be the same request as {named}; both mention {shared}."
            f" If it is, please add to #{same.id}; if not, tell us what differs."
        )
    return (
        f"This may be the same problem as {named}; both mention {shared}."
        f" If it is, please follow #{same.id}; if not, tell us what differs."
    )
