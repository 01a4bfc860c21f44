"""The vocabulary of the report templates: the seeded context, the draft, the registry."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from textwrap import dedent
from typing import TypeVar

T = TypeVar("T")

PYTHONS = ("3.10.14", "3.11.9", "3.11.7", "3.12.4", "3.12.7", "3.13.0")
SYSTEMS = (
    "Ubuntu 22.04",
    "Ubuntu 24.04",
    "Debian 12 (python:{python}-slim image)",
    "Alpine 3.19",
    "RHEL 9.3",
    "macOS 14.5 (dev laptop)",
    "Amazon Linux 2023",
    "Kubernetes 1.29 on GKE",
    "Kubernetes 1.30 on EKS",
)
REDIS = ("6.2.14", "7.0.15", "7.2.4", "7.2.5", "7.4.0", "Valkey 7.2.6", "AWS ElastiCache 7.1", "Azure Cache 6.0")
POSTGRES = ("13.14", "14.11", "15.6", "16.2", "16.4", "17.0", "AWS RDS 15.5", "Cloud SQL 16")
JOBS = (
    "billing.invoice_run",
    "reports.daily_digest",
    "etl.load_orders",
    "media.transcode",
    "search.reindex",
    "crm.sync_contacts",
    "ml.retrain_ranker",
    "backups.snapshot",
    "emails.send_batch",
    "thumbnails.resize",
    "exports.csv_bulk",
    "ledger.reconcile",
    "cache.warmup",
    "webhooks.deliver",
    "feeds.refresh",
)


class NotApplicable(Exception):
    """The template's story does not fit this issue's Orbit version."""


@dataclass
class Draft:
    title: str
    body: str
    labels: list[str]
    thread: list[tuple[str, str]] = field(default_factory=list)
    closes: bool = False
    last_resolves: bool = False
    """The last comment announces the fix; an issue that stays open has not reached it yet."""
    story: str = ""
    """For templates that hold several unrelated cases: which one, so each counts as its own story."""


@dataclass
class Ctx:
    """The seeded generator and the facts of one issue that every template may use."""

    rng: random.Random
    created: datetime
    version: str
    author: str
    maintainer: str
    next_release: str = ""
    """The release after `version`, where a fix for this report ships."""

    def __post_init__(self) -> None:
        self.python = self.pick(PYTHONS)
        self.system = self.pick(SYSTEMS)
        self.redis = self.pick(REDIS)
        self.postgres = self.pick(POSTGRES)
        self.job = self.pick(JOBS)
        self.worker = self.wid()
        # Logs are pasted from some time before the report, not to the second of it.
        self.log_offset = timedelta(seconds=self.rng.randrange(5, 3000))

    def require(self, since: str = "0", before: str = "99") -> None:
        """Refuse versions where the story could not have happened (a feature not yet shipped)."""
        if not _key(since) <= _key(self.version) < _key(before):
            raise NotApplicable(f"{self.version} outside [{since}, {before})")

    @property
    def redis_name(self) -> str:
        return f"Redis {self.redis}" if self.redis[0].isdigit() else self.redis

    @property
    def postgres_name(self) -> str:
        return f"Postgres {self.postgres}" if self.postgres[0].isdigit() else self.postgres

    def pick(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def wid(self) -> str:
        return f"w-{self.rng.getrandbits(16):04x}"

    def jid(self) -> str:
        alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
        return "01J" + "".join(self.rng.choice(alphabet) for _ in range(9))

    @property
    def fix(self) -> str:
        """The release a fix ships in: the next one, or the next patch when none is out yet."""
        if self.next_release:
            return self.next_release
        major, minor, patch = self.version.split(".")
        return f"{major}.{minor}.{int(patch) + 1}"

    def stamp(self, minutes_before: float) -> str:
        at = self.created - self.log_offset - timedelta(minutes=minutes_before)
        return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.rng.randrange(1000):03d}Z"

    def log(self, minutes_before: float, level: str, logger: str, message: str, worker: str | None = None) -> str:
        return f"{self.stamp(minutes_before)} {level} {logger} [{worker or self.worker}] {message}"

    def env(self) -> str:
        minor = ".".join(self.python.split(".")[:2])
        return f"orbit-scheduler {self.version}, Python {self.python}, {self.system.format(python=minor)}"


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def md(text: str) -> str:
    return dedent(text).strip("\n")


Template = Callable[[Ctx], Draft]
TEMPLATES: list[Template] = []


def template(fn: Template) -> Template:
    TEMPLATES.append(fn)
    return fn
