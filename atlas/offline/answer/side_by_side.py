"""Issues set side by side: a table of their facts, what they share (labels, error codes, the error they raise) and,
where the first one's similar issues were read too, where each other stands among them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from atlas.offline.answer.issue_facts import comment_count, day_of, labels_of, labels_text
from atlas.offline.answer.quoting import one_line as _one_line
from atlas.offline.answer.quoting import quoted
from atlas.offline.plan import codes_in
from atlas.offline.reading.issue_refs import RAISED_RE
from atlas.offline.readings import issue_text


def side_by_side(issues: list[tuple[int, Mapping[str, Any]]], likeness: Mapping[str, Any] | None = None) -> str:
    """Issues compared: a table of their facts, what they share, how alike their text is (`likeness`: the first
    one's similar issues, when they were read too), and the start of each one's text."""
    table = "### Side by side\n\n" + comparison_table(issues) + _in_common(issues) + _how_alike(issues, likeness)
    excerpts = [f"**#{issue_id}**\n\n{quoted(str(d.get('body', '')), 300)}" for issue_id, d in issues]
    return "\n\n".join([table, *excerpts])


def comparison_table(rows: list[tuple[int, Mapping[str, Any]]]) -> str:
    """Side by side: title, state, labels, author, created, comments, cited codes."""
    fields: list[tuple[str, Callable[[Mapping[str, Any]], str]]] = [
        ("title", lambda d: _one_line(d.get("title", ""), 80)),
        ("state", lambda d: _one_line(d.get("state", "?"))),
        ("labels", lambda d: ", ".join(labels_of(d)) or "none"),
        ("author", lambda d: _one_line(d.get("author", "?"))),
        ("created", lambda d: day_of(d.get("created_at"))),
        ("comments", lambda d: str(comment_count(d) if comment_count(d) is not None else "unknown")),
        ("cited codes", lambda d: ", ".join(codes_in(issue_text(d))) or "none"),
    ]
    head = "| | " + " | ".join(f"#{issue_id}" for issue_id, _ in rows) + " |"
    rule = "|---|" + "---|" * len(rows)
    body = [f"| {name} | " + " | ".join(get(data) for _, data in rows) + " |" for name, get in fields]
    return "\n".join([head, rule, *body])


def _in_common(rows: list[tuple[int, Mapping[str, Any]]]) -> str:
    """One line on what the compared issues share, the first thing a maintainer looks for."""
    if len(rows) < 2:
        return ""
    shared_labels = set.intersection(*(set(labels_of(data)) for _, data in rows))
    shared_codes = set.intersection(*(set(codes_in(issue_text(data))) for _, data in rows))
    states = {str(data.get("state")) for _, data in rows}
    said = [f"all {states.pop()}" if len(states) == 1 else "different states"]
    said.append("shared labels " + labels_text(sorted(shared_labels)) if shared_labels else "no shared labels")
    if shared_codes or any(codes_in(issue_text(data)) for _, data in rows):
        said.append("shared codes " + ", ".join(sorted(shared_codes)) if shared_codes else "no error code in common")
    raised = [_errors_raised(issue_text(data)) for _, data in rows]
    if any(raised):
        shared_errors = set.intersection(*raised)
        # the message with its name when they share both, else the name alone
        named = {error.split(":", 1)[0] for error in shared_errors if ":" in error}
        shown = sorted(error for error in shared_errors if ":" in error or error not in named)
        said.append(
            "the same error " + "; ".join(f"`{_one_line(e, 120)}`" for e in shown) if shown else "no error in common"
        )
    return "\n\nIn common: " + "; ".join(said) + "."


def _how_alike(issues: list[tuple[int, Mapping[str, Any]]], likeness: Mapping[str, Any] | None) -> str:
    """Where each other issue stands among the first one's most similar, by `find_similar`'s text likeness."""
    if likeness is None or likeness.get("issue_id") != issues[0][0]:
        return ""
    similar = [m for m in likeness.get("similar") or [] if isinstance(m, Mapping)]
    ranks = {match.get("id"): (place, match.get("score", "?")) for place, match in enumerate(similar, 1)}
    first = issues[0][0]
    said = []
    for issue_id, _ in issues[1:]:
        if issue_id in ranks:
            place, score = ranks[issue_id]
            said.append(f"#{issue_id} is the {_ordinal(place)}most like #{first} of all the issues (score {score})")
        else:
            said.append(f"#{issue_id} is not among the {len(similar)} issues most like #{first}")
    return "\n\nBy their text: " + "; ".join(said) + "." if said else ""


def _ordinal(place: int) -> str:
    """`2nd `, `3rd `, `7th ` (with its space); nothing for the first."""
    if place == 1:
        return ""
    ending = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{ending} "


def _errors_raised(text: str) -> set[str]:
    """The exceptions the text names, each alone and with its message where it gives one."""
    found: set[str] = set()
    for error in RAISED_RE.finditer(text):
        found.add(error["name"])
        if error["message"]:
            found.add(f"{error['name']}: {' '.join(error['message'].split())}")
    return found
