"""Building the issues db at scale: the O(1) stamp, one builder at a time, no temp file left on any way out."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from atlas.dataset.build import build_db
from atlas.dataset.ensure import db_path, ensure_db, jsonl_path, read_issues, stored_digest
from atlas.foundation.errors import DataError
from bench.synthetic import synthetic_issues, write_dataset

ISSUES = 300


@pytest.fixture
def synthetic(tmp_path: Path) -> Path:
    return write_dataset(tmp_path / "orbit", ISSUES)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


@pytest.mark.parametrize("issue_id", [10**30, 2**63, 0, -5])
def test_an_id_sqlite_cannot_hold_is_a_data_error_naming_its_line(tmp_path: Path, issue_id: int) -> None:
    good, bad = list(synthetic_issues(2))
    jsonl = tmp_path / "issues.jsonl"
    write_lines(jsonl, [json.dumps(good), json.dumps({**bad, "id": issue_id})])
    with pytest.raises(DataError, match=r"issues.jsonl line 2: the id .* is not a whole number from 1 to"):
        build_db(jsonl, tmp_path / "orbit.db")
    assert leftovers(tmp_path) == [] and not (tmp_path / "orbit.db").exists()


def test_a_number_too_long_to_read_is_a_data_error(tmp_path: Path) -> None:
    jsonl = tmp_path / "issues.jsonl"
    write_lines(jsonl, [json.dumps(next(synthetic_issues(1))), '{"id": ' + "9" * 5000 + "}"])
    with pytest.raises(DataError, match="line 2 holds a number too long to read"):
        build_db(jsonl, tmp_path / "orbit.db")


def test_a_duplicate_in_a_later_batch_names_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("atlas.dataset.build.BATCH", 3)
    issues = [json.dumps(issue) for issue in synthetic_issues(7)]
    jsonl = tmp_path / "issues.jsonl"
    write_lines(jsonl, [*issues, issues[1]])
    with pytest.raises(DataError, match=r"line 8: issue #2 appears twice"):
        build_db(jsonl, tmp_path / "orbit.db")


def test_a_fresh_db_is_known_without_reading_the_jsonl(
    synthetic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = ensure_db(synthetic, tmp_path / "home")

    def no_hashing(path: Path) -> str:
        raise AssertionError("the JSONL was read to check freshness")

    monkeypatch.setattr("atlas.dataset.ensure.file_sha256", no_hashing)
    assert ensure_db(synthetic, tmp_path / "home") == db


def test_a_touched_jsonl_is_hashed_once_then_known(
    synthetic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    db = ensure_db(synthetic, home)
    built = db.stat().st_mtime_ns
    os.utime(jsonl_path(synthetic), ns=(time.time_ns(), time.time_ns() + 10**9))  # a checkout: same bytes, new mtime
    import atlas.dataset.ensure

    hashed: list[Path] = []
    real = atlas.dataset.ensure.file_sha256
    monkeypatch.setattr(atlas.dataset.ensure, "file_sha256", lambda path: hashed.append(path) or real(path))
    assert ensure_db(synthetic, home) == db and ensure_db(synthetic, home) == db
    assert len(hashed) == 1 and db.stat().st_mtime_ns == built, "same content: not rebuilt, hashed only once"


def test_a_same_size_edit_is_rebuilt(synthetic: Path, tmp_path: Path) -> None:
    db = ensure_db(synthetic, tmp_path / "home")
    before = stored_digest(db)
    text = jsonl_path(synthetic).read_text(encoding="utf-8")
    assert '"state": "open"' in text and "(core)" in text
    jsonl_path(synthetic).write_text(text.replace('"state": "open"', '"state": "OPEN"', 1), encoding="utf-8")
    with pytest.raises(DataError, match="bad id or state"):
        ensure_db(synthetic, tmp_path / "home")
    jsonl_path(synthetic).write_text(text.replace("(core)", "(cli) ", 1), encoding="utf-8")
    assert ensure_db(synthetic, tmp_path / "home") == db
    assert stored_digest(db) not in (None, before) and len(read_issues(jsonl_path(synthetic))) == ISSUES


def test_stale_temp_files_of_killed_builds_are_removed(synthetic: Path, tmp_path: Path) -> None:
    folder = db_path(synthetic).parent
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    killed = folder / f".orbit-build-{dead.stdout.strip()}-0a1b2c3d.db"
    unnamed = folder / ".orbit-k2j4h5g6.db"  # from a build before temp files named their process
    for path in (killed, unnamed):
        path.write_bytes(b"x" * 4096)
    os.utime(unnamed, (time.time() - 3600, time.time() - 3600))
    ensure_db(synthetic, tmp_path / "home")
    assert leftovers(folder) == []


def test_ctrl_c_mid_build_leaves_no_temp_file(synthetic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("atlas.dataset.build.BATCH", 50)

    def interrupt(done: int, total: int, stage: str) -> None:
        if done > total // 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ensure_db(synthetic, tmp_path / "home", interrupt)
    assert leftovers(db_path(synthetic).parent) == [] and not db_path(synthetic).exists()


SLOW_BUILDER = """
import sys, time
from pathlib import Path
import atlas.dataset.build
from atlas.dataset.ensure import ensure_db
atlas.dataset.build.BATCH = 10
go = Path(sys.argv[3])
while not go.exists():
    time.sleep(0.001)
def progress(done, total, stage):
    print(stage, flush=True)
    if stage == "reading issues":
        time.sleep(0.02)
ensure_db(Path(sys.argv[1]), Path(sys.argv[2]), progress)
print("done", flush=True)
"""


def builder(data: Path, home: Path, go: Path) -> subprocess.Popen[str]:
    argv = [sys.executable, "-c", SLOW_BUILDER, str(data), str(home), str(go)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize(
    ("signum", "stage"),
    [(signal.SIGTERM, "reading issues"), (signal.SIGHUP, "reading issues"), (signal.SIGTERM, "indexing")],
)
def test_a_signal_mid_build_leaves_no_temp_file(tmp_path: Path, signum: int, stage: str) -> None:
    """Also inside a long statement (a batch's full-text rows): the build ends with the signal and is not
    retried elsewhere."""
    data = write_dataset(tmp_path / "orbit", 3000 if stage == "indexing" else ISSUES)
    go = tmp_path / "go"
    go.touch()
    proc = builder(data, tmp_path / "home", go)
    assert proc.stdout is not None
    while proc.stdout.readline().strip() != stage:
        pass
    proc.send_signal(signum)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, err
    assert leftovers(db_path(data).parent) == [] and not db_path(data).exists()
    assert not (tmp_path / "home").exists(), "an interrupted build is not started again in the state folder"


def test_two_processes_at_once_build_only_once(synthetic: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    procs = [builder(synthetic, tmp_path / "home", go) for _ in range(2)]
    time.sleep(0.3)
    go.touch()
    outputs = [proc.communicate(timeout=60) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    built = [out for out, _err in outputs if "reading issues" in out]
    assert len(built) == 1, outputs
    assert leftovers(db_path(synthetic).parent) == []


def test_the_full_text_rows_are_what_their_view_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inserted batch by batch as they are read: SQLite's own check compares the index with `issue_text`."""
    monkeypatch.setattr("atlas.dataset.build.BATCH", 40)
    data = write_dataset(tmp_path / "orbit", ISSUES)
    db = build_db(jsonl_path(data), tmp_path / "built.db")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM comments").fetchone()[0] > ISSUES // 2
        conn.execute("INSERT INTO issues_fts (issues_fts, rank) VALUES ('integrity-check', 1)")
        merge = conn.execute("SELECT v FROM issues_fts_config WHERE k = 'automerge'").fetchone()
        assert merge == (4,), "later writes merge the index's segments again"
        body = conn.execute("SELECT body FROM comments ORDER BY id DESC LIMIT 1").fetchone()[0]
        word = max(body.split(), key=len).strip(".,:;()'\"`")
        found = conn.execute("SELECT rowid FROM issues_fts WHERE comments MATCH ?", (f'"{word}"',)).fetchall()
        assert found
