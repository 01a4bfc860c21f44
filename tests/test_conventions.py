"""CLI conventions as a user meets them in a shell: errors written for people, arguments as typed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def atlas(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas", *args],
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_missing_issue_is_explained_to_a_person_not_to_a_model() -> None:
    done = atlas("ask", "-m", "offline", "show issue #999")
    assert done.returncode == 0, done.stderr
    assert "There is no issue #999 in the Orbit dataset (130 issues, #1–#130)" in done.stdout
    for advice in ("do not guess", "Use only issue ids", "Hint:", "This exact call will fail again"):
        assert advice not in done.stdout


def test_a_missing_dataset_is_one_startup_error(tmp_path: Path) -> None:
    nowhere = tmp_path / "no-such-dataset"
    done = atlas("ask", "-m", "offline", "Compare issues #41 and #87", env={"ORBIT_DATA": str(nowhere)})
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"atlas: error: the Orbit dataset folder {nowhere} does not exist (ORBIT_DATA); "
        "set ORBIT_DATA to a dataset folder"
    ]
    empty = tmp_path / "empty"
    (empty / "docs").mkdir(parents=True)
    done = atlas("ask", "-m", "offline", "show issue #41", env={"ORBIT_DATA": str(empty)})
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert "ORBIT_DATA" in done.stderr and str(empty) in done.stderr and "issues/issues.jsonl" in done.stderr


def test_a_misspelt_offline_model_is_unknown_and_offline_is_suggested() -> None:
    done = atlas("ask", "-m", "offlne", "show issue #41")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "atlas: error: unknown model 'offlne': did you mean --model offline?"
