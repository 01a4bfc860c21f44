"""The project's label groups and most used labels, kept in the state folder per version of its labels.

Learning the groups reads every issue's labels: 3 s at 100,000 issues, on every `atlas inbox`,
`similar` or `triage`. They change only when the labels do, so they are kept under a key made of
the data's version (the digest a sync or an import writes), the labels Atlas changed (the tracker
journal, so an approved label counts at once), the configured groups and the project's labels.

The file is in the state folder, so it is untrusted: it is used only when it is a plain file within
its limit, holds this format and this key, names only the project's labels, and its content
matches the digest it was written with. Anything else is said in one line and learnt again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas import statefiles
from atlas.notices import warn
from atlas.tracker.journal import LabelChanges
from atlas.triage.groups import LabelGroup

FOLDER = "triage"
PREFIX = "labels-"
FORMAT = 1
LIMIT = 16 * statefiles.MiB
"""The most Atlas reads of the file: a project's groups and labels are a few KB."""


@dataclass(frozen=True)
class LabelFacts:
    """What every issue's labels say about the project, read once per version of them."""

    groups: list[LabelGroup]
    most_used: tuple[str, ...]


def cache_key(
    stamp: str, changes: Mapping[int, LabelChanges], configured: Mapping[str, tuple[str, ...]], known: list[str]
) -> str:
    """Changes with the data's version, each label Atlas added or removed, the configured groups and the labels."""
    changed = sorted((issue_id, change.added, change.removed) for issue_id, change in changes.items())
    described = json.dumps([FORMAT, stamp, changed, sorted(configured.items()), sorted(known)])
    return hashlib.sha256(described.encode()).hexdigest()[:24]


def cache_path(home: Path, key: str) -> Path:
    return home / FOLDER / f"{PREFIX}{key}.json"


def _payload(key: str, facts: LabelFacts) -> dict[str, Any]:
    groups = [
        {
            "name": g.name,
            "labels": list(g.labels),
            "always": g.always,
            "implied_by": list(g.implied_by),
            "inferred": g.inferred,
        }
        for g in facts.groups
    ]
    return {"format": FORMAT, "key": key, "groups": groups, "most_used": list(facts.most_used)}


def _digest(payload: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def save(home: Path, key: str, facts: LabelFacts) -> None:
    """Written whole (a temporary file renamed), older files of this folder removed; failures only cost speed."""
    payload = _payload(key, facts)
    text = json.dumps({**payload, "digest": _digest(payload)})
    folder, path = home / FOLDER, cache_path(home, key)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{PREFIX}", suffix=".json.tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temp, path)
    except OSError:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(temp)
        return
    for old in folder.glob(f"{PREFIX}*.json"):
        if old.name != path.name:
            with contextlib.suppress(OSError):
                old.unlink()


def load(home: Path, key: str, labels: frozenset[str]) -> LabelFacts | None:
    """The facts kept under `key`; None when there are none, or (said in one line) when they do not check out."""
    path = cache_path(home, key)
    try:
        raw = statefiles.read_bytes(path, LIMIT)
        if raw is None:
            return None
        return _checked(json.loads(raw), key, labels)
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        reason = exc if isinstance(exc, statefiles.RefusedFile) else f"{path}: {exc}"
        warn(f"the label groups kept in the state folder were refused ({reason}); learning them again")
        return None


def _checked(document: Any, key: str, labels: frozenset[str]) -> LabelFacts:
    """The facts in `document`; ValueError or TypeError when it is not what `save` wrote for `key`."""
    if not isinstance(document, dict):
        raise TypeError("not a JSON object")
    digest = document.pop("digest", None)
    if document.get("format") != FORMAT or document.get("key") != key:
        raise ValueError("another format or version of the data")
    if digest != _digest(document):
        raise ValueError("its content does not match its digest")
    groups = [_group(entry, labels) for entry in document["groups"]]
    most_used = _labels(document["most_used"], labels)
    return LabelFacts(groups, most_used)


def _group(entry: Any, labels: frozenset[str]) -> LabelGroup:
    if not isinstance(entry, dict) or not isinstance(entry["name"], str):
        raise TypeError("a group is not an object with a name")
    if not isinstance(entry["always"], bool) or not isinstance(entry["inferred"], bool):
        raise TypeError(f"group {entry['name']!r} has a flag that is not true or false")
    return LabelGroup(
        entry["name"],
        _labels(entry["labels"], labels),
        always=entry["always"],
        implied_by=_labels(entry["implied_by"], labels),
        inferred=entry["inferred"],
    )


def _labels(names: Any, labels: frozenset[str]) -> tuple[str, ...]:
    """`names` when it is a list of the project's labels."""
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise TypeError("a list of labels holds something else")
    unknown = [name for name in names if name not in labels]
    if unknown:
        raise ValueError(f"it names {len(unknown)} label(s) the project does not have")
    return tuple(names)
