"""The signals of how an issue is written: read from the title or the body as the model's text holds them, one
column each, the same whether a fit or a cached model makes them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from atlas.foundation.config import bundled_data_dir
from atlas.triage import cache
from atlas.triage.corpus import Issue
from atlas.triage.model import normalise
from atlas.triage.project import Project
from atlas.triage.text_signals import SCALE, SIGNALS, SignalColumns, signal_rows, title_and_body

NAMES = [name for name, _ in SIGNALS]


def text(title: str, body: str) -> str:
    """The text a model reads of an issue with this title and body, as it reads it."""
    issue = Issue(1, title, body, "OPEN", "someone", "2026-01-01T00:00:00Z", ())
    return normalise(issue.text)


def shown(title: str, body: str) -> set[str]:
    row = signal_rows([text(title, body)]).toarray()[0]
    assert set(row.tolist()) <= {0.0, np.float32(SCALE)}
    return {name for name, value in zip(NAMES, row, strict=True) if value}


def test_the_title_and_body_are_read_apart() -> None:
    assert title_and_body(text("Crash on start?", "It fails.\nTwice.")) == ("Crash on start?", "It fails.\nTwice.")
    assert title_and_body("a title alone") == ("a title alone", "")
    # A question mark in the body is not one in the title.
    assert "title has a question mark" in shown("Why does the cache grow?", "It grows " + "and grows " * 30)
    assert "title has a question mark" not in shown("The cache grows", "Why? It grows " + "and grows " * 30)


def test_a_bug_report_a_question_and_a_request_show_different_signals() -> None:
    trace = 'Traceback (most recent call last):\n  File "run.py", line 3, in <module>\nValueError: bad'
    story = "It loaded every file before the upgrade; now each run stops at the first file it opens."
    story += " The same files load on the older release, on two machines."
    bug = shown("Loading fails after upgrade", f"Version 2.14.1\n{story}\n\n```\n{trace}\n```\n")
    assert {"title names a failure", "body quotes a failure", "body holds a code block", "body gives a version"} <= bug
    assert "body is short" not in bug and "body asks how" not in bug
    question = shown("Reading a file in chunks", "How do I read a large file in chunks without loading it?")
    assert question == {"body asks how", "body is short"}
    request = shown("Add a dark theme", "It would be nice to have a dark theme for the editor at night.")
    assert request == {"title asks for something", "body wishes for something", "body is short"}


def test_a_plain_statement_shows_nothing() -> None:
    assert shown("Docs page on caching", "The page on caching describes the layout of the folder. " * 5) == set()


def test_the_fits_part_makes_the_same_columns() -> None:
    texts = [text("Why?", ""), text("Add export", "```\nx = 1\n```"), text("Plain", "words " * 60)]
    part = SignalColumns()
    assert part.get_feature_names_out().tolist() == NAMES and len(part.idf_) == len(NAMES)
    assert abs(part.transform(texts) - signal_rows(texts)).max() == 0
    assert signal_rows(texts).shape == (3, len(NAMES))


def test_a_cached_model_reads_the_signals_it_was_fitted_with(home: Path, tmp_path: Path) -> None:
    project = Project.open(bundled_data_dir(), home)
    fitted = project.model()
    assert fitted.signals
    issues = [project.issue(n).text for n in (1, 2, 3)]
    cache.save(tmp_path, "key", fitted)
    loaded = cache.load(tmp_path, "key")
    assert loaded is not None and loaded.signals
    assert abs(loaded.features(issues) - fitted.features(issues)).max() < 1e-6
    width = fitted.features(issues).shape[1]
    assert width == len(fitted.vocabulary) + len(fitted.chars) + len(SIGNALS) == fitted.groups[0].coef.shape[1]
    # A header that says no signals does not fit the coefficients' width: not trusted, fitted again.
    cache.save(tmp_path, "key", replace(fitted, signals=False))
    assert cache.load(tmp_path, "key") is None
