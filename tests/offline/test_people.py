"""The project's authors, looked up one name at a time by the data's index on who opened each issue."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from atlas.dataset.ensure import ensure_db
from atlas.offline.reading.people import AUTHOR_LOOKUP, ProjectPeople
from tests.support.dataset_factory import issue, make_dataset


def _people(tmp_path: Path, atlas_home: Path) -> ProjectPeople:
    data = make_dataset(
        tmp_path,
        [
            issue(1, "Compare splits fails", author="lhoestq"),
            issue(2, "Compare features", author="Compare"),
            issue(3, "Compare columns", author="severo"),
        ],
    )
    ensure_db(data, atlas_home)
    return ProjectPeople(data / "issues" / "orbit.db")


def test_a_login_is_found_case_forgiven_and_a_word_no_author_has_is_none(tmp_path: Path, atlas_home: Path) -> None:
    people = _people(tmp_path, atlas_home)
    assert people.login("LHOESTQ") == "lhoestq" and people.login("streaming") is None
    assert people.person("lhoestq") == "lhoestq"
    assert people.person("compare") is None  # an author's login, but a word of three titles: a topic


def test_the_lookup_reads_the_index_not_every_issue(tmp_path: Path, atlas_home: Path) -> None:
    people = _people(tmp_path, atlas_home)
    assert people.database is not None
    with sqlite3.connect(people.database) as conn:
        plan = conn.execute(f"EXPLAIN QUERY PLAN {AUTHOR_LOOKUP}", ("x",)).fetchall()
    assert any("issues_by_author" in str(row) for row in plan)
