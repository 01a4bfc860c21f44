"""Which label groups the model may propose for: those where it did at least as well as a plain baseline
on the project's own history.

The newest fifth of the labelled issues (of the newest TRAIN_MAX) is proposed for by the model and
by the plain TF-IDF baseline of `atlas triage --eval`, both fitted only on the issues filed before
them, once per version of the data. A group whose model's macro-F1 falls below the baseline's gets
"needs a human" with its best guess, never a label. Too few labelled issues to tell (fewer than
MIN_TEST to score or MIN_TRAIN to learn from) is said, and the model proposes as it did before.
Kept in the state folder as JSON, read as untrusted: a file that does not check out is recomputed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from atlas.triage import memory
from atlas.triage.cache import FOLDER
from atlas.triage.corpus import Issue
from atlas.triage.evaluate import Predictions, label_replay, test_part
from atlas.triage.model import training_label
from atlas.triage.project import Project

PREFIX = "verdicts-"
FORMAT = 3
"""Raised with the model's own format: verdicts judge the model that the fit makes."""
MIN_TEST = 10
MIN_TRAIN = 20


@dataclass(frozen=True)
class Verdict:
    group: str
    model: float
    baseline: float
    tested: int
    trained: int

    @property
    def decided(self) -> bool:
        return self.tested >= MIN_TEST and self.trained >= MIN_TRAIN

    @property
    def may_propose(self) -> bool:
        return not self.decided or self.model >= self.baseline

    def note(self) -> str:
        if not self.decided:
            return ""
        scores = f"macro-F1 {self.model:.2f} vs {self.baseline:.2f}"
        return f"the model did worse than a plain baseline on this project's history ({scores})"


def verdicts(project: Project) -> dict[str, Verdict]:
    """Each group's verdict for this version of the data: from the state folder, else replayed now."""
    key = _key(project)
    found = _read(memory.read_json(_path(project, key)), key)
    if found is None:
        issues = sorted(project.training_issues(), key=lambda issue: (issue.created_at, issue.id))
        labelled = [sum(1 for issue in issues if training_label(issue, group)) for group in project.groups]
        # Too few labelled issues for any verdict: nothing to replay.
        enough = any(count >= MIN_TEST + MIN_TRAIN for count in labelled)
        found = judge(project, issues, label_replay(project, issues) if enough else {})
    return found


def kept(project: Project) -> bool:
    """Whether this version of the data's verdicts are in the state folder: using them costs a read, not a replay."""
    key = _key(project)
    return _read(memory.read_json(_path(project, key)), key) is not None


def judge(project: Project, issues: list[Issue], runs: dict[str, dict[str, Predictions]]) -> dict[str, Verdict]:
    """The verdicts of a label replay of `issues` (oldest first), kept for this version of the data."""
    test = test_part(project, issues)
    older = [issue for issue in issues if test and issue.created_at < test[0].created_at]
    found = {}
    for group in project.groups:
        trained = sum(1 for issue in older if training_label(issue, group))
        model, baseline = runs.get(group.name, {}).get("model"), runs.get(group.name, {}).get("baseline")
        found[group.name] = Verdict(group.name, _f1(model), _f1(baseline), len(model.truth) if model else 0, trained)
    key = _key(project)
    with contextlib.suppress(OSError):  # costs a replay next time, nothing else
        memory.write_json(
            _path(project, key), {"format": FORMAT, "key": key, "groups": [v.__dict__ for v in found.values()]}
        )
    return found


def _path(project: Project, key: str) -> Path:
    return project.corpus.home / FOLDER / f"{PREFIX}{key}.json"


def _f1(predictions: Predictions | None) -> float:
    if predictions is None or not predictions.truth:
        return 0.0
    return float(predictions.scores(0.0)["macro_f1"])


def _key(project: Project) -> str:
    # Like the model's key: a label approved through Atlas replays nothing until the data's next version.
    described = json.dumps(
        [project.corpus.stamp(), sorted(project.settings.groups.items()), FORMAT], sort_keys=True, default=str
    )
    return hashlib.sha256(described.encode()).hexdigest()[:24]


def _read(found: object, key: str) -> dict[str, Verdict] | None:
    if not isinstance(found, dict) or found.get("format") != FORMAT or found.get("key") != key:
        return None
    verdicts = {}
    try:
        for entry in found["groups"]:
            verdict = Verdict(
                str(entry["group"]),
                float(entry["model"]),
                float(entry["baseline"]),
                int(entry["tested"]),
                int(entry["trained"]),
            )
            verdicts[verdict.group] = verdict
    except (KeyError, TypeError, ValueError):
        return None
    return verdicts
