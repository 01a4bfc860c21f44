"""Where Atlas keeps what it can always make again: the user's cache folder.

What is kept there only saves work (compiled patterns, a learned vocabulary, which installed
distributions declare no plugin); every reader checks what it reads and makes it again otherwise.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path


def cache_folder() -> Path:
    """Where user caches live: `$XDG_CACHE_HOME` (when absolute), else `~/.cache`; per platform elsewhere."""
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        configured = os.environ.get("XDG_CACHE_HOME", "")
        base = Path(configured) if os.path.isabs(configured) else Path.home() / ".cache"
        return base / "atlas"
    import platformdirs  # macOS and Windows have their own conventions, which it knows

    return platformdirs.user_cache_path("atlas")


def remove_older(path: Path, prefix: str) -> None:
    """Remove the files beside `path` that start with `prefix` and end as it does: the versions of a kept result
    that `path` replaces (one per version of the data); quietly, as what is kept only saves work."""
    for old in path.parent.glob(f"{prefix}*{path.suffix}"):
        if old.name != path.name:
            with contextlib.suppress(OSError):
                old.unlink()
