"""Which found policy files the user trusted to allow: their SHA-256, kept in the user's own state folder.

A `.atlas/config.toml` found above the current folder may have come with a cloned repository.
Its deny and ask rules always apply (they only make Atlas stricter); its allow rules apply only
once the user ran `atlas policy trust` on exactly that content. Any change to the file (a pull
that adds a rule) makes it untrusted again.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from atlas.foundation import statefiles

STORE_FILE = "trusted-policies.json"


def store_path() -> Path:
    """`ATLAS_HOME` when the user set it, else the user state folder: never a found folder."""
    value = os.environ.get("ATLAS_HOME", "").strip()
    if value:
        return Path(value).expanduser().resolve() / STORE_FILE
    import platformdirs

    return platformdirs.user_state_path("atlas").resolve() / STORE_FILE


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _read() -> dict[str, str]:
    try:
        raw = statefiles.read_bytes(store_path())
        store = json.loads(raw.decode("utf-8")) if raw else {}
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(store, dict):
        return {}
    return {str(key): str(value) for key, value in store.items() if isinstance(value, str)}


def is_trusted(path: Path, raw: bytes) -> bool:
    return _read().get(str(path.resolve())) == digest(raw)


def trust(path: Path, raw: bytes) -> Path:
    """Record `raw` as the trusted content of `path`; returns the store's path."""
    store = _read()
    store[str(path.resolve())] = digest(raw)
    target = store_path()
    statefiles.replace_file(target, (json.dumps(store, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    return target
