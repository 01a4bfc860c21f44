"""Reading a saved plan back: every way it can be wrong is one line, and then nothing is applied."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from atlas.foundation import statefiles
from atlas.triage.plan import FILE_LIMIT, FORMAT, TOOLS, VERSION, Plan, PlanError, PlanItem


def _refused(why: str) -> PlanError:
    return PlanError(f"{why}; nothing was applied")


def read_plan(path: Path, dataset: str) -> Plan:
    """The plan in `path`, checked whole: format, checksum, dataset and items."""
    missing = PlanError(f"there is no plan file {path}")
    raw = statefiles.read_named(path, limit=FILE_LIMIT, what="a plan", missing=missing, refused=_refused)
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):
        raise PlanError(f"{path} is not a whole plan (not valid JSON: cut short?); nothing was applied") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise PlanError(f"{path} is not an Atlas triage plan; nothing was applied")
    if document.get("version") != VERSION:
        raise PlanError(f"{path} is a plan of another version ({document.get('version')!r}); nothing was applied")
    plan = _plan(document, path)
    if document.get("checksum") != plan.checksum():
        raise PlanError(f"{path} was changed after it was saved (its checksum does not match); nothing was applied")
    if plan.dataset != dataset:
        raise PlanError(f"{path} was made for another dataset than this one; nothing was applied")
    return plan


def _plan(document: dict[str, Any], path: Path) -> Plan:
    try:
        items = [_item(entry) for entry in document["items"]]
        prints = {int(k): str(v) for k, v in dict(document["fingerprints"]).items()}
        notes = [str(note) for note in document.get("notes", [])]
        plan = Plan(str(document["dataset"]), str(document["created_at"]), items, prints, notes)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise PlanError(f"{path} is missing parts of a plan; nothing was applied") from None
    numbers = [item.n for item in items]
    if len(set(numbers)) != len(numbers) or any(item.issue_id not in prints for item in items):
        raise PlanError(f"{path} is not a consistent plan; nothing was applied")
    return plan


def _item(entry: Any) -> PlanItem:
    if not isinstance(entry, dict):
        raise TypeError("an item is not an object")
    item = PlanItem(
        int(entry["n"]), int(entry["issue_id"]), str(entry["tool"]), dict(entry["arguments"]), str(entry["why"])
    )
    if item.tool not in TOOLS or item.arguments.get("issue_id") != item.issue_id:
        raise ValueError("an item is not a triage action")
    return item
