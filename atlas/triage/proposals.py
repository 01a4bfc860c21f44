"""Label proposals: for each label group an issue should have and has not, the label, its confidence, and why.

A group whose model did worse than a plain baseline on the project's history (`verdicts.py`)
gets only "needs a human" and the best guess. Only the project's own labels are proposed, never
one a person removed from the issue, and a label a person set is never changed: a proposal only
fills a group that is empty. Below the threshold there is no label, only the best guess and
"needs a human".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from atlas.dataset.read import connect
from atlas.orbit.db import labels_of
from atlas.triage.corpus import Issue
from atlas.triage.groups import LabelGroup
from atlas.triage.model import TextModel, best_allowed
from atlas.triage.project import Project
from atlas.triage.similar import candidates
from atlas.triage.verdicts import Verdict, verdicts

EVIDENCE = 3
EVIDENCE_POOL = 30


@dataclass(frozen=True)
class GroupProposal:
    group: str
    label: str | None
    """None: needs a human (nothing above the threshold, or no model for the group)."""
    confidence: float
    guess: str | None
    words: tuple[str, ...] = ()
    nearest: tuple[int, ...] = ()
    """Labelled issues like this one that carry the label (or the guess)."""
    note: str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "group": self.group,
            "label": self.label,
            "confidence": round(self.confidence, 3),
            "best_guess": self.guess,
            "deciding_words": list(self.words),
            "similar_issues_with_it": list(self.nearest),
            "needs_a_human": self.label is None,
            **({"note": self.note} if self.note else {}),
        }


@dataclass(frozen=True)
class Proposal:
    issue: Issue
    groups: list[GroupProposal] = field(default_factory=list)

    @property
    def labels(self) -> list[str]:
        return [g.label for g in self.groups if g.label is not None]


def propose_group(
    project: Project,
    model: TextModel,
    group: LabelGroup,
    issue: Issue,
    x: object,
    evidence: dict[int, tuple[str, ...]],
    verdict: Verdict | None = None,
) -> GroupProposal:
    fitted = model.group(group.name)
    if fitted is None:
        return GroupProposal(group.name, None, 0.0, None, note="too few labelled issues to learn this group from")
    row = fitted.probabilities(x)[0]
    label, confidence = best_allowed(fitted, row, issue, project.known_labels)
    if label is None:
        return GroupProposal(group.name, None, 0.0, None, note="every label of this group was removed by a person")
    words = tuple(fitted.deciding_words(x, label, model.vocabulary))
    nearest = tuple(i for i, labels in evidence.items() if label in labels)[:EVIDENCE]
    if verdict is not None and not verdict.may_propose:
        return GroupProposal(group.name, None, confidence, label, words, nearest, note=verdict.note())
    chosen = label if confidence >= project.settings.threshold else None
    return GroupProposal(group.name, chosen, confidence, label, words, nearest)


def labelled_neighbours(project: Project, issue: Issue) -> dict[int, tuple[str, ...]]:
    """Issues like this one (best first; newest first in a large backlog) and their labels: a proposal's evidence."""
    ids = [issue_id for issue_id, _ in candidates(project, issue, limit=EVIDENCE_POOL)]
    if not ids:
        return {}
    with connect(project.corpus.data, project.corpus.home) as conn:
        labels = labels_of(conn, ids)
    return {i: tuple(labels[i]) for i in ids if labels.get(i)}


def propose(project: Project, issues: list[Issue]) -> list[Proposal]:
    """A proposal for each issue: its empty expected groups filled, or left to a person."""
    model = project.model()
    judged = verdicts(project) if issues else {}
    vectors = model.features([issue.text for issue in issues]) if issues else None
    found = []
    for row, issue in enumerate(issues):
        x = vectors.getrow(row) if vectors is not None else None
        labels = list(issue.labels)
        groups: list[GroupProposal] = []
        evidence: dict[int, tuple[str, ...]] | None = None
        # Groups expected on every issue first: a proposed type decides whether a severity is expected.
        for group in sorted(project.groups, key=lambda g: not g.always):
            if group.present(labels) or not group.expected(labels):
                continue
            if evidence is None:
                evidence = labelled_neighbours(project, issue)
            proposal = propose_group(project, model, group, issue, x, evidence, judged.get(group.name))
            groups.append(proposal)
            if proposal.label is not None:
                labels.append(proposal.label)
        found.append(Proposal(issue, groups))
    return found
