"""Triage made ready when the data changes: what a tool call could not build within its deadline is built
by `atlas data import` and `atlas data sync`, right after they write a new version of the data.

A project past `tools.FIT_IN_CALL_MAX` issues gets its label model fitted and its history replayed (the
verdicts that let each group propose): at 3,019 real issues about a minute on two cores, two thirds of it
the replay's nested cross-validation, far past the 10 s a `suggest_labels` or `plan_triage` call may take.
A project past `tools.INDEX_IN_CALL_MAX` gets its similarity index too. Both are kept per version of the
data, so every sync that brings new issues readies them again; what is already kept for this version only
costs a load. A smaller project is left alone: its first call builds what it needs within its deadline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas.triage.project import Project

if TYPE_CHECKING:
    from atlas.github.sync import Progress  # the stages' reports a sync already makes, on the same bar

STAGE = "triage"


@dataclass(frozen=True)
class Step:
    what: str
    """What a person is told is being built."""
    build: Callable[[], object]


def steps_for(project: Project) -> list[Step]:
    """What this project's tool calls could not build within their deadline, in the order they need it."""
    from atlas.triage import verdicts
    from atlas.triage.tools import FIT_IN_CALL_MAX, INDEX_IN_CALL_MAX

    count = project.corpus.count()
    steps = []
    # What is kept for this version already is left out: a second sync of unchanged data costs nothing here.
    if count > FIT_IN_CALL_MAX and not project.kept(model=True, index=False):
        steps.append(Step("the label model", project.model))
    if count > FIT_IN_CALL_MAX and not verdicts.kept(project):
        steps.append(Step("the replay that checks it on the project's history", lambda: verdicts.verdicts(project)))
    if count > INDEX_IN_CALL_MAX and not project.kept(model=False, index=True):
        steps.append(Step("the similarity index", project.index))
    return steps


def build(steps: list[Step], progress: Progress | None = None) -> None:
    """Build and keep each of `steps` (of `steps_for`), saying how many are done as each starts."""
    for done, step in enumerate(steps):
        if progress is not None:
            progress(STAGE, done, len(steps))
        step.build()
    if progress is not None and steps:
        progress(STAGE, len(steps), len(steps))
