"""A state file replaced whole: at once, on disk, with its mode, and never through a link."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from atlas.foundation.statefiles import UnsafeStateFile, replace_file, replacing


def leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp"))


def test_a_file_is_replaced_and_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o640)
    replace_file(path, b"new")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_a_new_file_gets_the_mode_asked_for_in_a_folder_made_for_it(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "folder" / "pins.json"
    replace_file(path, b"{}")
    assert path.read_bytes() == b"{}" and stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("dangling", [False, True])
def test_a_link_in_its_place_is_refused_and_nothing_is_written(tmp_path: Path, dangling: bool) -> None:
    target = tmp_path / "elsewhere"
    if not dangling:
        target.write_text("theirs", encoding="utf-8")
    path = tmp_path / "last_chat.json"
    path.symlink_to(target)
    with pytest.raises(UnsafeStateFile, match="symbolic link"):
        replace_file(path, b"ours")
    assert path.is_symlink() and leftovers(tmp_path) == []
    assert target.read_text(encoding="utf-8") == "theirs" if not dangling else not target.exists()


def test_a_second_hard_link_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.write_text("theirs", encoding="utf-8")
    path = tmp_path / "trust.json"
    os.link(other, path)
    with pytest.raises(UnsafeStateFile, match="hard link"):
        replace_file(path, b"ours")
    assert other.read_text(encoding="utf-8") == "theirs" and leftovers(tmp_path) == []


def test_a_writer_that_fails_leaves_the_old_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "inbox.json"
    path.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), replacing(path) as file:
        file.write(b"half of the n")
        raise RuntimeError("the writer fails midway")
    assert path.read_text(encoding="utf-8") == "old" and leftovers(tmp_path) == []
