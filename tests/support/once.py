"""What a test run makes once and every worker then reads: a fitted model, an imported project, a
set of recorded runs. The first worker that asks makes it, under a lock, in the folder all the
workers of the run share; the others wait for it and read what it left."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this run shares (this process's own base folder without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if "PYTEST_XDIST_WORKER" in os.environ else base


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], object]) -> Path:
    """The folder `name` of this run, filled by `make(folder)` (given it empty) in the first worker that asks;
    read it, never write to it. A folder an earlier worker left half made is made again."""
    shared = run_folder(tmp_path_factory)
    folder, done = shared / name, shared / f"{name}.done"
    with FileLock(str(shared / f"{name}.lock")):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.touch()
    return folder
