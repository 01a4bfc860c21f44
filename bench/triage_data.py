"""A synthetic project for the triage benchmarks: labels that follow the text, duplicates, an untriaged tail.

Each issue retells one of the bundled Orbit issues (its labels come with it): some of its
paragraphs, one from another issue of the same component, words dropped at random, a title cut
short. One in twelve re-reports an earlier synthetic issue of the same story in other sentences and
is closed with "Duplicate of #N"; the newest twentieth are open and unlabelled. So the figures
measure the code at size; they say little about accuracy on a real tracker, whose text is not a
recombination of 160 stories.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from atlas.dataset.ensure import jsonl_path, read_issues
from atlas.foundation.config import bundled_data_dir
from bench.synthetic import write_data_folder

START = datetime(2021, 1, 1, tzinfo=UTC)
SPAN_S = 5 * 365 * 86400
DUPLICATE_SHARE = 1 / 12
UNTRIAGED_SHARE = 0.05
DROP = 0.15


def _stories() -> list[dict[str, Any]]:
    issues = read_issues(jsonl_path(bundled_data_dir()))
    return [
        i
        for i in issues
        if any(x.startswith("comp:") for x in i["labels"]) and any(x.startswith("type:") for x in i["labels"])
    ]


def _retold(rng: random.Random, story: dict[str, Any], same_comp: list[dict[str, Any]]) -> tuple[str, str]:
    paragraphs = [p for p in story["body"].split("\n\n") if p.strip()]
    kept = rng.sample(paragraphs, k=max(1, min(len(paragraphs), rng.randint(1, 3))))
    other = rng.choice(same_comp)["body"].split("\n\n")
    kept.append(rng.choice(other))
    rng.shuffle(kept)
    body = "\n\n".join(" ".join(w for w in p.split(" ") if rng.random() > DROP) for p in kept)
    words = story["title"].split()
    title = " ".join(words[: rng.randint(max(3, len(words) // 2), len(words))])
    return title, body


def synthetic_project(count: int, *, seed: int = 24) -> Iterator[dict[str, Any]]:
    rng, stories = random.Random(seed), _stories()
    by_comp: dict[str, list[dict[str, Any]]] = {}
    for story in stories:
        comp = next(x for x in story["labels"] if x.startswith("comp:"))
        by_comp.setdefault(comp, []).append(story)
    told: dict[int, list[int]] = {}  # story index -> synthetic ids
    for issue_id in range(1, count + 1):
        created = START + timedelta(seconds=SPAN_S * issue_id / count + rng.randint(0, 600))
        index = rng.randrange(len(stories))
        story = stories[index]
        comp = next(x for x in story["labels"] if x.startswith("comp:"))
        title, body = _retold(rng, story, by_comp[comp])
        earlier = told.get(index, [])
        duplicate = bool(earlier) and rng.random() < DUPLICATE_SHARE
        untriaged = issue_id > count * (1 - UNTRIAGED_SHARE)
        comments = []
        if duplicate and not untriaged:
            comments.append(
                {
                    "author": "maintainer-1",
                    "body": f"Duplicate of #{rng.choice(earlier)}.",
                    "created_at": _at(created, 3),
                }
            )
        elif not untriaged and rng.random() < 0.7:
            comments.append(
                {
                    "author": "maintainer-2",
                    "body": rng.choice(story["comments"] or [{"body": "Thanks."}])["body"],
                    "created_at": _at(created, 5),
                }
            )
        told.setdefault(index, []).append(issue_id)
        yield {
            "id": issue_id,
            "title": f"{title} ({issue_id})",
            "state": "open" if untriaged or rng.random() < 0.3 else "closed",
            "labels": [] if untriaged else list(story["labels"]),
            "author": f"user-{rng.randrange(500):03d}",
            "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "body": body,
            "comments": comments,
        }


def _at(created: datetime, hours: int) -> str:
    return (created + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_project(folder: Path, count: int) -> Path:
    """A data folder (the bundled docs, `count` synthetic issues, no db yet)."""
    return write_data_folder(folder, synthetic_project(count))
