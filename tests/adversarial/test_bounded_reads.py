"""Files someone else placed cannot hang Atlas or exhaust its memory.

A plan someone sent, an export, a replay script, a dataset's issues and docs, and every file of a
cloned repository's `.atlas/` state folder, each planted as a FIFO (no writer ever comes), as a
link to `/dev/zero` (endless, and its size reads 0) and as a sparse file far past any limit. Each
run is a process of its own, a fork of the test's that runs the command (`invoke_bounded`), under an
address-space limit and a timeout: it ends on time with one line naming the file, never a
traceback, never "unexpected MemoryError".
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from atlas.dataset.ensure import VERIFIED_FILE, jsonl_path
from atlas.foundation.config import bundled_data_dir
from tests.support.fitted import seed_fitted
from tests.support.run import REPO, Run, atlas_env, invoke_bounded

MEMORY_KB = 1_500_000  # ~1.5 GB of address space beyond the test process's own: a read of /dev/zero does not fit
TIMEOUT = 60.0
HUGE = 40 * 2**30  # a sparse file: no disk used, but a whole read would need 40 GiB


def plant_fifo(path: Path) -> None:
    os.mkfifo(path)


def plant_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def plant_huge(path: Path) -> None:
    with path.open("wb") as file:
        file.truncate(HUGE)


PLANTS: dict[str, Callable[[Path], None]] = {"fifo": plant_fifo, "zero": plant_zero, "huge": plant_huge}


def run_bounded(*args: str, env: dict[str, str], cwd: Path = REPO) -> Run:
    """`atlas ARGS` with no terminal, at most MEMORY_KB more memory, killed if it outlives TIMEOUT."""
    try:
        return invoke_bounded(*args, env=env, memory_kb=MEMORY_KB, timeout=TIMEOUT, cwd=cwd)
    except TimeoutError:
        pytest.fail(f"atlas {' '.join(args)} still running after {TIMEOUT:.0f} s: it waited on a planted file")


REASONS = ("not a regular file", "larger than", "symbolic link")


def assert_one_line_naming(run: Run, name: str) -> None:
    """The run said, in one line, which file it refused and why; never a traceback."""
    assert "Traceback" not in run.output and "MemoryError" not in run.output, run
    said = [line for line in run.output.splitlines() if name in line and any(why in line for why in REASONS)]
    assert said, run


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return atlas_env(tmp_path / "home", XDG_CONFIG_HOME=str(tmp_path / "config"))


@pytest.mark.parametrize("plant", PLANTS)
def test_apply_refuses_a_planted_plan(tmp_path: Path, env: dict[str, str], plant: str) -> None:
    plan = tmp_path / "plan.json"
    PLANTS[plant](plan)
    assert_one_line_naming(run_bounded("apply", str(plan), env=env), "plan.json")


@pytest.mark.parametrize("plant", PLANTS)
def test_data_import_refuses_a_planted_export(tmp_path: Path, env: dict[str, str], plant: str) -> None:
    export = tmp_path / "issues.json"
    PLANTS[plant](export)
    done = run_bounded("data", "import", str(export), "--to", str(tmp_path / "project"), env=env)
    assert_one_line_naming(done, "issues.json")
    assert done.code != 0


@pytest.mark.parametrize("plant", ["fifo", "zero"])
def test_a_replay_script_is_read_within_bounds(tmp_path: Path, env: dict[str, str], plant: str) -> None:
    script = tmp_path / "script.json"
    PLANTS[plant](script)
    assert_one_line_naming(run_bounded("ask", "-m", f"replay:{script}", "show #41", env=env), "script.json")


def cloned_dataset(root: Path) -> Path:
    """A copy of the bundled data whose JSONL was touched after its db was built (a checkout does
    that): Atlas then checks the content against what its state folder remembers verifying."""
    data = root / "data"
    shutil.copytree(bundled_data_dir(), data, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    jsonl = jsonl_path(data)
    later = jsonl.stat().st_mtime_ns + 5 * 10**9
    os.utime(jsonl, ns=(later, later))
    return data


STATE_FILES = [VERIFIED_FILE, "config.toml", "tracker_actions.jsonl"]


@pytest.mark.parametrize("plant", PLANTS)
@pytest.mark.parametrize("name", STATE_FILES)
def test_a_cloned_state_folder_cannot_hang_or_exhaust_a_question(tmp_path: Path, plant: str, name: str) -> None:
    clone = tmp_path / "clone"
    (clone / ".atlas").mkdir(parents=True)
    PLANTS[plant](clone / ".atlas" / name)
    env = atlas_env(tmp_path / "unused", ORBIT_DATA=str(cloned_dataset(tmp_path)), XDG_CONFIG_HOME=str(tmp_path / "c"))
    del env["ATLAS_HOME"]  # the state folder is the nearest .atlas/: the clone's
    done = run_bounded("ask", "show #41", env=env, cwd=clone)
    assert "Traceback" not in done.output and "MemoryError" not in done.output, done
    if name == VERIFIED_FILE:
        # What Atlas remembers verifying is only a shortcut: without it the content is checked.
        assert done.code == 0 and "#41" in done.stdout, done
    else:
        assert_one_line_naming(done, name)


@pytest.mark.parametrize("plant", PLANTS)
def test_a_planted_dataset_file_is_named_not_waited_on(tmp_path: Path, env: dict[str, str], plant: str) -> None:
    data = tmp_path / "data"
    shutil.copytree(bundled_data_dir(), data, ignore=shutil.ignore_patterns("*.py", "__pycache__", "*.db"))
    jsonl_path(data).unlink()
    PLANTS[plant](jsonl_path(data))
    done = run_bounded("ask", "show #41", env={**env, "ORBIT_DATA": str(data)})
    assert_one_line_naming(done, "issues.jsonl")


@pytest.mark.parametrize("plant", PLANTS)
def test_a_planted_doc_costs_that_doc_not_the_answer(tmp_path: Path, env: dict[str, str], plant: str) -> None:
    data = tmp_path / "data"
    shutil.copytree(bundled_data_dir(), data, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (data / "docs" / "leases.md").unlink()
    PLANTS[plant](data / "docs" / "leases.md")
    done = run_bounded("ask", "lease docs pls", env={**env, "ORBIT_DATA": str(data)})
    assert done.code == 0, done
    assert_one_line_naming(done, "leases")


def bomb_arrays(model: Path) -> None:
    """The fitted model with its vocabulary replaced by an array whose header claims 80 GB it does
    not hold: loading it as it says would allocate all of it."""
    import io
    import zipfile

    import numpy as np

    with zipfile.ZipFile(model) as source:
        members = {name: source.read(name) for name in source.namelist()}
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (10**10,)})
    members["vocabulary.npy"] = header.getvalue()
    with zipfile.ZipFile(model, "w") as target:
        for name, data in members.items():
            target.writestr(name, data)


def test_a_planted_triage_model_cannot_exhaust_memory(tmp_path: Path, env: dict[str, str], fitted_home: Path) -> None:
    seed_fitted(fitted_home, tmp_path / "home")  # what a first triage leaves: the fit is the run's one
    first = run_bounded("triage", "132", "--dry-run", env=env)
    assert first.code == 0, first
    kept = sorted((tmp_path / "home" / "triage").glob("*.npz"))  # the model, the similarity index, ...
    assert kept
    for arrays in kept:
        bomb_arrays(arrays)
    again = run_bounded("triage", "132", "--dry-run", env=env)
    assert "Traceback" not in again.output and "MemoryError" not in again.output, again
    assert again.code == 0 and again.stdout == first.stdout, again  # fitted again, the same plan
