"""The project's issue forms and what the reports filed through each of them usually give.

A report filed through a form opens with that form's first heading (`### Link`, `## Describe the bug`,
`**Is your feature request related to a problem?**`). A form whose reports carry a version clearly less
often than the project's other reports does not ask its reporters for one: a form for a hosted page asks
for the page's link, and its reporters run no version of anything. A draft asking them for a version asks
for what does not exist. The same holds for a log or a reproduction. Learned from the project's own issues
by their structure, never from their words or labels.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from atlas.triage import boilerplate
from atlas.triage.corpus import Issue
from atlas.triage.groups import MIN_SUPPORT
from atlas.triage.issue_kinds import carries, clearly_more_often

_HEADING = re.compile(r"^[ \t]{0,3}(?:#{1,6}[ \t]+\S.*|\*\*[^*\n]+\*\*:?)[ \t\r]*$", re.M)
"""A markdown heading, or a line that is all bold (older templates' headings)."""


def form_of(body: str) -> str | None:
    """The first heading of what the reporter sees (hidden comments dropped), folded; None without one."""
    found = _HEADING.search(boilerplate.visible(body))
    return boilerplate.line_key(found.group(0)) if found else None


@dataclass(frozen=True)
class FormHabits:
    """The forms whose reports clearly go without a version, and those that go without a log or reproduction."""

    without_version: frozenset[str] = frozenset()
    without_log: frozenset[str] = frozenset()

    def expects_version(self, issue: Issue) -> bool:
        return form_of(issue.body) not in self.without_version

    def expects_log(self, issue: Issue) -> bool:
        return form_of(issue.body) not in self.without_log


def learn(issues: Iterable[Issue], common: Collection[str] = ()) -> FormHabits:
    """Each form with enough reports, compared with every other report of the project (with or without a form)."""
    reports: Counter[str | None] = Counter()
    versions: Counter[str | None] = Counter()
    logs: Counter[str | None] = Counter()
    for issue in issues:
        form, has = form_of(issue.body), carries(issue, common)
        reports[form] += 1
        versions[form] += has.version
        logs[form] += has.log or has.reproduction
    return FormHabits(_lacking(reports, versions), _lacking(reports, logs))


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


@dataclass
class _Learned:
    lock: threading.Lock = field(default_factory=threading.Lock)
    found: dict[tuple[str, str], FormHabits] = field(default_factory=dict)


_learned = _Learned()


def form_habits(key: tuple[str, str], issues: Iterable[Issue], common: Collection[str]) -> FormHabits:
    """The habits learned once per version of the data (`key`)."""
    with _learned.lock:
        found = _learned.found.get(key)
    if found is None:
        found = learn(issues, common)
        with _learned.lock:
            _learned.found[key] = found
    return found
