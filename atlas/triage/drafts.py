"""Comment drafts for a plan, only where they fit the issue: a bug report lacking its version, or both its log
and a reproduction, is asked for what it lacks, and a likely earlier report is named in words that fit the
kind of issue, unless the reporter's own text already links it (they know it, and often say how theirs differs).
Questions, feature requests and docs issues are never asked for a traceback; a report filed
through a form whose reports go without a version is not asked for one (`forms.py`: a hosted page's form asks
for a link, and its reporters run no version of anything), but is still asked for the error it saw: every
failure shows one, wherever it happens. A person
approves (or edits) each draft; none is posted on its own.

The kind and what the issue carries are read by `issue_kinds.py`: from the issue's own labels, else a
title that asks, else the labels the plan proposes, else how the issue is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

from atlas.foundation.sanitize import clean_line
from atlas.triage.corpus import Issue
from atlas.triage.forms import FormHabits
from atlas.triage.issue_kinds import BUG, QUESTION, LabelKinds, asks, carries, kind_from_text
from atlas.triage.similar import Match

ASKED = "Thanks for the report. To look into it we need a little more:"
VERSION_WANTED = "the version you run, and your operating system"
LOG_WANTED = "the log or traceback around the failure, as text, or a short piece of code that reproduces it"
ASKS_WHY = "asks for what a bug report lacks"
NAMES_WHY = "names a likely earlier report"
LIKELY_SAME = 0.5
"""A best earlier match this strong is named as a likely duplicate. `similar`'s "nothing close" (0.2) is too
weak a claim for a comment: most issues have a match that close (61 % of Orbit's issues that are no known
duplicate, 70 % of 300 of a real backlog's); at 0.5 it is 5 % of both, while 10 of Orbit's 32 known
duplicates are named, 8 of them with their original."""
SAME_SUBJECT = 0.05
"""...and only when the two titles share a word that tells (their cosine at least this): a match on a pasted
environment listing, file-format list or paths alone is no duplicate. Of the 50 issues among a real backlog's
newest 1,000 whose best earlier match reached 0.5, the 7 whose titles shared nothing but its commonest words
(cosine ≤ 0.02) were all another problem on reading; every known duplicate of Orbit's named is kept (lowest 0.08)."""

_LINKS = re.compile(r"(?<![\w&])#(\d+)\b|/(?:issues|pull)/(\d+)\b")
"""How a reporter links another issue: `#7206`, or its address (`…/issues/7206`)."""


@dataclass(frozen=True)
class Draft:
    body: str
    why: str


def kind_of(issue: Issue, proposed: list[str], kinds: LabelKinds, common: Collection[str] = ()) -> str | None:
    """bug, question or something else: from the issue's labels, else from a title that asks (a reporter's own
    question outweighs a model's guess), else from the proposed labels, else from the rest of the text."""
    said = kinds.of(issue.labels)
    if said is None and asks(issue.title):
        return QUESTION
    return said or kinds.of(proposed) or kind_from_text(issue, common)


def missing_details(issue: Issue, common: Collection[str] = (), habits: FormHabits | None = None) -> list[str]:
    """What a bug report lacks for a maintainer to start: its version, unless the form it was filed through
    (`habits`, learned from the project) goes without one; its log, unless it shows code that fails."""
    has, habits = carries(issue, common), habits or FormHabits()
    wanted = [] if has.version or not habits.expects_version(issue) else [VERSION_WANTED]
    return wanted if has.log or has.reproduction else [*wanted, LOG_WANTED]


def comment_draft(
    issue: Issue,
    proposed: list[str],
    same: Match | None,
    kinds: LabelKinds,
    common: Collection[str] = (),
    habits: Callable[[], FormHabits] = FormHabits,
) -> Draft | None:
    """One comment for the issue, or None when there is nothing worth asking or saying.

    `proposed`: the labels the plan adds; `same`: the most similar issue filed before this one, named when it is
    likely the same; `habits`: the project's forms, learned only when a bug report lacks something."""
    kind = kind_of(issue, proposed, kinds, common)
    parts, whys = [], []
    if same is not None and likely_same(issue, same):
        parts.append(_earlier(kind, same))
        whys.append(NAMES_WHY)
    wanted = missing_details(issue, common) if kind == BUG else []
    wanted = missing_details(issue, common, habits()) if wanted else []
    if wanted:
        asked = "\n".join(f"- {item}" for item in wanted)
        parts.append(f"{ASKED}\n\n{asked}" if not parts else f"If not, we need a little more:\n\n{asked}")
        whys.append(ASKS_WHY)
    return Draft("\n\n".join(parts), "; ".join(whys)) if parts else None


def likely_same(issue: Issue, same: Match) -> bool:
    """Whether `same`, filed earlier, is worth naming as the report this one repeats."""
    return same.score >= LIKELY_SAME and same.title_likeness >= SAME_SUBJECT and same.id not in linked(issue)


def linked(issue: Issue) -> set[int]:
    """The issues the reporter's title and body link to."""
    return {int(a or b) for a, b in _LINKS.findall(f"{issue.title}\n{issue.body}")}


def _earlier(kind: str | None, same: Match) -> str:
    shared = ", ".join([*same.codes, *same.frames][:3]) or ", ".join(same.words[:3])
    named = f"#{same.id} (“{clean_line(same.title)}”, {'open' if same.state == 'open' else 'closed'})"
    both = f"; both mention {shared}" if shared else ""
    if kind == QUESTION:
        return f"This looks like a duplicate of {named}{both}. Does the answer there help?"
    if kind == BUG:
        return f"This looks like a duplicate of {named}{both}. If it is the same problem, please follow #{same.id}."
    return f"This looks like a duplicate of {named}{both}. If it is the same request, please add to #{same.id}."
