"""`atlas similar N`: issues like #N, best first, with what they share and whether each is open; "nothing close"
when even the best is weak. Advice only."""

from __future__ import annotations

from atlas.foundation.config import atlas_home, data_dir
from atlas.foundation.errors import AtlasError, ToolError
from atlas.foundation.sanitize import clean_line
from atlas.triage.project import Project
from atlas.triage.similar import CLOSE, Match, nothing_close, similar
from atlas.ui.json_out import print_json
from atlas.ui.render import data_table, make_console


def shared(match: Match) -> str:
    parts = []
    if match.codes:
        parts.append("codes " + ", ".join(match.codes))
    if match.frames:
        parts.append("stack " + ", ".join(match.frames))
    if match.words:
        parts.append("words " + ", ".join(match.words))
    return "; ".join(parts)


def run_similar(issue_id: int, *, limit: int, as_json: bool) -> None:
    try:
        project = Project.open(data_dir(), atlas_home())
        issue = project.issue(issue_id)
        matches = similar(project, issue, limit)
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    if as_json:
        similar_ones = [m.as_dict() for m in matches]
        print_json({"issue_id": issue.id, "similar": similar_ones, "nothing_close": nothing_close(matches)})
        return
    console = make_console(for_tables=True)
    console.print(f"#{issue.id} {clean_line(issue.title)}", style="bold")
    if not matches:
        console.print("No similar issue found.", style="dim")
        return
    rows = [
        (f"#{m.id}", f"{m.score:.2f}", "open" if m.state == "open" else "closed", m.title, shared(m)) for m in matches
    ]
    console.print(data_table(("issue", "score", "state", "title", "shares"), rows, right=("score",), cut=("title",)))
    if nothing_close(matches):
        best = matches[0].score if matches else 0.0
        said = f"Nothing close: the best score is {best:.2f} (below {CLOSE:.2f}): words in common, not one report."
        console.print(said)
    else:
        console.print("Similar is not the same: read both before calling one a duplicate.", style="dim")
