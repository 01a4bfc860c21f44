"""Where state lives, as a user meets it: the nearest `.atlas/` above, else the XDG state folder."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.run import Run, invoke


@pytest.fixture
def atlas(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Run]:
    """`atlas ARGS` in this process, run from the folder `cwd` as a shell there would."""

    def run(*args: str, cwd: Path, env: dict[str, str]) -> Run:
        with monkeypatch.context() as here:
            here.chdir(cwd)
            return invoke(*args, env=env)

    return run


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """No ATLAS_HOME, and the user state folder inside the test's own folder."""
    values = {key: value for key, value in os.environ.items() if key != "ATLAS_HOME"}
    values["XDG_STATE_HOME"] = str(tmp_path / "xdg")
    return values


def test_calls_made_in_a_subfolder_are_logged_in_the_project_state_folder(
    tmp_path: Path, env: dict[str, str], atlas: Callable[..., Run]
) -> None:
    project = tmp_path / "project"
    (project / ".atlas").mkdir(parents=True)
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    asked = atlas("ask", "--json", "-m", "offline", "show issue #41", cwd=deep, env=env)
    assert asked.returncode == 0, asked.stderr
    assert (project / ".atlas" / "log.db").is_file()
    assert not (deep / ".atlas").exists() and not (tmp_path / "xdg").exists()
    # Run from the project's root, the same log is read.
    logged = atlas("log", "--json", cwd=project, env=env)
    assert [json.loads(line)["session"] for line in logged.stdout.splitlines()] == [json.loads(asked.stdout)["session"]]


def test_without_a_project_folder_state_goes_to_the_user_state_folder(
    tmp_path: Path, env: dict[str, str], atlas: Callable[..., Run]
) -> None:
    # A shared /tmp may hold a `.atlas` (Atlas would rightly use it): work under a base without one.
    bases = [base for base in (tmp_path, Path("/dev/shm")) if base.is_dir() and not _atlas_above(base)]
    if not bases:
        pytest.skip("every candidate folder has a .atlas above it")
    elsewhere = Path(tempfile.mkdtemp(dir=bases[0]))
    try:
        asked = atlas("ask", "--json", "-m", "offline", "show issue #41", cwd=elsewhere, env=env)
        assert asked.returncode == 0, asked.stderr
        assert (tmp_path / "xdg" / "atlas" / "log.db").is_file()
        assert not (elsewhere / ".atlas").exists()
        shown = atlas("tracker", cwd=elsewhere, env=env)
        assert f"No tracker actions yet in {tmp_path / 'xdg' / 'atlas'}" in shown.stdout
    finally:
        shutil.rmtree(elsewhere, ignore_errors=True)


def _atlas_above(folder: Path) -> bool:
    return any((above / ".atlas").is_dir() for above in (folder, *folder.parents))


def test_atlas_home_overrides_both(tmp_path: Path, env: dict[str, str], atlas: Callable[..., Run]) -> None:
    project = tmp_path / "project"
    (project / ".atlas").mkdir(parents=True)
    chosen = tmp_path / "chosen"
    asked = atlas(
        "ask", "--json", "-m", "offline", "show issue #41", cwd=project, env={**env, "ATLAS_HOME": str(chosen)}
    )
    assert asked.returncode == 0, asked.stderr
    assert (chosen / "log.db").is_file()
    assert not (project / ".atlas" / "log.db").exists() and not (tmp_path / "xdg").exists()
