"""Settings from flags and the environment, and where the dataset and the state folder live."""

from __future__ import annotations

import ipaddress
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

from atlas.foundation import statefiles
from atlas.foundation.errors import ConfigError
from atlas.foundation.redact import redact_url

DEFAULT_OPENAI_MODEL = "gpt-6-luna"
OFFLINE_MODEL = "offline"
DEFAULT_PRICE_IN = 0.10
DEFAULT_PRICE_OUT = 0.50
APIS = ("responses", "chat")

_PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""The `atlas` package's folder (this module sits in `atlas/foundation/`)."""


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


BUNDLED_NAME = "Orbit"
SOURCE_FILE = "atlas-source.json"
"""What `atlas data import`/`sync` write beside a dataset: where it came from (`repo`: OWNER/REPO)."""
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,99}")
"""A project name shown in the header and told to the model: a repository's or a folder's, nothing else."""


def dataset_name(data: Path | None = None) -> str:
    """The project a dataset holds: `Orbit` for the bundled one, else its repository, else its folder's name.

    Read from a file outside Atlas's control, so only a name of plain characters is used.
    """
    data = data_dir() if data is None else data
    if data.resolve() == bundled_data_dir().resolve():
        return BUNDLED_NAME
    try:
        raw = statefiles.read_limited(
            data / SOURCE_FILE, limit=statefiles.SOURCE_RECORD_LIMIT, what="a source record", links=False
        )
        repo = json.loads(raw.decode("utf-8")).get("repo")
    except (OSError, ValueError, AttributeError, RecursionError):
        repo = None
    for name in (repo, data.name):
        if isinstance(name, str) and _NAME_RE.fullmatch(name.strip()):
            return name.strip()
    return "this project"


STATE_FOLDER_NAME = ".atlas"


class StateFolder(NamedTuple):
    """Where Atlas keeps its state, and why there: `doctor` and the configuration page say the same."""

    path: Path
    found_by: str
    """`ATLAS_HOME`, `the nearest .atlas folder` or `the user state folder`."""


def nearest_state_folder(start: Path) -> Path | None:
    """The `.atlas/` folder in `start` or the nearest folder above it, as git finds `.git`."""
    for folder in (start, *start.parents):
        candidate = folder / STATE_FOLDER_NAME
        if candidate.is_dir():
            return candidate
    return None


def state_folder() -> StateFolder:
    """`ATLAS_HOME`, else the nearest `.atlas/` here or above, else the user's state folder (XDG)."""
    value = os.environ.get("ATLAS_HOME", "").strip()
    if value:
        return StateFolder(Path(value).expanduser().resolve(), "ATLAS_HOME")
    try:
        nearest = nearest_state_folder(Path.cwd())
    except OSError:  # the current folder was removed under us: there is no "above" to look in
        nearest = None
    if nearest is not None:
        return StateFolder(nearest.resolve(), f"the nearest {STATE_FOLDER_NAME} folder")
    import platformdirs  # only here: most runs find ATLAS_HOME or a project's .atlas first

    return StateFolder(platformdirs.user_state_path("atlas").resolve(), "the user state folder")


def atlas_home() -> Path:
    """The state folder's path (see `state_folder`); created on first use by whoever writes to it."""
    return state_folder().path


def default_model_name() -> str:
    """`ATLAS_MODEL`, else gpt-6-luna with an API key (a blank one is none), else the offline planner."""
    if os.environ.get("ATLAS_MODEL", "").strip():
        return os.environ["ATLAS_MODEL"].strip()
    return DEFAULT_OPENAI_MODEL if os.environ.get("OPENAI_API_KEY", "").strip() else OFFLINE_MODEL


class Bound(NamedTuple):
    """The range a number from a flag or the environment must fall in, both ends included."""

    low: float
    high: float
    unit: str
    low_open: bool = False
    """The low end itself is excluded (a timeout of 0 s is no timeout)."""

    def describe(self) -> str:
        """`from 0.05 to 600 seconds`, or `more than 0 and at most 3600 seconds`."""
        if self.low_open:
            return f"more than {self.low:g} and at most {self.high:g} {self.unit}"
        return f"from {self.low:g} to {self.high:g} {self.unit}"

    def check(self, value: float) -> str | None:
        """Why `value` is refused, or None; NaN and the infinities are never accepted."""
        if not math.isfinite(value):
            return f"must be a finite number of {self.unit}"
        if value < self.low or value > self.high or (self.low_open and value == self.low):
            return f"must be {self.describe()}"
        return None


# Every number Atlas takes from outside, with its bounds: one place, and the configuration page's table.
# The upper ends are far beyond any sensible use and well inside what timers and sums can hold.
BOUNDS: dict[str, Bound] = {
    "--timeout": Bound(0.05, 600, "seconds"),
    "--deadline": Bound(0.1, 3600, "seconds"),
    "--concurrency": Bound(1, 64, "calls"),
    "--max-rounds": Bound(1, 50, "rounds"),
    "--limit": Bound(1, 1_000_000_000, "calls"),
    "ATLAS_MODEL_TIMEOUT": Bound(0, 3600, "seconds", low_open=True),
    "ATLAS_PRICE_IN": Bound(0, 10_000, "USD per 1M tokens"),
    "ATLAS_PRICE_OUT": Bound(0, 10_000, "USD per 1M tokens"),
    "ATLAS_GITHUB_CONCURRENCY": Bound(1, 64, "requests at once"),
}


def env_number(name: str, default: float, *, unit: str, positive: bool = False) -> float:
    """A number from the environment, within its entry in `BOUNDS` (else finite and ≥ 0, or > 0 with `positive`)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of {unit}, got {raw!r}") from None
    bound = BOUNDS.get(name, Bound(0, math.inf, unit, low_open=positive))
    why = bound.check(value)
    if why is None:
        return value
    if math.isfinite(bound.high):
        raise ConfigError(f"{name} {why}, got {raw!r}")
    raise ConfigError(f"{name} must be a finite number {'> 0' if positive else '≥ 0'}, got {raw!r}")


def github_concurrency() -> int:
    """`ATLAS_GITHUB_CONCURRENCY`: how many requests this process sends GitHub at once (default 8)."""
    from atlas.foundation.limits import GITHUB_DEFAULT

    value = env_number("ATLAS_GITHUB_CONCURRENCY", GITHUB_DEFAULT, unit="requests at once")
    if value != int(value):
        raise ConfigError(f"ATLAS_GITHUB_CONCURRENCY must be a whole number, got {value:g}")
    return int(value)


def _price(name: str, default: float) -> float:
    return env_number(name, default, unit="USD per 1M tokens")


def model_api(value: str | None = None) -> str:
    """`--api`, else `ATLAS_API`, else `responses`: which OpenAI wire the model speaks."""
    raw = (value if value is not None else os.environ.get("ATLAS_API", "")).strip().lower() or APIS[0]
    if raw not in APIS:
        raise ConfigError(f"the API must be responses or chat, got {raw!r} (--api or ATLAS_API)")
    return raw


def base_url_setting() -> str:
    """`ATLAS_BASE_URL`, else `OPENAI_BASE_URL`, else empty (the OpenAI API); a ConfigError when it is not an
    http(s) URL with a host and a valid port, so a typo is one line, not a failure deep in a request."""
    for name in ("ATLAS_BASE_URL", "OPENAI_BASE_URL"):
        url = os.environ.get(name, "").strip()
        if url:
            problem = _url_problem(url)
            if problem:
                raise ConfigError(f"{name} {redact_url(url)!r} is {problem}; set it like http://localhost:8080/v1")
            return url
    return ""


def _url_problem(url: str) -> str | None:
    """Why `url` cannot name a server, or None."""
    try:
        parts = urlsplit(url)
        port = parts.port  # raises for a port that is not a number from 0 to 65535
    except ValueError as exc:
        return f"not a URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "not an http:// or https:// URL"
    if not parts.hostname or any(c.isspace() for c in url):
        return "not a URL with a host name"
    return "not a URL with a port from 1 to 65535" if port == 0 else None


def is_local_url(url: str) -> bool:
    """A server on this machine or a private network: it bills nobody."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith((".localhost", ".local")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def model_prices(model: str) -> tuple[float, float]:
    """USD per 1M input and output tokens for `model`.

    `ATLAS_PRICES` (`name=IN/OUT,...`) names a model's own prices; else `ATLAS_PRICE_IN/OUT`;
    else a local server (ATLAS_BASE_URL on this machine or a private network) costs nothing.
    """
    for entry in os.environ.get("ATLAS_PRICES", "").split(","):
        name, _, prices = entry.partition("=")
        if name.strip() and name.strip() == model:
            return _listed_prices(entry, prices)
    local = bool(base_url_setting()) and is_local_url(base_url_setting())
    return (
        _price("ATLAS_PRICE_IN", 0.0 if local else DEFAULT_PRICE_IN),
        _price("ATLAS_PRICE_OUT", 0.0 if local else DEFAULT_PRICE_OUT),
    )


def _listed_prices(entry: str, prices: str) -> tuple[float, float]:
    price_in, _, price_out = prices.partition("/")
    try:
        values = (float(price_in), float(price_out))
    except ValueError:
        raise ConfigError(f"ATLAS_PRICES entries are name=IN/OUT in USD per 1M tokens, got {entry.strip()!r}") from None
    for value, name in zip(values, ("ATLAS_PRICE_IN", "ATLAS_PRICE_OUT"), strict=True):
        # The same bounds as the two single prices: an absurd price makes an absurd (or infinite) cost.
        why = BOUNDS[name].check(value)
        if why is not None:
            raise ConfigError(f"ATLAS_PRICES {why} for each price, got {entry.strip()!r}")
    return values


def tool_modules() -> list[str]:
    """Modules named in `ATLAS_TOOL_MODULES` (comma-separated) whose tools join the registry."""
    raw = os.environ.get("ATLAS_TOOL_MODULES", "")
    return [name.strip() for name in raw.split(",") if name.strip()]


def tracker_setting() -> str:
    """`ATLAS_TRACKER`: where side effects go (empty or `mock`: the action journal alone)."""
    return os.environ.get("ATLAS_TRACKER", "").strip()


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, resolved once at start-up."""

    model: str = field(default_factory=default_model_name)
    data: Path = field(default_factory=data_dir)
    home: Path = field(default_factory=atlas_home)
    api: str = field(default_factory=model_api)
    tracker: str = field(default_factory=tracker_setting)
    price_in: float = -1.0
    price_out: float = -1.0
    """Negative: the model's prices (`model_prices`), resolved once the model is known."""

    def __post_init__(self) -> None:
        if self.price_in < 0 or self.price_out < 0:
            price_in, price_out = model_prices(self.model)
            # Frozen: the prices are part of the value, settled here once.
            object.__setattr__(self, "price_in", price_in if self.price_in < 0 else self.price_in)
            object.__setattr__(self, "price_out", price_out if self.price_out < 0 else self.price_out)
