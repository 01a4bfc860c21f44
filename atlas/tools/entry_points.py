"""Plugins' entry points, read only when some installed distribution declares the group at all.

`importlib.metadata` costs about 10 ms to import and as much again to read the metadata of every
installed distribution, on every run, and almost never finds an Atlas plugin. What it reads is
each distribution's `entry_points.txt` on the search path: when none of them has the group's
section, there is nothing for it to find. Anything this look cannot see through (a zip on the
path, a finder that is not the standard one) is left to `importlib.metadata` itself.

Even that look opened every distribution's file on every run. The files it read without finding
the section are remembered in the user's cache folder by size and mtime (`plugin-entry-points.json`),
and a later run reads only those that are new or changed: installing a plugin adds a file, and
editing one changes its stamp. As with the other caches, nothing is written under `-B`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable
from importlib.machinery import PathFinder
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

METADATA_FOLDERS = (".dist-info", ".egg-info")
KNOWN_FILE = "plugin-entry-points.json"
KNOWN_LIMIT = 4 * 1024 * 1024
"""The most of the remembered stamps that is read; a larger file is not Atlas's, and is read over."""
FORMAT = 1
Stamps = dict[str, list[int]]
"""A distribution's `entry_points.txt` path → its [size, mtime in ns]."""


def entry_points_of(group: str, search_path: Iterable[str]) -> tuple[EntryPoint, ...]:
    """`importlib.metadata.entry_points(group=group)`, skipped when no distribution mentions `group`."""
    if not may_declare(group, search_path):
        return ()
    from importlib.metadata import entry_points

    return tuple(entry_points(group=group))


def may_declare(group: str, search_path: Iterable[str]) -> bool:
    """False only when every distribution `importlib.metadata` would read is a folder on `search_path`
    whose `entry_points.txt` (if any) has no `[group]` section header."""
    if any(hasattr(finder, "find_distributions") and finder is not PathFinder for finder in sys.meta_path):
        return True
    needle = f"[{group}]".encode()  # how the file names a section; importlib.metadata matches it exactly
    known, seen = _known_silent(group), {}
    for entry in search_path:
        folder = entry or "."
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            continue
        except OSError:
            return os.path.exists(folder)  # a zip, or a folder it may read and this cannot
        for name in names:
            if not name.lower().endswith(METADATA_FOLDERS):
                continue
            distribution = os.path.join(folder, name)
            stamp = _stamp(os.path.join(distribution, "entry_points.txt"))
            if stamp is None:
                continue  # none: it declares nothing
            if known.get(distribution) != stamp and needle in _entry_points_text(distribution):
                return True
            seen[distribution] = stamp
    if seen != known:
        _remember_silent(group, seen)
    return False


def _stamp(path: str) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]


def _known_silent(group: str) -> Stamps:
    """The distributions a run found not declaring `group`, with their files' stamps then; {} when unknown."""
    from atlas.foundation import statefiles
    from atlas.foundation.caches import cache_folder

    try:
        raw = statefiles.read_limited(cache_folder() / KNOWN_FILE, limit=KNOWN_LIMIT, what="a cache", links=False)
        kept = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(kept, dict) or kept.get("format") != FORMAT or kept.get("group") != group:
        return {}
    files = kept.get("silent")
    if not isinstance(files, dict):
        return {}
    return {path: stamp for path, stamp in files.items() if isinstance(stamp, list) and len(stamp) == 2}


def _remember_silent(group: str, silent: Stamps) -> None:
    """Keep `silent` for the next run, whole or not at all; silently, as a cache does."""
    if sys.dont_write_bytecode:
        return
    from atlas.foundation import statefiles
    from atlas.foundation.caches import cache_folder

    path = cache_folder() / KNOWN_FILE
    with contextlib.suppress(OSError):  # a link or a full disk: the metadata is read again next time
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        statefiles.replace_file(path, json.dumps({"format": FORMAT, "group": group, "silent": silent}).encode())


def _entry_points_text(distribution: str) -> bytes:
    from atlas.foundation import statefiles

    try:
        path = Path(distribution, "entry_points.txt")
        return statefiles.read_limited(path, limit=statefiles.MiB, what="a distribution's entry points")
    except OSError:
        return b""
