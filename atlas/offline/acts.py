"""Deciding what one request does, for the offline planner's frame parser.

The act comes from the request's cue words (the grammar: add, remove, drop, comment, reply, if,
still, how many, newest …) and its entities (issues, labels, quoted text). A side effect is planned
only when a request says so in the imperative, names the issue (or follows one that did) and names
what to do with it; a question about an action ("should #41 be S1?") is answered by reading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from atlas.offline.entities import LabelRef, action_targets, family_refs, issue_refs, label_refs
from atlas.offline.frames import Request, quoted_texts
from atlas.offline.labels import only_label_words
from atlas.offline.later import Condition, Later, parse_condition
from atlas.offline.lazy import lazy
from atlas.offline.plan import CODE_RE, PlannedCall, codes_in, read_lookups
from atlas.offline.search import Search, search_in, wants_search
from atlas.offline.sections import content_words, heading_name
from atlas.offline.vocabulary import Vocabulary

LEAD = (
    r"^\s*(?:(?:hi|hey|ok|okay|so|now|also|and|then|please|pls|kindly|just|quickly|atlas|can\s+you|could\s+you|"
    r"would\s+you|will\s+you|can\s+u|could\s+u|go\s+ahead\s+and|i'?d\s+like\s+you\s+to|i\s+want\s+you\s+to|"
    r"let'?s|we\s+should|you\s+can|(?:#?\d+\s*[:,-]?\s*)|(?:on\s+)?(?:it|this|that)\s*[:,-])[\s,!]*)*"
)
"""What may stand before a request's verb: politeness, a greeting, the issue it is about (`41: …`)."""
_COMMENT_RE = lazy(
    LEAD + r"(?:(?:post|add|write|leave|drop|put|send)\s+(?:a\s+|an\s+|my\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:comment|note|reply|message|line|check-in|thank-you|update|response|one(?!\s+(?:label|tag)))s?\b|comment|reply|respond|answer|"
    r"write|post|tell(?!\s+(?:me|us)\b)|let\s+(?!(?:me|us)\b)(?:\S+\s+){1,3}?know|ask(?!\s+(?:me|us|you)\b)|"
    r"thank(?!\s+(?:you|u)\b)|ping|note|"
    r"say|\+1)\b",
    re.I,
)
_REMOVE_RE = lazy(
    r"\b(?:remove|drop|strip|delete|clear|untag|unlabel|take\s+(?:\S+\s+){0,3}?off|get\s+rid\s+of|no\s+longer|"
    r"isn'?t\s+an?|not\s+an?|without)\b",
    re.I,
)
_ADD_RE = lazy(
    r"\b(?:add|put|apply|label|tag|mark|make|set|bump|raise|lower|move|needs?|give|flag|slap|classify|"
    r"should\s+(?:be|get|have)|is\s+an?|it'?s\s+an?|as|change|switch|upgrade|downgrade)\b|^\s*#?\d+\s*:|->|→",
    re.I,
)
_QUESTION_RE = lazy(
    r"^\s*(?:what|which|should|would|does|do|is|are|how|why|who|when|has|have|did)\b|\b(?:what|which)\s+labels?\b", re.I
)
_DRAFT_RE = lazy(r"\b(?:draft|suggest|propose|compose)\b|\b(?:don'?t|do\s+not|without)\s+post", re.I)
_CONDITION_RE = lazy(
    r"^\s*(?:and\s+)?(?:if|unless|only\s+if|in\s+case|when|whenever)\b|[,;]?\s+\b(?:if|unless)\b", re.I
)
_DONT_RE = lazy(r"\b(?:don'?t|do\s+not|never|skip|leave\s+it|nothing)\b", re.I)
_NEWEST_RE = lazy(r"\b(?:newest|latest|most\s+recent(?:ly)?|last\s+(?:filed|opened|reported|created))\b", re.I)
_READ_VERB_RE = lazy(r"\b(?:open|show|read|pull|get|display|see|what'?s|whats|what\s+is)\b", re.I)
_COUNT_RE = lazy(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b", re.I)
_SUGGEST_RE = lazy(
    r"\b(?:what|which)\s+labels?\b|\blabels?\s+(?:fit|suit|apply|would|should)|\bhow\s+(?:would|should)\s+(?:you|we|i)\s+"
    r"(?:label|tag|triage)\b|\b(?:suggest|propose)\s+(?:some\s+)?labels?\b|\btriage\s+#?\d",
    re.I,
)
_SIMILAR_RE = lazy(
    r"\b(?:duplicates?|dupes?|dup|similar|same\s+as|related\s+(?:issues?|to)|already\s+(?:reported|filed)\s+as)\b", re.I
)
_SYMPTOM_ASK_RE = lazy(
    r"\bthere\s+(?:is|are)\s+(?:already\s+)?(?:an?|any)\s+(?:\w+\s+)?(?:issues?|tickets?|bugs?|reports?)\b"
    r"|\bknown\s*\w*\s*\?|\b(?:issue|ticket)s?\s*\?\s*$"
    r"|\b(?:somebody|someone|anyone|anybody)\s+(?:else\s+)?(?:\w+\s+){0,2}?(?:this|it|that)\s+before\b"
    r"|\bany(?:one|body)\s+(?:else\s+)?(?:asked|had|requested)\b"
    r"|\b(?:is|are)\s+there\s+(?:already\s+)?(?:an?|any)\s+(?:\w+\s+)?(?:issues?|tickets?|bugs?|reports?)\b|\bknown\s*(?:issue|bug|problem)?\s*\?"
    r"|\b(?:is\s+(?:this|that|it)\s+)?(?:already\s+)?(?:tracked|filed|reported|logged)\b|\bseen\s+(?:\w+\s+)?before\b"
    r"|\b(?:has\s+)?any(?:one|body)\s+(?:else\s+)?(?:reported|raised|filed|seen|hit)\b|\braised\s+(?:this\s+)?before\b"
    r"|\b(?:do|did)\s+we\s+have\s+(?:an?|any)\s+(?:issue|ticket)|\bissue\s+(?:i|we)\s+can\s+(?:point|link)\b"
    r"|\bknown\s+(?:issue|bug|problem)\b|\bexisting\s+(?:issue|ticket)\b|\bwhich\s+(?:issue|ticket)\s+is\s+(?:this|it)\b",
    re.I,
)
_VERB_RE = lazy(
    r"\b(?:comment|reply|respond|post|add|remove|drop|strip|label|tag|mark|make|set|give|bump|put|leave|write|ping)\b",
    re.I,
)
_OTHERWISE_RE = lazy(r"^\s*(?:otherwise|else|if\s+not|or\s+else)\b[\s,:]*", re.I)
_MEANING_RE = lazy(r"\bmean(?:s|ing)?\b|\bwhat\s+(?:is|are)\b|\bdefin(?:e|ition)\b|\bstand\s+for\b", re.I)
_ONLY_VERB_RE = lazy(
    LEAD + r"(?:label|tag|mark|do|fix|change|update)\s+(?:it|this|that|them|both)(?:\s+(?:accordingly|too|as\s+well|"
    r"please|pls|then|now))*\s*[.!?]*\s*",
    re.I,
)
_ANYTHING_RE = lazy(
    LEAD
    + r"(?:is\s+there\s+|do\s+we\s+have\s+|got\s+)?(?:anything|something|any\s+(?:issues?|tickets?|reports?|bugs?))"
    r"(?:\s+(?:open|closed|filed|in\s+the\s+tracker))?\s+(?:about|on|regarding|mentioning|related\s+to|for|around)\s+",
    re.I,
)
_DOCS_RE = lazy(r"\b(?:docs?|documentation|guide|manual|section|page)\b", re.I)
_DOC_ASK_RE = lazy(
    r"\b(?:docs?|documentation|documented|document|guide|manual|page|section)\b|\bwhere\s+(?:do|does|is|are|can)\b"
    r"|\bhow\s+(?:do|can|should|would|does)\s+(?:i|we|you|it|one)\b|\bhow\s+(?:to|i)\b|\bwhat\s+does\b.+\bdo\b"
    r"|\b(?:explains?|describes?|covers?)\b",
    re.I,
)
_ERROR_WORDS_RE = lazy(r"\b(?:errors?|codes?|exceptions?|fails?|failed|failing)\b", re.I)
_COMPOSE_RE = lazy(
    r"(?:pointing|linking|explaining|summari[sz]ing|describing|mentioning|referring|asking|citing|quoting|with\s+(?:a|the)\s+"
    r"(?:link|summary|explanation))\b",
    re.I,
)
_SEARCHY_RE = lazy(
    LEAD
    + r"(?:search|find|look|list|show|give|get|any|are|is|what|which|how|open|closed|all|do\s+we|have\s+we|gibt|hay)\b",
    re.I,
)
_TERSE_RE = lazy(r"^\s*[+-]?#?\d{1,5}\s+(?:[+-]?[A-Za-z][\w.-]*:|s[1-9]\b|sev)|^\s*[+-][A-Za-z]", re.I)
_ISSUE_QUOTE_RE = lazy(r"^\s*#?(\d{1,5})\s*:\s*\"Q\d+\"\s*[.!]?\s*$")
_FILLER_RE = lazy(r"\b(?:too|also|as\s+well|please|pls|now|then|label|tag|again)\b", re.I)
_READ_START_RE = lazy(LEAD + r"(?:show|open|read|pull|get|grab|fetch|look\s+at|check|see|display)\b", re.I)
_ONLY_THE_RE = lazy(r"\bthe\s+(open|closed)\s+ones?\b|\bwhichever\s+(?:one\s+)?is\s+(?:still\s+)?(open|closed)\b", re.I)
_PRONOUN_RE = lazy(r"\b(?:it|this|that(?:\s+one)?|there|them|both|these|those|the\s+same)\b", re.I)


@dataclass
class Act:
    kind: str
    """`lookup` (handed to the lookup reader), `symptom`, or the act that planned the fields below."""
    text: str
    issue_ids: list[int] = field(default_factory=list)
    """The issues read in round one."""
    targets: list[int] = field(default_factory=list)
    """The issues acted on: what a later request's `it` means."""
    labels: list[tuple[int, str]] = field(default_factory=list)
    removals: list[tuple[int, str]] = field(default_factory=list)
    comments: list[tuple[int, str]] = field(default_factory=list)
    reads: list[PlannedCall] = field(default_factory=list)
    later: list[Later] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    search: Search | None = None


def _targets(text: str, context: Sequence[int]) -> list[int]:
    """The issues an action is about: those it names, else the last ones named (`it`: the first of them)."""
    named = action_targets(text)
    if named or re.search(r"\b(?:them|both|all|each|these|those|ones)\b", text, re.I):
        return named or list(context)
    return list(context) if len(context) == 1 else []  # `it` after several issues: which one is not said


def act_of(
    request: Request,
    text: str,
    context: Sequence[int],
    vocabulary: Vocabulary,
    tools: frozenset[str],
    before: Act | None,
) -> Act:
    """What the request does; a lookup unless its words ask for one of the acts below."""
    typed = request.unmasked()
    if (otherwise := _OTHERWISE_RE.match(text)) and before is not None and before.kind == "conditional":
        return _otherwise(request, text[otherwise.end() :], before, vocabulary)
    if _CONDITION_RE.search(text) and (act := _conditional(request, text, context, vocabulary)):
        return act
    if (terse := _ISSUE_QUOTE_RE.match(text)) and len(quoted_texts(request)) == 1:
        issue_id = int(terse.group(1))  # `87: 'backoff fix lands in 2.8.4'`
        return Act("comment", typed, targets=[issue_id], comments=[(issue_id, quoted_texts(request)[0])])
    if _COMMENT_RE.match(text) and not _DRAFT_RE.search(text):
        if act := _comment(request, text, context):
            return _only_the(text, act)
        if not _QUESTION_RE.match(text):
            return Act("none", typed, notes=[_comment_help(_targets(text, context))])
    if not _QUESTION_RE.match(text) and (act := _label_change(text, context, vocabulary.labels)):
        return _only_the(text, act)
    if act := _triage_read(text, context, tools):
        return act
    if _MEANING_RE.search(text) and not issue_refs(text) and (act := _label_meaning(text, vocabulary)):
        return act
    if _NEWEST_RE.search(text) and not issue_refs(text):
        return _newest(text, vocabulary.labels)
    if _COUNT_RE.search(text) and not issue_refs(text):
        notes: list[str] = []
        return Act("count", typed, search=search_in(request.unmasked(text), notes, vocabulary.labels), notes=notes)
    if _SYMPTOM_ASK_RE.search(text) and not issue_refs(text):
        return Act("symptom", typed)
    if (
        _DOC_ASK_RE.search(text)
        and not issue_refs(text)
        and not CODE_RE.search(text)
        and (act := _doc_ask(text, vocabulary))
    ):
        return act
    if _ANYTHING_RE.match(text) and not issue_refs(text) and not _DOCS_RE.search(text):
        notes = []
        return Act(
            "search",
            typed,
            search=search_in(_ANYTHING_RE.sub("about ", text, count=1), notes, vocabulary.labels),
            notes=notes,
        )
    if not issue_refs(text) and _is_search(text, vocabulary.labels):
        notes = []
        codes = [PlannedCall("get_doc_section", {"doc_id": "error-codes", "heading": code}) for code in codes_in(typed)]
        words = request.unmasked(text)
        return Act("search", typed, search=search_in(words, notes, vocabulary.labels), notes=notes, reads=codes)
    if context and _ONLY_VERB_RE.fullmatch(text):
        return Act("none", typed)  # `#77 needs S2, label it`: the verb the request before already served
    return Act("lookup", typed, issue_ids=issue_refs(text) if _READ_START_RE.match(text) else [])


def comment_body(request: Request, text: str) -> str | None:
    """The text to post: what is quoted, else what follows `:`, `saying`, `that`, or the person addressed."""
    quoted = quoted_texts(request)
    if quoted:
        return quoted[0].strip()
    verb = _COMMENT_RE.match(text)
    rest = text[verb.end() :] if verb else text
    for pattern in (
        r":\s*(?P<b>.+)$",
        r"^\s*(?:the\s+)?(?:reporter|author|op|folks|people|users?|everyone)\s+(?:of|on|in)\s+(?:issue\s+)?#?\d+\s+"
        r"(?:know\s+)?(?:that\s+)?(?P<b>.+)$",
        r"\b(?:saying|that\s+says|to\s+say|with\s+the\s+text|with\s+text|telling\s+them|letting\s+them\s+know)\s+"
        r"(?:that\s+)?(?P<b>.+)$",
        r"\bknow\s+(?:that\s+)?(?P<b>.+)$",
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


def _comment(request: Request, text: str, context: Sequence[int]) -> Act | None:
    ids = _targets(text, context)
    body = comment_body(request, request.text)  # the user's own words, never typo-corrected
    if not ids or body is None:
        return None
    return Act("comment", request.unmasked(), targets=ids[:1], comments=[(ids[0], body)])


def _comment_help(ids: Sequence[int]) -> str:
    if ids:
        return f"To comment on #{ids[0]}, give the text too: `comment on #{ids[0]}: Looking into it.`"
    return "To post a comment, name the issue and give the text: `comment on #41: Looking into it.`"


def _label_change(text: str, context: Sequence[int], labels: Sequence[str]) -> Act | None:
    refs = label_refs(text, labels, words=False)
    families = family_refs(text, labels) if _REMOVE_RE.search(text) else []
    if not refs and not families and (cue := _ADD_RE.search(text)):
        window = re.split(r"[,;.!?(]", text[cue.end() :])[0]
        window = " ".join(w for w in window.split()[:5] if not re.fullmatch(r"#?\d+|it|this|that|them|to|on", w, re.I))
        refs = [ref for ref in label_refs(window, labels) if ref.known]
        # Every word must name the label (`add worker comp too`), not a team or a topic (`flag 41 to the core team`).
        refs = [ref for ref in refs if only_label_words(_FILLER_RE.sub(" ", window), ref.label)]
    if not refs and not families:
        return None
    shorthand = any(ref.op for ref in refs) or bool(_TERSE_RE.match(text))
    if not shorthand and not _ADD_RE.search(text) and not _REMOVE_RE.search(text):
        return None
    ids = _targets(text, context)
    if not ids:
        return None
    act = Act("labels", text, targets=ids, notes=_unknown(refs, labels))
    for ref in (ref for ref in refs if ref.known):
        owners = _owners(text, ref, ids, refs)
        pairs = act.removals if _op(ref, text) == "remove" else act.labels
        pairs += [(i, ref.label) for i in owners if (i, ref.label) not in pairs]
    for family in families:
        act.issue_ids += [i for i in ids if i not in act.issue_ids]
        act.later += [Later(issue_id=i, remove_families=[family.label]) for i in ids]
    return act


def _owners(text: str, ref: LabelRef, ids: list[int], refs: Sequence[LabelRef]) -> list[int]:
    """Which issues a label goes to: `label #41 and #87 as comp:core` both; `12 +redis, 1 +postgres` one each;
    `add S2 to 41 and comp:core to 87` the issues after it; with no issue near it, all of them."""
    issues = [(m.start(), n) for n in ids for m in _number_spans(text, n)]
    events: list[tuple[int, int | None, LabelRef | None]] = sorted(
        [(start, n, None) for start, n in issues] + [(r.start, None, r) for r in refs], key=lambda event: event[0]
    )
    consumed: set[int] = set()
    pending: list[int] = []
    for index, (_, number, label) in enumerate(events):
        if number is not None:
            if number not in consumed and number not in pending:
                pending.append(number)
            continue
        group: list[int] = []
        if pending:
            group, pending = pending, []
        else:
            for _, later, _label in events[index + 1 :]:
                if later is None:
                    break
                group.append(later)
        consumed.update(group)
        if label is ref:
            return group or ids
    return ids


def _number_spans(text: str, number: int) -> list[re.Match[str]]:
    return list(re.finditer(rf"(?<![\d.:-]){number}(?!\d)(?![.:]\d)", text))


def _op(ref: LabelRef, text: str) -> str:
    if ref.op:
        return ref.op
    if any(m.start() < ref.start < m.end() for m in _REMOVE_RE.finditer(text)):
        return "remove"  # `take type:question off 117`
    before = text[: ref.start]
    remove = list(_REMOVE_RE.finditer(before))
    if remove and not re.search(r"\b(?:add|put|apply|set|make|give)\b|\+|->|→", before[remove[-1].end() :], re.I):
        return "remove"
    return "add"


def _unknown(refs: Sequence[LabelRef], labels: Sequence[str]) -> list[str]:
    return [
        f"There is no label `{ref.label}` in this project, so I did not add it. Its labels: {', '.join(labels)}."
        for ref in refs
        if not ref.known
    ]


def _conditional(request: Request, text: str, context: Sequence[int], vocabulary: Vocabulary) -> Act | None:
    """`if #77 is still open, comment …`, `make it S1 unless it already is`: read now, act in round two."""
    condition, action = _condition_parts(text)
    if condition is None:
        return None
    ids = issue_refs(condition) or issue_refs(action) or list(context)
    if not ids:
        return None
    issue_id = ids[0]
    labels = [ref.label for ref in label_refs(condition, vocabulary.labels) if ref.known]
    labels += [ref.label for ref in family_refs(condition, vocabulary.labels)]
    test = parse_condition(condition, request.quoted, labels)
    act = Act("conditional", request.unmasked(), issue_ids=[issue_id], targets=[issue_id])
    if test is None:
        act.notes.append(f"I could not tell what to check in “{condition.strip()}”, so I only read #{issue_id}.")
        return act
    if _DONT_RE.search(action) or not re.search(r"\w", action):
        act.later.append(Later(issue_id=issue_id, test=test))  # kept for an `otherwise …` that follows
        return act
    sub = Request(action, request.quoted)
    inner = (
        _comment(sub, action, [issue_id])
        if _COMMENT_RE.match(action)
        else _label_change(action, [issue_id], vocabulary.labels)
    )
    if inner is None and re.match(r"\s*when", condition, re.I):
        return None  # "when did #41 close?" asks a question
    if inner is None:
        act.notes.append(f"I did not understand what to do if #{issue_id} {test.words()}: “{action.strip()}”.")
        return act
    calls = [PlannedCall("add_label", {"issue_id": i, "label": label}) for i, label in inner.labels]
    calls += [PlannedCall("remove_label", {"issue_id": i, "label": label}) for i, label in inner.removals]
    calls += [PlannedCall("post_comment", {"issue_id": i, "body": body}) for i, body in inner.comments]
    act.later.append(Later(issue_id=issue_id, test=test, actions=calls))
    act.notes += inner.notes
    return act


def _condition_parts(text: str) -> tuple[str | None, str]:
    """The condition's words and the action's, whichever comes first."""
    start = re.match(r"^\s*(?:and\s+)?(?:if|unless|only\s+if|in\s+case|when|whenever)\b", text, re.I)
    if start:
        rest = text[start.start() :]
        cut = re.search(r",\s*|\s+then\s+", rest) or _VERB_RE.search(rest, 3)
        if cut is None:
            return None, ""
        return rest[: cut.start()], rest[cut.end() if cut.group(0).strip(", ") in ("", "then") else cut.start() :]
    middle = re.search(r"[,;]?\s+\b(?:if|unless)\b", text, re.I)
    if middle is None:
        return None, ""
    return text[middle.start() :].lstrip(",; "), text[: middle.start()]


def _triage_read(text: str, context: Sequence[int], tools: frozenset[str]) -> Act | None:
    ids = issue_refs(text) or (list(context) if _PRONOUN_RE.search(text) else [])
    if not ids:
        return None
    if _SUGGEST_RE.search(text):
        tool = "suggest_labels"
    elif _SIMILAR_RE.search(text):
        tool = "find_similar"
    else:
        return None
    act = Act("lookup", text, issue_ids=ids[:1])
    if tool in tools:
        act.reads = [PlannedCall(tool, {"issue_id": ids[0]})]
    return act


def _newest(text: str, labels: Sequence[str]) -> Act:
    notes: list[str] = []
    words = re.sub(LEAD + r"(?:open|show|read|pull\s+up|get|display)\b", " ", text, flags=re.I)
    search = search_in(words, notes, labels)
    search = Search(query=None, state=search.state, label=search.label, labels=search.labels, limit=search.limit)
    singular = re.search(r"\b(?:issue|ticket|bug|one|report)\b(?!s)", text, re.I)
    act = Act("newest", text, search=search, notes=notes)
    if (singular and _READ_VERB_RE.search(text)) or (singular and not re.search(r"\d", text)):
        act.later.append(Later(read_first_hit=True))
    return act


def _label_meaning(text: str, vocabulary: Vocabulary) -> Act | None:
    """`what does severity S1 mean?`: the doc section that defines the label, not an error that mentions it."""
    refs = [ref for ref in label_refs(text, vocabulary.labels, words=False) if ref.known]
    if not refs or CODE_RE.search(text):
        return None
    prefix, _, value = refs[0].label.partition(":")
    for section in vocabulary.best_sections([prefix, value, *value.split("-")], limit=6):
        if section.doc_id != "error-codes":
            call = PlannedCall(
                "get_doc_section", {"doc_id": section.doc_id, "heading": heading_name(section, vocabulary)}
            )
            return Act("meaning", text, reads=[call])
    return None


def _otherwise(request: Request, action: str, before: Act, vocabulary: Vocabulary) -> Act:
    """`… Otherwise post '…'`: the action for when the condition before does not hold."""
    act = Act("conditional", request.unmasked(), targets=list(before.targets))
    step = next((step for step in before.later if step.test is not None), None)
    if step is None or step.issue_id is None or step.test is None or _DONT_RE.search(action):
        return act
    wrapped = _conditional(
        Request(f"if {step.issue_id} x, {action}", request.quoted),
        f"if #{step.issue_id} is open, {action}",
        [],
        vocabulary,
    )
    if wrapped and wrapped.later:
        negated = replace(step.test, negated=not step.test.negated)
        act.later = [replace(wrapped.later[0], test=negated)]
        act.notes = wrapped.notes
    return act


def _only_the(text: str, act: Act) -> Act:
    """`label the open ones comp:worker`: each action waits for its issue's state, read in round one."""
    match = _ONLY_THE_RE.search(text)
    if match is None:
        return act
    test = Condition("state", (match.group(1) or match.group(2)).lower())
    steps: dict[int, Later] = {}
    calls = [PlannedCall("add_label", {"issue_id": i, "label": label}) for i, label in act.labels]
    calls += [PlannedCall("remove_label", {"issue_id": i, "label": label}) for i, label in act.removals]
    calls += [PlannedCall("post_comment", {"issue_id": i, "body": body}) for i, body in act.comments]
    for call in calls:
        issue_id = call.arguments["issue_id"]
        steps.setdefault(issue_id, Later(issue_id=issue_id, test=test)).actions.append(call)
    return Act(
        "conditional", act.text, issue_ids=list(steps), targets=act.targets, later=list(steps.values()), notes=act.notes
    )


def _doc_ask(text: str, vocabulary: Vocabulary) -> Act | None:
    """`where do we document the precedence of …`, `how do I run it under systemd`: a doc named, else the
    section whose heading and text best hold the question's words (error sections only for errors)."""
    named = read_lookups(text, vocabulary)
    folded = text.casefold()
    if any(name.casefold() in folded for name in vocabulary.error_names):
        return None  # `explain ScheduleDrift`: an error named
    if named.docs or named.list_docs or named.search or named.notes:
        return None  # a doc, a list of docs or a search named in so many words: the lookup reader plans it
    words = [w for w in content_words(_DOCS_RE.sub(" ", text)) if not w.isdigit()]
    errors = bool(_ERROR_WORDS_RE.search(text))
    for section in vocabulary.best_sections(words, limit=4):
        if section.doc_id != "error-codes" or errors:
            call = PlannedCall(
                "get_doc_section", {"doc_id": section.doc_id, "heading": heading_name(section, vocabulary)}
            )
            return Act("doc", text, reads=[call])
    return None


def _only_filters(text: str, labels: Sequence[str]) -> bool:
    """`open S1s?`, `closed comp:api`: nothing but a state and labels, which is a search."""
    refs = [ref for ref in label_refs(text, labels, words=False) if ref.known]
    if not refs:
        return False
    rest = text
    for ref in sorted(refs, key=lambda r: -r.start):
        rest = rest[: ref.start] + " " + rest[ref.end :]
    return not re.sub(
        r"\b(?:open|closed|all|any|the|list|show|me|and|or|please|pls|issues?|ones?)\b|[^\w]", "", rest, flags=re.I
    )


def _is_search(text: str, labels: Sequence[str]) -> bool:
    """A request for issues by words, state or label, said as a search (`find …`, `any open …`, `open S1s?`)."""
    if _only_filters(text, labels):
        return True
    return (
        wants_search(text)
        and (bool(_SEARCHY_RE.match(text)) or len(text.split()) <= 5)
        and not _PRONOUN_RE.search(text)
    )
