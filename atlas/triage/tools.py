"""The triage read tools: `suggest_labels` and `find_similar`, for models in `ask` and `chat`.

Both only read. The model is told plainly that a proposal is advice: labels are added with
`add_label`, which a person approves, and nothing is ever closed as a duplicate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

from atlas.dataset.read import connect
from atlas.foundation.errors import PermanentToolError
from atlas.orbit.db import IssueId, no_such_issue
from atlas.orbit.issues import ISSUE_TTL_S, search_tags
from atlas.tools.arguments import Arg
from atlas.tools.registry import ToolContext, tool

if TYPE_CHECKING:
    from atlas.triage.project import Project

TRIAGE_TIMEOUT_S = 10.0
"""The first call on a new version of the data fits the model (a second or two on Orbit's data); a larger
project's is fitted and kept by `atlas data import` and `atlas data sync` (`readiness.py`), or by `atlas
triage`, outside any deadline; later calls load it."""
FIT_IN_CALL_MAX = 500
"""The most issues a call fits the triage model for within TRIAGE_TIMEOUT_S when none is kept: Orbit's 150 take
about 1.5 s and a 3,000-issue project about a minute, so past this the import or the sync that wrote the data
fits it, and a call that would fit (the data came another way) says so at once."""
INDEX_IN_CALL_MAX = 4_000
"""The most issues a call builds the similarity index for within TRIAGE_TIMEOUT_S when none is kept: 3,019 real
issues take about 4 s on 2 busy cores, so a project that size gets its similar issues on the first ask."""


def require_kept(project: Project, command: str, *, model: bool = True, index: bool = True) -> None:
    """Raises, with the command that builds them, when a large project's model or index would be built
    within this call: such a build outlasts the call's time, and the work would be lost with it."""
    from atlas.triage import verdicts

    count = project.corpus.count()
    model = model and count > FIT_IN_CALL_MAX
    index = index and count > INDEX_IN_CALL_MAX
    # The verdicts too: a model kept without them (`atlas similar` on a large backlog fits it alone) would
    # still replay the project's history within this call, the longer part of a first triage.
    if not (model or index) or (project.kept(model=model, index=index) and (not model or verdicts.kept(project))):
        return
    both = model and index
    what = "triage model and similarity index are" if both else "triage model is" if model else "similarity index is"
    them = "them" if both else "it"
    how_long = "a minute or more" if model else "a few seconds per thousand issues"
    raise PermanentToolError(
        f"this project's {what} not built for the current data yet, and building {them} for {count:,} issues "
        f"takes longer than one call may ({TRIAGE_TIMEOUT_S:g} s): run `{command}` once (it builds and keeps {them}, "
        f"{how_long}), then ask again",
        hint="Tell the user the command to run first; do not retry this call now.",
    )


class SuggestArgs(NamedTuple):
    issue_id: IssueId
    limit: Annotated[int, Arg(ge=1, le=10, description="How many similar issues to name as evidence (1-10).")] = 3


class SimilarArgs(NamedTuple):
    issue_id: IssueId
    limit: Annotated[int, Arg(ge=1, le=20, description="How many similar issues to return (1-20).")] = 5


def _sources(args: Any, data: Any) -> list[str]:
    found = [f"issue #{args.issue_id}"]
    if isinstance(data, dict):
        found += [f"issue #{m['id']}" for m in data.get("similar", []) if isinstance(m, dict) and "id" in m]
    return found


def missing_issue(ctx: ToolContext, issue_id: int) -> LookupError:
    """The error `get_issue` raises for a number the data lacks: a permanent failure, worded alike by every tool."""
    with connect(ctx.data, ctx.home) as conn:
        return no_such_issue(conn, issue_id, ctx.data)


# Proposals and neighbours read the whole project's labels: any label change drops them (`issues`).
@tool(SuggestArgs, timeout_s=TRIAGE_TIMEOUT_S, untrusted=_sources, cache_ttl_s=ISSUE_TTL_S, cache_tags=search_tags)
def suggest_labels(args: SuggestArgs, ctx: ToolContext) -> dict[str, Any]:
    """Propose labels for an issue's missing label groups (labels of one prefix, or flat labels that are one
    choice, as learned from the data of {project}): each with a confidence, the deciding words and similar
    issues that have it; below the threshold no label ("needs a human"). Advice only: add a label with
    add_label if the user asks."""
    from atlas.triage.project import project_for
    from atlas.triage.proposals import propose

    project = project_for(ctx.data, ctx.home)
    issue = project.corpus.get(args.issue_id)
    if issue is None:
        raise missing_issue(ctx, args.issue_id)
    require_kept(project, f"atlas triage {issue.id} --dry-run")
    proposal = propose(project, [issue])[0]
    groups = [g.as_dict() for g in proposal.groups]
    for group in groups:
        group["similar_issues_with_it"] = list(group["similar_issues_with_it"])[: args.limit]  # type: ignore[call-overload]
    return {
        "issue_id": issue.id,
        "title": issue.title,
        "labels": list(issue.labels),
        "proposals": groups,
        "threshold": project.settings.threshold,
        "note": "No label group is missing." if not groups else "Advice only: nothing was changed.",
    }


@tool(SimilarArgs, timeout_s=TRIAGE_TIMEOUT_S, untrusted=_sources, cache_ttl_s=ISSUE_TTL_S, cache_tags=search_tags)
def find_similar(args: SimilarArgs, ctx: ToolContext) -> dict[str, Any]:
    """Find issues similar to one issue (possible duplicates or related reports): each with a score from 0 to 1
    and what they share (words, error codes, stack lines), best first; `nothing_close` is true when even the best
    is too weak to be the same report. Advice only: never close an issue as a duplicate; say which ones look
    alike and why."""
    from atlas.triage.project import project_for
    from atlas.triage.similar import CLOSE, nothing_close, similar

    project = project_for(ctx.data, ctx.home)
    issue = project.corpus.get(args.issue_id)
    if issue is None:
        raise missing_issue(ctx, args.issue_id)
    require_kept(project, f"atlas similar {issue.id}", model=False)
    matches = similar(project, issue, args.limit)
    return {
        "issue_id": issue.id,
        "title": issue.title,
        "state": issue.state,
        "similar": [m.as_dict() for m in matches],
        "nothing_close": nothing_close(matches),
        "note": (
            f"Nothing close: no issue scores {CLOSE} or more, so none is likely the same report."
            if nothing_close(matches)
            else "Similar is not the same: read both issues before calling one a duplicate."
        ),
    }
