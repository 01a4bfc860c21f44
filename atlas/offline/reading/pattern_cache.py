"""Compiled regular expressions kept between runs, as Python keeps compiled bytecode.

Compiling the planner's patterns (parsing each and generating its matcher's code) was a quarter of
an offline `atlas ask`, every run, for the same few hundred patterns. The generated code is plain
numbers: the first run stores it in the user's cache folder (`$XDG_CACHE_HOME/atlas`, else
`~/.cache/atlas`), and later runs hand it to the regular-expression engine directly, which costs a
twentieth of compiling. The result is the very `re.Pattern` that `re.compile` returns.

The file is only a cache: one for each Python build (its matcher code changes between versions),
read and never trusted. A file that is missing, unreadable or malformed, or an entry the engine
refuses (it validates all code it is given), is compiled as usual and stored again. Like Python's
bytecode, nothing is written when `PYTHONDONTWRITEBYTECODE` (`-B`) is set; what is there is still read.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # the engine itself, which has no stubs
import array
import atexit
import base64
import binascii
import contextlib
import json
import re
import sys
from pathlib import Path
from re import _compiler, _parser  # type: ignore[attr-defined]
from typing import Any

from atlas.foundation import statefiles
from atlas.foundation.caches import cache_folder

CACHE_LIMIT = 16 * statefiles.MiB
"""The most of the cache file that is read; a larger one is not Atlas's and is compiled over."""

FORMAT = 1
MAX_PATTERNS = 4_000
"""Entries kept in the file; beyond it the oldest go (patterns an older Atlas used, most likely)."""
_CODE_ITEM = "I"
"""An unsigned 32-bit item: the engine's code unit (`_sre.CODESIZE` bytes)."""
USABLE = array.array(_CODE_ITEM).itemsize == _sre.CODESIZE
"""Whether code can be stored as this build's items; where it cannot, patterns are compiled as usual."""

Entry = list[Any]
"""[flags as compiled, number of groups, {group name: index}, [name per index], code (base64)]."""


def cache_file() -> Path:
    implementation = sys.implementation
    build = f"{implementation.name}-{'.'.join(map(str, sys.version_info[:3]))}-{_sre.MAGIC}"
    return cache_folder() / f"patterns-{build}.json"


class PatternStore:
    """The entries read from one cache file, and those this process compiled anew."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, Entry] = _read(path)
        self.added = 0

    def compile(self, source: str, flags: int = 0) -> re.Pattern[str]:
        flags = int(flags)
        if flags & re.DEBUG:
            return re.compile(source, flags)
        key = f"{flags}:{source}"
        entry = self.entries.get(key)
        if entry is not None:
            with contextlib.suppress(Exception):  # anything but what the engine accepts: compile it again
                return _from_entry(source, entry)
        compiled, entry = _compile(source, flags)
        self.entries.pop(key, None)
        self.entries[key] = entry
        self.added += 1
        if self.added == 1 and not sys.dont_write_bytecode:
            atexit.register(self.save)
        return compiled

    def save(self) -> None:
        """Write the file again with this process's entries, newest last; silently, as a cache does."""
        kept = dict(list(self.entries.items())[-MAX_PATTERNS:])
        body = {"format": FORMAT, "python": sys.version, "patterns": kept}
        with contextlib.suppress(OSError):  # a link or a full disk: the patterns are compiled again next time
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            statefiles.replace_file(self.path, json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode())


def _read(path: Path) -> dict[str, Entry]:
    try:
        data = json.loads(statefiles.read_limited(path, limit=CACHE_LIMIT, what="the pattern cache", links=False))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("python") != sys.version:
        return {}
    patterns = data.get("patterns")
    return patterns if isinstance(patterns, dict) else {}


def _compile(source: str, flags: int) -> tuple[re.Pattern[str], Entry]:
    """What `re._compiler.compile` does, keeping the pieces it hands the engine."""
    tree = _parser.parse(source, flags)
    code = [int(unit) for unit in _compiler._code(tree, flags)]
    groups: dict[str, int] = dict(tree.state.groupdict)
    names: list[str | None] = [None] * tree.state.groups
    for name, index in groups.items():
        names[index] = name
    entry: Entry = [int(flags | tree.state.flags), tree.state.groups - 1, groups, names, _pack(code)]
    return _from_entry(source, entry), entry


def _from_entry(source: str, entry: Entry) -> re.Pattern[str]:
    final_flags, groups, group_index, names, packed = entry
    if not (isinstance(group_index, dict) and isinstance(names, list) and isinstance(packed, str)):
        raise TypeError("malformed entry")
    pattern: re.Pattern[str] = _sre.compile(source, final_flags, _unpack(packed), groups, group_index, tuple(names))
    return pattern


def _pack(code: list[int]) -> str:
    return base64.b64encode(array.array(_CODE_ITEM, code).tobytes()).decode("ascii")


def _unpack(packed: str) -> list[int]:
    units = array.array(_CODE_ITEM)
    try:
        units.frombytes(base64.b64decode(packed, validate=True))
    except binascii.Error as exc:
        raise ValueError("malformed code") from exc
    return units.tolist()


_store: PatternStore | None = None


def compile_cached(source: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)`, from the cache file when it holds this pattern."""
    global _store
    if not USABLE:
        return re.compile(source, flags)
    if _store is None:
        _store = PatternStore(cache_file())
    return _store.compile(source, flags)
