"""Outsiders' text made safe to place in the offline answer's Markdown: one line, or a quote."""

from __future__ import annotations

from typing import Any

from atlas.offline.answer.issue_view import closed_fences


def one_line(text: Any, limit: int = 120) -> str:
    flat = " ".join(str(text).split())
    flat = flat.replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def quoted(text: str, limit: int) -> str:
    """Outsiders' text as a Markdown quote: every line prefixed, so nothing in it becomes structure."""
    body = str(text).strip()
    if len(body) > limit:
        kept = body[:limit]
        # Stop at a paragraph break when one is not too early, else between words.
        paragraph, space = kept.rfind("\n\n"), max(kept.rfind(" "), kept.rfind("\n"))
        end = paragraph if paragraph > limit // 2 else space if space > limit - 80 else limit
        body = closed_fences(kept[:end].rstrip() + " …")
    lines = body.splitlines() or [""]
    return "\n".join(f"> {line}".rstrip() for line in lines)
