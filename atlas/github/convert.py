"""GitHub's issue JSON (from `gh issue list --json` or the REST API) turned into Atlas's issue records.

Both shapes are read by one set of rules: `number` is the id; the author is `author.login` (gh)
or `user.login` (REST); labels are `[{name}]` or plain strings; states come in any case. Fields
newer `gh` versions add are ignored. Pull requests (REST items with `pull_request`) are skipped,
and a record that cannot be read is skipped with a reason that names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from atlas.dataset.records import MAX_SQLITE_INT

REPO_IN_URL = (
    re.compile(r"^https?://[^/]+/(?!repos/)([^/]+/[^/]+)/(?:issues|pull)/\d+$"),  # gh's `url`, REST's `html_url`
    re.compile(r"^https?://[^/]+/(?:api/v3/)?repos/([^/]+/[^/]+)$"),  # REST's `repository_url`
)


class RecordError(ValueError):
    """One record cannot be read; the message says why."""


@dataclass
class Converted:
    """The issues found in an export, and what was left out and why."""

    issues: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """One line per record left out: `record 12 (#87): a pull request`."""
    pull_requests: int = 0

    def labels(self) -> list[str]:
        """Every label used, sorted."""
        return sorted({label for issue in self.issues for label in issue["labels"]})


def is_pull_request(item: dict[str, Any]) -> bool:
    """REST lists pull requests among issues, marked by a `pull_request` object."""
    return item.get("pull_request") is not None


def convert_all(items: list[Any]) -> Converted:
    """Every issue of an export; pull requests, unreadable records and repeated numbers are skipped."""
    result = Converted()
    seen: set[int] = set()
    for index, item in enumerate(items, 1):
        where = f"record {index}" + (
            f" (#{shown_number(item['number'])})" if isinstance(item, dict) and "number" in item else ""
        )
        if isinstance(item, dict) and is_pull_request(item):
            result.pull_requests += 1
            result.skipped.append(f"{where}: a pull request")
            continue
        try:
            issue = to_issue(item, comments=None)
        except RecordError as exc:
            result.skipped.append(f"{where}: {exc}")
            continue
        if issue["id"] in seen:
            result.skipped.append(f"{where}: issue #{issue['id']} appears twice (the first is kept)")
            continue
        seen.add(issue["id"])
        result.issues.append(issue)
    result.issues.sort(key=lambda issue: issue["id"])
    return result


def shown_number(number: Any) -> str:
    """An issue number as a line can hold it: a huge one is cut, anything else shown as it came."""
    digits = str(number) if type(number) is int and number.bit_length() < 20_000 else repr(number)
    return digits if len(digits) <= 24 else f"{digits[:12]}… ({len(digits)} characters)"


def export_repo(items: list[Any]) -> str | None:
    """The one repository an export's records link to (gh's `url`, REST's `html_url`), or None."""
    found: set[str] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        for name in ("url", "html_url", "repository_url"):
            value = item.get(name)
            for pattern in REPO_IN_URL:
                if isinstance(value, str) and (match := pattern.match(value)):
                    found.add(match.group(1).casefold())
    return found.pop() if len(found) == 1 else None


def to_issue(item: Any, *, comments: list[Any] | None) -> dict[str, Any]:
    """One Atlas issue record; `comments` (REST comment objects) replaces what the item holds."""
    if not isinstance(item, dict):
        raise RecordError("not a JSON object")
    number = item.get("number")
    if type(number) is not int or number < 1:
        raise RecordError("no issue number")
    if number > MAX_SQLITE_INT:
        raise RecordError(f"the issue number is larger than {MAX_SQLITE_INT:,} (no GitHub issue has one)")
    state = item.get("state")
    if not isinstance(state, str) or state.casefold() not in ("open", "closed"):
        raise RecordError(f"state {state!r} is neither open nor closed")
    title = _text(item, "title", required=True)
    created_at = _text(item, "createdAt", "created_at", required=True)
    raw_comments = comments if comments is not None else item.get("comments")
    return {
        "id": number,
        "title": title,
        "state": state.casefold(),
        "labels": _labels(item.get("labels")),
        "author": _login(item.get("author", item.get("user"))),
        "created_at": created_at,
        "body": _text(item, "body"),
        # REST issue JSON counts comments instead of listing them: `atlas data sync` fetches those.
        "comments": [to_comment(c, n) for n, c in enumerate(raw_comments, 1)] if isinstance(raw_comments, list) else [],
    }


def to_comment(item: Any, position: int) -> dict[str, str | None]:
    """One comment record, from gh's `{author: {login}, createdAt}` or REST's `{user: {login}, created_at}`."""
    if not isinstance(item, dict):
        raise RecordError(f"comment {position} is not a JSON object")
    try:
        return {
            "author": _login(item.get("author", item.get("user"))),
            "body": _text(item, "body"),
            "created_at": _text(item, "createdAt", "created_at", required=True),
        }
    except RecordError as exc:
        raise RecordError(f"comment {position}: {exc}") from None


def _text(item: dict[str, Any], *names: str, required: bool = False) -> str:
    for name in names:
        value = item.get(name)
        if isinstance(value, str):
            return value
        if value is not None:
            raise RecordError(f"{name} is not text")
    if required:
        raise RecordError(f"no {names[0]}")
    return ""  # GitHub sends `"body": null` for an issue opened without a description


def _login(author: Any) -> str | None:
    """The author's login; None (unknown) when the export does not say who wrote it: no author, `null`
    (a deleted account in GraphQL) or an empty login. GitHub's own `ghost` login is kept as it came."""
    if author is None or (isinstance(author, dict) and author.get("login") in (None, "")):
        return None
    if isinstance(author, dict) and isinstance(author.get("login"), str):
        return str(author["login"])
    raise RecordError("the author is neither an account nor null")


def _labels(raw: Any) -> list[str]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise RecordError("labels are not a list")
    names: list[str] = []
    for label in raw:
        name = label.get("name") if isinstance(label, dict) else label
        if not isinstance(name, str) or not name.strip():
            raise RecordError("a label has no name")
        if name not in names:
            names.append(name)
    return names
