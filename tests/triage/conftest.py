"""Triage tests: the bundled Orbit data, and a state folder whose fitted model is made once per run
(`fitted_home`, `tests/support/fitted.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(fitted_atlas_home: Path) -> Path:
    """This test's own state folder (ATLAS_HOME), starting with the fitted model and nothing else."""
    return fitted_atlas_home
