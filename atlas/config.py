"""Settings from flags and the environment, and where the dataset and the state folder live."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from atlas.errors import ConfigError

DEFAULT_OPENAI_MODEL = "gpt-6-luna"
OFFLINE_MODEL = "offline"
DEFAULT_PRICE_IN = 0.10
DEFAULT_PRICE_OUT = 0.50

_PACKAGE_DIR = Path(__file__).resolve().parent


def bundled_data_dir() -> Path:
    """The Orbit dataset shipped with Atlas: inside the wheel, or in the source checkout."""
    installed = _PACKAGE_DIR / "_data" / "orbit"
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / "datasets" / "orbit"


def data_dir() -> Path:
    """`ORBIT_DATA`, else the bundled dataset, found from any working directory."""
    value = os.environ.get("ORBIT_DATA", "").strip()
    return Path(value).expanduser().resolve() if value else bundled_data_dir()


def atlas_home() -> Path:
    """`ATLAS_HOME`, else `./.atlas`; created on first use by whoever writes to it."""
    value = os.environ.get("ATLAS_HOME", "").strip()
    return Path(value or ".atlas").expanduser().resolve()


def default_model_name() -> str:
    """`ATLAS_MODEL`, else gpt-6-luna with an API key (a blank one is none), else the offline planner."""
    if os.environ.get("ATLAS_MODEL", "").strip():
        return os.environ["ATLAS_MODEL"].strip()
    return DEFAULT_OPENAI_MODEL if os.environ.get("OPENAI_API_KEY", "").strip() else OFFLINE_MODEL


def env_number(name: str, default: float, *, unit: str, positive: bool = False) -> float:
    """A finite, non-negative (or, with `positive`, strictly positive) number from the environment."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of {unit}, got {raw!r}") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ConfigError(f"{name} must be a finite number {'> 0' if positive else '≥ 0'}, got {raw!r}")
    return value


def _price(name: str, default: float) -> float:
    return env_number(name, default, unit="USD per 1M tokens")


def tool_modules() -> list[str]:
    """Modules named in `ATLAS_TOOL_MODULES` (comma-separated) whose tools join the registry."""
    raw = os.environ.get("ATLAS_TOOL_MODULES", "")
    return [name.strip() for name in raw.split(",") if name.strip()]


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, resolved once at start-up."""

    model: str = field(default_factory=default_model_name)
    data: Path = field(default_factory=data_dir)
    home: Path = field(default_factory=atlas_home)
    price_in: float = field(default_factory=lambda: _price("ATLAS_PRICE_IN", DEFAULT_PRICE_IN))
    price_out: float = field(default_factory=lambda: _price("ATLAS_PRICE_OUT", DEFAULT_PRICE_OUT))
