"""The label replay cuts each issue into terms once: every fold reads slices of rows made from vocabularies
learnt before the first fold, and what a fold learns from them is what a fit of its history learns."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
from scipy import sparse

from atlas.foundation.config import bundled_data_dir
from atlas.triage.evaluate import baseline_groups, history, replay_folds, split_replay
from atlas.triage.model import TRAIN_MAX, fit, fit_groups, one_thread
from atlas.triage.project import Project
from atlas.triage.replay_rows import replay_rows, shared_rows
from atlas.triage.term_weights import scaled_columns


def test_the_first_fold_learns_what_a_fit_of_its_history_learns(home: Path) -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    project = Project.open(bundled_data_dir(), home)
    # Every third issue without its labels: it shapes the vocabulary, and teaches nothing.
    issues = [replace(issue, labels=()) if n % 3 == 0 else issue for n, issue in enumerate(history(project))]
    folds = replay_folds(project, issues)
    first = folds[0]
    ours, theirs = replay_rows(issues, project.groups, folds)
    with one_thread():
        x, places = ours.window(first.before - TRAIN_MAX, first.before)
        replayed = fit_groups(x, [issues[n] for n in places], project.groups)
    alone = fit(list(reversed(issues[: first.before])), project.groups)
    tested = [issues[n] for n in first.tested]
    # The rows of the tested issues are the fit's own: its vocabulary came from nothing after the fold began.
    features = alone.features([issue.text for issue in tested])
    assert features.shape == ours.at(first.tested).shape and abs(features - ours.at(first.tested)).max() < 1e-5
    # Only the issues that teach a group have rows, and each group learns from them what it learns from all.
    assert len(places) == sum(1 for issue in issues[: first.before] if issue.labels)
    assert [g.group.name for g in replayed] == [g.group.name for g in alone.groups]
    for mine, theirs_alone in zip(replayed, alone.groups, strict=True):
        assert mine.classes == theirs_alone.classes
        assert np.allclose(mine.probabilities(features), theirs_alone.probabilities(features), atol=1e-3)
    # The baseline: scikit-learn's TF-IDF of every earlier issue, whatever its labels.
    vectorizer = TfidfVectorizer().fit([issue.text for issue in issues[: first.before]])
    plain = vectorizer.transform([issue.text for issue in tested])
    assert abs(plain - theirs.at(first.tested)).max() < 1e-9
    x, places = theirs.window(0, first.before)
    assert set(baseline_groups(x, [issues[n] for n in places], project.groups)) == {g.group.name for g in replayed}


def test_later_folds_read_the_first_folds_vocabulary_and_grow_their_history(home: Path) -> None:
    project = Project.open(bundled_data_dir(), home)
    issues = history(project)
    folds = replay_folds(project, issues)
    ours, _ = replay_rows(issues, project.groups, folds)
    sizes = [ours.window(0, fold.before)[0].shape[0] for fold in folds]
    assert len(folds) == 5 and sizes == sorted(sizes) and sizes[0] < sizes[-1]
    # A fold's test issues are the next fold's history, with the rows they were tested with.
    later = folds[1]
    x, places = ours.window(0, later.before)
    tested_before = [n for n in folds[0].tested if n < later.before]
    rows = [int(np.searchsorted(places, n)) for n in tested_before]
    assert tested_before and abs(x[rows] - ours.at(tested_before)).max() == 0


def test_a_window_shares_the_rows_and_a_scaled_fit_leaves_them_as_they_were() -> None:
    x = sparse.random(40, 30, density=0.3, format="csr", dtype=np.float32, random_state=4)
    before = x.copy()
    window = shared_rows(x, 10, 25)
    assert abs(window - before[10:25]).max() == 0
    assert np.shares_memory(window.data, x.data) and np.shares_memory(window.indices, x.indices)
    with scaled_columns(window, np.full(30, 2.0, dtype=np.float32)):
        assert abs(x[10:25] - 2 * before[10:25]).max() < 1e-6 and abs(x[:10] - before[:10]).max() == 0
    assert abs(x - before).max() < 1e-6
    assert shared_rows(x, 7, 7).shape == (0, 30)


def test_a_split_replay_judges_every_labelled_test_issue(home: Path) -> None:
    project = Project.open(bundled_data_dir(), home)
    issues = history(project)
    train, test = issues[: len(issues) // 2], issues[len(issues) // 2 :]
    runs = split_replay(project, train, test)
    for group in project.groups:
        labelled = sum(1 for issue in test if len(group.present(issue.labels)) == 1)
        assert len(runs[group.name]["model"].truth) == len(runs[group.name]["baseline"].truth) == labelled > 0
        assert runs[group.name]["model"].scores(0.0)["accuracy"] > 0.5
