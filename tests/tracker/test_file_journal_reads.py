"""The journal file is parsed once: each read parses only the lines appended since the last one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from atlas.tracker import file_journal
from atlas.tracker.file_journal import FileJournal


def record(issue_id: int, label: str = "bug") -> dict[str, Any]:
    return {"action": "add_label", "issue_id": issue_id, "label": label, "key": f"k{issue_id}"}


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every line `parse` is given."""
    seen: list[bytes] = []
    real = file_journal.parse

    def counting(line: bytes) -> dict[str, Any] | None:
        seen.append(line)
        return real(line)

    monkeypatch.setattr(file_journal, "parse", counting)
    return seen


def test_each_append_parses_only_the_new_line(tmp_path: Path, parsed: list[bytes]) -> None:
    journal = FileJournal(tmp_path)
    for issue_id in range(1, 51):
        with journal.locked():
            journal.read()
            journal.append(record(issue_id))
    assert [r["issue_id"] for r in journal.read()] == list(range(1, 51))
    assert len(parsed) == 50


def test_another_process_appends_are_seen(tmp_path: Path, parsed: list[bytes]) -> None:
    mine, theirs = FileJournal(tmp_path), FileJournal(tmp_path)
    mine.append(record(1))
    assert len(mine.read()) == 1
    theirs.append(record(2))
    assert [r["issue_id"] for r in mine.read()] == [1, 2]


def test_a_torn_tail_is_skipped_then_read_once_whole(tmp_path: Path) -> None:
    journal = FileJournal(tmp_path)
    journal.append(record(1))
    with (tmp_path / file_journal.ACTIONS_FILE).open("ab") as file:
        file.write(b'{"action":"add_label","issue_id":2,')
    assert [r["issue_id"] for r in journal.read()] == [1]
    assert journal.skipped == 1
    with (tmp_path / file_journal.ACTIONS_FILE).open("ab") as file:
        file.write(b'"label":"bug","key":"k2"}\n')
    assert [r["issue_id"] for r in journal.read()] == [1, 2]
    assert journal.skipped == 0


def test_a_replaced_or_shortened_file_is_read_again_from_the_start(tmp_path: Path) -> None:
    journal = FileJournal(tmp_path)
    for issue_id in (1, 2, 3):
        journal.append(record(issue_id))
    assert len(journal.read()) == 3
    path = tmp_path / file_journal.ACTIONS_FILE
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(path.read_bytes().split(b"\n", 1)[1].replace(b"bug", b"doc"))
    os.replace(replacement, path)
    assert [(r["issue_id"], r["label"]) for r in journal.read()] == [(2, "doc"), (3, "doc")]
    with path.open("r+b") as file:
        file.truncate(0)
    assert journal.read() == []
    journal.append(record(9))
    assert [r["issue_id"] for r in journal.read()] == [9]


def test_a_file_rewritten_in_place_is_read_again(tmp_path: Path) -> None:
    journal = FileJournal(tmp_path)
    journal.append(record(1))
    assert len(journal.read()) == 1
    path = tmp_path / file_journal.ACTIONS_FILE
    with path.open("r+b") as file:  # same inode, longer, and the old end is no longer a line's end
        file.write(b"x" * (path.stat().st_size + 5) + b"\n")
        file.write(b'{"action":"add_label","issue_id":7,"label":"bug","key":"k7"}\n')
    assert [r["issue_id"] for r in journal.read()] == [7]
    assert journal.skipped == 1
