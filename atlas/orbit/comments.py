"""The comment tool: post one comment on an issue, once per idempotency key, after a person's `y`."""

from __future__ import annotations

from typing import Annotated, Any, NamedTuple

from atlas.foundation.errors import PermanentToolError, ToolError
from atlas.foundation.sanitize import clean_line
from atlas.orbit.db import IssueId, issue_brief
from atlas.orbit.issues import changes_issue
from atlas.tools.arguments import Arg
from atlas.tools.registry import ToolContext, tool
from atlas.tracker import open_tracker


class PostCommentArgs(NamedTuple):
    issue_id: IssueId
    body: Annotated[str, Arg(min_length=1, max_length=4000, description="The comment, in Markdown.")]


def preview_post_comment(args: PostCommentArgs, ctx: ToolContext) -> str:
    """The whole comment and the issue it goes to."""
    try:
        title = issue_brief(ctx.data, ctx.home, args.issue_id).title
        where = open_tracker(ctx).where
    except (LookupError, ToolError) as exc:
        return f"comment on #{args.issue_id} (will be refused: {exc}):\n{args.body}"
    # The title comes from outside: a newline in it must not make a line of its own in the question.
    return f"comment on #{args.issue_id} (“{clean_line(title)}”){where}:\n{args.body}"


@tool(
    PostCommentArgs,
    side_effect=True,
    idempotent=False,
    timeout_s=10.0,
    preview=preview_post_comment,
    editable="body",
    cache_ttl_s=0,
    invalidates=changes_issue,
)
def post_comment(args: PostCommentArgs, ctx: ToolContext) -> dict[str, Any]:
    """Post a comment on an issue of {project}. Only when the user asked for it; the user approves the exact
    text."""
    if not ctx.idempotency_key:
        raise PermanentToolError("post_comment needs an idempotency key so it can never post twice; nothing was posted")
    if not args.body.strip():
        raise PermanentToolError("the comment is empty; nothing was posted")
    issue = issue_brief(ctx.data, ctx.home, args.issue_id)
    return open_tracker(ctx).post_comment(issue, args.body, key=ctx.idempotency_key, session=ctx.session)
