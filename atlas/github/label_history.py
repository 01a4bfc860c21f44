"""Which labels someone else took off an issue on GitHub: its `labeled`/`unlabeled` events.

`GET /repos/{owner}/{repo}/issues/{n}/events` lists an issue's events oldest first, 100 a page
at most. A label whose last event is an `unlabeled` by an account other than the token's own was
removed by someone else (a person on the web, another bot): the guard "never re-add a label a
person removed" holds for it. Removals by the token's own account are Atlas's (or its owner's),
and Atlas's own records tell who decided those. Everything in the answer is untrusted: an event
that is not an object, or names no label, is skipped; a listing too long to read in
`MAX_PAGES` pages is an error, so the guard fails closed rather than miss the newest events.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from atlas.github.client import PER_PAGE_MAX, GitHubClient
from atlas.github.errors import GitHubError

MAX_PAGES = 10
"""1,000 events: more than any issue's label history; the newest come last, so none may be cut off."""


def removed_by_others(events: Iterable[Any], own_login: str | None) -> set[str]:
    """The labels (casefolded, as GitHub compares them) whose last change was an `unlabeled` by
    another account; with no known login, by any account."""
    removed: set[str] = set()
    own = own_login.casefold() if own_login else None
    for event in events:
        if not isinstance(event, dict) or event.get("event") not in ("labeled", "unlabeled"):
            continue
        label = event.get("label")
        name = label.get("name") if isinstance(label, dict) else None
        if not isinstance(name, str) or not name:
            continue
        actor = event.get("actor")
        login = actor.get("login") if isinstance(actor, dict) else None
        folded = name.casefold()
        if event["event"] == "labeled":
            removed.discard(folded)
        elif own is None or not isinstance(login, str) or login.casefold() != own:
            removed.add(folded)  # a deleted account (no actor) is someone else too
        else:
            removed.discard(folded)  # the token's own removal: Atlas's records say who decided it
    return removed


def issue_events(client: GitHubClient, repo: str, issue_id: int) -> list[Any]:
    """Every event of the issue, oldest first; a GitHubError when they cannot all be read."""
    url = f"/repos/{repo}/issues/{issue_id}/events"
    what = f"the events of #{issue_id}"
    events: list[Any] = []
    for number, page in enumerate(client.pages(url, what, params={"per_page": PER_PAGE_MAX}), start=1):
        if not isinstance(page.data, list):
            raise GitHubError(f"GitHub's answer to {what} was not a list")
        events += page.data
        if page.next_url is not None and number >= MAX_PAGES:
            raise GitHubError(f"{what} run past {MAX_PAGES} pages; not all were read")
    return events
