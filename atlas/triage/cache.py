"""The fitted model in the state folder, keyed by the dataset's stamp: fitted once per version of the data.

Stored as plain arrays (`.npz`, loaded with `allow_pickle=False`) and a JSON header: a file in the
state folder is untrusted, and unpickling one would run whatever it holds. A file that does not
load (torn, edited, from another version) is ignored and the model fitted again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from atlas.foundation import statefiles
from atlas.foundation.caches import remove_older
from atlas.triage.groups import LabelGroup
from atlas.triage.model import GroupModel, TextModel
from atlas.triage.text_signals import SIGNALS

FOLDER = "triage"
PREFIX = "model-"
CACHE_LIMIT = statefiles.GiB
"""The most Atlas reads of a fitted model, on disk and unpacked."""
FORMAT = 11
"""Raised whenever what a fit learns changes (8: term-weighted rows; 10: their power chosen per group; 11: the
signals of how an issue is written), so a kept model of the older fit is refitted."""
UNREADABLE = (OSError, ValueError, KeyError, TypeError, AttributeError, zipfile.BadZipFile)
"""What loading a cache file that Atlas did not write (torn, edited: a bad checksum) raises: read as no cache."""


def cache_key(stamp: str, configured: Mapping[str, tuple[str, ...]]) -> str:
    """Changes with the data, the configured groups (`[triage.groups]`) and this file format; not with a
    label approved through Atlas, nor with the inferred groups such a label may shift: the model learns
    them at the data's next version (a sync or an import) instead of refitting for one write."""
    described = json.dumps([stamp, sorted(configured.items()), FORMAT], sort_keys=True, default=str)
    return hashlib.sha256(described.encode()).hexdigest()[:24]


def cache_path(home: Path, key: str, prefix: str = PREFIX) -> Path:
    """Where the arrays kept under `key` lie: the model's, or with `prefix` another kind's (the index's)."""
    return home / FOLDER / f"{prefix}{key}.npz"


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
                "excused_by": g.excused_by,
                "classes": group.classes,
            }
        )
    described = {
        "format": FORMAT,
        "key": key,
        "labels_key": model.labels_key,
        "signals": model.signals,
        "groups": header,
    }
    arrays["header"] = np.array(json.dumps(described))
    save_arrays(home, PREFIX, key, arrays)


def save_arrays(home: Path, prefix: str, key: str, arrays: dict[str, Any]) -> None:
    """`arrays` as `<prefix><key>.npz`, written whole; the older files of that prefix removed."""
    path = cache_path(home, key, prefix)
    try:
        with statefiles.replacing(path) as file:
            np.savez(file, **arrays)
    except OSError:
        return
    remove_older(path, prefix)


@contextlib.contextmanager
def open_arrays(home: Path, prefix: str, key: str) -> Iterator[Any]:
    """The `.npz` saved under `key`: a regular file (no link), no pickles, at most CACHE_LIMIT on disk and
    unpacked; an OSError or ValueError for anything else, which the callers treat as no cache."""
    path = cache_path(home, key, prefix)
    with (
        statefiles.open_regular(path, limit=CACHE_LIMIT, what="a triage cache", links=False) as file,
        np.load(file, allow_pickle=False) as arrays,
    ):
        if _unpacked_bytes(arrays.zip) > CACHE_LIMIT:
            raise ValueError("it only looks small on disk: not arrays Atlas wrote")
        yield arrays


def load(home: Path, key: str) -> TextModel | None:
    """The model cached under `key`, or None when there is none that loads and checks out."""
    try:
        with open_arrays(home, PREFIX, key) as arrays:
            header = json.loads(str(arrays["header"]))
            if header.get("format") != FORMAT or header.get("key") != key:
                return None
            vocabulary, idf = arrays["vocabulary"], arrays["idf"]
            chars, char_idf = arrays["chars"], arrays["char_idf"]
            stop_words = frozenset(str(word) for word in arrays["stop_words"])
            labels_key = str(header["labels_key"])
            signals = header.get("signals") is True
            groups = [
                _group(entry, arrays[f"coef{i}"], arrays[f"intercept{i}"]) for i, entry in enumerate(header["groups"])
            ]
    except UNREADABLE:
        return None
    width = len(idf) + len(char_idf) + (len(SIGNALS) if signals else 0)
    if len(vocabulary) != len(idf) or len(chars) != len(char_idf) or any(g.coef.shape[1] != width for g in groups):
        return None
    return TextModel(vocabulary, idf, groups, chars, char_idf, stop_words, labels_key, signals)


def _unpacked_bytes(archive: zipfile.ZipFile) -> int:
    """What loading every array would take: each member as stored, and as its header declares it.

    Atlas stores its arrays uncompressed, so the two agree; a member compressed to a few bytes, or
    a header declaring a shape its data does not hold, would otherwise be allocated in full.
    """
    total = 0
    for member in archive.infolist():
        with archive.open(member) as entry:
            version = np.lib.format.read_magic(entry)
            if version not in ((1, 0), (2, 0)):
                raise ValueError(f"an array of format {version}, which Atlas does not write")
            read_header = (
                np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            )
            shape, _, dtype = read_header(entry)
        total += max(member.file_size, math.prod(shape) * dtype.itemsize)
    return total


def _group(entry: dict[str, Any], coef: np.ndarray, intercept: np.ndarray) -> GroupModel:
    group = LabelGroup(
        str(entry["name"]),
        tuple(str(x) for x in entry["labels"]),
        bool(entry["always"]),
        tuple(str(x) for x in entry["implied_by"]),
        excused_by=tuple(str(x) for x in entry["excused_by"]),
    )
    classes = [str(x) for x in entry["classes"]]
    if coef.ndim != 2 or intercept.ndim != 1 or coef.shape[0] not in (1, len(classes)):
        raise ValueError("the cached arrays do not fit their classes")
    return GroupModel(group, classes, coef, intercept)
