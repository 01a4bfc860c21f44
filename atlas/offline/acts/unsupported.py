"""What no tool can do, for the offline planner's acts: said in a note and taken out of the words read after.

Pull requests (the data holds issues only); summing up themes (no model reads the issues here); closing,
assigning, editing or merging issues (the tracker tools only add and remove labels and post comments); ranking
people by what the data does not keep (who closed or answered issues); labelling many at once; and who closed an
issue (the data keeps who opened each issue, never who closed it). A request that asks only for these is answered
by its note; what else it asks is read as usual.
"""

from __future__ import annotations

import re

from atlas.offline.reading.dates import span_in
from atlas.offline.reading.lazy import lazy

POLITE = (
    r"(?:^|(?<=[,;.!?:])|\band\s+|\bthen\s+|\balso\s+)\s*"
    r"(?:(?:please|pls|can you|could you|would you|kindly|go ahead and|i'?d like you to|i want you to)\s+)*"
)
"""Where a request can start: the question's start or a new clause ("show #87 and close #41 ...")."""
_UNSUPPORTED_RE = lazy(
    rf"{POLITE}(close(?!\s+the\s+loop\b)|reopen|assign|unassign|delete|remove|unlabel|edit|merge|lock|unlock|rename|retitle|"
    r"transfer|pin)\b(?=[^.,;!?]*(?:#?\d|\bissues?\b|\bit\b|\bthem\b|\blabels?\b))",
    re.IGNORECASE,
)
_WHO_MOST_RE = lazy(
    r"\bwho(?:'s|\s+has|\s+have)?\s+(?:\w+\s+)?(?:closed|commented|answered|replied|fixed|resolved|reviewed|triaged|"
    r"labell?ed)\b(?!\s+(?:on\s+)?(?:issue\s+|ticket\s+)?#?\d)"
    r"|\b(?:which|what)\s+(?:authors?|reporters?|users?|people|maintainers?)\s+(?:\w+\s+)?(?:closed|commented|answered|"
    r"replied|fixed|resolved)\b"
    r"|\b(?:top|most\s+active|biggest|busiest)\s+(?:\d{1,2}\s+)?(?:commenters|repliers|responders|answerers|closers|fixers)\b",
    re.IGNORECASE,
)
"""Who did what to issues, other than opening them: the data keeps who opened an issue, and the comments' authors
only as a thread to read."""
_CLOSE = r"(?:close|closed|resolve|resolved)"
CLOSER_RE = lazy(
    rf"\bwho\s+(?:has\s+|had\s+)?{_CLOSE}\b"
    rf"|\b(?:which|what)\s+(?:(?:\w+\s+)?(?:issues?|bugs?|tickets?|ones?)\s+)?(?:did|has|have|had)\s+"
    rf"(?P<who>@?[\w.-]+)\s+{_CLOSE}\b"
    rf"|\b{_CLOSE}\s+by\s+(?!#|\d|the\b|a\b|an\b)@?[\w.-]+"
    # `which bugs did lhoestq fix?`, `fixed by severo`: fixed by someone named (what the team fixed is its closed ones)
    r"|\b(?:which|what)\s+(?:(?:\w+\s+)?(?:issues?|bugs?|tickets?|ones?)\s+)?(?:did|has|have|had)\s+"
    r"(?!(?:we|you|i|they|us)\b)@?[\w.-]+\s+fix(?:ed)?\b|\bfixed\s+by\s+(?!#|\d|the\b|a\b|an\b|us\b)@?[\w.-]+"
    r"|\bwho\s+(?:has\s+|had\s+)?fixed\b",
    re.IGNORECASE,
)
"""`who closed #41?`, `which issues did lhoestq close?`, `bugs closed by severo`: who closed an issue."""
_LABEL_MANY_RE = lazy(
    r"\b(?:label|tag|mark)\s+(?:every|all|each|the\s+rest)\b[^,;.!?]*"
    r"|\b(?:add|put|apply|give)\s+(?:the\s+|a\s+)?[\w:-]+(?:\s+[\w:-]+)?\s+(?:label|tag)\s+(?:to|on)\s+(?:every|all|each)\b[^,;.!?]*",
    re.IGNORECASE,
)


_PULL_REQUESTS_RE = lazy(
    r"(?:\b(?:open|closed|merged|draft|new|latest|recent|any|all|the|my|our)\s+)*"
    r"\b(?:prs?|pull\s+requests?|merge\s+requests?|mrs?)\b",
    re.IGNORECASE,
)


_NO_PULL_REQUESTS = (
    "The data holds this project's issues, not its pull requests: I can search, count and read issues "
    "(`open issues about streaming`)."
)
"""Pull requests: the data holds a project's issues only, so none is searched for in their place."""
_NO_CLOSER = (
    "The data does not record who closed an issue: it keeps who opened each one, when, and whether it is open or "
    "closed. I can list closed issues, or the issues someone opened (`closed issues opened by <name>`)."
)
"""Who closed an issue: the data does not record it, so no search of the name in the text stands in for it."""
_NO_CLOSING_DAY = (
    "The data does not record when an issue was closed: it keeps when each was opened and whether it is closed now. "
    "I can list the issues opened then that are closed now (`closed issues opened {said}`)."
)
_US = frozenset({"we", "i", "you", "they", "us"})
"""Who closed said as the team or the person asking: what is asked is which issues, and when."""
_CLOSING_TIME_RE = lazy(
    r"\b(?:how\s+long\s+(?:does\s+it|do\s+(?:we|they|you))\s+(?:take\s+)?(?:us\s+)?(?:to\s+)?(?:close|fix|resolve)"
    r"|(?:average|median|mean|typical)\s+(?:time\s+(?:(?:it\s+)?takes?\s+(?:us\s+|them\s+)?)?(?:to|until|before)\s+"
    r"(?:close|closing|fix|resolve)|(?:resolution|closing|close)\s+time))\b",
    re.I,
)
_WHEN_CLOSED_RE = lazy(
    r"\bwhen\s+(?:was|were|did|has|had)\s+(?:#?\d{1,6}|it|this|that|they|these|those|the\s+[\w-]+)\s+(?:get\s+|been\s+)?"
    r"(?:closed|close|resolved|resolve|fixed|fix)\b|\b(?:closing|close|closed|resolution)\s+(?:date|day|time)\b",
    re.I,
)
_NO_CLOSED_DAY = (
    "The data does not record when an issue was closed: it keeps when each was opened and whether it is closed now."
)
"""`when was #6985 closed?`: the issue is read (it says whether it is closed), and the note says the day is not kept."""
_NO_CLOSING_TIME = (
    "The data does not record when an issue was closed, so I cannot work out how long closing takes: it keeps when "
    "each issue was opened and whether it is closed now."
)
_NO_RANKING = (
    "I cannot count who closed, fixed or answered issues: the data says who opened each issue, so I count "
    "issues by who opened them (`who opened the most bugs?`), and each issue's thread shows who answered it."
)
_NO_LABEL_MANY = (
    "I cannot label many issues at once: I add one label to the issues you name, each after your approval. "
    "Name the issue and the label: `label #41 <label>`."
)


_SYNTHESIS_RE = lazy(
    r"[,;]?\s*(?:\b(?:and|also|plus)\s+)?(?:\b(?:the|a|an|some)\s+)?"
    r"(?:\b(?:main|common|top|key|recurring|biggest|major)\s+(?:themes?|trends?|patterns?|topics?)\b"
    r"(?:\s+(?:among|in|of|across|behind)\s+(?:them|those|these)\b)?"
    r"|\b(?:themes|trends|patterns)\s+(?:among|across|behind)\s+(?:them|those|these)\b)"
    r"|\b(?:summari[sz]e|a\s+summary\s+of|sum\s+up)\s+what\s+(?:people|users|folks|everyone|they)\s+"
    r"(?:have\s+been\s+|are\s+|were\s+|keep\s+)?(?:complain|ask|talk|say|report|request)\w*(?:\s+(?:about|for))?(?:\s+most)?",
    re.I,
)
"""An ask to sum up what issues share: `the main themes among them`, `recurring patterns`, `summarise what people
have been complaining about`; not a topic that says the word (`glob patterns`, `theme support`)."""
_NO_SYNTHESIS = (
    "I cannot sum up themes offline: I search, count and list issues (`open issues by label`, "
    "`open issues about streaming`), and a model (set `OPENAI_API_KEY`) can read them and say what they share."
)


_SUMMARY_RE = lazy(
    r"\b(?:summari[sz]e|sum\s+up|tl;?dr(?:\s+of)?|(?:give\s+me\s+)?(?:a\s+)?(?:short\s+|quick\s+)?(?:summary|gist)\s+of)\b"
    r"(?P<rest>.*?)(?:\s+(?:in|with)\s+(?:one|two|three|a\s+few|\d)\s+(?:sentences?|lines?|words?|bullets?))?\s*[.!?]*\s*$",
    re.I,
)
"""`summarize issue 7394 for me in two sentences`: the issue is read and shown whole, and the note says why."""
_NO_SUMMARY = (
    "I show what I read as it is: the offline planner does not summarise, and a model (set `OPENAI_API_KEY`) can."
)


def without_synthesis(text: str) -> tuple[str, str | None]:
    """The words without an ask to sum up what issues share (`the main themes among them`, `summarise what people
    have been complaining about`) or to summarise what is read (`summarize issue 7394`), and the note that says it
    cannot be done here; the words as they are without one."""
    if found := _SYNTHESIS_RE.search(text):
        return text[: found.start()] + " " + text[found.end() :], _NO_SYNTHESIS
    if summary := _SUMMARY_RE.search(text):
        return f"{text[: summary.start()]} show {summary.group('rest')}", _NO_SUMMARY
    return text, None


def unsupported(text: str, notes: list[str], example: str) -> str:
    """The words with what no tool can do taken out, each said in `notes`; `example`: a label for the example."""
    text = _said_instead(_PULL_REQUESTS_RE.search(text), text, notes, _NO_PULL_REQUESTS)
    text = _said_instead(_CLOSING_TIME_RE.search(text), text, notes, _NO_CLOSING_TIME)
    if _WHEN_CLOSED_RE.search(text):
        notes.append(_NO_CLOSED_DAY)  # the issue named is still read: whether it is closed is known
    closer = CLOSER_RE.search(text)
    # `which issues did we close in january?`: the team's closing, asked by when; the data keeps no closing day
    span = span_in(text) if closer is not None and (closer["who"] or "").lower() in _US else None
    note = _NO_CLOSING_DAY.format(said=span.said) if span is not None else _NO_CLOSER
    text = _no_tracker_verb(_said_instead(closer, text, notes, note), notes, example)
    if ranking := _WHO_MOST_RE.search(text):  # a ranking by who did what: the rest of the words go with it
        notes.append(_NO_RANKING)
        return text[: ranking.start()]
    return _said_instead(_LABEL_MANY_RE.search(text), text, notes, _NO_LABEL_MANY)


def beside_labels(text: str) -> list[str]:
    """`tag #5887 as question and close it`: the note for a tracker verb said beside a label change, which is made
    alone (a label to remove is the change itself)."""
    said = _UNSUPPORTED_RE.search(text)
    if said is None or said.group(1).lower() in {"remove", "unlabel", "delete"}:
        return []
    return [_cannot(said.group(1).lower(), "issues")]


def _cannot(verb: str, what: str) -> str:
    return (
        f"I cannot {verb} {what}: Atlas's tracker tools only add and remove labels and post comments (each after your "
        "approval)."
    )


def _said_instead(match: re.Match[str] | None, text: str, notes: list[str], note: str) -> str:
    """The words without what `match` found, which `note` answers instead; the words as they are without a match."""
    if match is None:
        return text
    notes.append(note)
    return text[: match.start()] + " " + text[match.end() :]


def _no_tracker_verb(text: str, notes: list[str], example: str) -> str:
    """Closing, assigning, editing … an issue, which the tracker tools do not do."""
    unsupported = _UNSUPPORTED_RE.search(text)
    if not unsupported:
        return text
    verb = unsupported.group(1).lower()
    clause_end = re.compile(r"[,;.!?](?:\s|$)|\s(?:and|then)\s").search(text, unsupported.end())
    clause = text[unsupported.end() : clause_end.start() if clause_end else len(text)]
    what = "labels" if re.search(r"\blabels?\b", clause, re.IGNORECASE) or verb == "unlabel" else "issues"
    if what == "labels" and verb in {"remove", "unlabel", "delete"}:
        notes.append(f"To remove a label, name the issue and the label: `remove {example} from #41`.")
        return text[: unsupported.start()] + (text[clause_end.start() :] if clause_end else "")
    notes.append(_cannot(verb, what))
    return text[: unsupported.start()] + (text[clause_end.start() :] if clause_end else "")
