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
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from handwritten import all_issues  # noqa: E402
from issue_templates import TEMPLATES, Ctx, Draft, NotApplicable  # noqa: E402

TOTAL = 160
MAX_USES_PER_STORY = 3
SIMILARITY_LIMIT = 0.5
FRESH_ATTEMPTS = 150
DUPLICATE_SHARE = 0.12
DUPLICATE_OPENINGS = (
    "Seeing this on {version}:",
    "Not sure if this is a bug or our setup. Since we moved to {version}:",
    "Searched the issues but couldn't find this exact error. On {version}:",
    "Our on-call got paged for this twice this week ({version}):",
    "Started right after we upgraded to {version}:",
    "Probably known, but I couldn't find it. {version}, production:",
)
DUPLICATE_CLOSINGS = (
    "Any idea what causes this?",
    "Happy to provide more logs.",
    "Is there a workaround?",
    "Let me know what else would help.",
    "Is this expected?",
)
SEED = "orbit-issues-v1"
JSONL = HERE / "issues" / "issues.jsonl"
FIRST_DAY = datetime(2025, 1, 6, tzinfo=UTC)
DAYS_PER_ISSUE = 5.35
# Nothing in the tracker is newer than this: the dataset is a snapshot taken on this day.
SNAPSHOT = datetime(2026, 11, 30, 23, 30, tzinfo=UTC)

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


def release_after(version: str) -> str:
    """The next release in the history, or "" after the last one."""
    versions = [v for _, v in RELEASES]
    index = versions.index(version) + 1
    return versions[index] if index < len(versions) else ""


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
    """One report for an id, and the name of the story it tells (its template, and case if any)."""
    rng = random.Random(f"{SEED}:{issue_id}" + (f":{attempt}" if attempt else ""))
    created = created_for(issue_id, rng)
    author = rng.choice(REPORTERS)
    maintainer = rng.choice(MAINTAINERS)
    version = release_at(created)
    ctx = Ctx(rng, created, version, author, maintainer, next_release=release_after(version))
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
    return issue, template.__name__ + (f":{draft.story}" if draft.story else "")


def shingles(text: str) -> set[tuple[str, ...]]:
    # Numbers, ids and timestamps do not make a report different: they all read as one token.
    words = ["#" if any(ch.isdigit() for ch in word) else word for word in text.split()]
    return {tuple(words[i : i + 3]) for i in range(len(words) - 2)}


def too_alike(body: str, earlier: str) -> bool:
    """Two reports of one story must differ in more than versions and ids (Jaccard of word 3-grams)."""
    a, b = shingles(body), shingles(earlier)
    return len(a & b) > SIMILARITY_LIMIT * len(a | b)


def refer_back(issue: dict[str, Any], earlier: int) -> None:
    """Maintainers remember the earlier report of the same problem, and say so."""
    for comment in issue["comments"]:
        if comment["author"] in MAINTAINERS:
            comment["body"] = f"This came up in #{earlier} as well. " + comment["body"]
            return


def first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    cut = flat.find(". ")
    return flat if cut < 0 else flat[: cut + 1]


def as_duplicate(issue: dict[str, Any], earlier: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The same problem reported again, briefly, and closed as a duplicate of the earlier report."""
    evidence = re.search(r"```.*?```", issue["body"], re.S)
    version = release_at(datetime.fromisoformat(issue["created_at"]))
    opening = rng.choice(DUPLICATE_OPENINGS).format(version=version)
    closing = rng.choice(DUPLICATE_CLOSINGS)
    parts = [opening, evidence.group(0) if evidence else first_sentence(issue["body"]), closing]
    explanation = next((c["body"] for c in earlier["comments"] if c["author"] in MAINTAINERS), "")
    gist = first_sentence(explanation)
    if "type:feature" in earlier["labels"]:
        answer = f"Duplicate of #{earlier['id']}, where this is tracked. Please add your use case there."
    elif (
        len(gist) < 40
        or any(ch.isdigit() for ch in gist)  # numbers from the earlier report would not match this one
        or gist.split()[0]
        in (
            "Yes,",
            "No,",
            "Good",
            "Thanks",
            "Agreed",
            "Confirmed",
            "Not",
            "That",
            "That's",
            "This",
            "It",
            "Right,",
            "Sounds",
            "We",
            "Yes:",
            "No:",
        )
    ):
        answer = (
            f"Thanks for the report. This is #{earlier['id']}; closing as a duplicate so the discussion "
            "stays in one place. What helped there should help here too."
        )
    else:
        answer = rng.choice(
            (
                f"Duplicate of #{earlier['id']}: same cause. {gist}",
                f"Looks like #{earlier['id']}. {gist} Closing as a duplicate; please comment there if "
                "that doesn't explain it.",
            )
        )
    thread = [(rng.choice(MAINTAINERS), answer)]
    if rng.random() < 0.5:
        thread.append(
            (
                issue["author"],
                rng.choice(
                    (
                        "That was it, thanks.",
                        "Missed that one, sorry!",
                        "Thanks, following #" + str(earlier["id"]) + ".",
                    )
                ),
            )
        )
    created = datetime.fromisoformat(issue["created_at"])
    if SNAPSHOT - created < timedelta(days=2):
        thread = []
    times = comment_times(created, len(thread), rng)
    return {
        **issue,
        "state": "closed" if thread else "open",
        "body": "\n\n".join(parts),
        "comments": [
            {"author": who, "body": text, "created_at": iso(at)} for (who, text), at in zip(thread, times, strict=True)
        ],
    }


def fresh_report(
    issue_id: int, titles: set[str], told: dict[str, list[dict[str, Any]]]
) -> tuple[dict[str, Any], str] | None:
    """A full report whose story fits the date's Orbit version and differs from earlier tellings."""
    for attempt in range(FRESH_ATTEMPTS):
        try:
            issue, name = generate(issue_id, attempt)
        except NotApplicable:
            continue  # the story needs a feature this issue's Orbit version did not have yet
        earlier = told.get(name, [])
        if (
            issue["title"] not in titles
            and len(earlier) < MAX_USES_PER_STORY
            and not any(too_alike(issue["body"], e["body"]) for e in earlier)
        ):
            return issue, name
    return None


FIXED_RE = re.compile(
    r"\b(?:[Ff]ixed in|[Ll]ands in|[Rr]eleased in|[Ss]hip(?:s|ped)? (?:in|with)|In)\s+(\d+\.\d+\.\d+)\b"
)


def fixed_by(issue: dict[str, Any], version: str) -> bool:
    """Whether a maintainer said the issue's fix shipped in `version` or earlier."""

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(part) for part in v.split("."))

    said = [v for c in issue["comments"] if c["author"] in MAINTAINERS for v in FIXED_RE.findall(c["body"])]
    return any(key(v) <= key(version) for v in said)


def duplicate_report(issue_id: int, titles: set[str], told: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """A new report of a problem already in the tracker: same story, nearly the same words."""
    for attempt in range(FRESH_ATTEMPTS, 10 * FRESH_ATTEMPTS):
        try:
            issue, name = generate(issue_id, attempt)
        except NotApplicable:
            continue
        if issue["title"] in titles or not {"type:bug", "type:question"} & set(issue["labels"]):
            continue
        # Nobody reports a bug again on a release that has its fix: that would be a new report.
        version = release_at(datetime.fromisoformat(issue["created_at"]))
        earlier = next(
            (e for e in told.get(name, []) if too_alike(issue["body"], e["body"]) and not fixed_by(e, version)), None
        )
        if earlier is not None:
            rng = random.Random(f"{SEED}:{issue_id}:duplicate")
            return as_duplicate(issue, earlier, rng)
    raise RuntimeError(f"no story left to repeat for issue {issue_id}")


def build_all() -> list[dict[str, Any]]:
    handwritten = {issue["id"]: issue for issue in all_issues()}
    titles = {issue["title"] for issue in handwritten.values()}
    told: dict[str, list[dict[str, Any]]] = {}  # story -> its full reports, oldest first
    issues = []
    for issue_id in range(1, max(TOTAL, *handwritten) + 1):
        if issue_id in handwritten:
            issues.append(handwritten[issue_id])
            continue
        # Some reports repeat a known problem, spread over the years like in any tracker; and once
        # every story has been told, the rest do.
        repeat = bool(told) and random.Random(f"{SEED}:{issue_id}:repeat").random() < DUPLICATE_SHARE
        found = None if repeat else fresh_report(issue_id, titles, told)
        if found is None:
            issue = duplicate_report(issue_id, titles, told)
        else:
            issue, name = found
            if name in told:
                refer_back(issue, told[name][0]["id"])
            told.setdefault(name, []).append(issue)
        titles.add(issue["title"])
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
