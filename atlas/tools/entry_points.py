"""Plugins' entry points, read only when some installed distribution declares the group at all.

`importlib.metadata` costs about 10 ms to import and as much again to read the metadata of every
installed distribution, on every run, and almost never finds an Atlas plugin. What it reads is
each distribution's `entry_points.txt` on the search path: when none of them has the group's
section, there is nothing for it to find. Anything this look cannot see through (a zip on the
path, a finder that is not the standard one) is left to `importlib.metadata` itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from importlib.machinery import PathFinder
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

METADATA_FOLDERS = (".dist-info", ".egg-info")


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
    for entry in search_path:
        folder = entry or "."
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            continue
        except OSError:
            return os.path.exists(folder)  # a zip, or a folder it may read and this cannot
        for name in names:
            if name.lower().endswith(METADATA_FOLDERS) and needle in _entry_points_text(os.path.join(folder, name)):
                return True
    return False


def _entry_points_text(distribution: str) -> bytes:
    from atlas.foundation import statefiles

    try:
        path = Path(distribution, "entry_points.txt")
        return statefiles.read_limited(path, limit=statefiles.MiB, what="a distribution's entry points")
    except OSError:
        return b""
