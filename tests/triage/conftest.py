"""Triage tests: the bundled Orbit data, and a state folder whose fitted model is made once per run
(`fitted_home`, `tests/support/fitted.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fitted import seed_fitted


@pytest.fixture
def home(fitted_home: Path, atlas_home: Path) -> Path:
    """This test's own state folder (ATLAS_HOME), starting with the fitted model and nothing else."""
    return seed_fitted(fitted_home, atlas_home)
