"""What the offline planner says when it did not recognise a request: what it can do, with examples."""

from __future__ import annotations

import re
from collections.abc import Sequence

from atlas.offline.lazy import lazy

EXAMPLES = (
    ("Read issues", ["#41", "issues 41 and 87", "#41, #87 and #92"]),
    ("Compare issues side by side", ["compare #41 and #87"]),
    ("Explain the errors an issue cites", ["explain the error in #41"]),
    ("Look up error codes", ["what is ORB-1101?"]),
    ("Read the docs", ["what docs are there", "the brokers page", "the section on retries in configuration"]),
    (
        "Search issues",
        ["find open issues about lease expiry", "issues labelled comp:broker-redis", "closed bugs mentioning Postgres"],
    ),
)
ACTION_EXAMPLES = ("Act, after your approval", ["label #41 comp:core", "comment on #41: Looking into it."])


_ASKS_FOR_HELP_RE = lazy(
    r"(?:help|usage|examples?|hi|hello|hey|thanks|thank you|who are you|what are you"
    r"|(?:what|how) (?:can|do|should) (?:you|i) (?:do|use|ask)(?: (?:you|atlas|this|here))?)(?: atlas)?",
    re.IGNORECASE,
)
"""A greeting or a request for help: answered with what the planner can do, not as a miss."""


def help_text(question: str, side_effects: bool, suggestions: Sequence[str] = ()) -> str:
    """What the planner can do, with examples, and how to use a real model; `suggestions`: the nearest
    requests it does understand, offered first."""
    groups = [*EXAMPLES, ACTION_EXAMPLES] if side_effects else list(EXAMPLES)
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
