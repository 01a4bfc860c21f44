"""The project's label groups and most used labels, kept in the state folder per version of its labels.

Learning the groups reads every issue's labels: 3 s at 100,000 issues, on every `atlas inbox`,
`similar` or `triage`. They change only when the labels do, so they are kept under a key made of
the data's version (the digest a sync or an import writes), the labels Atlas changed (the tracker
journal, so an approved label counts at once), the configured groups and the project's labels.

The inbox's order of the open issues (`inbox_order.py`: their labels and dates alone) is kept under
the same key: `atlas inbox -n 20` then reads twenty issues, not the labels of every open one.

The files are in the state folder, so they are untrusted: one is used only when it is a plain file
within its limit and its content matches the digest it was written with; the groups' file must also
hold this format and this key and name only the project's labels. Anything else is said in one line
and read again from the data.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas.foundation import statefiles
from atlas.foundation.caches import remove_older
from atlas.foundation.notices import warn
from atlas.tracker.journal import LabelChanges
from atlas.triage.groups import LabelGroup

FOLDER = "triage"
PREFIX = "labels-"
FORMAT = 2
LIMIT = 16 * statefiles.MiB
"""The most Atlas reads of the file: a project's groups and labels are a few KB."""
ORDER_PREFIX = "order-"
ORDER_LIMIT = 32 + 8 * 1_000_000
"""The inbox's order of at most a million open issues (it considers 200,000)."""


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


def order_path(home: Path, key: str) -> Path:
    return home / FOLDER / f"{ORDER_PREFIX}{key}.ids"


def _payload(key: str, facts: LabelFacts) -> dict[str, Any]:
    groups = [
        {
            "name": g.name,
            "labels": list(g.labels),
            "always": g.always,
            "implied_by": list(g.implied_by),
            "excused_by": list(g.excused_by),
            "inferred": g.inferred,
        }
        for g in facts.groups
    ]
    return {"format": FORMAT, "key": key, "groups": groups, "most_used": list(facts.most_used)}


def _digest(payload: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def save(home: Path, key: str, facts: LabelFacts) -> None:
    """Written whole, older files of this kind removed; failures only cost speed."""
    payload = _payload(key, facts)
    _write(home, PREFIX, cache_path(home, key), json.dumps({**payload, "digest": _digest(payload)}).encode())


def save_order(home: Path, key: str, ids: list[int]) -> None:
    """The open issues' ids in the inbox's order: their SHA-256, then each id as 8 bytes."""
    packed = array("q", ids).tobytes()
    _write(home, ORDER_PREFIX, order_path(home, key), hashlib.sha256(packed).digest() + packed)


def _write(home: Path, prefix: str, path: Path, data: bytes) -> None:
    """`data` as `path` (a temporary file renamed), the other files of `prefix` removed."""
    folder = home / FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True)
        statefiles.replace_file(path, data)
    except OSError:
        return
    remove_older(path, prefix)


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


def load_order(home: Path, key: str) -> list[int] | None:
    """The inbox's order kept under `key`; None when there is none, or (said in one line) when it does not check out."""
    path = order_path(home, key)
    try:
        raw = statefiles.read_bytes(path, ORDER_LIMIT)
        if raw is None:
            return None
        digest, packed = raw[:32], raw[32:]
        if len(packed) % 8 or hashlib.sha256(packed).digest() != digest:
            raise ValueError("its content does not match its digest")
        ids = array("q")
        ids.frombytes(packed)
    except (OSError, ValueError) as exc:
        reason = exc if isinstance(exc, statefiles.RefusedFile) else f"{path}: {exc}"
        warn(f"the inbox's order kept in the state folder was refused ({reason}); reading it again")
        return None
    return ids.tolist()


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
        excused_by=_labels(entry["excused_by"], labels),
    )


def _labels(names: Any, labels: frozenset[str]) -> tuple[str, ...]:
    """`names` when it is a list of the project's labels."""
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise TypeError("a list of labels holds something else")
    unknown = [name for name in names if name not in labels]
    if unknown:
        raise ValueError(f"it names {len(unknown)} label(s) the project does not have")
    return tuple(names)
