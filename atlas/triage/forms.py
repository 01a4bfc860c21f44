"""The project's issue forms and what the reports filed through each of them usually give.

A report filed through a form opens with that form's first heading (`### Link`, `## Describe the bug`,
`**Is your feature request related to a problem?**`). A form whose reports carry a version clearly less
often than the project's other reports does not ask its reporters for one: a form for a hosted page asks
for the page's link, and its reporters run no version of anything. A draft asking them for a version asks
for what does not exist. (A log is another matter: every failure shows an error, so a form's habits never
excuse one.) Learned from the project's own issues
by their structure, never from their words or labels, once per version of the data (kept in the state folder).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas.triage import boilerplate, memory
from atlas.triage.corpus import Issue
from atlas.triage.groups import MIN_SUPPORT
from atlas.triage.issue_kinds import SAMPLE, carries, clearly_more_often

if TYPE_CHECKING:
    from atlas.triage.project import Project

_HEADING = re.compile(r"^[ \t]{0,3}(?:#{1,6}[ \t]+\S.*|\*\*[^*\n]+\*\*:?)[ \t\r]*$", re.M)
"""A markdown heading, or a line that is all bold (older templates' headings)."""


def form_of(body: str) -> str | None:
    """The first heading of what the reporter sees (hidden comments dropped), folded; None without one."""
    found = _HEADING.search(boilerplate.visible(body))
    return boilerplate.line_key(found.group(0)) if found else None


@dataclass(frozen=True)
class FormHabits:
    """The forms whose reports clearly go without a version."""

    without_version: frozenset[str] = frozenset()

    def expects_version(self, issue: Issue) -> bool:
        return form_of(issue.body) not in self.without_version


def learn(issues: Iterable[Issue], common: Collection[str] = ()) -> FormHabits:
    """Each form with enough reports, compared with every other report of the project (with or without a form)."""
    reports: Counter[str | None] = Counter()
    versions: Counter[str | None] = Counter()
    for issue in issues:
        form = form_of(issue.body)
        reports[form] += 1
        versions[form] += carries(issue, common).version
    return FormHabits(_lacking(reports, versions))


def _lacking(reports: Counter[str | None], given: Counter[str | None]) -> frozenset[str]:
    """The forms whose reports give it clearly less often than the project's other reports."""
    total, given_total = sum(reports.values()), sum(given.values())
    return frozenset(
        form
        for form, count in reports.items()
        if form is not None
        and count >= MIN_SUPPORT
        and clearly_more_often(given_total - given[form], total - count, given[form], count)
    )


PREFIX = "forms-"
FORMAT = 2


def stored_habits(project: Project) -> FormHabits:
    """The habits for this version of the data: from the state folder, else learned now and kept there
    (reading every report's structure takes about a second on a 3,000-issue backlog)."""
    from atlas.triage.cache import FOLDER  # the model's folder; imported here, as it loads numpy

    key = hashlib.sha256(json.dumps([project.corpus.stamp(), FORMAT]).encode()).hexdigest()[:24]
    path = project.corpus.home / FOLDER / f"{PREFIX}{key}.json"
    found = _read(memory.read_json(path), key)
    if found is None:
        found = learn(project.corpus.newest(SAMPLE), project.index().common)
        kept = {"without_version": sorted(found.without_version)}
        with contextlib.suppress(OSError):  # costs learning them again next time, nothing else
            memory.write_json(path, {"format": FORMAT, "key": key, **kept})
    return found


def _read(found: object, key: str) -> FormHabits | None:
    """The kept habits, or None for a file Atlas did not write for this key (it is learned again)."""
    if not isinstance(found, dict) or found.get("format") != FORMAT or found.get("key") != key:
        return None
    forms = found.get("without_version")
    if not isinstance(forms, list) or not all(isinstance(form, str) for form in forms):
        return None
    return FormHabits(frozenset(forms))
