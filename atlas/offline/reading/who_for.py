"""Who the issues are for, said around a search's topic: `good first issues for a newcomer`, `security-related issues I
should know about`, `… I could point a new contributor at` — no words to search for."""

from __future__ import annotations

import re

from atlas.offline.reading.lazy import lazy

_WHO_NEEDS_THEM_RE = lazy(
    r"\s+(?:that\s+|which\s+)?(?:i|we|you|they)\s+(?:should|need\s+to|must|might|ought\s+to|have\s+to|could|would"
    r"|want\s+to)\s+(?:\w+\s+){0,2}?(?:know|look|care|worry|see|check|fix|handle|read|watch|prioriti[sz]e)\w*"
    r"(?:\s+(?:about|at|of|into|on))?(?:\s+(?:before|after|ahead\s+of|by|until)\s+(?:the|our|this|next)\s+\w+)?\b",
    re.I,
)
"""What is said of the issues after the topic: who should look at them, not words to search for."""
_FOR_WHOM_RE = lazy(
    r"\s+for\s+(?:a|an|the|some|our|my)?\s*(?:new\s+|first[- ]time\s+|junior\s+)?(?:newcomers?|beginners?|contributors?"
    r"|first[- ]timers?|volunteers?|interns?|students?|devs?|developers?|maintainers?|people|folks|someone|somebody)\b",
    re.I,
)
"""`good first issues for a newcomer`: who the issues are for, not what they are about."""
_POINT_SOMEONE_AT_RE = lazy(
    r"\s+(?:that\s+|which\s+)?(?:i|we|you)\s+(?:could|can|might|should|would)\s+(?:point|send|give|hand|assign|steer"
    r"|direct|show)\s+(?:a\s+|an\s+|some\s+|the\s+|our\s+|my\s+)?(?:new\s+|first[- ]time\s+|junior\s+)?(?:\w+\s+)?"
    r"(?:contributors?|newcomers?|beginners?|people|folks|someone|somebody|students?|interns?|volunteers?|devs?)\b"
    r"(?:\s+(?:at|to|towards?))?",
    re.I,
)
"""`good first issues I could point a new contributor at`: who they are for, said as what the asker would do."""


def without_who_for(text: str) -> str:
    """The request without who the issues are for or should be looked at by (`security-related issues I should know
    about`, `good first issues for a newcomer`), and `-related` after a topic (`redis-related`: the topic is redis)."""
    text = _FOR_WHOM_RE.sub("", _WHO_NEEDS_THEM_RE.sub("", _POINT_SOMEONE_AT_RE.sub("", text)))
    return re.sub(r"(?<=\w)-(?:related|specific)\b", "", text, flags=re.I)
