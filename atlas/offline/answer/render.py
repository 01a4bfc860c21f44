"""Writing the offline planner's Markdown answer from the results of its calls.

Outsiders' text (issue bodies, comments, search snippets) is only ever quoted, line by line,
as data. Every failed call is reported with its kind and its hint; nothing is substituted for
a check that could not be made.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from atlas.foundation.config import dataset_name
from atlas.foundation.errors import ErrorKind
from atlas.offline.answer.help import help_text
from atlas.offline.answer.issue_facts import comment_count, comments_text, day_of, labels_of, labels_text
from atlas.offline.answer.issue_view import issue_markdown
from atlas.offline.answer.quoting import one_line as _one_line
from atlas.offline.answer.quoting import quoted
from atlas.offline.answer.results import result_section
from atlas.offline.answer.side_by_side import side_by_side
from atlas.offline.plan import Plan, PlannedCall, code_call, codes_in
from atlas.offline.reading.search import SEARCH_MAX
from atlas.offline.readings import ToolReading, issue_text
from atlas.tools.definition import ToolDefinition

HEADER = "**Atlas · offline planner**"
EXCERPT_CHARS = 400
SECTION_CHARS = 3000
"""As much as get_doc_section returns: a section asked for is shown whole (the tool marks its own cuts)."""
SNIPPETS_LEFT_OUT = "The matching text of each hit is left out here: `show #N` reads one whole."
SEARCH_DEFAULT_LIMIT = 10
"""The search's own default, used only when the tool's schema does not say it."""

KIND_SAYS: dict[ErrorKind, str] = {
    ErrorKind.TIMEOUT: "timed out",
    ErrorKind.TRANSIENT: "failed temporarily (retries did not help)",
    ErrorKind.PERMANENT: "failed",
    ErrorKind.DENIED: "was not approved",
    ErrorKind.UNKNOWN_TOOL: "is not a tool Atlas has",
    ErrorKind.BAD_ARGS: "was refused: its arguments did not validate",
    ErrorKind.UNAVAILABLE: "is switched off after repeated failures",
    ErrorKind.CANCELLED: "was cancelled",
    ErrorKind.NO_TIME_BUDGET: "was not started: the question ran out of time",
    ErrorKind.PROTOCOL: "failed: its server answered with a protocol error",
    ErrorKind.UNKNOWN: "failed with an internal error",
}
"""What a failed call did, per kind; OK is never a failure (a test checks every other kind is here)."""
ELIDED_KIND = "elided"
ELIDED_SAYS = "is no longer in the conversation"
"""Not a kind a call ends in: the offline model's marker for an output removed from the conversation."""


def describe_call(call: PlannedCall) -> str:
    """A call as a maintainer reads it: `get_issue #41`, `get_doc_section error-codes › ORB-1101`."""
    args = call.arguments
    if call.name == "get_issue":
        return f"`get_issue` #{args['issue_id']}"
    if call.name == "get_doc_section":
        return f"`get_doc_section` {args['doc_id']}" + (f" › {args['heading']}" if args.get("heading") else "")
    if call.name == "add_label":
        return f"`add_label` {args['label']} on #{args['issue_id']}"
    if call.name == "post_comment":
        return f"`post_comment` on #{args['issue_id']}"
    if call.name == "search_issues":
        shown = ", ".join(f"{key}={value!r}" for key, value in args.items() if value not in ("", None))
        return f"`search_issues` ({shown or 'newest'})"
    return f"`{call.name}`"


def failure(call: PlannedCall, envelope: Mapping[str, Any]) -> str:
    """One failed call: what it was, its kind, the message, and the hint's advice."""
    error = envelope.get("error")
    error = error if isinstance(error, Mapping) else {}
    kind = str(error.get("kind", "unknown"))
    # The message's first sentence says what went wrong; the rest, like the hint, speaks to a model.
    message = _one_line(error.get("message", "no details were given"), 300).partition(". ")[0].rstrip(".")
    if kind == ErrorKind.DENIED:
        return f"Not done: you did not approve {describe_call(call)}. Nothing was changed."
    says = _says(kind)
    text = f"⚠ {describe_call(call)} {says} (`{kind}`): {message}. This check could not be made"
    return text + ("; nothing else was used in its place." if kind != ErrorKind.CANCELLED else ".")


def issue_section(issue_id: int, data: Mapping[str, Any], cited: list[str]) -> str:
    title = _one_line(data.get("title", ""), 160)
    author = _one_line(data.get("author") or "unknown")
    facts = (
        f"{data.get('state', '?')} · labels {labels_text(labels_of(data))} · opened by {author} "
        f"on {day_of(data.get('created_at'))} · {comments_text(comment_count(data))}"
    )
    lines = [f"### #{issue_id} — {title}", facts, "", quoted(str(data.get("body", "")), EXCERPT_CHARS)]
    if cited:
        lines += ["", "Error codes cited: " + ", ".join(cited)]
    if data.get("tracker_note"):
        lines += ["", f"Note: {_one_line(data['tracker_note'], 300)}"]
    return "\n".join(lines)


def doc_section(call: PlannedCall, data: Any) -> str:
    if not isinstance(data, Mapping):
        return f"### {call.arguments['doc_id']}\n\n{quoted(str(data), SECTION_CHARS)}"
    text = _doc_part(call, data)
    # A doc that could not be fully read says so next to what was shown of it.
    return text + (f"\n\nNote: {_one_line(data['note'], 300)}" if data.get("note") else "")


def _doc_part(call: PlannedCall, data: Mapping[str, Any]) -> str:
    doc_id = data.get("doc_id", call.arguments["doc_id"])
    if "heading" in data:
        text = str(data.get("text", "")).strip()
        first, _, rest = text.partition("\n")
        if first.lstrip("#").strip() == str(data["heading"]).strip():
            text = rest.strip()  # the section's own heading is already this part's title
        out = [f"### {doc_id} › {_one_line(data['heading'])}", "", quoted(text, SECTION_CHARS)]
        others = data.get("other_matches") or []
        if others:
            out += ["", "Other matching sections: " + "; ".join(_one_line(o) for o in others)]
        return "\n".join(out)
    out = [f"### {doc_id} — {_one_line(data.get('title', doc_id))}", "", quoted(str(data.get("intro", "")), 600)]
    headings = data.get("headings") or []
    if headings:
        out += ["", "Sections: " + "; ".join(_one_line(h, 60) for h in headings)]
        out += ["", f"Ask for one: `the section on {_one_line(headings[0], 40)} in {doc_id}`."]
    return "\n".join(out)


def docs_list(data: Any) -> str:
    docs = data.get("docs") if isinstance(data, Mapping) else data
    if not isinstance(docs, list) or not docs:
        return f"### {dataset_name()} docs\n\nNo docs were found."
    lines = [f"### {dataset_name()} docs", ""]
    for doc in docs:
        if isinstance(doc, Mapping):
            count = len(doc.get("headings") or [])
            lines.append(f"- `{doc.get('id')}` — {_one_line(doc.get('title', ''))} ({count} sections)")
    return "\n".join(lines)


def default_limit(tools: Sequence[ToolDefinition]) -> int:
    """The default `limit` of `search_issues`, read from the schema of its arguments."""
    search = next((tool for tool in tools if tool.name == "search_issues"), None)
    try:
        default = search.parameters["properties"]["limit"]["default"] if search else None
    except (KeyError, TypeError):
        default = None
    return default if isinstance(default, int) and default > 0 else SEARCH_DEFAULT_LIMIT


def search_section(call: PlannedCall, data: Any, hint: Any, default: int = SEARCH_DEFAULT_LIMIT) -> str:
    hits = data.get("hits") if isinstance(data, Mapping) else data
    hits = hits if isinstance(hits, list) else []
    limit = call.arguments.get("limit") or default
    lines = [f"### Search: {describe_call(call)}", ""]
    total = data.get("total") if isinstance(data, Mapping) else None
    if isinstance(total, int) and not isinstance(total, bool):
        lines.append(f"{total:,} issue{' matches' if total == 1 else 's match'}.")
    elif not hits:
        lines.append("No issues matched.")
    elif data.get("some_words"):  # said first: a follow-up's narrowing (`which of those mention X?`) found none
        lines += [f"No issue matched all the words; the {len(hits)} best that match some of them:", ""]
    elif len(hits) < limit:  # fewer than asked for: that is every match
        lines += [f"{len(hits)} issue{'s' if len(hits) > 1 else ''} matched:", ""]
    elif isinstance(matched := data.get("matched"), int) and matched > len(hits):
        more = f"; ask for `top {SEARCH_MAX} …` to see more" if limit < SEARCH_MAX else ""
        counted = f"more than {matched:,}" if data.get("more_than") else f"{matched:,}"
        lines += [f"The first {len(hits)} of {counted} matches{more}:", ""]
    elif isinstance(matched, int):
        lines += [f"{len(hits)} issue{'s' if len(hits) > 1 else ''} matched:", ""]
    else:
        more = f"; ask for `top {SEARCH_MAX} …` to see more" if limit < SEARCH_MAX else ""
        lines += [f"The first {len(hits)} matches (there may be more{more}):", ""]
    for hit in hits:
        if isinstance(hit, Mapping):
            by = f", by {_one_line(hit['author'], 60)}" if hit.get("author") else ""
            on = f" on {day_of(hit['created_at'])}" if hit.get("created_at") else ""
            lines.append(
                f"- #{hit.get('id')} {_one_line(hit.get('title', ''), 100)} — {hit.get('state', '?')}, "
                f"{labels_text(labels_of(hit)) if labels_of(hit) else 'no labels'}{by}{on}"
            )
    if any(isinstance(hit, Mapping) and hit.get("snippet") for hit in hits):
        lines += ["", SNIPPETS_LEFT_OUT]
    note = data.get("note", data.get("hint")) if isinstance(data, Mapping) else None  # a hint may speak to a model
    if note and not data.get("some_words"):  # the hint only says what the first line said
        lines += ["", f"Note from the search: {_one_line(note, 300)}"]
    return "\n".join(lines)


def action_section(call: PlannedCall, data: Any) -> str:
    data = data if isinstance(data, Mapping) else {}
    issue_id = data.get("issue_id", call.arguments.get("issue_id"))
    if call.name in _LABEL_WORDS:
        label = data.get("label", call.arguments.get("label"))
        labels = labels_text([str(x) for x in data.get("labels") or []])
        unchanged, done = _LABEL_WORDS[call.name]
        if data.get("changed") is False:
            return f"No change: #{issue_id} {unchanged} the label `{label}` (labels: {labels})."
        return f"Done: {done.format(label=label, issue=issue_id)} (labels now: {labels})."
    if call.name != "post_comment":
        return f"Done: {describe_call(call)}."
    when = f" at {data['ts']}" if data.get("ts") else ""
    posted = data.get("body", call.arguments.get("body", ""))  # after an edit at the approval: what was posted
    return f"Done: posted your comment on #{issue_id}{when}:\n\n{quoted(posted, 600)}"


_LABEL_WORDS = {
    "add_label": ("already had", "added the label `{label}` to #{issue}"),
    "remove_label": ("did not have", "removed the label `{label}` from #{issue}"),
}
"""What a label write did, in words: when it changed nothing, and when it did."""


def not_offered(call: PlannedCall, is_action: bool) -> str:
    if is_action:
        return (
            f"Not done: {describe_call(call)} is not available in read-only mode; in a chat, "
            "`/read-only off` turns it off, else run without `--read-only` (each change still needs your approval)."
        )
    return f"⚠ {describe_call(call)} could not be made: the tool `{call.name}` is not available in this session."


def render(plan: Plan, outcomes: list[ToolReading], tools: Sequence[ToolDefinition]) -> str:
    """The final answer: header, then one part per request, in the order the question made them."""
    available = {tool.name for tool in tools}
    # A side effect is what its definition says it is; one not offered (--read-only) is known by the plan.
    actions = {tool.name for tool in tools if tool.side_effect} | {call.name for call in plan.actions()}
    by_key = {outcome.call.key: outcome for outcome in outcomes}
    parts: list[str] = [HEADER]
    if not plan.understood:
        parts.append(help_text(plan.question, any(tool.side_effect for tool in tools), plan.suggestions, plan.examples))
        return "\n\n".join(parts)
    parts += plan.notes
    issues_ok: list[tuple[int, Mapping[str, Any]]] = []
    for call in plan.first_calls():
        outcome = by_key.get(call.key)
        if call.name not in available:
            parts.append(not_offered(call, call.name in actions))
        elif outcome is None:
            parts.append(f"⚠ {describe_call(call)} was not made: the question stopped before it.")
        elif not outcome.ok:
            parts.append(failure(call, outcome.envelope))
        elif call.name == "get_issue" and isinstance(outcome.data, Mapping):
            issue_id = call.arguments["issue_id"]
            issues_ok.append((issue_id, outcome.data))
            if plan.whole:
                parts.append(issue_markdown(outcome.data))
            elif not plan.compare:
                parts.append(issue_section(issue_id, outcome.data, codes_in(issue_text(outcome.data))))
        elif call.name == "get_doc_section":
            parts.append(doc_section(call, outcome.data))
        elif call.name == "list_docs":
            parts.append(docs_list(outcome.data))
        elif call.name == "search_issues":
            parts.append(search_section(call, outcome.data, outcome.envelope.get("hint"), default_limit(tools)))
        elif call.name in actions:
            parts.append(action_section(call, outcome.data))
        else:
            parts.append(result_section(call, outcome.data))
    if plan.compare and len(issues_ok) >= 2:
        likeness = next(
            (o.data for o in outcomes if o.call.name == "find_similar" and o.ok and isinstance(o.data, Mapping)), None
        )
        parts.insert(1 + len(plan.notes), side_by_side(issues_ok, likeness))
    elif plan.compare and issues_ok:
        ((issue_id, data),) = issues_ok
        alone = f"Nothing to compare: only #{issue_id} could be read."
        section = issue_section(issue_id, data, codes_in(issue_text(data)))
        parts.insert(1 + len(plan.notes), f"{alone}\n\n{section}")
    if plan.explain:
        parts += _explained(plan, outcomes, by_key)
    return "\n\n".join(parts)


def _explained(plan: Plan, outcomes: list[ToolReading], by_key: Mapping[str, ToolReading]) -> list[str]:
    """The second round of an explain plan: each cited code's section, or why it is missing."""
    parts: list[str] = []
    for outcome in outcomes:
        issue_id = outcome.call.arguments.get("issue_id")
        if outcome.call.name != "get_issue" or not outcome.ok or issue_id not in plan.issue_ids:
            continue
        cited = codes_in(issue_text(outcome.data))
        if not cited:
            parts.append(f"#{issue_id} cites no error code of the docs, so there is no error-codes section to explain.")
            continue
        skipped = [code for code in cited if code_call(code).key not in by_key]
        if skipped:
            parts.append(
                f"#{issue_id} also cites {', '.join(skipped)}; not looked up here "
                f"(ask `what is {skipped[0]}?` to read it)."
            )
    seen = {call.key for call in plan.first_calls()}
    for outcome in outcomes:
        call = outcome.call
        if call.key in seen or call.name != "get_doc_section":
            continue
        seen.add(call.key)
        parts.append(doc_section(call, outcome.data) if outcome.ok else failure(call, outcome.envelope))
    return parts


def chunks(text: str) -> list[str]:
    """The answer in paragraph-sized pieces, for a display that streams text as it arrives."""
    pieces = re.split(r"(?<=\n\n)", text)
    return [piece for piece in pieces if piece]


def _says(kind: str) -> str:
    """What a call that ended in `kind` did; the envelope is the model's to send, so any text may come."""
    if kind == ELIDED_KIND:
        return ELIDED_SAYS
    try:
        return KIND_SAYS.get(ErrorKind(kind), "failed")
    except ValueError:
        return "failed"
