"""Edit a text in the person's own editor (`$VISUAL`, else `$EDITOR`, else `vi`), on the controlling terminal."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from atlas.foundation import statefiles

FALLBACK_EDITOR = "vi"
EDITED_LIMIT = 16 * statefiles.MiB
"""The most Atlas reads back of a text a person edited (a comment is far shorter)."""


def editor_command() -> list[str]:
    for name in ("VISUAL", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value:
            return shlex.split(value)
    return [FALLBACK_EDITOR]


def edit_in_editor(text: str, tty_fd: int) -> str | None:
    """The text as the person saved it (the editor's final newline dropped); None when the editor
    could not run or failed. The file lives in a private folder that is removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="atlas-edit-"))
    path = folder / "COMMENT.md"
    try:
        path.write_text(text + "\n", encoding="utf-8")
        try:
            done = subprocess.run(
                [*editor_command(), str(path)], stdin=tty_fd, stdout=tty_fd, stderr=tty_fd, check=False
            )
        except (OSError, ValueError):
            return None
        if done.returncode != 0:
            return None
        saved = statefiles.read_text(path, limit=EDITED_LIMIT, what="an edited text", links=False, errors="replace")
    except OSError:
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return saved[:-1] if saved.endswith("\n") else saved
