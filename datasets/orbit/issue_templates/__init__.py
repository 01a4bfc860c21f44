"""Report templates for `generate_issues.py`: one function per kind of report a tracker receives.

Each template draws its concrete details (versions, job names, numbers, log lines) from the
issue's own seeded generator and returns a `Draft`: title, Markdown body, labels and a comment
thread whose speakers are roles ("reporter", "maintainer", "maintainer2", "other"). A template
whose story needs a feature the reporter's Orbit version did not have raises `NotApplicable`.
Importing the modules below, in this order, fills `TEMPLATES`.
"""

from __future__ import annotations

from issue_templates import brokers, jobs, leases_workers, scheduling, short, surface
from issue_templates.base import TEMPLATES, Ctx, Draft, NotApplicable

__all__ = [
    "TEMPLATES",
    "Ctx",
    "Draft",
    "NotApplicable",
    "brokers",
    "jobs",
    "leases_workers",
    "scheduling",
    "short",
    "surface",
]
