"""What the built-in tools' tests share: a call's context over the test's own data folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.tools.registry import ToolContext
from tests.support.dataset_factory import context


@pytest.fixture
def ctx(data: Path, atlas_home: Path) -> ToolContext:
    return context(data, atlas_home)
