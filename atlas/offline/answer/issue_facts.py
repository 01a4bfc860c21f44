"""The facts of an issue an answer shows beside its title: labels, comments, the day it was opened."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def labels_of(data: Mapping[str, Any]) -> list[str]:
    """The issue's labels, with those Atlas's own writes added after."""
    labels = [str(label) for label in data.get("labels") or []]
    return labels + [str(label) for label in data.get("tracker_labels") or [] if str(label) not in labels]


def labels_text(labels: list[str]) -> str:
    """The labels as code spans, or `none`."""
    return ", ".join(f"`{label}`" for label in labels) if labels else "none"


def comment_count(data: Mapping[str, Any]) -> int | None:
    """How many comments the issue has; None when the data does not say (an export without comments)."""
    count = data.get("comment_count")
    if isinstance(count, int):
        return count
    if count is None and "comment_count" in data:
        return None
    comments = data.get("comments")
    return len(comments) if isinstance(comments, list) else 0


def comments_text(count: int | None) -> str:
    """`3 comments`, or that the data does not say."""
    if count is None:
        return "comments unknown (not in the data)"
    return f"{count:,} comment{'' if count == 1 else 's'}"


def day_of(value: Any) -> str:
    """The day of a timestamp, `?` when there is none."""
    return str(value or "?")[:10]
