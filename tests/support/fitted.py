"""The bundled data's triage model, fitted once per run and shared by every worker: a fit and its
history replay are the slow part of any triage, and many tests only need one to be there.

`fitted_home` is a state folder holding it (read it, never write to it); `seed_fitted(home)` gives
a test's own state folder a copy, so it starts where a second `atlas triage` would, and
`fitted_atlas_home` is the test's `atlas_home` so seeded.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from atlas.foundation.config import bundled_data_dir
from atlas.triage.project import Project
from atlas.triage.verdicts import verdicts
from tests.support.once import made_once


@pytest.fixture(scope="session")
def fitted_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Fitted by the first worker that needs it, in the folder every worker of the run shares."""
    return made_once(tmp_path_factory, "fitted-home", fit_bundled)


def fit_bundled(home: Path) -> None:
    project = Project.open(bundled_data_dir(), home)
    project.model()
    project.index()
    verdicts(project)  # the history replay that decides which groups are proposed for


def seed_fitted(fitted: Path, home: Path) -> Path:
    """`home` (a state folder) starting with the fitted model, index and verdicts, and nothing else."""
    shutil.copytree(fitted / "triage", home / "triage")
    return home


@pytest.fixture
def fitted_atlas_home(fitted_home: Path, atlas_home: Path) -> Path:
    """This test's own state folder (`atlas_home`) starting with the run's fitted triage model (`fitted_home`),
    as after a first `atlas triage`: for tests of what reads the model, not of the fit."""
    return seed_fitted(fitted_home, atlas_home)
