"""A generated project's issues in the exact shapes GitHub tools print: `gh issue list --json` and REST.

The project is "Quill", a static site generator, so nothing here leans on Orbit's labels or docs.
Records carry the extra fields real `gh` output has (ids, `is_bot`, `reactionGroups`, ...).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

LABELS = ["bug", "enhancement", "documentation", "area:templates", "area:cli", "area:markdown", "good first issue"]
TOPICS = [
    ("templates", "Template inheritance breaks when a partial includes itself", "RecursionError in render_partial"),
    ("cli", "quill serve ignores --port when a config file sets one", "the port from quill.toml wins"),
    ("markdown", "Footnotes render twice in feeds", "the RSS generator runs the footnote pass again"),
    ("cli", "quill build exits 0 when a page fails to render", "CI does not notice broken pages"),
    ("templates", "Date filter ignores the site timezone", "dates shift by a day for users east of UTC"),
    ("markdown", "Tables with pipes in code spans are split", "escape handling in the table parser"),
]
USERS = ["ana-r", "bjorn", "chen-li", "dmitri", "esther-o", "farah"]
START = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)


def _when(rng: random.Random, after: datetime) -> datetime:
    return after + timedelta(hours=rng.randint(1, 200), seconds=rng.randint(0, 3599))


def _stamp(moment: datetime) -> str:
    # What strftime("%Y-%m-%dT%H:%M:%SZ") gives for these whole-second UTC times, at a fraction of
    # its cost: a 30,000-issue export is made of 75,000 of them.
    return moment.isoformat(timespec="seconds")[:19] + "Z"


def gh_issues(count: int, *, seed: int = 18, repo: str = "quill-org/quill") -> list[dict[str, Any]]:
    """`gh issue list --state all --json number,title,body,state,labels,author,comments,createdAt,url`."""
    rng = random.Random(seed)
    issues = []
    for number in range(1, count + 1):
        area, title, detail = TOPICS[number % len(TOPICS)]
        created = START + timedelta(hours=number * 7)
        labels = [f"area:{area}", "bug" if number % 3 else "enhancement"]
        if number % 11 == 0:
            labels.append("good first issue")
        comments = []
        moment = created
        for position in range(number % 4):
            moment = _when(rng, moment)
            login = USERS[(number + position) % len(USERS)]
            comments.append(
                {
                    "id": f"IC_kwDO{number:05d}{position}",
                    "author": {"login": login},
                    "authorAssociation": "MEMBER" if position else "NONE",
                    "body": f"Confirmed on 0.{number % 9}.0: {detail}." if position == 0 else "Fixed on main.",
                    "createdAt": _stamp(moment),
                    "includesCreatedEdit": False,
                    "isMinimized": False,
                    "minimizedReason": "",
                    "reactionGroups": [],
                    "url": f"https://github.com/{repo}/issues/{number}#issuecomment-{number * 10 + position}",
                    "viewerDidAuthor": False,
                }
            )
        author = USERS[number % len(USERS)]
        issues.append(
            {
                "author": {"id": f"MDQ6VXNlcj{number}", "is_bot": False, "login": author, "name": author.title()},
                "body": f"{title} (variant {number}). Since 0.{number % 9}.0 {detail}.\n\nSteps: `quill build`.",
                "comments": comments,
                "createdAt": _stamp(created),
                "labels": [{"id": f"LA_{name}", "name": name, "description": "", "color": "d73a4a"} for name in labels],
                "number": number,
                "state": "OPEN" if number % 4 else "CLOSED",
                "title": f"{title} ({number})" if number > len(TOPICS) else title,
                "url": f"https://github.com/{repo}/issues/{number}",
            }
        )
    return issues


def rest_issue(gh: dict[str, Any], *, repo: str = "quill-org/quill", updated_at: str | None = None) -> dict[str, Any]:
    """The same issue as the REST API sends it (comments counted, not listed)."""
    number = gh["number"]
    return {
        "id": 1_000_000 + number,
        "node_id": f"I_kwDO{number}",
        "url": f"https://api.github.com/repos/{repo}/issues/{number}",
        "html_url": gh["url"],
        "number": number,
        "title": gh["title"],
        "body": gh["body"] or None,
        "state": gh["state"].lower(),
        "state_reason": "completed" if gh["state"].lower() == "closed" else None,
        "user": {"login": gh["author"]["login"], "id": number, "type": "User"},
        "labels": [{"id": index, "name": label["name"], "color": "d73a4a"} for index, label in enumerate(gh["labels"])],
        "comments": len(gh["comments"]),
        "created_at": gh["createdAt"],
        "updated_at": updated_at or (gh["comments"][-1]["createdAt"] if gh["comments"] else gh["createdAt"]),
        "closed_at": None,
        "author_association": "NONE",
    }


def rest_comment(gh_comment: dict[str, Any], comment_id: int, *, repo: str = "quill-org/quill") -> dict[str, Any]:
    return {
        "id": comment_id,
        "html_url": gh_comment["url"],
        "user": {"login": gh_comment["author"]["login"], "id": 7, "type": "User"},
        "body": gh_comment["body"],
        "created_at": gh_comment["createdAt"],
        "updated_at": gh_comment["createdAt"],
        "author_association": gh_comment["authorAssociation"],
    }


def pull_request(number: int, *, repo: str = "quill-org/quill") -> dict[str, Any]:
    """A pull request as the REST issues list includes it."""
    return {
        "id": 2_000_000 + number,
        "number": number,
        "title": f"Fix the date filter ({number})",
        "body": "Closes a bug.",
        "state": "open",
        "user": {"login": "bjorn"},
        "labels": [],
        "comments": 0,
        "created_at": "2025-06-01T10:00:00Z",
        "updated_at": "2025-06-01T10:00:00Z",
        "pull_request": {"url": f"https://api.github.com/repos/{repo}/pulls/{number}", "merged_at": None},
    }
