"""`atlas triage --eval`: the proposals and the similarity ranking replayed on the project's own history.

Each labelled issue among the newest part is proposed for by a model fitted only on issues filed
before it (the test part is cut into consecutive folds, each fold's model fitted on everything
older, over the vocabularies learnt once from the issues before the first fold: `replay_rows.py`),
and each known duplicate is looked up among the issues filed before it, by title and
body alone. Beside each figure, a plain TF-IDF baseline computed the same way: a default
TF-IDF + logistic regression for labels, a TF-IDF cosine over all earlier issues for duplicates.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from atlas.triage.corpus import Issue
from atlas.triage.groups import LabelGroup
from atlas.triage.model import TRAIN_MAX, GroupModel, best_allowed, fit_groups, one_thread, training_label
from atlas.triage.project import Project
from atlas.triage.replay_rows import Fold, Rows, replay_rows

TEST_SHARE = 0.2
MIN_TEST = 10
FOLDS = 5


@dataclass
class Predictions:
    truth: list[str] = field(default_factory=list)
    guess: list[str] = field(default_factory=list)
    confidence: list[float] = field(default_factory=list)

    def scores(self, threshold: float) -> dict[str, float | int]:
        from sklearn.metrics import f1_score

        if not self.truth:
            return {"n": 0}
        right = np.array([t == g for t, g in zip(self.truth, self.guess, strict=True)])
        covered = np.array(self.confidence) >= threshold
        return {
            "n": len(self.truth),
            "accuracy": round(float(right.mean()), 3),
            "macro_f1": round(float(f1_score(self.truth, self.guess, average="macro", zero_division=0)), 3),
            "coverage": round(float(covered.mean()), 3),
            "precision_at_threshold": round(float(right[covered].mean()), 3) if covered.any() else 0.0,
        }


def history(project: Project) -> list[Issue]:
    """Every issue, oldest first (the replay needs them all; only `--eval` reads the whole backlog)."""
    return sorted(project.corpus.newest(10**9), key=lambda issue: (issue.created_at, issue.id))


def test_part(project: Project, issues: list[Issue]) -> list[Issue]:
    labelled = [i for i in issues if any(training_label(i, g) for g in project.groups)]
    count = min(len(labelled), max(MIN_TEST, round(TEST_SHARE * len(labelled))))
    return labelled[len(labelled) - count :]


def baseline_groups(x: sparse.csr_matrix, issues: list[Issue], groups: list[LabelGroup]) -> dict[str, GroupModel]:
    """The baseline's classifier of each group with two labels taught: a default logistic regression of the
    plain TF-IDF rows `x` of `issues` (one row each) that teach it."""
    from sklearn.linear_model import LogisticRegression

    models = {}
    for group in groups:
        rows = [(n, label) for n, issue in enumerate(issues) if (label := training_label(issue, group))]
        if len({label for _, label in rows}) < 2:
            continue
        classifier = LogisticRegression(max_iter=1000).fit(x[[n for n, _ in rows]], [label for _, label in rows])
        models[group.name] = GroupModel(
            group, [str(c) for c in classifier.classes_], classifier.coef_, classifier.intercept_
        )
    return models


def label_replay(project: Project, issues: list[Issue]) -> dict[str, dict[str, Predictions]]:
    """Per group, the predictions of the model and of the baseline for every test issue with a label of it
    (`issues` oldest first)."""
    return _replay(project, issues, replay_folds(project, issues))


def replay_folds(project: Project, issues: list[Issue]) -> list[Fold]:
    """The test part of `issues` (oldest first) in consecutive folds, each with the issues filed before it."""
    test = test_part(project, issues)
    place = {issue.id: n for n, issue in enumerate(issues)}
    created = [issue.created_at for issue in issues]
    folds = []
    for fold in np.array_split(np.arange(len(test)), min(FOLDS, len(test))) if test else []:
        chunk = [test[int(i)] for i in fold]
        folds.append(Fold(bisect_left(created, chunk[0].created_at), [place[issue.id] for issue in chunk]))
    return folds


def split_replay(project: Project, train: list[Issue], test: list[Issue]) -> dict[str, dict[str, Predictions]]:
    """The same replay on a split given from outside (a published benchmark's): both fitted on `train` alone."""
    issues = sorted(train, key=lambda issue: (issue.created_at, issue.id)) + list(test)
    return _replay(project, issues, [Fold(len(train), list(range(len(train), len(issues))))])


def _replay(project: Project, issues: list[Issue], folds: list[Fold]) -> dict[str, dict[str, Predictions]]:
    found = {g.name: {"model": Predictions(), "baseline": Predictions()} for g in project.groups}
    folds = [fold for fold in folds if fold.before]  # no history before it (issues of one day): nothing to learn
    with one_thread():
        for n in range(len(folds)):
            try:
                rows = replay_rows(issues, project.groups, folds[n:])
            except ValueError:  # no word to learn from (`empty vocabulary`) before this fold: it judges nothing
                continue
            for fold in folds[n:]:
                _judge(project, issues, rows, fold, found)
            break
    return found


def _judge(
    project: Project, issues: list[Issue], rows: tuple[Rows, Rows], fold: Fold, into: dict[str, dict[str, Predictions]]
) -> None:
    """Fit the model and the baseline on the issues before `fold` and predict each labelled issue of it."""
    ours, theirs = rows
    x, places = ours.window(fold.before - TRAIN_MAX, fold.before)
    model = {fitted.group.name: fitted for fitted in fit_groups(x, [issues[n] for n in places], project.groups)}
    x, places = theirs.window(0, fold.before)
    baseline = baseline_groups(x, [issues[n] for n in places], project.groups)
    tested = [issues[n] for n in fold.tested]
    for name, fitted, x in (("model", model, ours.at(fold.tested)), ("baseline", baseline, theirs.at(fold.tested))):
        for group in project.groups:
            chosen = fitted.get(group.name)
            probabilities = chosen.probabilities(x) if chosen is not None else None
            for row, issue in enumerate(tested):
                truth = training_label(issue, group)
                if truth is not None:
                    found = probabilities[row] if probabilities is not None else None
                    _predict(into[group.name][name], chosen, found, issue, truth, project)


def _predict(
    into: Predictions,
    fitted: GroupModel | None,
    row: np.ndarray | None,
    issue: Issue,
    truth: str,
    project: Project,
) -> None:
    guess, confidence = "", 0.0
    if fitted is not None and row is not None:
        unlabelled = Issue(issue.id, issue.title, issue.body, issue.state, issue.author, issue.created_at, ())
        label, confidence = best_allowed(fitted, row, unlabelled, project.known_labels)
        guess = label or ""
    into.truth.append(truth)
    into.guess.append(guess)
    into.confidence.append(confidence)
