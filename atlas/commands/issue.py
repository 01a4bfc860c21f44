"""`atlas issue N`: one issue read straight from the data, like `gh issue view`, in a pager when it is long."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from typing import Any

from atlas.foundation.config import dataset_name
from atlas.foundation.errors import AtlasError, ToolError
from atlas.offline.answer.issue_view import issue_markdown
from atlas.orbit.issues import IssueArgs, get_issue
from atlas.tools.registry import ToolContext
from atlas.ui.json_out import print_json
from atlas.ui.plain import print_answer_source
from atlas.ui.render import make_console, print_answer, write_rendered

MAX_PAGES = 10_000
"""A guard against a thread that never ends (each page holds at least one comment)."""


def whole_issue(issue_id: int, ctx: ToolContext) -> dict[str, Any]:
    """The issue with every comment: `get_issue`'s pages read to the end."""
    try:
        first = get_issue(IssueArgs(issue_id=issue_id, comments_offset=0, comments_limit=50), ctx)
        comments = list(first["comments"])
        for _ in range(MAX_PAGES):
            if first["comment_count"] is None or len(comments) >= first["comment_count"]:
                break
            page = get_issue(IssueArgs(issue_id=issue_id, comments_offset=len(comments), comments_limit=50), ctx)
            if not page["comments"]:
                break
            comments += page["comments"]
    except LookupError:
        raise AtlasError(f"there is no issue #{issue_id} in {dataset_name(ctx.data)}") from None
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    if first["comment_count"] is None:  # the data does not hold the thread: say so, never "0 of 0"
        return {**first, "comments": comments}
    whole = {key: value for key, value in first.items() if key != "comments_note"}
    return {**whole, "comments": comments, "comments_shown": f"{len(comments)} of {first['comment_count']}"}


def show_issue(issue_id: int, *, comments: bool, as_json: bool, pager: bool) -> None:
    data = whole_issue(issue_id, ToolContext())
    if as_json:
        print_json(data, indent=2)
        return
    text = issue_markdown(shown_authors(data), with_comments=comments)
    count = data["comment_count"]
    if count is None and not comments:
        text += f"\n\n*{data['comments_note']}*"
    elif not comments and count:
        text += f"\n\n*{count} comment{'' if count == 1 else 's'}: `atlas issue {issue_id} --comments` shows them.*"
    console = make_console()
    if not console.is_terminal:
        # A file or another program gets the Markdown itself, as `atlas ask` gives a pipe.
        print_answer_source(console, text)
        return
    if not (pager and sys.stdin is not None and sys.stdin.isatty()):
        print_answer(console, text)
        return
    with console.capture() as captured:
        print_answer(console, text)
    shown = captured.get()
    if shown.count("\n") < console.height - 1 or not _page(shown):
        write_rendered(console, shown)


def shown_authors(data: dict[str, Any]) -> dict[str, Any]:
    """The issue as a person reads it: an author the data does not hold is `unknown` (`--json` keeps null)."""
    thread = [{**c, "author": "unknown" if c.get("author") is None else c["author"]} for c in data["comments"]]
    return {**data, "author": "unknown" if data.get("author") is None else data["author"], "comments": thread}


def _page(text: str) -> bool:
    """Show `text` in `$PAGER` (else `less -R`, with git's `LESS=FRX`); False when there is no pager to run."""
    command = os.environ.get("PAGER", "less -R").strip()
    if command in ("", "cat"):
        return False
    env = {**os.environ, "LESS": os.environ.get("LESS", "FRX")}
    try:
        pager = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, env=env)
    except (OSError, ValueError):
        return False
    assert pager.stdin is not None
    try:
        pager.stdin.write(text.encode("utf-8", errors="replace"))
        pager.stdin.close()
    except BrokenPipeError:
        pass  # the person quit the pager before the end: nothing more to show
    pager.wait()
    return True
