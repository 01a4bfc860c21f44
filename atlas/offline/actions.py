"""Requests for actions (labels and comments) in a question, for the offline planner.

A comment's body is the user's own text, taken out before any other rule reads the question.
Labels may be named exactly (`comp:core`) or in words (`postgres broker`, `sev 1`, `a bug`);
the words are read against the dataset's own label set. A request with no issue named, or a
question about an action ("what would you label #130?", "draft a reply to #87") is never an
action: it is answered with a note saying what to type instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from atlas.foundation.label_names import resolve_label
from atlas.offline.label_usage import example_label
from atlas.offline.labels import label_in_phrase, not_added, only_label_words
from atlas.offline.lazy import lazy
from atlas.offline.search import strip_quotes

_LABEL_TOKEN = r"(?:[A-Za-z][\w.-]*:[A-Za-z0-9][\w.-]*|\"[^\"]+\"|'[^']+'|`[^`]+`)"
_LABELS = rf"{_LABEL_TOKEN}(?:\s*(?:,|\band\b|&)\s*{_LABEL_TOKEN})*"
_IDS = r"#?\d+(?:\s*(?:,|\band\b|&)\s*(?:issue\s+)?#?\d+)*"
POLITE = (
    r"(?:^|(?<=[,;.!?:])|\band\s+|\bthen\s+|\balso\s+)\s*"
    r"(?:(?:please|pls|can you|could you|would you|kindly|go ahead and|i'?d like you to|i want you to)\s+)*"
)
"""Where a request can start: the question's start or a new clause ("show #87 and label #41 ...")."""
_LABEL_ACTIONS = (
    # "label #41 comp:core", "tag issue 41 with type:bug", "label #41 and #87 as comp:core"
    lazy(
        rf"{POLITE}(?:label|tag)\s+(?:issues?\s+)?(?P<ids>{_IDS})\s+(?:(?:as|with)\s+)?(?:the\s+)?(?:labels?\s+)?"
        rf"(?P<labels>{_LABELS})",
        re.IGNORECASE,
    ),
    # "add severity:S2 to issue 87", "add the label comp:core to #41", "apply type:bug on #87"
    lazy(
        rf"{POLITE}(?:add|apply|put|set)\s+(?:the\s+|a\s+)?(?:labels?\s+)?(?P<labels>{_LABELS})\s+(?:labels?\s+)?"
        rf"(?:to|on|onto)\s+(?:issues?\s+)?(?P<ids>{_IDS})",
        re.IGNORECASE,
    ),
)
_MORE_LABELS_RE = lazy(
    rf"\s*(?:,\s*(?:and\s+)?|\band\s+|&\s*)(?:issue\s+)?(?P<ids>#\d+|\d+(?=\s+{_LABEL_TOKEN}))\s+"
    rf"(?:(?:as|with)\s+)?(?P<labels>{_LABELS})",
    re.IGNORECASE,
)
"""The same verb carried on to another issue: "label #41 severity:S2 and #45 severity:S3"."""
_LABEL_VERB_RE = lazy(
    rf"{POLITE}(?:label|tag)\s+(?:issues?\s+#?\d+|#?\d+|it|them|this|that)\b|{POLITE}add\s+(?:a\s+)?label\b", re.I
)
_COMMENT_RE = lazy(
    rf"{POLITE}(?:post\s+(?:a\s+)?comment|add\s+(?:a\s+)?comment|write\s+(?:a\s+)?comment|leave\s+(?:a\s+)?comment|"
    r"comment|reply|respond)\s+(?:on|to|in)?\s*(?:issue\s+)?#?(?P<id>\d+)\b\s*(?P<body>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_COMMENT_VERB_RE = lazy(
    rf"{POLITE}(?:(?:post|add|write|leave)\s+(?:a\s+)?comment|comment|reply|respond)\b(?!\s+#?\d)", re.IGNORECASE
)
"""A comment request that names no issue number: "comment on it: …", "reply to the thread"."""
_POST_QUOTED_RE = lazy(
    rf"{POLITE}(?:post|write|leave|add|comment)\s+(?P<body>\"[^\"]+\"|'[^']+'|`[^`]+`)\s+(?:as\s+a\s+comment\s+)?"
    r"(?:on|to|in|under)\s+(?:issue\s+)?#?(?P<id>\d+)\b",
    re.IGNORECASE,
)
"""`post "Fixed in 2.8.3." on #41`: the quotes mark where the user's text ends."""
_COMMENT_LEAD_RE = lazy(r"^(?::|-|—|–|,)?\s*(?:(?:saying|that says|with the text|with text|with)\b:?\s*)?", re.I)
_WHO = r"(?:the\s+)?(?!(?:me|us|you)\b)(?:reporter|author|op|folks|people|users?|everyone|team|them|\w+)"
"""Who is to be told: anyone but the user ("tell me on 87 ...") and Atlas ("thank you for 41")."""
_ID = r"(?:issue\s+|ticket\s+)?#?(?P<id>\d+)\b"
_INDIRECT_COMMENTS = (
    # "tell the reporter of #41 we're on it", "let the folks on 87 know it's fixed in 2.8.3"
    lazy(
        rf"{POLITE}(?:tell|let|inform|notify)\s+{_WHO}\s+(?:of|on|in)\s+{_ID}\s+(?:know\s+)?(?:that\s+)?(?P<body>\S.*)$",
        re.I | re.DOTALL,
    ),
    # "let them know on #65 that ...", "write on issue 20 that ...", "respond on #13 that ..."
    lazy(
        rf"{POLITE}(?:let\s+{_WHO}\s+know|write|respond|reply|say|note)\s+(?:on|in|to)\s+{_ID}\s*(?:that|saying|:)\s*"
        r"(?P<body>\S.*)$",
        re.I | re.DOTALL,
    ),
    # "ping #87: can you try poll_interval = 1s?"
    lazy(rf"{POLITE}ping\s+{_ID}\s*[:,-]\s*(?P<body>\S.*)$", re.I | re.DOTALL),
)
_ASK_AUTHOR_RE = lazy(
    rf"{POLITE}ask\s+{_WHO}\s+(?:of|on|in)\s+{_ID}\s+(?P<how>for|to)\s+(?P<body>\S.*?)\s*[.?!]?\s*$", re.I | re.DOTALL
)
_THANK_RE = lazy(rf"{POLITE}thank\s+{_WHO}\s+(?:on|in|for)\s+{_ID}(?:\s+for\s+(?P<body>\S.*?))?\s*[.!]?\s*$", re.I)
_DRAFT_RE = lazy(
    r"\b(?:draft|suggest|propose|compose)\s+(?:a\s+|an\s+)?(?:reply|response|comment|answer)\s+(?:to|for|on)\s+"
    r"(?:issue\s+)?#?(?P<id>\d+)\b|\b(?:write|prepare)\s+(?:a\s+)?(?:reply|response|comment)\s+(?:to|for|on)\s+"
    r"(?:issue\s+)?#?(?P<id2>\d+)\b(?=.*\b(?:don'?t|do\s+not|without)\s+post)",
    re.IGNORECASE,
)
_ASKS_ABOUT_LABEL_RE = lazy(
    r"\b(?:what|which|how)\s+(?:label\s+)?(?:would|should|do|does|could)\s+(?:you|we|i)\s+(?:label|tag)\b"
    r"|^\s*(?:should|would|is|does)\s+#?\d+\s+(?:be|need|have|get)\b",
    re.IGNORECASE,
)
_IDS_ONLY = r"(?P<ids>#?\d+(?:\s*(?:,|\band\b|&)\s*(?:issue\s+)?#?\d+)*)"
_WORDED_LABELS = (
    # "tag 87 with postgres broker", "mark 41 as a bug", "flag 130 as a worker issue", "lbl 95 sev1"
    lazy(rf"{POLITE}(?:label|tag|mark|flag|classify)\s+(?:issues?\s+)?{_IDS_ONLY}\s+(?P<phrase>[^,;.!?]+)", re.I),
    # "bump 95 to sev 1", "move 87 to severity S2", "make 90 a feature request", "put #45 in the core component"
    lazy(rf"{POLITE}(?:bump|move|raise|lower|make|put|set)\s+(?:issues?\s+)?{_IDS_ONLY}\s+(?P<phrase>[^,;.!?]+)", re.I),
    # "set severity of 23 to S1"
    lazy(
        rf"{POLITE}set\s+(?P<phrase>sev\w*|priority)\s+(?:of|on|for)\s+(?:issues?\s+)?{_IDS_ONLY}\s+to\s+"
        r"(?P<value>[^,;.!?]+)",
        re.I,
    ),
    # "add the scheduler label to 110", "add label type bug to 130", "severity S3 on 130 please"
    lazy(
        rf"{POLITE}(?:(?:add|apply|put)\s+(?:the\s+|a\s+)?(?:labels?\s+)?)?(?P<phrase>[\w: -]+?)\s+(?:labels?\s+)?"
        rf"(?:to|on|onto)\s+(?:issues?\s+)?{_IDS_ONLY}\s*(?:please|pls)?\s*[.!]?\s*$",
        re.I,
    ),
    # "87 is sev 2"
    lazy(rf"^\s*{_IDS_ONLY}\s+is\s+(?P<phrase>sev(?:erity)?\s*s?\d)\s*[.!]?\s*$", re.I),
    # "this is a redis broker thing, label 111 accordingly"
    lazy(rf"^(?P<phrase>.+?),?\s+(?:so\s+)?(?:label|tag)\s+(?:issues?\s+)?{_IDS_ONLY}\s+accordingly\b", re.I),
)


def _sentence(body: str) -> str:
    body = strip_quotes(body.strip())
    if not body:
        return body
    body = body[0].upper() + body[1:]
    return body if body[-1] in ".!?" else body + "."


@dataclass
class Taken:
    """What the action rules found in a question: a comment, labels, and notes on what they could not do."""

    comment: tuple[int, str] | None = None
    labels: list[tuple[int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def take_comment(text: str) -> tuple[str, Taken]:
    """A comment request, and the question without it; its body is the user's own text, kept out of every
    other rule."""
    taken = Taken()
    return _take_comment(text, taken), taken


def _take_comment(text: str, taken: Taken) -> str:
    draft = _DRAFT_RE.search(text)
    if draft:
        issue_id = int(draft.group("id") or draft.group("id2"))
        taken.notes.append(
            f"I cannot draft a reply: the offline planner writes no prose of its own, so here is #{issue_id} to "
            f"reply to. To post your own text, say `comment on #{issue_id}: <your text>` (you approve it first)."
        )
        return text[: draft.start()] + f" #{issue_id} " + text[draft.end() :]
    for pattern in _INDIRECT_COMMENTS:
        if match := pattern.search(text):
            taken.comment = (int(match.group("id")), _sentence(match.group("body")))
            return text[: match.start()]
    if match := _ASK_AUTHOR_RE.search(text):
        what = match.group("body").strip()
        body = f"Could you share {what}?" if match.group("how").lower() == "for" else f"Could you {what}?"
        taken.comment = (int(match.group("id")), body)
        return text[: match.start()]
    if match := _THANK_RE.search(text):
        reason = f" for {match.group('body').strip()}" if match.group("body") else ""
        taken.comment = (int(match.group("id")), f"Thank you{reason}!")
        return text[: match.start()]
    return _take_plain_comment(text, taken)


def _take_plain_comment(text: str, taken: Taken) -> str:
    """A comment request; its body is the user's own text, kept out of every other rule."""
    match = _COMMENT_RE.search(text)
    if not match:
        quoted = _POST_QUOTED_RE.search(text)
        if quoted:
            taken.comment = (int(quoted.group("id")), strip_quotes(quoted.group("body")))
            return text[: quoted.start()] + " " + text[quoted.end() :]
        verb = _COMMENT_VERB_RE.search(text)
        if verb:
            taken.notes.append(
                "To post a comment, name the issue and give the text: `comment on #41: Looking into it.`"
            )
            return text[: verb.start()]
        return text
    body = strip_quotes(_COMMENT_LEAD_RE.sub("", match.group("body").strip(), count=1))
    issue_id = int(match.group("id"))
    if re.search(r"\w", body):  # "comment on #41?" asks, it gives no text to post
        taken.comment = (issue_id, body)
    else:
        taken.notes.append(f"To comment on #{issue_id}, give the text too: `comment on #{issue_id}: Looking into it.`")
    return text[: match.start()]


def take_labels(text: str, labels: Sequence[str]) -> tuple[str, Taken]:
    """Label requests, and the question without them: exact label names first, then labels named in words;
    a label verb without both is a note."""
    taken = Taken()
    return _take_labels(text, taken, labels), taken


def _take_labels(text: str, taken: Taken, labels: Sequence[str]) -> str:
    if _ASKS_ABOUT_LABEL_RE.search(text):
        return text  # a question about labelling is answered by reading, never by an action
    exact = False
    for pattern in _LABEL_ACTIONS:
        while match := pattern.search(text):  # "label #130 comp:worker and label #130 severity:S3"
            ids = [int(d) for d in re.findall(r"\d+", match.group("ids"))]
            found = _known(_label_tokens(match.group("labels")), labels, taken)
            taken.labels += [(issue_id, label) for issue_id in ids for label in found]
            end = match.end()
            while more := _MORE_LABELS_RE.match(text, end):
                found = _known(_label_tokens(more.group("labels")), labels, taken)
                taken.labels += [(int(more.group("ids").lstrip("#")), label) for label in found]
                end = more.end()
            text, exact = text[: match.start()] + " " + text[end:], True
    if exact:
        return text
    for pattern in _WORDED_LABELS:
        match = pattern.search(text)
        phrase = match and " ".join(g for g in (match.group("phrase"), match.groupdict().get("value")) if g)
        label = label_in_phrase(phrase, labels) if match and phrase else None
        # Every word must name the label ("the core team commented on 41" asks for no label), except
        # in "..., label 111 accordingly", where the words before are the user's reason.
        if match and label and (pattern is _WORDED_LABELS[-1] or only_label_words(phrase or "", label)):
            ids = [int(d) for d in re.findall(r"\d+", match.group("ids"))]
            taken.labels += [(issue_id, label) for issue_id in ids]
            return text[: match.start()] + " " + text[match.end() :]
    verb = _LABEL_VERB_RE.search(text)
    named = _WORDED_LABELS[0].search(text)
    if verb and named and labels and len(named.group("phrase").split()) <= 3:
        taken.notes.append(not_added(named.group("phrase"), labels))
        return text[: verb.start()] + " " + text[verb.end() :]
    if verb:
        example = example_label(labels)
        taken.notes.append(
            f"To add a label, name the issue and the label: `label #41 {example}` or `add {example} to 87`."
        )
        return text[: verb.start()] + " " + text[verb.end() :]
    return text


def _label_tokens(text: str) -> list[str]:
    return [strip_quotes(token) for token in re.findall(_LABEL_TOKEN, text)]


def _known(tokens: list[str], labels: Sequence[str], taken: Taken) -> list[str]:
    """The dataset's labels the tokens name; one it does not have is said in a note, never added."""
    found = []
    for token in tokens:
        label = (resolve_label(token, labels) or label_in_phrase(token, labels)) if labels else token
        if label:
            found.append(label)
        else:
            taken.notes.append(not_added(token, labels))
    return found
