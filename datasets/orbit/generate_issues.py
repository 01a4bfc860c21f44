"""Write `issues/issues.jsonl`: the hand-written issues merged with seeded, generated reports.

    python datasets/orbit/generate_issues.py           # rewrite the JSONL
    python datasets/orbit/generate_issues.py --check   # exit 1 when the committed JSONL differs
    python -m atlas.dataset                            # then rebuild issues/orbit.db from it

Every id without a hand-written issue gets a report drawn from the templates in `issue_templates/`
by a random generator seeded with the id (and a redraw counter, when a draw does not fit the Orbit
version of its date, repeats a title or wears a template out), so the output is the same byte for
byte on every machine.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from handwritten import all_issues  # noqa: E402
from issue_templates import TEMPLATES, Ctx, Draft, NotApplicable  # noqa: E402

TOTAL = 130
MAX_USES_PER_TEMPLATE = 3
SEED = "orbit-issues-v1"
JSONL = HERE / "issues" / "issues.jsonl"
FIRST_DAY = datetime(2025, 1, 6, tzinfo=UTC)
DAYS_PER_ISSUE = 5.35
# Nothing in the tracker is newer than this: the dataset is a snapshot taken on this day.
SNAPSHOT = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)

MAINTAINERS = ("mkowalski", "priya-n", "dtanaka")
REPORTERS = (
    "alexgrant",
    "amara-o",
    "b-hoffmann",
    "chenwei88",
    "cloudops-jan",
    "dario-m",
    "devon-price",
    "elif-yilmaz",
    "fpereira",
    "gkaur",
    "hgrimm",
    "ines-castro",
    "jmoreau",
    "joao-santos",
    "kwame-asante",
    "lars-e",
    "lucasbr",
    "mei-lin",
    "mfischer-dev",
    "nico-ferrari",
    "oskar-nyberg",
    "pablo-ruiz",
    "raj-patel-dev",
    "rkumar",
    "sara-ahmadi",
    "sre-tobias",
    "tomasz-w",
    "uche-n",
    "vbondarenko",
    "wen-zhao",
    "yuki-ito",
    "zoe-m",
    "ben-okafor",
    "carla-dm",
    "ferhat-k",
    "mattias-l",
    "nadia-h",
    "owen-b",
    "petra-novak",
    "sam-oconnell",
)
RELEASES = (
    ("2025-01-01", "2.6.0"),
    ("2025-02-10", "2.6.1"),
    ("2025-03-17", "2.6.2"),
    ("2025-04-22", "2.6.4"),
    ("2025-05-19", "2.7.0"),
    ("2025-07-02", "2.7.1"),
    ("2025-08-25", "2.7.2"),
    ("2025-10-06", "2.7.3"),
    ("2025-11-03", "2.7.4"),
    ("2025-12-08", "2.7.5"),
    ("2026-01-19", "2.8.0"),
    ("2026-04-13", "2.8.1"),
    ("2026-07-06", "2.8.2"),
    ("2026-10-05", "2.8.3"),
)


def created_for(issue_id: int, rng: random.Random) -> datetime:
    """Issue numbers grow with time: about one report every five days."""
    day = FIRST_DAY + timedelta(days=round((issue_id - 1) * DAYS_PER_ISSUE))
    return day + timedelta(minutes=rng.randrange(6 * 60, 23 * 60), seconds=rng.randrange(60))


def release_at(when: datetime) -> str:
    current = RELEASES[0][1]
    for day, version in RELEASES:
        if when.date().isoformat() >= day:
            current = version
    return current


def iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def comment_times(created: datetime, count: int, rng: random.Random) -> list[datetime]:
    """Increasing times after the issue, squeezed to fit before the snapshot."""
    gaps = [timedelta(minutes=rng.randrange(25, 60 * 50), seconds=rng.randrange(60)) for _ in range(count)]
    room = SNAPSHOT - created
    total = sum(gaps, timedelta())
    if total > room:
        gaps = [gap * (room / total) * 0.95 for gap in gaps]
    times, at = [], created
    for gap in gaps:
        at = at + max(gap, timedelta(minutes=3))
        times.append(at.replace(microsecond=0))
    return times


def generate(issue_id: int, attempt: int = 0) -> tuple[dict[str, Any], str]:
    """One report for an id, and the name of the template it came from."""
    rng = random.Random(f"{SEED}:{issue_id}" + (f":{attempt}" if attempt else ""))
    created = created_for(issue_id, rng)
    author = rng.choice(REPORTERS)
    maintainer = rng.choice(MAINTAINERS)
    ctx = Ctx(rng=rng, created=created, version=release_at(created), author=author, maintainer=maintainer)
    template = TEMPLATES[(issue_id * 7 + attempt * 3) % len(TEMPLATES)]
    draft: Draft = template(ctx)
    speakers = {
        "reporter": author,
        "maintainer": maintainer,
        "maintainer2": rng.choice([m for m in MAINTAINERS if m != maintainer]),
        "other": rng.choice([r for r in REPORTERS if r != author]),
    }
    thread = draft.thread
    if draft.last_resolves and not draft.closes:
        thread = thread[:-1]
    # A report filed in the last days before the snapshot has not been answered yet.
    if SNAPSHOT - created < timedelta(days=2):
        thread = thread[:1]
    times = comment_times(created, len(thread), rng)
    comments = [
        {"author": speakers.get(who, who), "body": text, "created_at": iso(at)}
        for (who, text), at in zip(thread, times, strict=True)
    ]
    closed = draft.closes and len(thread) == len(draft.thread)  # an unanswered report is never closed
    issue = {
        "id": issue_id,
        "title": draft.title,
        "state": "closed" if closed else "open",
        "labels": draft.labels,
        "author": author,
        "created_at": iso(created),
        "body": draft.body,
        "comments": comments,
    }
    return issue, template.__name__


def refer_back(issue: dict[str, Any], earlier: int) -> None:
    """Maintainers remember the earlier report of the same problem, and say so."""
    for comment in issue["comments"]:
        if comment["author"] in MAINTAINERS:
            comment["body"] = f"This came up in #{earlier} as well. " + comment["body"]
            return


def build_all() -> list[dict[str, Any]]:
    handwritten = {issue["id"]: issue for issue in all_issues()}
    titles = {issue["title"] for issue in handwritten.values()}
    uses: Counter[str] = Counter()
    first_report: dict[str, int] = {}
    issues = []
    for issue_id in range(1, max(TOTAL, *handwritten) + 1):
        if issue_id in handwritten:
            issues.append(handwritten[issue_id])
            continue
        # Draw again until the story fits the version, the title is new and the template is not worn
        # out: a tracker where six reports tell the same story reads as filler.
        attempt = 0
        while True:
            try:
                issue, name = generate(issue_id, attempt)
            except NotApplicable:
                attempt += 1  # the story needs a feature this issue's Orbit version did not have yet
                continue
            # After many refusals (few templates fit this version) a template may be used once more.
            if issue["title"] not in titles and uses[name] < MAX_USES_PER_TEMPLATE + attempt // 100:
                break
            attempt += 1
        uses[name] += 1
        titles.add(issue["title"])
        if name in first_report:
            refer_back(issue, first_report[name])
        first_report.setdefault(name, issue_id)
        issues.append(issue)
    return issues


def render(issues: list[dict[str, Any]]) -> str:
    # ASCII-only JSON: control characters and U+2028-style separators stay escaped on one line.
    return "".join(json.dumps(issue, ensure_ascii=True) + "\n" for issue in issues)


def main(argv: list[str]) -> int:
    text = render(build_all())
    if "--check" in argv:
        same = JSONL.is_file() and JSONL.read_text(encoding="utf-8") == text
        print("issues.jsonl is up to date" if same else "issues.jsonl differs from the generator's output")
        return 0 if same else 1
    JSONL.parent.mkdir(parents=True, exist_ok=True)
    JSONL.write_text(text, encoding="utf-8")
    print(f"wrote {len(text.splitlines())} issues to {JSONL}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
