"""Synthetic Orbit datasets of any size, made of the bundled issues' own text, for the scale benchmarks.

Each issue recombines real titles, body paragraphs and comments of the bundled dataset (code
blocks, error codes, version strings and all), with a component suffix on the title, its own
labels, a creation date spread over five years and a few comments, so that full-text search,
ranking and the "newest first" order meet what a large real tracker would hold: about 3 KB per
issue, as the issue that asked for these benchmarks measured.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from atlas.dataset.ensure import jsonl_path, read_issues
from atlas.foundation.config import bundled_data_dir

START = datetime(2021, 1, 1, tzinfo=UTC)
SPAN_S = 5 * 365 * 86400
AUTHORS = [f"user-{n:03d}" for n in range(400)]
COMPONENTS = ["core", "scheduler", "worker", "broker-redis", "broker-postgres", "api", "cli", "docs"]
TYPES = ["bug", "feature", "question", "docs"]


class Pools:
    """The bundled dataset cut into the pieces synthetic issues are made of."""

    def __init__(self) -> None:
        issues = read_issues(jsonl_path(bundled_data_dir()))
        self.titles = [issue["title"] for issue in issues]
        self.paragraphs = [part for issue in issues for part in issue["body"].split("\n\n") if part.strip()]
        self.comments = [c["body"] for issue in issues for c in issue["comments"]]


def synthetic_issues(count: int, *, seed: int = 15) -> Iterator[dict[str, Any]]:
    """`count` issues numbered from 1, created in id order (as a tracker numbers them)."""
    rng, pools = random.Random(seed), Pools()
    for issue_id in range(1, count + 1):
        created = START + timedelta(seconds=SPAN_S * issue_id / count + rng.randint(0, 3600))
        yield {
            "id": issue_id,
            "title": f"{rng.choice(pools.titles)} ({rng.choice(COMPONENTS)})",
            "state": "open" if rng.random() < 0.3 else "closed",
            "labels": _labels(rng),
            "author": rng.choice(AUTHORS),
            "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "body": "\n\n".join(rng.choices(pools.paragraphs, k=rng.randint(3, 7))),
            "comments": [
                {
                    "author": rng.choice(AUTHORS),
                    "body": rng.choice(pools.comments),
                    "created_at": (created + timedelta(hours=position + 1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
                for position in range(rng.choice([0, 1, 1, 2, 2, 3, 4, 6, 9]))
            ],
        }


def _labels(rng: random.Random) -> list[str]:
    labels = [f"comp:{rng.choice(COMPONENTS)}", f"type:{rng.choice(TYPES)}"]
    if rng.random() < 0.4:
        labels.append(f"severity:S{rng.randint(1, 4)}")
    return labels


def write_data_folder(folder: Path, issues: Iterable[dict[str, Any]]) -> Path:
    """A data folder like the bundled one: the bundled docs and `issues` as its JSONL, no db yet."""
    docs = folder / "docs"
    if not docs.exists():
        shutil.copytree(bundled_data_dir() / "docs", docs)
    target = jsonl_path(folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as out:
        for issue in issues:
            out.write(json.dumps(issue) + "\n")
    return folder


def write_dataset(folder: Path, count: int, *, seed: int = 15) -> Path:
    """A data folder like the bundled one (the bundled docs, `count` synthetic issues, no db yet)."""
    return write_data_folder(folder, synthetic_issues(count, seed=seed))
