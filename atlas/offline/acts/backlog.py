"""Requests about the backlog as a whole, for the offline planner: the inbox and a triage plan.

`what needs my attention?`, `list stale issues`, `anything unanswered?`, `anything urgent?` read the inbox
(`list_inbox`, the code of `atlas inbox`), narrowed to a reason when one is named, to a topic, a label and a
first day when they are said (`untriaged issues about streaming`, `bugs with no reply`, `unanswered questions`,
`… from the last two weeks`), by the date
opened when an order is (`the newest untriaged issues`); `triage the new issues`, `triage 132 and 135`
read a plan (`plan_triage`, the code of `atlas triage --dry-run`) that the person reviews: nothing is
changed. `triage` as a noun (`the triage doc`) is not a request to triage; issues with no label at all
(`unlabelled issues`) are a search, as the inbox's untriaged ones may carry labels.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from atlas.offline.acts.act import LEAD, Act, Intent
from atlas.offline.acts.later import Later
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.authors_and_days import people_and_days
from atlas.offline.reading.entities import issue_refs
from atlas.offline.reading.issue_refs import KIND_OF_ISSUES
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.ordering import INBOX_BY_DATE, order_in
from atlas.offline.reading.people import ProjectPeople
from atlas.offline.reading.search import NO_LABEL_RE, Search, search_in
from atlas.offline.reading.search_labels import excluded_labels

_ISSUES = r"(?:issues?|tickets?|bugs?|reports?|ones|backlog|inbox|queue|prs?)"
_REASONS = {
    "untriaged": r"untriaged|unlabell?ed|without\s+labels|missing\s+labels|need(?:s|ing)?\s+triage"
    r"|(?:not|\w+n't|(?:has|have|is|are|was|were)nt|never)\s+(?:yet\s+)?(?:been\s+)?(?:triaged|labell?ed)",
    "unanswered": r"unanswered|unreplied"
    r"|(?:no|without\s+(?:any\s+)?|zero)\s+(?:repl(?:y|ies)|answers?|responses?|comments?)"
    r"|(?:nobody|no\s+one|no-one)\s+(?:has\s+|have\s+)?(?:answered|replied|responded|commented)(?:\s+(?:to|on))?"
    r"|never\s+(?:been\s+)?(?:answered|replied\s+to|responded\s+to)"
    r"|never\s+(?:got|gotten|had|received)\s+(?:an?\s+|any\s+)?(?:answers?|repl(?:y|ies)|responses?)"
    r"|waiting\s+(?:on|for)\s+(?:me|us|(?:a|an|our)\s+(?:reply|answer|response))",
    "waiting": r"waiting\s+(?:on|for)\s+(?:the\s+)?(?:reporters?|authors?|users?|them)",
    "stale": r"stale|idle|dormant|forgotten|neglected|rotting|(?:i|we)\s+(?:should|could|can)\s+close"
    r"|(?:should|could|can)\s+(?:probably\s+)?be\s+closed|safe\s+to\s+close|candidates?\s+(?:to|for)\s+clos(?:e|ing)",
}
_REASON_RE = lazy(
    "|".join(rf"(?P<{reason}>\b(?:{words})\b)" for reason, words in _REASONS.items()),
    re.I,
)
_NEEDS_ME_RE = lazy(
    r"\bneeds?\s+(?:(?:my|our|your|a|some)\s+)?(?:attention|look|review|eyes|me|us|triage)\b|\binbox\b"
    r"|\bwhat\s+should\s+(?:i|we)\s+(?:look\s+at|work\s+on|pick\s+up|handle)\b|\bon\s+my\s+plate\b"
    r"|\b(?:backlog|queue)\s+(?:(?:of|for)\s+(?:[\w:-]+\s+){1,3}?)?looks?\s+like\b"
    r"|\bhow\s+(?:does|is)\s+(?:the\s+|our\s+)?(?:backlog|queue)\b"
    r"|\b(?:state|health|shape|overview|summary)\s+of\s+(?:the\s+|our\s+)?(?:backlog|queue)\b",
    re.I,
)
URGENT_RE = lazy(
    r"^\W*(?:is\s+)?(?:there\s+)?(?:anything|something|what'?s|whats)\s+(?:that'?s\s+|is\s+)?"
    r"(?:urgent|pressing|on\s+fire)\b",
    re.I,
)
"""`anything urgent?`, `what's on fire?`: the inbox, most severe first, asked in a word."""
_TRIAGE_RE = lazy(
    LEAD + r"(?:(?:please\s+)?(?:do\s+(?:a\s+)?|run\s+(?:a\s+)?))?triage\b(?!\s+(?:doc|docs|rules?|guide|section|page|"
    r"polic(?:y|ies)|labels?|process|meeting|notes?)\b)(?P<rest>.*)$",
    re.I,
)
_FRESH = r"(?:new|newest|untriaged|unlabell?ed|open|incoming|latest|last|recent|remaining|fresh)"
_PLAN_WORDS_RE = lazy(
    r"\b(?:propose|suggest|plan)\s+(?:some\s+)?(?:labels?|triage)\s+(?:for|on)\s+(?:the\s+|all\s+|our\s+)?"
    rf"(?:(?P<count>\d{{1,2}})\s+{_FRESH}\s+(?:{_FRESH}\s+)?|{_FRESH}\s+(?:(?P<then>\d{{1,2}})\s+(?:{_FRESH}\s+)?)?)"
    + _ISSUES
    + r"\b",
    re.I,
)
_WHAT_TO_TRIAGE_RE = lazy(
    r"\b(?:what|which)(?:'s|\s+is)?(?:\s+(?:of\s+the\s+)?(?P<noun>[\w-]+(?:\s+requests)?))??\s+"
    r"(?:(?:should|shall|must|do|can)\s+(?:i|we)\s+|(?:is\s+)?(?:left\s+)?to\s+|needs?\s+(?:to\s+be\s+)?)triag(?:e|ing|ed)\b",
    re.I,
)
"""`what should I triage first?`, `which issues do we triage today?`, `what's left to triage?`, `what needs triage
today`: the untriaged
issues of the inbox, asked as the person's task."""
_OPENED_WHEN_RE = lazy(r"\b(?:from|since|opened|created|filed|reported|raised)\b", re.I)
"""Beside the task, a time said after these words is when the issues came (`… from the last month`); otherwise it is
when the work is (`what should I triage today?`)."""
_PLAN_NOUN_RE = lazy(r"\btriage\s+(?:plan|proposals?)\b|\bplan\s+(?:for\s+|to\s+)?(?:the\s+)?triage\b", re.I)
"""`make me a triage plan for …`: the plan asked for as a thing, not with the verb."""
_PLAN_VERB_RE = lazy(
    r"\b(?:(?:propose|suggest|plan)\s+(?:some\s+)?(?:labels?|triage)|triage\s+(?:plan|proposals?)|plan\s+(?:for\s+|to\s+)?"
    r"(?:the\s+)?triage)\s+(?:for|on|of)?",
    re.I,
)
"""The words that ask for the plan, before the issues it is for."""
_PLAN_ASKED_AFTER_RE = lazy(
    r"[\s,;]+(?:and\s+)?(?:(?:suggest|propose)\s+(?:some\s+)?labels?\b|(?:just\s+)?(?:show|give)\s+(?:me\s+)?the\s+plan\b).*$",
    re.I,
)
"""`the last 10 unlabelled open issues, suggest labels`, `…, just show me the plan`: the plan asked again after the
issues."""
_FRESH_RE = lazy(rf"\s*(?:(?:\b{_FRESH}\b|\b(?:backlog|inbox|queue)\b|\d{{1,2}})\s*)*", re.I)
"""Words that name the backlog (`the new issues`, `the inbox`, `the latest 3`), no topic to search for."""
_ONE_IN_ORDER_RE = lazy(r"\b(?:newest|latest)\s+(?:[\w-]+\s+)?(?:issue|ticket|bug|report)\b(?!s)", re.I)
"""`suggest labels for the newest open issue`: one issue, found by its order (`searches.ordered`), not a plan."""
_BACKLOG_RE = lazy(
    r"^\s*(?:the\s+|all\s+|our\s+|my\s+|any\s+)?(?:(?:first\s+|top\s+)?(?P<count>\d{1,2})\s+"
    rf"(?:{_FRESH}\s*){{0,2}}|(?:{_FRESH}\s*)?(?:(?P<then>\d{{1,2}})\b\s*(?:{_FRESH}\s+){{0,2}})?)"
    r"(?:" + _ISSUES + r"\b|[?.!]*$)|^\s*(?:them|everything|it\s+all)\b",
    re.I,
)
"""`the new issues`, `the 5 newest issues`, `the latest 10 open issues`: the backlog to triage, and how many
(a second word of which issues only after a number: `the newest untriaged issues` is the inbox by date)."""
_QUALIFIES_ISSUES_RE = lazy(
    r"\s*(?:open\s+)?(?:" + _ISSUES + r")\b|\s*(?:yet|still|now|rn)?\s*[?.!]*\s*$"
    r"|\s*,?\s*(?:that|which)(?:'re|'s|\s+(?:are|is))\s+(?:still\s+)?open\b",
    re.I,
)
"""After a reason's word, what makes it a reason about issues: `stale issues`, `which are stale?`, `with no
comments that are still open` (the inbox holds open issues only)."""
_SAID_OF_ISSUES_RE = lazy(rf"\b{_ISSUES}\s+(?:(?:that|which)\s+)?$", re.I)
"""Before a reason's word, the issues it is said of: `open issues nobody has answered yet, oldest first`."""
_BACKLOG_OF_RE = lazy(
    r"\b(?:backlog|queue|inbox)\s+(?:of|for)\s+(?:the\s+|our\s+)?(?P<of>(?:[\w:-]+\s+){0,2}?[\w:-]+)"
    r"(?=\s+(?:looks?|is|are|like)\b|\s*[?.!]*\s*$)",
    re.I,
)
"""`the backlog of dataset requests`: the issues of a label, whose inbox is asked for."""
_TOPIC_RE = lazy(
    r"\b(?:about|on|for|regarding|mention(?:s|ing)?|concerning|related\s+to)\s+"
    r"(?!(?:my|our|your|me|us|fire|next|first|now|today|tomorrow|the\s+(?:backlog|inbox|queue|list))\b"
    r"|(?:the\s+)?(?:reporters?|authors?|users?|them)\b)\w",
    re.I,
)
"""A topic the issues are about; not `on my plate`, `on fire`, `waiting on the reporter`."""
PLAN_LIMIT = 10
MAX_PLAN = 50
"""The most issues one triage plan takes (`plan_triage`'s own bound)."""


def backlog_act(text: str, typed: str, labels: Sequence[str] = (), people: ProjectPeople | None = None) -> Act | None:
    """A request for the inbox or for a triage plan; None when the words ask for neither. `labels`: the project's,
    one of which may name the issues (`unanswered questions`, `stale enhancements`); `people`: its authors."""
    if (plan := _plan_asked(text, typed, labels, people)) is not None:
        return plan
    if issue_refs(text) or NO_LABEL_RE.search(text) or excluded_labels(text, labels)[0]:
        return None  # `unlabelled issues`, `not labelled bug`: a search by labels; the inbox's untriaged may have some
    order = order_in(text)[0]  # before the days are read: `by age` is no author
    typed_words = text
    text, filters = people_and_days(text, [])
    if "author" in filters:
        return None  # `untriaged issues by svetlana-k`: a search by the author says it more exactly
    if task := _WHAT_TO_TRIAGE_RE.search(text):
        arguments: dict[str, object] = {"only": "untriaged"}
        if "created_since" in filters and _OPENED_WHEN_RE.search(typed_words):
            arguments["opened_since"] = filters["created_since"]
        if about := _topic_of(text[: task.start()] + " " + text[task.end() :]):
            arguments["about"] = about
        if task.group("noun") and labels and (label := search_in(task.group("noun"), [], labels).label):
            arguments["label"] = label  # `which bugs should I triage?`: the inbox of the issues that label names
        return Act(Intent.INBOX, typed, reads=[PlannedCall("list_inbox", arguments)])
    reason = _REASON_RE.search(text)
    if reason and not _of_issues(text, reason, labels):
        reason = None  # `issues about stale leases`: the word is about something else
    since = filters.get("created_since") if reason else None  # `what needs me this week`: the week of the work
    if reason and filters and (set(filters) != {"created_since"} or reason.lastgroup in {"stale", "waiting"}):
        return None  # `stale since March`, `untriaged before 2024`: a search by days says it more exactly
    scope = text if reason is None else text[: reason.start()] + " " + text[reason.end() :]  # `waiting for a reply`
    topic = _TOPIC_RE.search(scope)
    label = search_in(scope[: topic.start()] if topic else scope, [], labels).label if reason and labels else None
    if label is None and labels and (of := _BACKLOG_OF_RE.search(scope)):
        label = search_in(of.group("of"), [], labels).label  # `what does the backlog of dataset requests look like`
        scope = scope[: of.start()] + " " + scope[of.end() :]  # no topic: `for bugs` named the issues
    asks_issues = re.search(rf"\b{_ISSUES}\b|\bwhat(?:s)?\b|\bwhich\b|\bany(?:thing)?\b", text, re.I) or label
    if not (_NEEDS_ME_RE.search(text) or URGENT_RE.search(text) or (reason and asks_issues)):
        return None
    arguments = {"only": reason.lastgroup} if reason else {}
    if order in INBOX_BY_DATE:
        arguments["order"] = order  # `the newest untriaged issues`: the inbox by date, not by severity
    if about := _topic_of(scope):
        arguments["about"] = about  # `untriaged issues about streaming`: the inbox narrowed to the topic
    if since:
        arguments["opened_since"] = since
    if label:
        arguments["label"] = label  # `bugs with no reply`: the inbox of the issues that label names
    return Act(Intent.INBOX, typed, reads=[PlannedCall("list_inbox", arguments)])


def _topic_of(words: str) -> str:
    """What the issues are said to be about (`… about streaming`), as search words; empty when nothing is."""
    topic = _TOPIC_RE.search(words)
    return (search_in(words[topic.start() :], []).query or "") if topic else ""


def _of_issues(text: str, reason: re.Match[str], labels: Sequence[str]) -> bool:
    """Whether a reason's word is said of issues (`stale issues`, `issues nobody answered`, `stale enhancements`)."""
    return bool(
        _QUALIFIES_ISSUES_RE.match(text, reason.end())
        or _SAID_OF_ISSUES_RE.search(text, 0, reason.start())
        or _label_follows(text, reason, labels)
    )


def _label_follows(text: str, reason: re.Match[str], labels: Sequence[str]) -> bool:
    """Whether the words right after a reason name one of the project's labels as the issues (`unanswered
    questions`, `bugs with no reply`); after a word that says stale, which is said of many things (`idle workers`,
    `stale cache`), only with a noun for issues (`stale feature requests`)."""
    after = re.match(r"\s*((?:[\w:-]+\s*){1,3})", text[reason.end() :])
    if not (labels and after) or (reason.lastgroup == "stale" and not _KIND_AFTER_RE.match(text, reason.end())):
        return False
    return bool(search_in(after.group(1), [], labels).label)


_KIND_AFTER_RE = lazy(KIND_OF_ISSUES, re.I)


def _plan_asked(text: str, typed: str, labels: Sequence[str], people: ProjectPeople | None) -> Act | None:
    """A triage plan asked for: of issues named, of those a search finds, or of the backlog; None when none is."""
    if triage := _TRIAGE_RE.match(text):
        ids = issue_refs(triage.group("rest")) or issue_refs(text[: triage.start("rest")])  # `7421 triage`
        if ids:
            return Act(Intent.TRIAGE, typed, reads=[PlannedCall("plan_triage", {"issue_ids": ids})])
        if found := _plan_for_found(typed, triage.group("rest"), labels, people):
            return found
        if backlog := _BACKLOG_RE.match(triage.group("rest")):
            return _plan_for_backlog(typed, int(backlog.group("count") or backlog.group("then") or PLAN_LIMIT))
        if not triage.group("rest").strip(" ?!."):
            return _plan_for_backlog(typed)
    if _PLAN_NOUN_RE.search(text) and (ids := issue_refs(text)):
        return Act(Intent.TRIAGE, typed, reads=[PlannedCall("plan_triage", {"issue_ids": ids})])
    planned = _PLAN_WORDS_RE.search(text) or _PLAN_NOUN_RE.search(text)
    if planned and not issue_refs(text) and not _ONE_IN_ORDER_RE.search(planned.group(0)):
        if found := _plan_for_found(typed, _PLAN_VERB_RE.sub(" ", text[planned.start() :], count=1), labels, people):
            return found
        said = planned.groupdict()
        return _plan_for_backlog(typed, int(said.get("count") or said.get("then") or PLAN_LIMIT))
    return None


_THOSE_RE = lazy(
    r"^\s*(?:them|those|these|(?:those|these|the)\s+(?:issues|ones|tickets|bugs)(?:\s+(?:above|listed|found|you\s+found))?"
    r"|the\s+ones\s+(?:above|listed|found|you\s+found)|all\s+of\s+(?:them|those|these))\s*(?:too|as\s+well|please|pls)?\s*[.!?]*\s*$",
    re.I,
)
"""`triage them`, `suggest labels for those issues`: the issues the search before found."""


def plan_for_found_before(text: str, typed: str, before: Search | None) -> Act | None:
    """`triage them` after a search: the same search again, then a plan for its hits (at most `MAX_PLAN`); None when
    the words do not point back at the issues a search found."""
    if before is None:
        return None
    if triage := _TRIAGE_RE.match(text):
        words = triage.group("rest")
    elif planned := _PLAN_VERB_RE.search(text):
        words = text[planned.end() :]
    else:
        return None
    if not _THOSE_RE.match(re.sub(r"^\s*(?:for|of|on)\b", " ", words, flags=re.I)):
        return None
    limit = min(before.limit or PLAN_LIMIT, MAX_PLAN)
    act = Act(Intent.TRIAGE, typed, search=replace(before, count=False, limit=limit))
    act.later.append(Later(planned_hits=limit))
    return act


def _plan_for_found(typed: str, words: str, labels: Sequence[str], people: ProjectPeople | None) -> Act | None:
    """`triage the open streaming issues`, `a triage plan for the issues from February 2025`: the issues a search
    finds (open ones, unless a state is said), then a plan for the first of them. None when the words name no issues
    but the backlog's own (`the 5 newest issues`) or a reason the inbox reads (`the untriaged issues`)."""
    reason = _REASON_RE.search(words)
    if reason and not (reason.lastgroup == "untriaged" and NO_LABEL_RE.search(words)):
        return None  # `the stale issues`: the inbox's reason; `the unlabelled issues from …`: those a search finds
    notes: list[str] = []
    search = search_in(_PLAN_ASKED_AFTER_RE.sub("", words), notes, labels, people)
    named_issues = re.search(rf"\b{_ISSUES}\b", words, re.I) or _TOPIC_RE.search(words)
    if _FRESH_RE.fullmatch(search.query or "") or not named_issues:
        search = replace(search, query=None)  # `the remaining issues`, `whatever is left`: the backlog, no topic
    said = {name for name, value in search.arguments().items() if value and name not in {"limit", "order"}}
    if not said - {"state", "unlabelled"} and search.state != "closed":
        return None
    limit = min(search.limit or PLAN_LIMIT, MAX_PLAN)
    found = Act(Intent.TRIAGE, typed, search=replace(search, state=search.state or "open", limit=limit), notes=notes)
    found.later.append(Later(planned_hits=limit))
    return found


def _plan_for_backlog(typed: str, limit: int = PLAN_LIMIT) -> Act:
    limit = min(max(limit, 1), MAX_PLAN)
    return Act(Intent.TRIAGE, typed, reads=[PlannedCall("plan_triage", {"untriaged": True, "limit": limit})])
