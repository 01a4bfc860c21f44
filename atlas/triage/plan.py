"""A triage plan: numbered actions for the executor, built from proposals, saved and read back as JSON.

A saved plan names its dataset and each issue's state when it was made (a fingerprint), and carries
a checksum of everything else: a plan that was edited, cut short or made for other data is refused
as a whole, with one line that says which.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from atlas.foundation.errors import AtlasError
from atlas.triage.corpus import Issue, Thread
from atlas.triage.issue_kinds import SAMPLE, LabelKinds, label_kinds
from atlas.triage.project import Project

if TYPE_CHECKING:
    from atlas.triage.forms import FormHabits
    from atlas.triage.proposals import Proposal

FORMAT = "atlas-triage-plan"
VERSION = 1
TOOLS = ("add_label", "post_comment")
FILE_LIMIT = 20_000_000
NO_THREADS = (
    "No comment drafted: this data holds no comments, so whether someone already answered an issue is unknown "
    "(`atlas data sync` fetches them)."
)


class PlanError(AtlasError):
    """A plan that cannot be used; nothing was applied."""


@dataclass
class PlanItem:
    n: int
    issue_id: int
    tool: str
    arguments: dict[str, Any]
    why: str

    def headline(self) -> str:
        if self.tool == "add_label":
            return f"#{self.issue_id} add label {self.arguments['label']}"
        return f"#{self.issue_id} comment"


@dataclass
class Plan:
    dataset: str
    created_at: str
    items: list[PlanItem]
    fingerprints: dict[int, str]
    notes: list[str] = field(default_factory=list)

    def checksum(self) -> str:
        return hashlib.sha256(_canonical(self._body()).encode()).hexdigest()

    def _body(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "dataset": self.dataset,
            "created_at": self.created_at,
            "fingerprints": {str(k): v for k, v in sorted(self.fingerprints.items())},
            "items": [asdict(item) for item in self.items],
            "notes": self.notes,
        }

    def to_json(self) -> str:
        return json.dumps({**self._body(), "checksum": self.checksum()}, ensure_ascii=False, indent=1) + "\n"


def _canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def fingerprint(issue: Issue, thread: Thread, atlas_comments: int) -> str:
    """Changes when anything a reviewer judged changes: text, state, labels, the thread (Atlas's comments too)."""
    seen = [
        issue.title,
        issue.body,
        issue.state,
        sorted(issue.labels),
        list(thread.authors),
        list(thread.times),
        atlas_comments,
    ]
    return hashlib.sha256(_canonical(seen).encode()).hexdigest()[:20]


def fingerprints(project: Project, issues: list[Issue], commented: dict[int, int]) -> dict[int, str]:
    threads = project.corpus.threads([issue.id for issue in issues])
    return {issue.id: fingerprint(issue, threads[issue.id], commented.get(issue.id, 0)) for issue in issues}


def _why(group: str, label: str, confidence: float, words: tuple[str, ...], nearest: tuple[int, ...]) -> str:
    like = f"; like {', '.join(f'#{i}' for i in nearest)}" if nearest else ""
    said = f"; words: {', '.join(words)}" if words else ""
    return f"{group}: {label} ({confidence:.0%}){like}{said}"


def items_for(
    project: Project, proposal: Proposal, first: int, *, comment_ok: bool
) -> tuple[list[PlanItem], list[str]]:
    issue = proposal.issue
    items: list[PlanItem] = []
    notes: list[str] = []
    for group in proposal.groups:
        if group.label is None:
            guess = f" (best guess {group.guess}, {group.confidence:.0%})" if group.guess else ""
            notes.append(f"#{issue.id} {group.group}: needs a human{guess}{'; ' + group.note if group.note else ''}")
            continue
        why = _why(group.group, group.label, group.confidence, group.words, group.nearest)
        items.append(
            PlanItem(first + len(items), issue.id, "add_label", {"issue_id": issue.id, "label": group.label}, why)
        )
    if comment_ok:
        from atlas.triage.drafts import comment_draft
        from atlas.triage.similar import nearest

        earlier = nearest(project, issue, limit=1, before=issue.created_at)
        common = project.index().common
        same = earlier[0] if earlier else None
        draft = comment_draft(issue, proposal.labels, same, kinds_of(project), common, lambda: habits_of(project))
        if draft is not None:
            arguments = {"issue_id": issue.id, "body": draft.body}
            items.append(PlanItem(first + len(items), issue.id, "post_comment", arguments, draft.why))
    return items, notes


def kinds_of(project: Project) -> LabelKinds:
    """What the project's labels say an issue is, learned once per version of its labels."""
    key = (str(project.corpus.data.resolve()), project.label_key)
    return label_kinds(key, project.groups, project.corpus.newest(SAMPLE))


def habits_of(project: Project) -> FormHabits:
    """What the reports of each of the project's forms give, learned once per version of the data."""
    from atlas.triage.forms import stored_habits

    return stored_habits(project)


def build_plan(project: Project, issues: list[Issue], commented: dict[int, int]) -> Plan:
    """Labels for every issue's empty groups; a comment where it helps: only on an issue nobody has answered
    yet (a maintainer who spoke has asked what they need) and never a second one from Atlas."""
    from atlas.triage.proposals import propose

    items: list[PlanItem] = []
    notes: list[str] = []
    threads = project.corpus.threads([issue.id for issue in issues])
    known = project.corpus.comments_known()  # without the threads, whether anyone answered is unknown: no draft
    for proposal in propose(project, issues):
        issue = proposal.issue
        answered = any(who != issue.author for who in threads[issue.id].authors) or commented.get(issue.id) or not known
        more, said = items_for(project, proposal, len(items) + 1, comment_ok=not answered)
        items += more
        notes += said
    notes += [] if known or not issues else [NO_THREADS]
    when = datetime.now(UTC).isoformat(timespec="seconds")
    return Plan(project.corpus.identity(), when, items, fingerprints(project, issues, commented), notes)
