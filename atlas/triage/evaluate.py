"""`atlas triage --eval`: the proposals and the similarity ranking replayed on the project's own history.

Each labelled issue among the newest part is proposed for by a model fitted only on issues filed
before it (the test part is cut into consecutive folds, each fold's model fitted on everything
older), and each known duplicate is looked up among the issues filed before it, by title and
body alone. Beside each figure, a plain TF-IDF baseline computed the same way: a default
TF-IDF + logistic regression for labels, a TF-IDF cosine over all earlier issues for duplicates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from atlas.triage.corpus import Issue
from atlas.triage.model import GroupModel, best_allowed, fit, one_thread, training_label
from atlas.triage.project import Project

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


def baseline_fit(train: list[Issue], project: Project) -> tuple[object, dict[str, GroupModel]]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = TfidfVectorizer()
    x = vectorizer.fit_transform([issue.text for issue in train])
    models = {}
    for group in project.groups:
        rows = [(n, label) for n, issue in enumerate(train) if (label := training_label(issue, group))]
        if len({label for _, label in rows}) < 2:
            continue
        classifier = LogisticRegression(max_iter=1000).fit(x[[n for n, _ in rows]], [label for _, label in rows])
        models[group.name] = GroupModel(
            group, [str(c) for c in classifier.classes_], classifier.coef_, classifier.intercept_
        )
    return vectorizer, models


def label_replay(project: Project, issues: list[Issue]) -> dict[str, dict[str, Predictions]]:
    """Per group, the predictions of the model and of the baseline for every test issue with a label of it."""
    test = test_part(project, issues)
    found = _empty(project)
    folds = np.array_split(np.arange(len(test)), min(FOLDS, len(test))) if test else []
    for fold in folds:
        chunk = [test[int(i)] for i in fold]
        earlier = [i for i in issues if i.created_at < chunk[0].created_at]
        if earlier:  # a fold with no history before it (issues of one day) has nothing to learn from
            _replay(project, earlier, chunk, found)
    return found


def split_replay(project: Project, train: list[Issue], test: list[Issue]) -> dict[str, dict[str, Predictions]]:
    """The same replay on a split given from outside (a published benchmark's): both fitted on `train` alone."""
    found = _empty(project)
    _replay(project, sorted(train, key=lambda issue: (issue.created_at, issue.id)), test, found)
    return found


def _empty(project: Project) -> dict[str, dict[str, Predictions]]:
    return {g.name: {"model": Predictions(), "baseline": Predictions()} for g in project.groups}


def _replay(project: Project, train: list[Issue], test: list[Issue], into: dict[str, dict[str, Predictions]]) -> None:
    """Fit the model and the baseline on `train` (oldest first) and predict each labelled issue of `test`."""
    with one_thread():
        try:
            model = fit(list(reversed(train)), project.groups)
            vectorizer, baseline = baseline_fit(train, project)
        except ValueError:  # no word left to learn from (`empty vocabulary`): this part judges nothing
            return
    ours = model.features([issue.text for issue in test])
    theirs = vectorizer.transform([issue.text for issue in test])  # type: ignore[attr-defined]
    for group in project.groups:
        for row, issue in enumerate(test):
            truth = training_label(issue, group)
            if truth is None:
                continue
            for name, fitted, x in (
                ("model", model.group(group.name), ours),
                ("baseline", baseline.get(group.name), theirs),
            ):
                _predict(into[group.name][name], fitted, x.getrow(row), issue, truth, project)


def _predict(
    into: Predictions, fitted: GroupModel | None, x: object, issue: Issue, truth: str, project: Project
) -> None:
    if fitted is None:
        guess, confidence = "", 0.0
    else:
        unlabelled = Issue(issue.id, issue.title, issue.body, issue.state, issue.author, issue.created_at, ())
        label, confidence = best_allowed(fitted, fitted.probabilities(x)[0], unlabelled, project.known_labels)
        guess = label or ""
    into.truth.append(truth)
    into.guess.append(guess)
    into.confidence.append(confidence)
