"""A state file replaced whole: at once, on disk, with its mode, and never through a link."""

from __future__ import annotations

import os
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

import pytest

from atlas.foundation.statefiles import UnsafeStateFile, replace_file, replacing, replacing_at


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


def sqlite_at(path: Path, value: str) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE t (v TEXT)")
        db.execute("INSERT INTO t VALUES (?)", (value,))
        db.commit()


def value_in(path: Path) -> str:
    with closing(sqlite3.connect(path)) as db:
        return str(db.execute("SELECT v FROM t").fetchone()[0])


def test_what_writes_through_a_path_replaces_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    sqlite_at(path, "old")
    with replacing_at(path) as temporary:
        sqlite_at(temporary, "new")
        assert value_in(path) == "old"  # readers see the old file until the new one is whole
    assert value_in(path) == "new" and leftovers(tmp_path) == []


def test_a_build_through_a_path_that_fails_leaves_the_old_file_and_no_leftovers(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    sqlite_at(path, "old")
    with pytest.raises(RuntimeError), replacing_at(path, name=".index-build-1.db") as temporary:
        sqlite_at(temporary, "half")
        raise RuntimeError("interrupted")
    assert value_in(path) == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["index.db"]


def test_a_link_where_a_build_goes_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs.db"
    theirs.write_text("not a db of ours", encoding="utf-8")
    path = tmp_path / "index.db"
    path.symlink_to(theirs)
    with pytest.raises(UnsafeStateFile), replacing_at(path):
        pytest.fail("the block must not run")
    assert path.is_symlink() and theirs.read_text(encoding="utf-8") == "not a db of ours"
