"""A question asked inside a request, put as the question itself.

`tell me if it's a dupe`, `check whether 7399 is a duplicate`, `let me know if there is an issue about X`,
`see if #41 has been fixed`: the user asks a yes/no question, nothing to do. Read as written, the clause
after `if` is a condition with no action (`if it's a dupe`), or a terse triage order (`7399 is a
duplicate` labels it). The clause becomes the question it is (`is it a dupe?`, `is 7399 a duplicate?`),
which the planner answers by reading; a condition after it (`check if #41 is closed and if so comment …`)
stays one.
"""

from __future__ import annotations

import re

from atlas.offline.reading.frames import QUOTE_RE
from atlas.offline.reading.lazy import lazy

_ASKING = (
    r"(?:(?:can|could|would|will)\s+you\s+|please\s+|pls\s+)*"
    r"(?:tell\s+me|let\s+me\s+know|check|double[- ]check|see|find\s+out|figure\s+out|work\s+out|verify|confirm"
    r"|look\s+(?:into\s+)?|i\s+(?:wonder|want\s+to\s+know|'?d\s+like\s+to\s+know)|(?:i'?m\s+)?wondering)"
)
_EMBEDDED_RE = lazy(
    rf"\b{_ASKING}\s+(?:if|whether)\s+"
    r"(?P<clause>[^.;?!\n\"]+?)(?P<end>\s*(?:[?.!]+|(?=,?\s*(?:and\s+|then\s+)?(?:if|then|otherwise|else)\b)|(?=[;\n])|$))",
    re.I,
)
_SUBJECT = (
    r"(?P<subject>it|this|that|they|these|those|both|there|(?:issue\s+|ticket\s+)?#?\d{1,5}"
    r"|(?:the|this|that|these|those)\s+[\w-]+(?:\s+[\w-]+)?)"
)
_BE_RE = lazy(
    rf"^{_SUBJECT}(?:(?P<contracted>'s|'re)|\s+(?P<verb>is|are|was|were|can|could|should|will|would))\s+(?P<rest>.+)$",
    re.I,
)
_PERFECT_RE = lazy(rf"^{_SUBJECT}\s+(?P<verb>has|have)\s+been\s+(?P<rest>.+)$", re.I)
_HAVE_RE = lazy(rf"^{_SUBJECT}\s+(?P<verb>has|have)\s+(?P<rest>.+)$", re.I)


_UNMARKED_RE = lazy(
    r"^(?:(?P<word>there|that)s\b|(?P<it>it)s(?=\s+(?:a|an|the|still|already|not|been|also|just|really|probably|open"
    r"|closed|fixed|resolved|done)\b))",
    re.I,
)
"""`theres an issue`, `its a dupe`: the `'s` typed without its mark; `its` only before what follows `it's`, not before
its noun (`its labels`)."""
_WORDS_TO_POST_RE = lazy(
    r"\b(?:comment|reply|respond|post|write|note|say|leave|answer|ask|ping|thank|tell\s+(?!me\b)\w+)\b|:", re.I
)
"""Before the asking in its sentence: the words after it are someone's text to post, kept as said."""


def as_questions(text: str) -> str:
    """Each question asked inside a request (`check if X is Y`) put as the question (`is X Y?`); never inside
    quoted text or the words of a comment (`comment on #41: can you check if it still fails?`)."""
    if "if" not in text.lower() and "whether" not in text.lower():
        return text
    quoted = [found.span() for found in QUOTE_RE.finditer(text)]
    return _EMBEDDED_RE.sub(lambda match: _question(match, quoted), text)


def _question(match: re.Match[str], quoted: list[tuple[int, int]]) -> str:
    text, start = match.string, match.start()
    sentence = re.split(r"[.?!;\n]", text[:start])[-1]
    if any(begin <= start < end for begin, end in quoted) or _WORDS_TO_POST_RE.search(sentence):
        return match.group(0)
    after = text[match.end() : match.end() + 1]
    return f"{_inverted(' '.join(match.group('clause').split()))}?" + (" " if after and not after.isspace() else "")


def _inverted(clause: str) -> str:
    """`it's a dupe` -> `is it a dupe`, `#41 has been fixed` -> `has #41 been fixed`, `it has a label` -> `does it
    have a label`; a clause of another shape is asked as it is."""
    clause = _UNMARKED_RE.sub(lambda said: f"{said['word'] or said['it']}'s", clause)
    if found := _PERFECT_RE.match(clause):
        return f"{found['verb']} {found['subject']} been {found['rest']}"
    if found := _BE_RE.match(clause):
        verb = found["verb"] or ("are" if found["contracted"] == "'re" else "is")
        return f"{verb} {found['subject']} {found['rest']}"
    if found := _HAVE_RE.match(clause):
        plural = found["verb"].lower() == "have"
        return f"{'do' if plural else 'does'} {found['subject']} have {found['rest']}"
    return clause
