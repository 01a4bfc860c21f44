"""Label groups learned from the project's labels: `type:bug` and `type:feature` are the group `type`.

Labels without a prefix form a group too when they behave as one choice: rarely on one issue
together, and together on most labelled issues (`bug`, `enhancement`, `documentation` on a project
that labels each issue with one of them). A group is expected on every issue when most labelled
issues carry it, or on issues with a label that usually comes with it (a severity on bugs and
features, not on questions). `[triage.groups]` in config.toml names groups instead of inferring them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from atlas.foundation.label_names import split_label

ALWAYS = 0.8
"""A group on this share of labelled issues is expected on every issue."""
USUALLY = 0.8
"""A group on this share of the issues with some label is expected on issues with that label."""
MIN_SUPPORT = 5
"""Fewer issues than this prove nothing about a group."""
CHOICE_MEMBER = 0.01
"""A flat label on fewer than this share of labelled issues is too rare to say what it goes with."""
CHOICE_TOGETHER = 0.1
"""Two labels of one choice share at most this share of the rarer one's issues."""
CHOICE_COVERS = 0.5
"""The labels of one choice are, together, on at least this share of labelled issues."""
RARELY = 0.25
"""A label whose issues carry an always-expected group at most this often stands in for the group: `dataset bug`
on a project whose kinds are `bug` and `enhancement` triages an issue as well as they do."""
CHOICE_NAMES = ("kind", "category", "class")
"""What an inferred choice of flat labels is called: the first name no prefix of the project has."""


@dataclass(frozen=True)
class LabelGroup:
    name: str
    labels: tuple[str, ...]
    always: bool
    """Expected on every issue; otherwise only on issues with one of `implied_by`."""
    implied_by: tuple[str, ...] = ()
    inferred: bool = False
    """Flat labels found to behave as one choice, not a shared prefix or a configured group."""
    excused_by: tuple[str, ...] = ()
    """Labels whose issues seldom carry this group (at most `RARELY`): an issue with one of them needs none."""

    @property
    def prefixed(self) -> bool:
        return not self.inferred and all((split_label(label)[0] or "").casefold() == self.name for label in self.labels)

    @property
    def short(self) -> str:
        """`type:` for a group of one prefix, the group's name (`kind`) for one of flat labels."""
        return f"{self.name}:" if self.prefixed else self.name

    @property
    def shown(self) -> str:
        """`type: (type:bug, type:feature)`, `kind (bug, enhancement, question)`: the group and its labels."""
        return f"{self.short} ({', '.join(self.labels)})"

    def expected(self, labels: Iterable[str]) -> bool:
        have = list(labels)
        if self.always:
            return not any(label in self.excused_by for label in have)
        return any(label in self.implied_by for label in have)

    def present(self, labels: Iterable[str]) -> list[str]:
        return [label for label in labels if label in self.labels]


def group_of(label: str, configured: dict[str, tuple[str, ...]]) -> str | None:
    for name, members in configured.items():
        if label in members:
            return name
    prefix = split_label(label)[0]
    return prefix.casefold() if prefix else None


def learn_groups(
    issue_labels: Iterable[tuple[str, ...]], known: Iterable[str], configured: dict[str, tuple[str, ...]]
) -> list[LabelGroup]:
    """The groups of the project's labels, each with where it is expected, from every issue's labels."""
    issue_labels = list(issue_labels)
    members: dict[str, list[str]] = {}
    for label in sorted(known):
        name = group_of(label, configured)
        if name is not None:
            members.setdefault(name, []).append(label)
    members = {name: labels for name, labels in members.items() if len(labels) >= 2}
    choice = [] if configured else one_choice(issue_labels, {x for names in members.values() for x in names})
    if choice:
        name = next((n for n in CHOICE_NAMES if n not in members), "flat")
        members[name] = choice
    with_group: Counter[str] = Counter()
    with_label: Counter[str] = Counter()
    together: Counter[tuple[str, str]] = Counter()
    labelled = 0
    seen: Counter[str] = Counter()
    for labels in issue_labels:
        seen.update(labels)
        groups = {name for name, names in members.items() if any(x in names for x in labels)}
        if not groups:
            continue
        labelled += 1
        with_group.update(groups)
        with_label.update(labels)
        together.update((label, name) for label in labels for name in groups)
    found = []
    for name, names in members.items():
        inferred = names is choice
        if labelled and with_group[name] >= max(MIN_SUPPORT, ALWAYS * labelled):
            excused = tuple(
                label
                for label, count in sorted(seen.items())
                if label not in names and count >= MIN_SUPPORT and together[(label, name)] <= RARELY * count
            )
            found.append(LabelGroup(name, tuple(names), always=True, inferred=inferred, excused_by=excused))
            continue
        implied = tuple(
            label
            for label, count in sorted(with_label.items())
            if label not in names and count >= MIN_SUPPORT and together[(label, name)] >= USUALLY * count
        )
        found.append(LabelGroup(name, tuple(names), always=False, implied_by=implied, inferred=inferred))
    return found


def one_choice(issue_labels: list[tuple[str, ...]], grouped: set[str]) -> list[str]:
    """The flat labels that behave as one choice (most common first), or [] when none do: each rarely on an
    issue with another of them, all of them together on most labelled issues."""
    counts: Counter[str] = Counter()
    pairs: Counter[frozenset[str]] = Counter()
    labelled = 0
    for labels in issue_labels:
        if not labels:
            continue
        labelled += 1
        flat = sorted({label for label in labels if label not in grouped and group_of(label, {}) is None})
        counts.update(flat)
        pairs.update(frozenset((a, b)) for i, a in enumerate(flat) for b in flat[i + 1 :])
    chosen: list[str] = []
    for label, count in counts.most_common():
        if count < max(MIN_SUPPORT, CHOICE_MEMBER * labelled):
            break
        if all(pairs[frozenset((label, other))] <= CHOICE_TOGETHER * min(count, counts[other]) for other in chosen):
            chosen.append(label)
    covered = sum(1 for labels in issue_labels if any(label in chosen for label in labels))
    return chosen if len(chosen) >= 2 and covered >= CHOICE_COVERS * labelled else []


def missing_groups(groups: list[LabelGroup], labels: Iterable[str]) -> list[LabelGroup]:
    """The groups an issue with `labels` should have and has not."""
    have = list(labels)
    return [group for group in groups if group.expected(have) and not group.present(have)]


HINT_LABELS = 3
"""The most used labels a naming hint quotes."""


def most_used(issue_labels: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    """The project's most used labels, most used first: what a hint to name a group quotes."""
    used = Counter(label for labels in issue_labels for label in labels)
    return tuple(label for label, _ in used.most_common(HINT_LABELS))


def naming_hint(used: tuple[str, ...], config: str) -> str:
    """What to write in config.toml to name a group, with the project's most used labels."""
    names = list(used) or ["bug", "enhancement"]
    listed = ", ".join(f'"{name}"' for name in names)
    return f"name one in {config}: [triage.groups] kind = [{listed}]"


def no_groups_note(used: tuple[str, ...], config: str) -> str:
    """Why untriaged means only "no label at all" here, and how to say more (`used`: the most used labels)."""
    return (
        "No label group is known for this project: its labels share no prefix and none behave as one choice, "
        "so only issues with no label at all count as untriaged; " + naming_hint(used, config) + "."
    )
