"""One request in words for each built-in read tool, and the call it plans: the answer tests run each."""

from __future__ import annotations

from typing import Any

READ_REQUESTS: dict[str, tuple[str, dict[str, Any]]] = {
    "get_issue": ("show me #41 with its comments", {"issue_id": 41}),
    "search_issues": ("open bugs about leases", {"query": "leases", "state": "open", "label": "type:bug"}),
    "list_docs": ("which docs are there?", {}),
    "list_labels": ("which labels does this project use?", {}),
    "count_issues_by": ("who opened the most bugs?", {"by": "author", "label": "type:bug"}),
    "get_doc_section": ("what is ORB-1101?", {"doc_id": "error-codes", "heading": "ORB-1101"}),
    "find_similar": ("which issues are duplicates of #41?", {"issue_id": 41}),
    "suggest_labels": ("suggest labels for #145", {"issue_id": 145}),
    "list_inbox": ("what needs my attention?", {}),
    "plan_triage": ("triage 159 and 160", {"issue_ids": [159, 160]}),
}
"""Every read tool of the registry is here (a test checks it), so a new one cannot be dropped from answers."""
