"""Comment requests, for the offline planner's frame parser: the issue and the user's own text to post.

The text is what is quoted, else what follows `:`, `saying`, `that` or the person addressed; a request
for text the planner would have to write (`comment on 87 pointing at that section`) is never posted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from atlas.offline.acts.act import LEAD, Act, Intent, targets
from atlas.offline.reading.frames import Request, quoted_texts
from atlas.offline.reading.lazy import lazy

COMMENT_RE = lazy(
    LEAD + r"(?:on\s+(?:issue\s+)?#?\d{1,5}\s*[:,-]?\s*)?"  # `on 41 say: '…'`
    r"(?:(?:post|add|write|leave|drop|put|send)\s+(?:this|that|it|these\s+words)(?=\s+(?:on|to|under|in)\s+(?:issue\s+)?#?\d)"
    r"|(?:post|add|write|leave|drop|put|send)\s+(?:a\s+|an\s+|my\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:comment|note|reply|message|line|check-in|thank-you|update|response|one(?!\s+(?:label|tag)))s?\b|comment|reply|respond|answer|"
    r"write|post|tell(?!\s+(?:me|us)\b)|let\s+(?!(?:me|us)\b)(?:\S+\s+){1,5}?know|ask(?!\s+(?:me|us|you)\b)|"
    r"thank(?!\s+(?:you|u)\b)|ping|note|close\s+the\s+loop|follow\s+up|check\s+in|"
    r"say|\+1)\b",
    re.I,
)
DRAFT_RE = lazy(r"\b(?:draft|suggest|propose|compose)\b|\b(?:don'?t|do\s+not|without)\s+post", re.I)
_REPLY_NOUN_RE = lazy(r"\b(?:reply|replies|response|comment|answer|message|note)\b", re.I)
_COMPOSE_RE = lazy(
    r"(?:pointing|linking|explaining|summari[sz]ing|describing|mentioning|referring|asking|citing|quoting|with\s+(?:a|the)\s+"
    r"(?:link|summary|explanation))\b",
    re.I,
)
_ON_EACH_RE = lazy(
    r"\b(?:on|to|under|in)\s+(?:(?:both|each\s+of|all\s+of|issues?|tickets?)\s+)?"
    r"(?P<list>#?\d{1,5}(?:\s*(?:,|and|&|\+)\s*#?\d{1,5})+)\b",
    re.I,
)
"""Several issues the comment goes on: `on 41 and 87`, `on #3, #5 and #8`, `the same comment on …`."""
_ON_ALL_RE = lazy(
    r"\b(?:on|to|under)\s+(?:both|each(?:\s+of\s+(?:them|those|these))?|all\s+of\s+(?:them|those|these)|them\s+all"
    r"|all\s+(?:two|three|four|five)|them|those|these)\b",
    re.I,
)
"""The issues named before, every one: `label #7400 and #7421 as bug and leave a comment on both …`."""
_ASK_RE = lazy(
    r"\b(?:ask(?:ing)?\s+(?:(?P<who>@[\w-]+)\s+|(?:the\s+)?(?:reporter|author|op|them|him|her|people|folks|users?)\s+)?"
    r"|tell(?:ing)?\s+(?:the\s+)?(?:reporter|author|op|them|him|her|people|folks|users?)\s+(?=(?:(?:of|on|in)\s+\S+\s+)?to\b))"
    r"(?:(?:of|on|in)\s+(?:issue\s+)?#?\d{1,5}\s+)?(?:for\s+(?P<what>[^.?!;]+?)|to\s+(?P<do>[^.?!;]+?)"
    r"|(?P<whether>(?:whether|if|which|what|how|when|where|who)\s+[^?!;]+?))\s*[.?!]*\s*$",
    re.I,
)
"""What a comment is to ask for (`… for a minimal repro`), ask someone to do (`… to try 3.2`, `tell them to try
3.2`) or to tell (`asking the reporter which versions they use`)."""
_CLAUSE_RE = lazy(
    r"(?:\b(?:saying|that\s+says|to\s+say)|(?:\d|\bit|\bthem|\bcomment|\breply|\bnote|\bpost)\s+that)\s+(?P<b>\w.*)$",
    re.I,
)
"""A comment's text said as a clause, which may quote words of its own."""
_PINGED_RE = lazy(r"^\s*@?(?P<who>[A-Za-z0-9][\w-]*)\s+(?:on|in|about|re)\s+(?:issue\s+)?#?\d", re.I)
ISSUE_QUOTE_RE = lazy(
    r"^\s*(?:(?:and|also)\s+)?(?:(?:on|to)\s+)?(?:issue\s+)?#?(\d{1,5})\s*:\s*\"Q\d+\"\s*[.!]?\s*$", re.I
)
"""`87: 'backoff fix lands in 2.8.4'`, `… And on 93: 'approved'`: an issue and the text to post on it."""


def comment_body(request: Request, text: str) -> str | None:
    """The text to post: what is quoted, else what follows `:`, `saying`, `that`, or the person addressed."""
    quoted = quoted_texts(request)
    said = _CLAUSE_RE.search(text)
    if said and quoted and re.sub(r"\"Q\d+\"", " ", said.group("b")).strip(" .,!?"):
        return request.unmasked(said.group("b")).strip()  # `… comment that we keep 'all' for billing`: quotes inside
    if quoted:
        return quoted[0].strip()
    if asked := _asked(text):
        return asked
    verb = COMMENT_RE.match(text)
    rest = text[verb.end() :] if verb else text
    if verb and verb.group(0).lower().endswith("ping") and (who := _PINGED_RE.match(rest)):
        return f"@{who.group('who')}"  # `ping lhoestq on 7421`: the mention is the whole message
    if verb and verb.group(0).lower().endswith("know") and (told := re.match(r"\s*(?:that\s+)?(?P<b>\w.+)$", rest)):
        return told.group("b").strip()  # `let the folks on 87 know it's fixed`: what they are to know
    for pattern in (
        r":\s*(?P<b>.+)$",
        r"^\s*(?:the\s+)?(?:reporter|author|op|folks|people|users?|everyone)\s+(?:of|on|in)\s+(?:issue\s+)?#?\d+\s+"
        r"(?:know\s+)?(?:that\s+)?(?P<b>.+)$",
        r"\b(?:saying|that\s+says|to\s+say|with\s+the\s+text|with\s+text|telling\s+them|letting\s+them\s+know)\s+"
        r"(?:that\s+)?(?P<b>.+)$",
        r"\bknow\s+(?:that\s+)?(?P<b>.+)$",
        r"^\s*(?:to\s+)?@?[\w-]+\s+(?:on|in)\s+(?:issue\s+)?#?\d+\s+that\s+(?P<b>.+)$",  # `tell alexgrant on #90 that`
        r"^\s*(?:on|to|in|under)?\s*(?:issue\s+)?#?\d+\s+(?!(?:and|or|with|to|on|in|about|for|the|that|saying)\b)(?P<b>\w.{8,})$",
        r"^\s*(?:(?:on|to|in|for)\s+)?(?:the\s+)?(?:issue\s+)?(?:#?\d+|it|this|there|that\s+one)?\s*(?:'s\s+)?"
        r"(?:reporter|author|op|folks|people|thread|issue)?\s*(?:that\s+)(?P<b>.+)$",
        r"^\s*(?:(?:on|to|in|for)\s+)?(?:the\s+)?(?:issue\s+)?(?:#?\d+|it|this|there|that\s+one)?\s*"
        r"(?:(?:reporter|author|op|folks|people|everyone|users?|them|@?[\w-]+)\s+)?(?:on\s+(?:#?\d+|it)\s+)?"
        r"(?P<b>(?:we|we'?re|we'?ve|you|i|i'?m|i'?ve|please|thanks|thank|could|can|should|it'?s|this\s+is)\b.+)$",
    ):
        if match := re.search(pattern, rest, re.I):
            body = match.group("b").strip()
            if _COMPOSE_RE.match(body):
                return None  # `comment on 87 pointing at that section`: text to write, not text given
            if len(re.findall(r"\w+", body)) >= (1 if pattern.startswith(":") else 2):
                return body
    if re.search(r"\bthank", text, re.I):
        reason = re.search(r"\bfor\s+(?P<why>[^.?!]+)", rest, re.I)
        return "Thank you" + (f" for {reason.group('why').strip()}" if reason else "") + "!"
    return None


def _asked(text: str) -> str | None:
    """`ask the reporter of 7419 for a minimal repro`, `comment asking for the datasets version`: the question, as
    the thank-you is written for `thank`; the words asked for are the user's own."""
    if not (ask := _ASK_RE.search(text)):
        return None
    wanted = ask.group("what") or ask.group("do") or f"tell us {ask.group('whether')}"  # `ask whether it still …`
    wanted = re.sub(
        r"\b(?:their|his|her)\b", "your", re.sub(r"\b(?:them|they|him)\b", "you", wanted.strip(), flags=re.I)
    )
    question = f"ould you {'share ' if ask.group('what') else ''}{wanted}?"
    return f"{ask.group('who')} c{question}" if ask.group("who") else f"C{question}"


def comment_act(request: Request, text: str, context: Sequence[int]) -> Act | None:
    """The comment to post: on each issue the request names (`post the same comment on 41 and 87: …`), else on
    the one it follows."""
    body = comment_body(request, request.text)  # the user's own words, never typo-corrected
    if body is None:
        return None
    ids = _targets_beside(text, body, context)
    if not ids:
        return None
    listed = _ON_EACH_RE.search(text)
    on = (
        [int(n) for n in re.findall(r"\d+", listed.group("list"))]
        if listed
        else ids[: len(ids) if _ON_ALL_RE.search(text) else 1]
    )
    if on[0] != ids[0]:
        on = ids[:1]  # `comment on 41 that the fix is on 48 and 109`: the list is in the text, not the target
    return Act(Intent.COMMENT, request.unmasked(), targets=on, comments=[(issue_id, body) for issue_id in on])


def _targets_beside(text: str, body: str, context: Sequence[int]) -> list[int]:
    """The issues the comment goes on, read outside its text: `… saying we can reproduce it with pyarrow 19` goes on
    the issue named before, not on #19; `say 'thanks!' on #41` on the one named after it."""
    at = text.find(body[:24]) if body else -1
    if at < 0:
        return targets(text, context)
    return targets(text[:at], context) or targets(text[at + len(body) :], context) or targets(text, context)


def draft_act(request: Request, text: str, context: Sequence[int]) -> Act | None:
    """`draft a reply to #87`, `write a reply to 41 but don't post it`: the issue to reply to is read, and the
    answer says the planner writes no prose of its own; nothing is posted."""
    if not DRAFT_RE.search(text) or not (noun := _REPLY_NOUN_RE.search(text)):
        return None
    to = re.match(r"\w*\s+(?:to|for|on)\s+(?:issue\s+)?#?(\d{1,5})\b", text[noun.start() :])
    ids = [int(to.group(1))] if to else targets(text, context)
    if not ids:
        return None
    return Act(
        Intent.NOTHING,
        request.unmasked(),
        issue_ids=ids[:1],
        targets=ids[:1],
        notes=[
            f"I cannot draft a reply: the offline planner writes no prose of its own, so here is #{ids[0]} to "
            f"reply to. To post your own text, say `comment on #{ids[0]}: <your text>` (you approve it first)."
        ],
    )


def comment_help(ids: Sequence[int]) -> str:
    if ids:
        return f"To comment on #{ids[0]}, give the text too: `comment on #{ids[0]}: Looking into it.`"
    return "To post a comment, name the issue and give the text: `comment on #41: Looking into it.`"
