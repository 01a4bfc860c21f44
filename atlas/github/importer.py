"""`atlas data import`: a `gh issue list --json` or REST export on disk becomes a dataset folder."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from atlas.dataset.source import identity_of
from atlas.foundation import statefiles
from atlas.foundation.errors import DataError
from atlas.foundation.sanitize import clean_line
from atlas.github.convert import Converted, convert_all, export_repo
from atlas.github.folder import check_target, markdown_files, write_dataset

IMPORT_LIMIT_BYTES = 512 * 1024 * 1024
"""A bigger export is almost certainly the wrong file; refuse it before reading it into memory."""


@dataclass(frozen=True)
class ImportReport:
    """What an import wrote and what it left out."""

    target: Path
    converted: Converted
    docs: list[str]

    @property
    def comments(self) -> int:
        return sum(len(issue["comments"]) for issue in self.converted.issues)


def read_export(path: Path) -> list[Any]:
    """The records of an export: one JSON array, or several back to back (`gh api --paginate`)."""
    missing = DataError(f"no such file: {clean_line(path)}")
    text = statefiles.read_named(path, limit=IMPORT_LIMIT_BYTES, what="an export", missing=missing, refused=DataError)
    decoder = json.JSONDecoder()
    items: list[Any] = []
    position = _skip_space(text, 0)
    while position < len(text):
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise DataError(f"{clean_line(path)} is not JSON (line {exc.lineno}: {exc.msg})") from None
        except RecursionError:
            raise DataError(f"{clean_line(path)} is nested too deeply to read") from None
        if not isinstance(value, list):
            raise DataError(
                f"{clean_line(path)} holds a JSON {type(value).__name__}, not a list of issues "
                "(expected the output of `gh issue list --json ...` or of the REST issues API)"
            )
        items.extend(value)
        position = _skip_space(text, position)
    return items


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def import_export(path: Path, target: Path, *, docs: Path | None) -> ImportReport:
    """Convert an export and write it, with the docs, as a dataset folder at `target`."""
    before = check_target(target)
    doc_files = markdown_files(docs) if docs is not None else None
    items = read_export(path)
    converted = convert_all(items)
    if not converted.issues:
        reasons = "; ".join(converted.skipped[:3]) or "the export is an empty list"
        raise DataError(f"{clean_line(path)} holds no issue Atlas can read ({reasons})")
    repo = export_repo(items)
    state: dict[str, Any] = {
        "source": "import",
        "file": str(path.resolve()),
        "imported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        # Tracker records name this, so one project's labels never show on another's issues.
        "dataset": repo or (identity_of(before) if before else f"import:{secrets.token_hex(8)}"),
    }
    if repo:
        state["repo"] = repo
    # REST issue JSON counts comments and `gh issue list` leaves them out unless asked: then they are unknown.
    state["comments_known"] = any(isinstance(item, dict) and isinstance(item.get("comments"), list) for item in items)
    # Without --docs, a re-import keeps the folder's docs as they are.
    write_dataset(target, converted.issues, docs=doc_files, state=state)
    shown = doc_files if doc_files is not None else _kept_docs(target)
    return ImportReport(target=target, converted=converted, docs=[doc.stem for doc in shown])


def _kept_docs(target: Path) -> list[Path]:
    return markdown_files(target / "docs") if (target / "docs").is_dir() else []
