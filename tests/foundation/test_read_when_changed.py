"""A file asked for on every tool call is read again only once it has changed."""

from __future__ import annotations

import os
from pathlib import Path

from atlas.foundation.statefiles import ReadWhenChanged, replace_file


def counting_reader() -> tuple[ReadWhenChanged[str], list[Path]]:
    reads: list[Path] = []

    def read(path: Path) -> str | None:
        reads.append(path)
        text = path.read_bytes().decode("utf-8")
        return text or None  # an empty file is one it cannot use

    return ReadWhenChanged(read), reads


def test_an_unchanged_file_is_read_once_and_a_replaced_one_again(tmp_path: Path) -> None:
    path = tmp_path / "source.json"
    replace_file(path, b"one")
    cache, reads = counting_reader()
    assert cache.get(path) == cache.get(path) == "one"
    assert len(reads) == 1
    replace_file(path, b"two")  # a new inode, as `atlas data` writes it
    assert cache.get(path) == "two"
    assert len(reads) == 2


def test_a_file_written_in_place_with_the_same_size_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"aaa")
    cache, _ = counting_reader()
    assert cache.get(path) == "aaa"
    path.write_bytes(b"bbb")
    os.utime(path, ns=(1, 1))  # even a clock that went back: the times differ from those kept
    assert cache.get(path) == "bbb"


def test_a_missing_or_unusable_file_is_none_and_asked_again(tmp_path: Path) -> None:
    path = tmp_path / "absent.toml"
    cache, reads = counting_reader()
    assert cache.get(path) is None and reads == []
    path.write_bytes(b"")
    assert cache.get(path) is None and cache.get(path) is None
    assert len(reads) == 2  # nothing kept: asked again each time
