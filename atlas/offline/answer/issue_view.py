"""A whole issue as readable Markdown: body and every comment, with authors and dates.

Shared by the offline answer ("show me #87") and `atlas issue N`. Outsiders' text is quoted line
by line, so nothing in it becomes a heading or a list of Atlas's own; a code block it opens is
closed where the text ends, so a cut never leaves a stray fence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from atlas.offline.reading.lazy import lazy

_FENCE_RE = lazy(r"^\s{0,3}(`{3,}|~{3,})")


def closed_fences(text: str) -> str:
    """`text` with a code block it leaves open closed, so what follows is not swallowed into it."""
    opened: str | None = None
    for line in text.splitlines():
        fence = _FENCE_RE.match(line)
        if fence is None:
            continue
        mark = fence.group(1)
        if opened is None:
            opened = mark
        elif mark[0] == opened[0] and len(mark) >= len(opened) and not line.strip()[len(mark) :].strip():
            opened = None
    return text if opened is None else f"{text.rstrip()}\n{opened}"


def quote(text: str) -> str:
    """Outsiders' text as a Markdown quote, every line prefixed, code blocks closed."""
    lines = closed_fences(str(text).strip()).splitlines() or [""]
    return "\n".join(f"> {line}".rstrip() for line in lines)


def _flat(value: Any, limit: int = 160) -> str:
    flat = " ".join(str(value or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _when(value: Any) -> str:
    """`2026-03-10 08:00` from an ISO 8601 time (to the minute is enough to follow a thread)."""
    text = str(value or "?")
    return text[:16].replace("T", " ") if len(text) >= 16 and text[10] == "T" else text[:10]


def _labels(data: Mapping[str, Any]) -> str:
    labels = [str(label) for label in data.get("labels") or []]
    shown = ", ".join(f"`{_flat(label, 60)}`" for label in labels) or "none"
    added = [str(x) for x in data.get("labels_added_via_atlas") or []]
    removed = [str(x) for x in data.get("labels_removed_via_atlas") or []]
    changes = [f"added through Atlas: {', '.join(added)}"] if added else []
    changes += [f"removed through Atlas: {', '.join(removed)}"] if removed else []
    return shown + (f" ({'; '.join(changes)})" if changes else "")


def comment_markdown(comment: Mapping[str, Any]) -> str:
    via = " · *posted through Atlas*" if comment.get("via_atlas") else ""
    head = f"**{_flat(comment.get('author'), 60)}** · {_when(comment.get('created_at'))}{via}"
    return f"{head}\n\n{quote(comment.get('body', ''))}"


def issue_markdown(data: Mapping[str, Any], *, with_comments: bool = True) -> str:
    """The issue as a maintainer reads it on the tracker: title, facts, body, then the thread."""
    count = data.get("comment_count")
    if count is None and "comment_count" in data:
        said = "comments unknown (not in the data)"  # an export without comments: not "0 comments"
    else:
        count = count if isinstance(count, int) else len(data.get("comments") or [])
        said = f"{count} comment{'' if count == 1 else 's'}"
    facts = (
        f"**{_flat(data.get('state'), 20)}** · opened by {_flat(data.get('author') or 'unknown', 60)} on "
        f"{_when(data.get('created_at'))} · {said}"
    )
    parts = [f"### #{data.get('id', '?')} — {_flat(data.get('title'))}", facts, f"Labels: {_labels(data)}"]
    parts.append(quote(data.get("body", "")) if str(data.get("body", "")).strip() else "*No description.*")
    comments = [c for c in data.get("comments") or [] if isinstance(c, Mapping)]
    if with_comments and comments:
        parts.append(f"#### Comments ({_flat(data.get('comments_shown') or len(comments), 40)})")
        parts += [comment_markdown(comment) for comment in comments]
    if with_comments and data.get("comments_note"):
        parts.append(f"*{_flat(data['comments_note'], 200)}*")
    if data.get("tracker_note"):
        parts.append(f"Note: {_flat(data['tracker_note'], 300)}")
    return "\n\n".join(parts)
