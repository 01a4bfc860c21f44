"""Issues written one by one; `generate_issues.py` merges them with the generated reports.

Each module holds an `ISSUES` list of dicts in the JSONL's exact shape. The text helpers here keep
the Markdown bodies readable in source (indented, dedented on load).
"""

from __future__ import annotations

import importlib
from textwrap import dedent
from typing import Any

MODULES = ("fixtures", "adversarial", "core", "brokers", "scheduling", "surface", "backlog")


def md(text: str) -> str:
    """Markdown written indented in source, as it will be stored."""
    return dedent(text).strip("\n")


def comment(author: str, created_at: str, body: str) -> dict[str, str]:
    return {"author": author, "body": md(body), "created_at": created_at}


def all_issues() -> list[dict[str, Any]]:
    """Every hand-written issue, checked for duplicate ids."""
    issues: list[dict[str, Any]] = []
    for name in MODULES:
        issues.extend(importlib.import_module(f"{__name__}.{name}").ISSUES)
    ids = [issue["id"] for issue in issues]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"hand-written issue ids used twice: {duplicates}")
    return issues
