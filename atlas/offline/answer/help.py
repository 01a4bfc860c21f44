"""What the offline planner says when it did not recognise a request: what it can do, with examples."""

from __future__ import annotations

import re
from collections.abc import Sequence

from atlas.offline.plan import ProjectExamples
from atlas.offline.reading.lazy import lazy


def examples(project: ProjectExamples, side_effects: bool) -> list[tuple[str, list[str]]]:
    """What to show a person who asked something the planner did not read, in the project's words."""
    groups = [
        ("Read issues", ["#41", "issues 41 and 87", "#41, #87 and #92"]),
        ("Compare issues side by side", ["compare #41 and #87"]),
        ("Search issues", [f"open issues labelled {project.label}", "how many open issues since 2025-01-01?"]),
        ("Similar issues and labels", ["issues like #41", "suggest labels for #41", "what needs my attention?"]),
    ]
    if project.code:
        groups.insert(2, ("Look up error codes", [f"what is {project.code}?", "explain the error in #41"]))
    if project.doc:
        groups.insert(3, ("Read the docs", ["what docs are there", f"the {project.doc} page"]))
    if side_effects:
        groups.append(("Act, after your approval", [f"label #41 {project.label}", "comment on #41: Looking into it."]))
    return groups


_ASKS_FOR_HELP_RE = lazy(
    r"(?:help|usage|examples?|hi|hello|hey|thanks|thank you|who are you|what are you"
    r"|(?:what|how) (?:can|do|should) (?:you|i) (?:do|use|ask)(?: (?:you|atlas|this|here))?)(?: atlas)?",
    re.IGNORECASE,
)
"""A greeting or a request for help: answered with what the planner can do, not as a miss."""


def help_text(
    question: str, side_effects: bool, suggestions: Sequence[str] = (), project: ProjectExamples | None = None
) -> str:
    """What the planner can do, with examples in the project's words, and how to use a real model;
    `suggestions`: the nearest requests it does understand, offered first."""
    groups = examples(project or ProjectExamples(), side_effects)
    words = " ".join(re.findall(r"[\w']+", question))
    lines = (
        []
        if _ASKS_FOR_HELP_RE.fullmatch(words)
        else [f"I did not recognise a request I can plan in: {_short(question) or '(an empty question)'}", ""]
    )
    if suggestions and lines:
        lines += ["Did you mean: " + " or ".join(f"`{_short(s, 80)}`" for s in suggestions) + "?", ""]
    lines += [
        "I am the built-in offline planner: no language model runs, so I understand a fixed set of requests "
        "and answer from Atlas's tools. For example:",
        "",
    ]
    lines += [f"- {title}: " + ", ".join(f"`{example}`" for example in examples) for title, examples in groups]
    if not side_effects:
        lines.append("- Labels and comments are not available in read-only mode (`/read-only off` turns it off).")
    lines += [
        "",
        "For free-form questions use a real model: set `OPENAI_API_KEY` (Atlas then uses gpt-6-luna), "
        "or pick one with `--model NAME` (or `ATLAS_MODEL`).",
    ]
    return "\n".join(lines)


def _short(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
