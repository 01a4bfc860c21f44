"""Triage tests: the bundled Orbit data, and a state folder whose fitted model is made once per run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from filelock import FileLock

from atlas.foundation.config import bundled_data_dir
from atlas.triage.project import Project
from atlas.triage.verdicts import verdicts


@pytest.fixture(scope="session")
def fitted_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state folder holding the model of the bundled data (fitting it is the slow part of a triage
    run): fitted by the first worker that needs it, in the folder every worker of the run shares."""
    shared = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" in os.environ:
        shared = shared.parent
    home = shared / "fitted-home"
    with FileLock(str(shared / "fitted-home.lock")):
        if not (home / "fitted").exists():
            shutil.rmtree(home, ignore_errors=True)  # a fit that an earlier worker left half done
            project = Project.open(bundled_data_dir(), home)
            project.model()
            project.index()
            verdicts(project)  # the history replay that decides which groups are proposed for
            (home / "fitted").touch()
    return home


@pytest.fixture
def home(fitted_home: Path, atlas_home: Path) -> Path:
    """This test's own state folder (ATLAS_HOME), starting with the fitted model and nothing else."""
    shutil.copytree(fitted_home / "triage", atlas_home / "triage")
    return atlas_home
