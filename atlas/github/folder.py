"""A dataset folder written whole: issues, docs, the db and the sync state, swapped in by one rename.

The new folder is built beside the target and renamed into place, so a reader (or a crash) never
meets half an import; a folder that Atlas did not write is never replaced.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from atlas.dataset import build_db, db_path, jsonl_path
from atlas.errors import DataError, printable

STATE_FILE = "atlas-source.json"
"""Where the data came from, and for a synced repo what the next sync needs (watermark, ETags)."""


def read_state(target: Path) -> dict[str, Any]:
    """The source record of a folder Atlas wrote; {} when there is none or it cannot be read."""
    try:
        state = json.loads((target / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return state if isinstance(state, dict) else {}


def check_target(target: Path) -> None:
    """Refuse a folder that holds something other than a dataset Atlas wrote."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise DataError(f"{printable(target)} exists and is not a folder")
    if target.is_dir() and any(target.iterdir()) and not (target / STATE_FILE).is_file():
        raise DataError(
            f"{printable(target)} is not empty and was not written by `atlas data`; choose a new or empty folder"
        )


def markdown_files(docs: Path) -> list[Path]:
    """The docs a folder provides: its `*.md` files (doc ids are their names without `.md`)."""
    if not docs.is_dir():
        raise DataError(f"no docs folder at {printable(docs)}")
    return sorted(path for path in docs.glob("*.md") if path.is_file())


def write_dataset(target: Path, issues: list[dict[str, Any]], *, docs: list[Path], state: dict[str, Any]) -> None:
    """Write the folder beside `target`, build its db, then swap it in."""
    check_target(target)
    if not issues:
        raise DataError("no issues to write: the dataset would answer every question with 'no such issue'")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-new-", dir=target.parent))
    try:
        jsonl = jsonl_path(staging)
        jsonl.parent.mkdir(parents=True)
        with jsonl.open("w", encoding="utf-8") as out:
            for issue in issues:
                out.write(json.dumps(issue, ensure_ascii=False) + "\n")
        (staging / "docs").mkdir()
        for doc in docs:
            shutil.copyfile(doc, staging / "docs" / doc.name)
        build_db(jsonl, db_path(staging))
        (staging / STATE_FILE).write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")
        staging.chmod(0o755)  # mkdtemp made it private; a dataset folder is for every reader
        _swap_in(staging, target)
    except OSError as exc:
        raise DataError(f"cannot write the dataset at {printable(target)}: {exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap_in(staging: Path, target: Path) -> None:
    if not target.exists():
        os.rename(staging, target)
        return
    # rename(2) does not replace a non-empty folder: the old one steps aside first.
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
    os.rmdir(old)
    os.rename(target, old)
    try:
        os.rename(staging, target)
    except OSError:
        os.rename(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)
