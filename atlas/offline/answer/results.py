"""The offline answer's part for the results of the triage reads and of any other read tool.

`find_similar`, `suggest_labels`, the inbox and the triage plan each have their own short form; a
tool the planner has no form for (a plugin's, an MCP server's) is shown as its data, key by key,
quoted as outsiders' text. Nothing a tool returned is left out without a line saying what was cut.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from atlas.offline.answer.quoting import one_line, quoted
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.ordering import INBOX_BY_DATE

DATA_CHARS = 4000
"""A tool's data shown as it came, up to this many characters; past it a line says how much was cut."""


def result_section(call: PlannedCall, data: Any) -> str:
    """The part of the answer for one read's result."""
    form = _FORMS.get(call.name)
    if form is not None and isinstance(data, Mapping):
        return form(call, data)
    return data_section(call, data)


def similar_section(call: PlannedCall, data: Mapping[str, Any]) -> str:
    """`find_similar`: each neighbour with its score, state, labels and what it shares with the issue."""
    lines = [f"### Similar to #{data.get('issue_id', call.arguments.get('issue_id'))} — {one_line(data.get('title'))}"]
    similar = [m for m in data.get("similar") or [] if isinstance(m, Mapping)]
    lines.append("")
    if not similar:
        lines.append("No similar issue was found.")
    for match in similar:
        shared = "; ".join(
            f"{what} {', '.join(one_line(x, 60) for x in match.get(key) or [])}"
            for what, key in (("words", "shared_words"), ("codes", "shared_codes"), ("stack", "shared_stack_lines"))
            if match.get(key)
        )
        labels = ", ".join(f"`{one_line(x, 60)}`" for x in match.get("labels") or []) or "no labels"
        lines.append(
            f"- #{match.get('id')} {one_line(match.get('title'), 100)} — {match.get('state', '?')}, {labels}, "
            f"score {match.get('score', '?')}" + (f"; shares {shared}" if shared else "")
        )
    return "\n".join([*lines, *_note(data)])


def proposals_section(call: PlannedCall, data: Mapping[str, Any]) -> str:
    """`suggest_labels`: per missing label group, the label proposed (or that a person must decide) and why."""
    issue_id = data.get("issue_id", call.arguments.get("issue_id"))
    has = ", ".join(f"`{one_line(x, 60)}`" for x in data.get("labels") or []) or "none"
    lines = [f"### Labels for #{issue_id} — {one_line(data.get('title'))}", "", f"Labels now: {has}."]
    threshold = data.get("threshold")
    for group in [g for g in data.get("proposals") or [] if isinstance(g, Mapping)]:
        confidence = group.get("confidence", "?")
        if group.get("label"):
            verdict = f"`{one_line(group['label'], 60)}` ({confidence})"
        else:
            guess = f", best guess `{one_line(group.get('best_guess'), 60)}`" if group.get("best_guess") else ""
            # A group whose model lost to its baseline says so; otherwise the confidence was too low.
            lost = f"{confidence}: {one_line(group['note'], 200)}" if group.get("note") else None
            reason = lost or f"{confidence} < threshold {threshold}"
            verdict = f"needs a human ({reason}{guess})"
        why = ", ".join(one_line(w, 40) for w in group.get("deciding_words") or [])
        seen = ", ".join(f"#{n}" for n in group.get("similar_issues_with_it") or [])
        lines.append(
            f"- {one_line(group.get('group'), 40)}: {verdict}"
            + (f"; deciding words {why}" if why else "")
            + (f"; similar issues with it {seen}" if seen else "")
        )
    return "\n".join([*lines, *_note(data)])


def inbox_section(call: PlannedCall, data: Mapping[str, Any]) -> str:
    """`list_inbox`: how many need a look and why, then each issue with its severity, age and reasons."""
    only, order = call.arguments.get("only"), call.arguments.get("order")
    counts = _mapping(data.get("counts"))
    why = ", ".join(f"{one_line(reason, 40)} {count}" for reason, count in counts.items())
    total = data.get("total", "?")
    by_date = order if order in INBOX_BY_DATE else None
    about, since = call.arguments.get("about"), call.arguments.get("opened_since")
    label = call.arguments.get("label")
    narrowed = [f"about {one_line(about, 60)}"] if about else []
    narrowed += [f"labelled {one_line(label, 60)}"] if label else []
    narrowed += [f"opened since {since}"] if since else []
    title = "### Inbox" + "".join(f" · {part}" for part in ([only] if only else []) + narrowed)
    title += f" · {by_date} opened first" if by_date else ""
    if total is None:  # the data cannot say (no comments for a thread reason): its note says why
        return "\n".join([f"{title}: unknown", *_note(data)])
    head = f"{title}: {total} open issue{'' if total == 1 else 's'} need a look"
    lines = [head + (f" (of all reasons: {why})" if why else ""), ""]
    issues = [item for item in data.get("issues") or [] if isinstance(item, Mapping)]
    if not issues:
        # Without the threads, only the labels could be checked.
        known = data.get("comments_known", True) is not False
        if narrowed:
            lines.append(f"Nothing needs you here: no open issue {', '.join(narrowed)} is listed.")
        else:
            lines.append(
                f"Nothing needs you here: every open issue is labelled{', answered and active' if known else ''}."
            )
        lines += _note(data)
    for item in issues:
        # A project without a severity scale, or an export without comments, is not told "no severity", "idle None".
        severity = item.get("severity") or ("severity unknown" if item.get("severity_unknown") else None)
        idle = item.get("idle_days")
        labels = ", ".join(f"`{one_line(x, 60)}`" for x in item.get("labels") or []) or "no labels"
        reasons = "; ".join(one_line(r, 80) for r in item.get("reasons") or [])
        lines.append(
            f"- #{item.get('id')} {one_line(item.get('title'), 100)} — "
            + (f"{one_line(severity, 40)}, " if severity else "")
            + ("1 day old " if (age := item.get("age_days", "?")) == 1 else f"{age} days old ")
            + (f"(idle {idle})" if isinstance(idle, int) else "(activity unknown)")
            + f", {labels}: {reasons}"
            + (" · new" if item.get("new") else "")
        )
    if isinstance(total, int) and total > len(issues):
        command = "atlas inbox" + (f" --only {only}" if only else "") + (f" --order {by_date}" if by_date else "")
        import shlex  # only for an inbox longer than its answer (shlex compiles a pattern at import)

        command += (f" --about {shlex.quote(str(about))}" if about else "") + (f" --since {since}" if since else "")
        command += f" --label {shlex.quote(str(label))}" if label else ""
        lines += ["", f"{total - len(issues)} more not shown here: `{command}` lists every one."]
    if data.get("comments_known") is False and issues:
        lines += ["", "Whether anyone answered these is unknown: the data holds no comments (`atlas data sync`)."]
    return "\n".join(lines)


def triage_plan_section(call: PlannedCall, data: Mapping[str, Any]) -> str:
    """`plan_triage`: the numbered actions with why, what needs a human, and how to apply it."""
    ids = ", ".join(f"#{n}" for n in data.get("issues") or [])
    lines = [f"### Triage plan for {ids or 'no issue'}", ""]
    actions = [a for a in data.get("actions") or [] if isinstance(a, Mapping)]
    if not actions:
        lines.append("Nothing to do: no label above the threshold and no comment worth drafting.")
    for action in actions:
        arguments = _mapping(action.get("arguments"))
        head = f"{action.get('n')}. #{action.get('issue_id')}"
        why = one_line(action.get("why"), 200)
        if action.get("tool") == "add_label":
            lines.append(f"{head} add label `{one_line(arguments.get('label'), 60)}` — {why}")
        else:
            lines.append(f"{head} `{one_line(action.get('tool'), 40)}` — {why}")
            if arguments.get("body"):
                lines += ["", quoted(str(arguments["body"]), 1200), ""]
    humans = [one_line(note, 200) for note in data.get("needs_a_human") or []]
    if humans:
        lines += ["", "Needs a human: " + "; ".join(humans) + "."]
    return "\n".join([*lines, *_note(data)])


def data_section(call: PlannedCall, data: Any) -> str:
    """Any read's data as it came: one line per field, nested fields indented, quoted as outsiders' text."""
    lines = _lines(data, 0)
    text = "\n".join(lines)
    if len(text) > DATA_CHARS:
        kept = text[:DATA_CHARS].rsplit("\n", 1)[0]
        text = kept + f"\n… [cut: {len(text) - len(kept):,} more characters of `{call.name}`'s result]"
    return f"### `{call.name}`\n\n" + quoted(text, len(text))


def _lines(value: Any, depth: int) -> list[str]:
    pad = "  " * depth
    if isinstance(value, Mapping):
        out: list[str] = []
        for key, item in value.items():
            if isinstance(item, Mapping | list) and item:
                out += [f"{pad}{one_line(key, 80)}:", *_lines(item, depth + 1)]
            else:
                out.append(f"{pad}{one_line(key, 80)}: {_scalar(item)}")
        return out
    if isinstance(value, list):
        out = []
        for item in value:
            nested = _lines(item, depth + 1)
            out += [f"{pad}- {nested[0].strip()}", *nested[1:]] if nested else [f"{pad}-"]
        return out
    return [pad + _scalar(value)]


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return " ".join(value.split())
    return json.dumps(value, ensure_ascii=False)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def labels_section(call: PlannedCall, data: Mapping[str, Any]) -> str:
    """`list_labels`: each label, most used first, with its open and total issues."""
    labels = [label for label in data.get("labels") or [] if isinstance(label, Mapping)]
    lines = [f"### Labels of this project ({data.get('count', len(labels))}), most used first", ""]
    if not labels:
        lines.append("No label is used.")
    lines += [
        f"- `{one_line(label.get('name'), 80)}` — {label.get('open', '?')} open, {label.get('total', '?')} in all"
        for label in labels
    ]
    return "\n".join([*lines, *_note(data)])


def tally_section(call: PlannedCall, data: Mapping[str, Any]) -> str:
    """`count_issues_by`: each group with its issues, the largest (or latest) first, out of how many matched."""
    by = one_line(data.get("by") or call.arguments.get("by"), 20)
    shown_how = {"by", "limit", "busiest_first", "fewest_first"}
    filters = ", ".join(f"{key}={value!r}" for key, value in call.arguments.items() if key not in shown_how)
    groups = [group for group in data.get("groups") or [] if isinstance(group, Mapping)]
    count = data.get("group_count")
    kinds = f", {count:,} different {by}s" if isinstance(count, int) and not isinstance(count, bool) and groups else ""
    busiest = ", the busiest first" if call.arguments.get("busiest_first") and by in {"year", "month"} else ""
    busiest = ", the fewest first" if call.arguments.get("fewest_first") else busiest
    lines = [
        f"### Issues by {by}{f' ({filters})' if filters else ''}: {data.get('total', '?')} issues{kinds}{busiest}",
        "",
    ]
    if not groups:
        lines.append(f"No issue matched. {one_line(data['hint'], 300)}" if data.get("hint") else "No issue matched.")
    total = data.get("total")
    for group in groups:
        key = group.get("key")
        name = f"`{one_line(key, 80)}`" if key is not None else "unknown"
        lines.append(f"- {name}: {group.get('count', '?')}{_share(group.get('count'), total)}")
    if data.get("without_label") is not None and (groups or data["without_label"]):  # none matched: said above
        lines.append(f"- no label: {data['without_label']}{_share(data['without_label'], total)}")
    if data.get("author_note"):
        lines += ["", f"Note: {one_line(data['author_note'], 300)}"]
    return "\n".join([*lines, *_note(data)])


def _share(count: object, total: object) -> str:
    """` (23 %)`: a group's share of the issues counted (an issue with two labels is in both groups)."""
    if isinstance(count, int) and isinstance(total, int) and not isinstance(total, bool) and total > 0:
        return f" ({100 * count / total:.0f} %)"
    return ""


def _note(data: Mapping[str, Any]) -> list[str]:
    return ["", f"Note: {one_line(data['note'], 300)}"] if data.get("note") else []


_FORMS: dict[str, Callable[[PlannedCall, Mapping[str, Any]], str]] = {
    "find_similar": similar_section,
    "suggest_labels": proposals_section,
    "list_inbox": inbox_section,
    "plan_triage": triage_plan_section,
    "list_labels": labels_section,
    "count_issues_by": tally_section,
}
