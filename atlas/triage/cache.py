"""The fitted model in the state folder, keyed by the dataset's stamp: fitted once per version of the data.

Stored as plain arrays (`.npz`, loaded with `allow_pickle=False`) and a JSON header: a file in the
state folder is untrusted, and unpickling one would run whatever it holds. A file that does not
load (torn, edited, from another version) is ignored and the model fitted again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from atlas.triage.groups import LabelGroup
from atlas.triage.model import GroupModel, TextModel

FOLDER = "triage"
PREFIX = "model-"
FORMAT = 6


def cache_key(identity: str, groups: list[LabelGroup]) -> str:
    """Changes with the data, the groups, and this file format; not with a label approved through Atlas,
    which the model learns at the data's next version (a sync or an import) instead of refitting for it."""
    described = json.dumps([identity, [g.__dict__ for g in groups], FORMAT], sort_keys=True, default=str)
    return hashlib.sha256(described.encode()).hexdigest()[:24]


def cache_path(home: Path, key: str) -> Path:
    return home / FOLDER / f"{PREFIX}{key}.npz"


def save(home: Path, key: str, model: TextModel) -> None:
    """Written whole (a temporary file renamed), older models of this folder removed; failures only cost speed."""
    arrays: dict[str, Any] = {
        "vocabulary": model.vocabulary,
        "idf": model.idf,
        "chars": model.chars,
        "char_idf": model.char_idf,
        "stop_words": np.array(sorted(model.stop_words), dtype=str),
    }
    header = []
    for i, group in enumerate(model.groups):
        arrays[f"coef{i}"] = group.coef
        arrays[f"intercept{i}"] = group.intercept
        g = group.group
        header.append(
            {
                "name": g.name,
                "labels": g.labels,
                "always": g.always,
                "implied_by": g.implied_by,
                "classes": group.classes,
            }
        )
    arrays["header"] = np.array(json.dumps({"format": FORMAT, "key": key, "groups": header}))
    save_arrays(home, PREFIX, key, arrays)


def save_arrays(home: Path, prefix: str, key: str, arrays: dict[str, Any]) -> None:
    """`arrays` as `<prefix><key>.npz`, written whole; the older files of that prefix removed."""
    folder = home / FOLDER
    path = folder / f"{prefix}{key}.npz"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{prefix}", suffix=".npz.tmp", dir=folder)
        with os.fdopen(fd, "wb") as file:
            np.savez(file, **arrays)
        os.replace(temp, path)
    except OSError:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(temp)
        return
    for old in folder.glob(f"{prefix}*.npz"):
        if old.name != path.name:
            with contextlib.suppress(OSError):
                old.unlink()


def open_arrays(home: Path, prefix: str, key: str) -> Any:
    """The `.npz` saved under `key` (no pickles), or None when there is no plain file."""
    path = home / FOLDER / f"{prefix}{key}.npz"
    if path.is_symlink() or not path.is_file():
        return None
    return np.load(path, allow_pickle=False)


def load(home: Path, key: str) -> TextModel | None:
    """The model cached under `key`, or None when there is none that loads and checks out."""
    try:
        opened = open_arrays(home, PREFIX, key)
        if opened is None:
            return None
        with opened as arrays:
            header = json.loads(str(arrays["header"]))
            if header.get("format") != FORMAT or header.get("key") != key:
                return None
            vocabulary, idf = arrays["vocabulary"], arrays["idf"]
            chars, char_idf = arrays["chars"], arrays["char_idf"]
            stop_words = frozenset(str(word) for word in arrays["stop_words"])
            groups = [
                _group(entry, arrays[f"coef{i}"], arrays[f"intercept{i}"]) for i, entry in enumerate(header["groups"])
            ]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, json.JSONDecodeError):
        return None
    width = len(idf) + len(char_idf)
    if len(vocabulary) != len(idf) or len(chars) != len(char_idf) or any(g.coef.shape[1] != width for g in groups):
        return None
    return TextModel(vocabulary, idf, groups, chars, char_idf, stop_words)


def _group(entry: dict[str, Any], coef: np.ndarray, intercept: np.ndarray) -> GroupModel:
    group = LabelGroup(
        str(entry["name"]),
        tuple(str(x) for x in entry["labels"]),
        bool(entry["always"]),
        tuple(str(x) for x in entry["implied_by"]),
    )
    classes = [str(x) for x in entry["classes"]]
    if coef.ndim != 2 or intercept.ndim != 1 or coef.shape[0] not in (1, len(classes)):
        raise ValueError("the cached arrays do not fit their classes")
    return GroupModel(group, classes, coef, intercept)
