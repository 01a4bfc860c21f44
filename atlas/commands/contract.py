"""`atlas doctor --contract`: the sources Atlas depends on, checked against what its tools read.

GitHub (the repository `--repo` names, else `ATLAS_TRACKER=github:...`, else the one the data
folder was synced from): a page of issues and a page of comments against the fields, types and
enums of `atlas.github.contract`. Each MCP server: its tools against their pins
(`atlas.mcp.pins`). One line per break on stdout and exit 1; a line per source checked and
exit 0 when nothing broke. Run it on a schedule: their changes, unlike ours, reach no CI.
"""

from __future__ import annotations

from pathlib import Path

from atlas.foundation.config import Settings
from atlas.foundation.errors import AtlasError, ConfigError, UnavailableToolError
from atlas.foundation.sanitize import clean_line, write_line
from atlas.ui.json_out import print_json

ISSUES_PER_CHECK = 50


def run_contract(repo: str | None = None, *, as_json: bool = False) -> int:
    settings = Settings()
    checked: list[str] = []
    breaks: list[str] = []
    github = _repository(repo, settings.data)
    if github is not None:
        breaks += _check_github(github, checked)
    breaks += _check_mcp(settings.home, checked)
    if as_json:
        print_json({"ok": not breaks, "checked": checked, "breaks": breaks})
    else:
        for line in breaks:
            write_line(clean_line(line))
        if not breaks:
            for line in checked or ["nothing to check: no GitHub repository and no MCP server is configured"]:
                write_line(f"✓ {clean_line(line)}")
    return 1 if breaks else 0


def _repository(repo: str | None, data: Path) -> str | None:
    from atlas.foundation.config import tracker_setting
    from atlas.github.client import parse_repo
    from atlas.github.folder import read_state

    if repo:
        return parse_repo(repo)
    tracker = tracker_setting()
    if tracker.startswith("github:"):
        return parse_repo(tracker.removeprefix("github:"))
    synced = read_state(data).get("repo")
    return parse_repo(synced) if isinstance(synced, str) else None


def _check_github(repo: str, checked: list[str]) -> list[str]:
    from atlas.github.client import GitHubClient, api_url, find_token
    from atlas.github.contract import COMMENT_FIELDS, ISSUE_ENUMS, ISSUE_FIELDS, check_items
    from atlas.github.errors import GitHubError

    base_url = api_url()
    try:
        with GitHubClient(token=find_token(base_url), base_url=base_url, max_wait_s=0) as client:
            params = {"state": "all", "per_page": ISSUES_PER_CHECK, "sort": "updated"}
            issues = client.get(f"/repos/{repo}/issues", f"the issues of {repo}", params=params).data
            if isinstance(issues, list):  # pull requests are skipped by sync and import alike
                issues = [item for item in issues if not (isinstance(item, dict) and "pull_request" in item)]
            breaks = check_items("issues", issues, ISSUE_FIELDS, ISSUE_ENUMS)
            with_comments = [
                item
                for item in issues or []
                if isinstance(item, dict) and isinstance(item.get("comments"), int) and item["comments"] > 0
            ]
            comments: list[object] = []
            if with_comments:
                number = with_comments[0].get("number")
                url = f"/repos/{repo}/issues/{number}/comments"
                comments = client.get(url, f"the comments of #{number}", params={"per_page": 30}).data
                breaks += check_items("comments", comments, COMMENT_FIELDS)
    except GitHubError as exc:
        return [f"GitHub {repo}: could not be checked: {exc}"]
    read = f"{_count(len(issues or []), 'issue')} and {_count(len(comments), 'comment')}"
    checked.append(f"GitHub {repo}: {read} read as Atlas reads them")
    return breaks


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _check_mcp(home: Path, checked: list[str]) -> list[str]:
    from atlas.mcp.config import load_servers

    servers = [server for server in load_servers(home) if server.enabled]
    if not servers:
        return []
    from atlas.mcp.host import host_for
    from atlas.mcp.pins import compare, load_pins
    from atlas.mcp.tools import START_TIMEOUT_S

    try:
        pins = load_pins(home)
    except ConfigError as exc:
        return [str(exc)]
    host = host_for(home)
    breaks: list[str] = []
    try:
        outcomes = host.start_all(servers, max([START_TIMEOUT_S, *(server.timeout_s for server in servers)]))
        for server in servers:
            outcome = outcomes[server.name]
            if isinstance(outcome, UnavailableToolError):
                breaks.append(f"MCP server {server.name}: could not be checked: {outcome}")
            elif server.name not in pins:
                breaks.append(f"MCP server {server.name}: its tools were never pinned (atlas mcp trust {server.name})")
            else:
                found = compare(pins[server.name], server, outcome).lines(server.name)
                breaks += found
                if not found:
                    checked.append(f"MCP server {server.name}: {len(outcome)} tools as pinned")
    except AtlasError as exc:
        breaks.append(f"MCP: could not be checked: {exc}")
    finally:
        host.stop()
    return breaks
