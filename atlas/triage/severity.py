"""An issue's severity as the inbox orders it: known (ranked), unknown (not yet triaged) or not applicable.

An issue with no severity is not a minor one. When the severity is expected but missing, or whether
one applies is not decided yet (the issue has no type), it is *unknown*: it could be critical, so it
comes right after the known most severe issues and before the known lesser ones (finding out is a
minute's triage; missing a critical bug costs more). Where the project's labels say an issue takes
no severity (on Orbit, a question), it has none to sort by and comes after the whole scale.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from atlas.foundation.label_names import label_value
from atlas.triage.groups import LabelGroup

SEVERITY_GROUPS = ("severity", "priority")
WORD_RANKS = {
    **dict.fromkeys(("blocker", "critical", "urgent", "highest", "showstopper"), 0),
    **dict.fromkeys(("high", "major", "important"), 1),
    **dict.fromkeys(("medium", "moderate", "normal"), 2),
    **dict.fromkeys(("low", "minor"), 3),
    **dict.fromkeys(("lowest", "trivial", "cosmetic"), 4),
}
"""How projects without numbered severities order their words (`severity:high` before `severity:low`)."""
_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class Severity:
    label: str | None
    """The issue's severity label; None when it has none."""
    known: bool
    """False: expected (or perhaps expected) and missing. True with no label: the issue takes none."""

    @property
    def unknown(self) -> bool:
        return not self.known


def scale(groups: list[LabelGroup]) -> list[str]:
    """The project's severity labels, most severe first."""
    labels = [label for g in groups if g.name in SEVERITY_GROUPS for label in g.labels]
    return sorted(labels, key=_rank)


def _rank(label: str) -> tuple[int, float, str]:
    value = label_value(label)
    number = _NUMBER.search(value)
    if number:
        return (0, float(number.group()), value)
    word = WORD_RANKS.get(value.strip().casefold())
    return (0, float(word), value) if word is not None else (1, 0.0, value)


def severity_of(groups: list[LabelGroup], labels: Iterable[str]) -> Severity:
    have = list(labels)
    severity_groups = [g for g in groups if g.name in SEVERITY_GROUPS]
    order = scale(groups)
    present = sorted((x for g in severity_groups for x in g.present(have)), key=order.index)
    if present:
        return Severity(present[0], known=True)
    expected = any(g.expected(have) for g in severity_groups)
    # No type yet, when the type decides whether a severity applies: that is undecided too.
    deciding = {label for g in severity_groups for label in g.implied_by}
    undecided = any(
        g.always and not g.present(have) and deciding.intersection(g.labels)
        for g in groups
        if g.name not in SEVERITY_GROUPS
    )
    return Severity(None, known=not (severity_groups and (expected or undecided)))


def sort_key(severity: Severity, order: list[str]) -> float:
    """Known most severe first (0), then unknown (0.5), then the rest of the scale, then issues that take none."""
    if severity.label is not None:
        return float(order.index(severity.label))
    return 0.5 if severity.unknown else float(len(order))
