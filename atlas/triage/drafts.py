"""Comment drafts for a plan, only where they help: asking a bug's reporter for what is missing, and
naming a likely earlier report. A person approves (or edits) each one; none is posted on its own."""

from __future__ import annotations

import re

from atlas.triage.corpus import Issue
from atlas.triage.similar import Match

VERSION = re.compile(r"\b\d+\.\d+(?:\.\d+)?(?:[ab]\d+|rc\d+)?\b")
LOG = re.compile(r"```|Traceback|^\s*(?:\d{4}-\d\d-\d\d|ERROR|WARN|INFO)\b", re.M)
FAILURE = re.compile(r"\b(?:error|fail\w*|crash\w*|exception|traceback|stuck|hang\w*|broken|empty|wrong|twice)\b", re.I)
LIKELY_SAME = 0.5
"""A similar issue's score from which it is named in a comment draft."""


def is_bug(labels: list[str]) -> bool:
    return any(label.split(":")[-1].strip().casefold() in ("bug", "defect", "crash") for label in labels)


def has_type(labels: list[str]) -> bool:
    return any(label.startswith(("type:", "kind:")) for label in labels)


def missing_details(issue: Issue) -> list[str]:
    """What a report of a failure lacks for a maintainer to start: the version, and the log when it failed."""
    text = f"{issue.title}\n{issue.body}"
    wanted = []
    if not VERSION.search(text):
        wanted.append("the version you run, and your operating system")
    if FAILURE.search(text) and not LOG.search(text):
        wanted.append("the log or traceback around the failure, as text")
    return wanted


def comment_draft(issue: Issue, labels: list[str], same: Match | None) -> str | None:
    """One comment for the issue, or None when there is nothing worth asking or saying."""
    parts = []
    # A bug, or a report whose type is still open that reads like a failure: the reporter is asked.
    reads_like_failure = not has_type(labels) and FAILURE.search(f"{issue.title}\n{issue.body}") is not None
    wanted = missing_details(issue) if is_bug(labels) or reads_like_failure else []
    if wanted:
        asked = "\n".join(f"- {item}" for item in wanted)
        parts.append(f"Thanks for the report. To look into it we need a little more:\n\n{asked}")
    if same is not None and same.score >= LIKELY_SAME:
        shared = ", ".join([*same.codes, *same.frames][:3]) or ", ".join(same.words[:3])
        state = "open" if same.state == "open" else "closed"
        parts.append(
            f"This may be the same problem as #{same.id} ({state}: “{same.title}”); both mention {shared}."
            f" If it is, please follow #{same.id}; if not, tell us what differs."
        )
    return "\n\n".join(parts) if parts else None
