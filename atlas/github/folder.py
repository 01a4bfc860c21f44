"""A dataset folder updated in place: only what Atlas owns in it is replaced.

Atlas owns three names in a folder it wrote: `issues/`, `docs/` and `atlas-source.json`. A new
version of them is built in a staging folder inside the target, then each is renamed into place
(the state file last), so a failed import or sync changes nothing. Anything else in the folder
(`.git`, notes, a user's own files) is never touched, and a folder whose `atlas-source.json` is
a link or not one Atlas wrote is refused. A staging folder carries its process id: one left by a
killed run is removed by the next, and SIGTERM or SIGHUP unwinds and removes its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from pathlib import Path
from typing import Any

from atlas.dataset.build import SignalUnwind
from atlas.dataset.ensure import build_db, db_path, jsonl_path
from atlas.dataset.source import STATE_FILE, read_source, source_state
from atlas.foundation import statefiles
from atlas.foundation.errors import DataError
from atlas.foundation.processes import pid_alive
from atlas.foundation.sanitize import clean_line

__all__ = ["STATE_FILE", "check_target", "markdown_files", "read_state", "write_dataset", "write_state"]

STAGING_PREFIX = ".atlas-new-"
ASIDE_PREFIX = ".atlas-old-"
OWNED = ("docs", "issues", STATE_FILE)
"""Swapped in this order: the state file last, so it names a folder whose data is whole."""


def read_state(target: Path) -> dict[str, Any]:
    """The source record of a folder Atlas wrote; {} when there is none or it is not Atlas's."""
    return source_state(target)


def check_target(target: Path) -> dict[str, Any] | None:
    """The folder's source record (None for a new or empty folder); refuses one Atlas may not write."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise DataError(f"{clean_line(target)} exists and is not a folder")
    if not target.is_dir():
        return None
    state = read_source(target)
    if state is None and _entries(target):
        raise DataError(
            f"{clean_line(target)} is not empty and was not written by `atlas data`; choose a new or empty folder"
        )
    return state


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return [entry for entry in found if not _is_staging(entry.name)]
    except OSError as exc:
        raise DataError(f"cannot read {clean_line(folder)}: {exc.strerror}") from None


def markdown_files(docs: Path) -> list[Path]:
    """The docs a folder provides: its `*.md` files (doc ids are their names without `.md`)."""
    if not docs.is_dir():
        raise DataError(f"no docs folder at {clean_line(docs)}")
    return sorted(path for path in docs.glob("*.md") if path.is_file())


def write_dataset(
    target: Path, issues: list[dict[str, Any]], *, docs: list[Path] | None, state: dict[str, Any]
) -> None:
    """Build the issues, the db, the docs (None keeps the folder's own) and the state; swap them in."""
    check_target(target)
    if not issues:
        raise DataError("no issues to write: the dataset would answer every question with 'no such issue'")
    created = not target.exists()
    try:
        target.mkdir(parents=True, exist_ok=True)
        remove_stale_staging(target)
    except OSError as exc:
        raise DataError(f"cannot write the dataset at {clean_line(target)}: {exc}") from None
    token = f"{os.getpid()}-{secrets.token_hex(4)}"
    staging, aside = target / f"{STAGING_PREFIX}{token}", target / f"{ASIDE_PREFIX}{token}"
    signals = SignalUnwind()
    try:
        with signals.unwind():
            staging.mkdir(mode=0o755)
            _build(staging, issues, docs, state, new_docs=docs is not None or not (target / "docs").is_dir())
            _swap_in(staging, target, aside)
    except OSError as exc:
        raise DataError(f"cannot write the dataset at {clean_line(target)}: {exc}") from None
    finally:
        for leftover in (staging, aside):
            shutil.rmtree(leftover, ignore_errors=True)
        if created:
            with contextlib.suppress(OSError):
                target.rmdir()  # only when the write failed and left the new folder empty
        signals.reraise()


def _build(
    staging: Path, issues: list[dict[str, Any]], docs: list[Path] | None, state: dict[str, Any], *, new_docs: bool
) -> None:
    jsonl = jsonl_path(staging)
    jsonl.parent.mkdir(mode=0o755)
    with jsonl.open("w", encoding="utf-8") as out:
        for issue in issues:
            out.write(json.dumps(issue, ensure_ascii=False) + "\n")
    if new_docs:
        (staging / "docs").mkdir(mode=0o755)
        for doc in docs or []:
            try:
                text = statefiles.read_limited(doc, limit=statefiles.DOC_LIMIT, what="a doc")
            except statefiles.RefusedFile as exc:
                raise DataError(str(exc)) from None
            (staging / "docs" / doc.name).write_bytes(text)
    build_db(jsonl, db_path(staging))
    (staging / STATE_FILE).write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")


def _swap_in(staging: Path, target: Path, aside: Path) -> None:
    """Each owned name the staging folder holds replaces the target's; on a failure, the old ones return."""
    aside.mkdir(mode=0o700)
    moved: list[str] = []
    try:
        for name in OWNED:
            if not os.path.lexists(staging / name):
                continue
            if os.path.lexists(target / name):
                os.rename(target / name, aside / name)
            moved.append(name)
            os.rename(staging / name, target / name)
    except BaseException:
        for name in reversed(moved):
            with contextlib.suppress(OSError):
                if os.path.lexists(target / name) and not os.path.lexists(staging / name):
                    os.rename(target / name, staging / name)
                if os.path.lexists(aside / name):
                    os.rename(aside / name, target / name)
        raise


def write_state(target: Path, state: dict[str, Any]) -> None:
    """Replace the folder's state file alone, through a new file of this process (never a planted link)."""
    data = (json.dumps(state, indent=1) + "\n").encode("utf-8")
    try:
        statefiles.replace_file(target / STATE_FILE, data, mode=0o644)
    except OSError as exc:
        raise DataError(f"cannot update {clean_line(target / STATE_FILE)}: {exc.strerror}") from None


def _is_staging(name: str) -> bool:
    return name.startswith((STAGING_PREFIX, ASIDE_PREFIX))


def remove_stale_staging(target: Path) -> None:
    """Remove what runs that died (their process is gone) left inside the folder."""
    with os.scandir(target) as found:
        names = [entry.name for entry in found if _is_staging(entry.name)]
    for name in names:
        head = name.removeprefix(STAGING_PREFIX).removeprefix(ASIDE_PREFIX).split("-", 1)[0]
        if head.isdigit() and int(head) != os.getpid() and not pid_alive(int(head)):
            path = target / name
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    path.unlink()
