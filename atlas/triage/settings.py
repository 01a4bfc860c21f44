"""The `[triage]` table of `$ATLAS_HOME/config.toml`: thresholds, ages, and label groups for projects without prefixes.

[triage]
threshold = 0.5          # below this confidence a group is left to a person
stale_days = 60          # open and untouched this long: stale
waiting_days = 1         # a question to the reporter unanswered this many days: waiting on them
[triage.groups]          # groups for labels without a `group:` prefix
kind = ["bug", "enhancement", "question"]
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atlas.foundation import statefiles
from atlas.foundation.errors import AtlasError

CONFIG_FILE = "config.toml"


class TriageConfigError(AtlasError):
    """The `[triage]` table cannot be used; the message names the key."""


@dataclass(frozen=True)
class TriageSettings:
    threshold: float = 0.5
    stale_days: int = 60
    waiting_days: int = 1
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)


def load_settings(home: Path) -> TriageSettings:
    """The settings in `config.toml`, defaults for what it does not say; a bad value is a one-line error."""
    try:
        raw = statefiles.read_bytes(home / CONFIG_FILE)
    except (OSError, statefiles.UnsafeStateFile) as exc:
        raise TriageConfigError(f"cannot read {home / CONFIG_FILE}: {exc}") from None
    if raw is None:
        return TriageSettings()
    try:
        table = tomllib.loads(raw.decode("utf-8")).get("triage", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TriageConfigError(f"{home / CONFIG_FILE} is not valid TOML: {exc}") from None
    if not isinstance(table, dict):
        raise TriageConfigError("[triage] in config.toml must be a table")
    return TriageSettings(
        threshold=_number(table, "threshold", 0.5, 0.0, 1.0),
        stale_days=int(_number(table, "stale_days", 60, 1, 3650)),
        waiting_days=int(_number(table, "waiting_days", 1, 1, 3650)),
        groups=_groups(table.get("groups", {})),
    )


def _number(table: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise TriageConfigError(f"triage.{key} in config.toml must be a number from {low:g} to {high:g}")
    return float(value)


def _groups(value: Any) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise TriageConfigError("[triage.groups] in config.toml must map a group's name to a list of labels")
    groups: dict[str, tuple[str, ...]] = {}
    for name, labels in value.items():
        if not isinstance(labels, list) or len(labels) < 2 or not all(isinstance(x, str) and x for x in labels):
            raise TriageConfigError(f"triage.groups.{name} in config.toml must list two labels or more")
        groups[str(name)] = tuple(labels)
    return groups
