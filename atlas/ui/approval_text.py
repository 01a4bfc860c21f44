"""The words of an approval question: its preview folded to what a person reads, its target, and
the warning when untrusted text was read first. Pure text, no terminal."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from atlas.foundation.sanitize import clean, clean_line
from atlas.protocol.events import ApprovalRequest
from atlas.ui.safe import call_label

_TARGET_LIMIT = 100
YES = frozenset({"y", "yes"})


def _lines(preview: str) -> list[str]:
    return clean(preview).split("\n")


def _blank(line: str) -> bool:
    """Shows nothing: spaces, and invisible format characters (a zero-width space) as well."""
    return all(char.isspace() or unicodedata.category(char) == "Cf" for char in line)


def target(request: ApprovalRequest) -> str | None:
    """`comment on #41 (“Title”), 92 lines`: what a preview of several lines is about, for the question."""
    head, newline, body = clean(request.preview).partition("\n")
    if not newline:
        return None
    head = clean_line(head.strip()).rstrip(":")
    if len(head) > _TARGET_LIMIT:
        head = head[: _TARGET_LIMIT - 1] + "…"
    lines = body.count("\n") + 1
    return f"{head}, {lines:,} line{'' if lines == 1 else 's'}"


def shown_preview(preview: str) -> str:
    """The preview with each run of two or more blank lines folded into one marker line.

    A body padded with blank lines would otherwise scroll its own first lines, and the target,
    off the screen before the question is asked.
    """
    shown: list[str] = []
    run = 0
    for line in [*_lines(preview), None]:
        if line is not None and _blank(line):
            run += 1
            continue
        if run == 1:
            shown.append("")
        elif run > 1:
            shown.append(f"⋮ {run} blank lines")
        run = 0
        if line is not None:
            shown.append(line)
    return "\n".join(shown)


def question(request: ApprovalRequest) -> str:
    """`Approve add_label(issue_id=92, label='severity:S1')? [y/N] `, naming the target of a long preview."""
    about = target(request)
    where = f" — {about}" if about else ""
    return f"Approve {call_label(request.name, request.arguments, limit=200)}{where}? [y/N] "


def warning(request: ApprovalRequest) -> str | None:
    """The caution shown when outsiders' text, read earlier in this conversation, may be what asks for this."""
    if not request.untrusted_sources:
        return None
    return (
        f"Untrusted text was read earlier in this conversation from {sources_summary(request.untrusted_sources)}"
        " — make sure this action is what you asked for."
    )


SOURCES_NAMED = 3
"""Up to this many sources are named one by one; more are counted by kind, the latest named."""


def sources_summary(sources: Sequence[str]) -> str:
    """`issue #92`, or for many: `22 sources (18 issues, 4 docs), the latest issue #41, issue #87, doc triage`."""
    if len(sources) <= SOURCES_NAMED:
        return ", ".join(sources)
    kinds: dict[str, int] = {}
    for source in sources:
        kind = source.split(" ", 1)[0] or "source"
        kinds[kind] = kinds.get(kind, 0) + 1
    counts = ", ".join(f"{count} {kind if count == 1 else kind + 's'}" for kind, count in kinds.items())
    latest = ", ".join(sources[-SOURCES_NAMED:])
    return f"{len(sources)} sources ({counts}), the latest {latest}"


def batch_question(requests: Sequence[ApprovalRequest]) -> str:
    return f"Approve all {len(requests)} actions? [y/N, or their numbers, e.g. 1,3] "


def chosen(answer: str | None, count: int) -> set[int]:
    """The actions an answer approves, numbered from 1: `y` all, a list of numbers those; anything else none.

    A number out of range makes the whole answer a no: a typo must not approve a different set.
    """
    if answer is None:
        return set()
    if is_yes(answer):
        return set(range(1, count + 1))
    parts = [part for part in answer.replace(",", " ").split() if part]
    if not parts or not all(part.isdigit() and 1 <= int(part) <= count for part in parts):
        return set()
    return {int(part) for part in parts}


def batch_warning(requests: Sequence[ApprovalRequest]) -> str | None:
    sources: list[str] = []
    for request in requests:
        sources += [source for source in request.untrusted_sources if source not in sources]
    return warning(ApprovalRequest(call_id="", name="", arguments={}, preview="", untrusted_sources=sources))


def is_yes(answer: str | None) -> bool:
    return answer is not None and answer.strip().lower() in YES
