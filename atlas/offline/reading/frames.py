"""Splitting a message into requests, for the offline planner's frame parser.

A message is cut at lines, `;`, sentence ends and clause joints ("and then", ", then", "and add …"),
never inside quoted text (`"…"`, `'…'`, `` `…` ``), which stays whole as the user's own words.
Pasted material (a code block, log lines, a traceback) is set apart: it is evidence for a search
or an error lookup, never a request, and the grammar's patterns never run over it, so a long
paste costs one linear pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from atlas.offline.reading.lazy import lazy

_FENCE_RE = lazy(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.DOTALL)
QUOTE_RE = lazy(r"\"[^\"\n]+\"|(?<!\w)'(?:[^'\n]|'(?=\w))+'(?!\w)|`[^`\n]+`")
"""Text the user quoted: their own words, kept whole and never read as a request."""
_LOG_LINE_RE = lazy(
    r"^\s*(?:\d{4}-\d\d-\d\d[T ]\d|\d\d:\d\d:\d\d|\[?(?:INFO|WARN|WARNING|ERROR|DEBUG|FATAL|CRITICAL|TRACE)\b"
    r"|Traceback\b|File \"|at [\w.$]+\(|[\w.]+(?:Error|Exception|Warning):|\$ |>>> )"
)
MAX_REQUESTS = 24
"""More sentences than anyone types as requests in one message: the rest is pasted text (an issue body, a
thread), read as evidence like a log, so a long paste costs one pass, not a reading of every sentence."""
MAX_CUTS = 4 * MAX_REQUESTS
"""Where cutting stops: enough pieces for every request typed (some are empty or join the one before), so a
50 kB paste is scanned for joints only as far as the requests go."""
LONG_LINE = 400
"""A line longer than this with few sentence marks is pasted output, not something typed."""
_JOINT_PATTERN = (
    r"\s*(?:[;\n]+|(?<=[.!?])\s+(?=\S)|(?<=\")\s+(?=(?-i:[A-Z][a-z]*)\b)"  # `comment 'Done.' If …`
    r"|,?\s+and\s+then\s+|,\s*then\s+|,\s*(?=(?:otherwise|else|if\s+not|or\s+else)\b)|,?\s+and\s+(?=if\s)|,\s+and\s+(?=(?:is|was)\s+it\s+(?:still\s+)?(?:open|closed|fixed|resolved)\b)|\s+then\s+(?=(?:please\s+)?[a-z]+\b)"
    r"|,?\s+(?:and|n|&)\s+(?=(?:please\s+|also\s+|finally\s+|lastly\s+)?(?:{verbs})\b|(?:do\s+)?(?:the\s+)?same\s+(?:on|to|for)\b)|,?\s+and\s+(?=(?:on|to)\s+#?\d+\s*:)|,?\s+and\s+(?=(?:which|what)\s+(?:of\s+(?:them|those|these)|ones)\b|which\s+(?:are|is|were)\s+(?:still\s+)?(?:open|closed)\b)"
    r"|,?\s+and\s+(?=(?:what|which)(?:\s+(?:\d{{1,2}}|two|three|four|five|six|seven|eight|nine|ten))?(?:'?s|\s+(?:is|are))"
    r"\s+(?:the\s+)?(?:oldest|newest|latest|earliest|most|least)\b)"
    r"|(?<!\bopen)(?<!\bclosed)(?<!\bopen,)(?<!\bclosed,),?\s+and\s+(?=how\s+many\b)"
    r"|(?:(?<=\bopen)|(?<=\bclosed)),?\s+(?:and\s+)?(?=how\s+many\s+(?!(?:(?:are|were|is|still|of\s+them)\s+)*"
    r"(?:closed|open|resolved)\b)(?!\s*[?.!]*$)[\w:-]+)"  # `how many X are open, and how many Y ones?`: two counts
    r"|(?<!\bopen)(?<!\bclosed),\s+(?=how\s+many\b)|,?\s+and\s+(?=who\s+(?:opened|filed|reported|opens|files|reports)\b)"
    r"|,\s+(?:and\s+)?(?=(?:which|what)\s+(?:month|year|label|author|week)s?\b)"  # `…, which month had the most`
    r"|,?\s+and\s+(?=(?:has|have|did|does)\s+@?[\w.-]+\s+(?:opened|filed|reported|created|raised|open|file|report)\b)"
    r"|,\s+(?!(?:open|closed)\b\s*(?:only|ones?|issues|bugs|tickets|,|[?.!]|$|(?:or|and|&)\s+(?:open|closed)\b))"
    r"(?=(?:please\s+|also\s+)?(?:{verbs})\b)"
    r"|,\s+(?=(?:so\s+)?(?:can|could|would)\s+(?:you|u)\s+(?:please\s+|pls\s+)?(?:{verbs}|dig|track|hunt|pull)\b))\s*"
)
VERBS = (
    "add|remove|drop|strip|delete|clear|comment|post|reply|respond|write|leave|tell|let|ask|thank|ping|label|tag|mark|"
    "flag|set|make|bump|put|apply|show|read|open|pull|get|compare|search|find|look|list|check|explain|give|note|say|draft|"
    "suggest|triage|\\+1"
)
_JOINT = lazy("(" + _JOINT_PATTERN.format(verbs=VERBS) + ")", re.IGNORECASE)
_BODY_ONLY_RE = lazy(
    r"^(?:something\s+like|like|saying|e\.g\.|text|message|the\s+text|with|as\s+follows|this)\b[^\"]{0,20}\"Q\d+\"\s*[.!]?$",
    re.I,
)
"""A request that is only the text of the one before: "post a thank-you on #127. Something like: '…'"."""
_REFERENCE_ONLY_RE = lazy(r"^(?:(?:issue|ticket)\s+#?|#)?(?P<number>\d{1,7})[\s.?!]*$", re.I)
_NAMES_IT_RE = lazy(r"^(?!.*\d).*\b(?:this|it)\b", re.I | re.S)
"""A request that speaks of `this one` with no number of its own, before a reference said alone: the issue it means."""
_THEN_LEAD_RE = lazy(r"^(?:and\s+)?then\s+(?=\w)", re.I)
"""`then` said first in a sentence of its own: the order of the requests, which they keep anyway."""
_AND_RE = lazy(r"\b(?:and|then|n)\b|&", re.IGNORECASE)
_OTHERWISE_START_RE = lazy(r"^\s*(?:otherwise|else|if\s+not|or\s+else)\b", re.IGNORECASE)
_CONDITION_START_RE = lazy(
    r"^\s*(?:(?:for|on|re|about)\s+)?(?:(?:issue\s+)?#?\d{1,5}\s*[:,-]\s*)?(?:and\s+)?(?:if|unless|only\s+if|in\s+case|when)\b",
    re.IGNORECASE,
)
"""`if #11 is closed`, `on 7037: if it is a bug`: a condition, whose action follows after its comma."""
_COLON_BODY_RE = lazy(
    r"(?P<lead>\b(?:comment|reply|respond|post|write|note|say|ping|\+1)\b[^:\n\"]{0,60}?:(?![ \t]*\"Q\d)[ \t]*)"
    r"(?P<body>[^\n]*\w[^\n]*)",
    re.I,
)
"""`comment on #41: on it. And show #87`: after a comment's colon, the rest of the line is the user's text."""


@dataclass
class Request:
    """One request of a message: its words (quotes masked), the quoted texts, and where it sits."""

    text: str
    """The request's words with each quoted text replaced by `"Qn"` (n its index in `quoted`)."""
    quoted: list[str] = field(default_factory=list)
    joined: bool = False
    """Joined to the request before by `and` or `then` inside one sentence: `if #29 is open, set it to S2 and
    comment …` — the comment is under the same condition."""

    def unmasked(self, text: str | None = None) -> str:
        """The request (or `text`, its words corrected) with the quotes back in place."""
        return re.sub(
            r"\"Q(\d+)\"", lambda m: '"' + self.quoted[int(m.group(1))] + '"', self.text if text is None else text
        )


@dataclass
class Message:
    requests: list[Request]
    pasted: str
    """Everything pasted (code blocks, log lines), joined: searched for codes and words, never parsed."""


_INLINE_TRACEBACK_RE = lazy(
    r"Traceback\s*\(most\s+recent\s+call\s+last\)\s*:?[^\n]*?(?=\b(?:[\w.]+\.)?[A-Z][A-Za-z]*(?:Error|Exception)\s*:|\n|$)"
)
"""A traceback pasted into a line of its own words (`user sent: Traceback (most recent call last): File …`): its frames,
up to the exception, which is read as typed."""


def _is_pasted(line: str) -> bool:
    return bool(_LOG_LINE_RE.match(line)) or (len(line) > LONG_LINE and line.count(". ") < len(line) // 200)


def set_apart(text: str) -> tuple[str, str]:
    """The typed words and the pasted material of a message."""
    pasted: list[str] = []

    def take(match: re.Match[str]) -> str:
        pasted.append(match.group(0).strip("`~"))
        return "\n"

    typed = _INLINE_TRACEBACK_RE.sub(take, _FENCE_RE.sub(take, text))
    lines: list[str] = []
    for line in typed.splitlines():
        (pasted if _is_pasted(line) else lines).append(line)
    return "\n".join(lines), "\n".join(pasted)


def split_message(text: str) -> Message:
    """The message's requests in order, and what was pasted in it."""
    typed, pasted = set_apart(text)
    quoted: list[str] = []

    def mask(match: re.Match[str]) -> str:
        text = match.group("body") if "body" in match.re.groupindex else match.group(0)[1:-1]
        quoted.append(text.strip())
        return f'"Q{len(quoted) - 1}"'

    masked = QUOTE_RE.sub(mask, typed)
    masked = _COLON_BODY_RE.sub(lambda m: m.group("lead") + mask(m), masked)
    parts = _JOINT.split(masked, maxsplit=MAX_CUTS)  # pieces, each after the joint that led to it
    uncut = ""
    if len(parts) == 2 * MAX_CUTS + 1:  # the cutting stopped: what is left is pasted text, read as evidence
        uncut, parts = Request(parts[-1], quoted).unmasked(), parts[:-2]
    joints = ["", *parts[1::2]]
    requests: list[Request] = []
    for raw, joint in zip(parts[0::2], joints, strict=True):
        piece = _THEN_LEAD_RE.sub("", raw.strip(" ,"))  # `… are there? then list the speech ones`
        if not re.search(r"\w", piece):
            continue
        if (
            requests
            and _CONDITION_START_RE.match(requests[-1].text)
            and not re.search(r"[,?.!]", requests[-1].text)
            and not _OTHERWISE_START_RE.match(piece)
        ):
            requests[-1].text += ", " + piece  # "if #11 is closed, post …": the condition and its action are one
            continue
        if requests and (reference := _REFERENCE_ONLY_RE.match(piece)) and _NAMES_IT_RE.search(requests[-1].text):
            requests[-1].text = f"#{reference['number']} {requests[-1].text}"  # "any others like this one? #6836"
            continue
        if requests and _BODY_ONLY_RE.match(piece):
            requests[-1].text += " " + piece  # "post a thank-you on #127. Something like: '…'"
            continue
        joined = bool(requests) and bool(_AND_RE.search(joint)) and not re.search(r"[;\n]", joint)
        requests.append(Request(piece, quoted, joined=joined))
    if len(requests) > MAX_REQUESTS or uncut:
        rest = " ".join([*(request.unmasked() for request in requests[MAX_REQUESTS:]), uncut])
        return Message(requests[:MAX_REQUESTS], "\n".join(part for part in (pasted, rest.strip()) if part))
    return Message(requests, pasted)


def quoted_texts(request: Request) -> list[str]:
    """The quoted texts a request holds, in order."""
    return [request.quoted[int(n)] for n in re.findall(r"\"Q(\d+)\"", request.text)]
