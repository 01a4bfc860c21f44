"""Label groups learned from the project's labels: `type:bug` and `type:feature` are the group `type`.

A group is expected on every issue when most labelled issues carry it, or on issues with a label
that usually comes with it (a severity on bugs and features, not on questions). Projects whose
labels have no prefixes name their groups in config.toml (`[triage.groups]`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

ALWAYS = 0.8
"""A group on this share of labelled issues is expected on every issue."""
USUALLY = 0.8
"""A group on this share of the issues with some label is expected on issues with that label."""
MIN_SUPPORT = 5
"""Fewer issues than this prove nothing about a group."""


@dataclass(frozen=True)
class LabelGroup:
    name: str
    labels: tuple[str, ...]
    always: bool
    """Expected on every issue; otherwise only on issues with one of `implied_by`."""
    implied_by: tuple[str, ...] = ()

    def expected(self, labels: Iterable[str]) -> bool:
        return self.always or any(label in self.implied_by for label in labels)

    def present(self, labels: Iterable[str]) -> list[str]:
        return [label for label in labels if label in self.labels]


def group_of(label: str, configured: dict[str, tuple[str, ...]]) -> str | None:
    for name, members in configured.items():
        if label in members:
            return name
    prefix, colon, rest = label.partition(":")
    return prefix.strip().casefold() if colon and prefix.strip() and rest.strip() else None


def learn_groups(
    issue_labels: Iterable[tuple[str, ...]], known: Iterable[str], configured: dict[str, tuple[str, ...]]
) -> list[LabelGroup]:
    """The groups of the project's labels, each with where it is expected, from every issue's labels."""
    members: dict[str, list[str]] = {}
    for label in sorted(known):
        name = group_of(label, configured)
        if name is not None:
            members.setdefault(name, []).append(label)
    members = {name: labels for name, labels in members.items() if len(labels) >= 2}
    with_group: Counter[str] = Counter()
    with_label: Counter[str] = Counter()
    together: Counter[tuple[str, str]] = Counter()
    labelled = 0
    for labels in issue_labels:
        groups = {name for name, names in members.items() if any(x in names for x in labels)}
        if not groups:
            continue
        labelled += 1
        with_group.update(groups)
        with_label.update(labels)
        together.update((label, name) for label in labels for name in groups)
    found = []
    for name, names in members.items():
        if labelled and with_group[name] >= max(MIN_SUPPORT, ALWAYS * labelled):
            found.append(LabelGroup(name, tuple(names), always=True))
            continue
        implied = tuple(
            label
            for label, count in sorted(with_label.items())
            if label not in names and count >= MIN_SUPPORT and together[(label, name)] >= USUALLY * count
        )
        found.append(LabelGroup(name, tuple(names), always=False, implied_by=implied))
    return found


def missing_groups(groups: list[LabelGroup], labels: Iterable[str]) -> list[LabelGroup]:
    """The groups an issue with `labels` should have and has not."""
    have = list(labels)
    return [group for group in groups if group.expected(have) and not group.present(have)]
