"""The planner's vocabulary kept between runs: read back as it was learned, learned again when its data
changes, and a cache only (a spoilt or foreign file is learned over, nothing written under -B)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from atlas.foundation.config import data_dir
from atlas.offline.reading import vocabulary, vocabulary_store
from atlas.offline.reading.label_usage import ProjectLabels
from atlas.offline.reading.vocabulary import Vocabulary, vocabulary_of


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own, written to (as without -B), and no vocabulary in memory."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(vocabulary, "_cache", {})
    return tmp_path / "cache" / "atlas"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A copy of the bundled data, free to change."""
    copied = tmp_path / "data"
    shutil.copytree(data_dir() / "docs", copied / "docs")
    (copied / "issues").mkdir()
    shutil.copy(data_dir() / "issues" / "orbit.db", copied / "issues" / "orbit.db")
    return copied


def learned_afresh(data: Path) -> Vocabulary:
    vocabulary._cache.clear()
    return vocabulary_of(data)


def parts(learned: Vocabulary) -> tuple[object, ...]:
    labels = learned.labels
    counts = labels.counts if isinstance(labels, ProjectLabels) else None
    found = [learned.best_sections(words) for words in (["heartbeat"], ["lease", "expired"], ["pgbouncer"])]
    kept = (learned.docs, learned.titles, learned.sections, learned.error_names, learned.words)
    return (list(labels), counts, *kept, found)


def test_a_later_run_reads_the_vocabulary_as_it_was_learned(cache: Path, data: Path) -> None:
    first = vocabulary_of(data)
    (kept,) = cache.glob("vocabulary-*.db")
    again = learned_afresh(data)
    assert again is not first and again.index is not first.index
    assert parts(again) == parts(first)
    assert isinstance(again.labels, ProjectLabels) and again.labels.database == data / "issues" / "orbit.db"
    assert again.people.database == first.people.database == data / "issues" / "orbit.db"
    assert list(cache.iterdir()) == [kept]  # no temporary left


def test_a_changed_doc_is_learned_again(cache: Path, data: Path) -> None:
    vocabulary_of(data)
    with (data / "docs" / "leases.md").open("a", encoding="utf-8") as doc:
        doc.write("\n## Lease tombstones\n\nA tombstone marks a lease nobody renews.\n")
    again = learned_afresh(data)
    assert any(section.heading == "Lease tombstones" for section in again.sections)
    assert "tombstone" in again.words
    assert any(section.heading == "Lease tombstones" for section in learned_afresh(data).sections)


@pytest.mark.parametrize("spoilt", ["not a database", "another stamp", "a body that is not a vocabulary"])
def test_a_spoilt_or_foreign_file_is_learned_over(cache: Path, data: Path, spoilt: str) -> None:
    first = parts(vocabulary_of(data))
    (kept,) = cache.glob("vocabulary-*.db")
    if spoilt == "not a database":
        kept.write_bytes(b"\x00garbage" * 100)
    else:
        with sqlite3.connect(kept) as connection:
            column = "stamp" if spoilt == "another stamp" else "body"
            value = "[1, []]" if spoilt == "another stamp" else '{"labels": [1, 2]}'
            connection.execute(f"UPDATE {vocabulary_store.TABLE} SET {column} = ?", (value,))
        connection.close()
    assert parts(learned_afresh(data)) == first
    assert vocabulary_store.read_kept(kept, vocabulary._stamp(data)) is not None  # written again


def test_a_link_in_place_of_the_file_is_not_read(cache: Path, data: Path, tmp_path: Path) -> None:
    vocabulary_of(data)
    (kept,) = cache.glob("vocabulary-*.db")
    elsewhere = tmp_path / "elsewhere.db"
    kept.rename(elsewhere)
    kept.symlink_to(elsewhere)
    assert vocabulary_store.read_kept(kept, vocabulary._stamp(data)) is None


def test_nothing_is_written_under_no_bytecode(cache: Path, data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert vocabulary_of(data).sections
    assert not cache.exists() or not list(cache.iterdir())


def test_only_the_last_folders_vocabularies_are_kept(cache: Path, data: Path, tmp_path: Path) -> None:
    folders = []
    for number in range(vocabulary_store.KEPT_FILES + 2):
        folder = tmp_path / f"data-{number}"
        shutil.copytree(data / "docs", folder / "docs")
        folders.append(folder)
        vocabulary_of(folder)
        os.utime(vocabulary_store.kept_file(folder), ns=(number * 10**9, number * 10**9))
    kept = {path.name for path in cache.glob("vocabulary-*.db")}
    assert kept == {vocabulary_store.kept_file(folder).name for folder in folders[-vocabulary_store.KEPT_FILES :]}
