"""Conditional requests, for the offline planner's frame parser: read in round one, act in round two.

`if #77 is still open, comment …`, `… Otherwise post '…'`, `label the open ones comp:worker`: the
issue is read first; the action waits for a test on its state, labels, comment count or text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from atlas.offline.acts.act import Act, Intent
from atlas.offline.acts.comments import COMMENT_RE, comment_act, comment_body
from atlas.offline.acts.labels import label_change
from atlas.offline.acts.later import Condition, Later, parse_condition
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.entities import family_refs, issue_refs, label_refs
from atlas.offline.reading.frames import Request
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.vocabulary import Vocabulary

CONDITION_RE = lazy(r"^\s*(?:and\s+)?(?:if|unless|only\s+if|in\s+case|when|whenever)\b|[,;]?\s+\b(?:if|unless)\b", re.I)
_ISSUE_LEAD_RE = lazy(r"^\s*(?:for|on|re|about)?\s*(?:issue\s+)?#?(\d{1,5})\s*[:,-]\s*(?=(?:if|unless)\b)", re.I)
_DONT_RE = lazy(r"\b(?:don'?t|do\s+not|never|skip|leave\s+it|nothing)\b", re.I)
_VERB_RE = lazy(
    r"\b(?:comment|reply|respond|post|add|remove|drop|strip|label|tag|mark|make|set|give|bump|put|leave|write|ping)\b",
    re.I,
)
_SUGGEST_RE = lazy(
    r"\s*(?:(?:please|then|just)\s+)?(?:suggest|propose|recommend|advise)(?:\s+(?:that\s+)?(?:i|we|you)\b(?:\s+should)?)?",
    re.I,
)
"""An action to be suggested, not done: `suggest I mark 7418 with the duplicate label`."""
OTHERWISE_RE = lazy(r"^\s*(?:otherwise|else|if\s+not|or\s+else)\b[\s,:]*", re.I)
_TERSE_WORDS = 3
"""An action of so few words with no verb (`if so S3`, `if not, +comp:worker`) is the label it names."""
_WHICHEVER_RE = lazy(
    r"^\s*(?:and\s+)?(?:whichever|the\s+ones?\s+that|any\s+that|those\s+that)\s+(?:one\s+)?(?:is|are)\s+"
    r"(?:still\s+)?(?:open|closed)\b[\s,]*(?:(?:gets?|should\s+get|needs?)\s+)?",
    re.I,
)
_COMMENT_NOUN_RE = lazy(r"(?:an?\s+|my\s+)?(?:comment|reply|note)\b", re.I)
_IF_SO_RE = lazy(r"^\s*(?:and\s+)?if\s+(?:so|yes|it\s+is|they\s+are)\b[\s,:]*", re.I)
_ONLY_THE_RE = lazy(r"\bthe\s+(open|closed)\s+ones?\b|\bwhichever\s+(?:one\s+)?is\s+(?:still\s+)?(open|closed)\b", re.I)


def conditional(request: Request, text: str, context: Sequence[int], vocabulary: Vocabulary) -> Act | None:
    """`if #77 is still open, comment …`, `make it S1 unless it already is`: read now, act in round two."""
    lead = _ISSUE_LEAD_RE.match(text)  # `for 90: if it's a feature request …`: the issue the check is about
    condition, action = _condition_parts(text[lead.end() :] if lead else text)
    if condition is None:
        return None
    ids = ([int(lead.group(1))] if lead else []) or issue_refs(condition) or issue_refs(action) or list(context)
    if not ids:
        return None
    issue_id = ids[0]
    labels = [ref.label for ref in label_refs(condition, vocabulary.labels) if ref.known]
    labels += [ref.label for ref in family_refs(condition, vocabulary.labels)]
    test = parse_condition(condition, request.quoted, labels)
    meant = kind_labels(condition, vocabulary.labels) if test is None else []  # `if it's a feature request`
    test = test or parse_condition(condition, request.quoted, meant)
    if test is not None and test.kind == "label" and (said := _kind_said(condition, str(test.value), bool(meant))):
        test = replace(test, kind_said=said)  # the label stands in for what the text is
    act = Act(Intent.CONDITIONAL, request.unmasked(), issue_ids=[issue_id], targets=[issue_id])
    if test is not None and test.kind == "duplicate":  # tested on the issue's similar issues
        act.reads.append(PlannedCall("find_similar", {"issue_id": issue_id}))
    if test is None:
        act.notes.append(f"I could not tell what to check in “{condition.strip()}”, so I only read #{issue_id}.")
        return act
    if _DONT_RE.search(action) or not re.search(r"\w", action):
        act.later.append(Later(issue_id=issue_id, test=test))  # kept for an `otherwise …` that follows
        return act
    sub = Request(action, request.quoted)
    inner = (
        comment_act(sub, action, [issue_id])
        if COMMENT_RE.match(action)
        else label_change(action, [issue_id], vocabulary.labels)
    )
    if inner is None and not COMMENT_RE.match(action) and len(action.split()) <= _TERSE_WORDS:
        inner = label_change(f"add {action}", [issue_id], vocabulary.labels)  # `if so S3`: the label is the action
    if inner is None and re.match(r"\s*when", condition, re.I):
        return None  # "when did #41 close?" asks a question
    if inner is None:
        act.notes.append(f"I did not understand what to do if #{issue_id} {test.words()}: “{action.strip()}”.")
        return act
    calls = [PlannedCall("add_label", {"issue_id": i, "label": label}) for i, label in inner.labels]
    calls += [PlannedCall("remove_label", {"issue_id": i, "label": label}) for i, label in inner.removals]
    calls += [PlannedCall("post_comment", {"issue_id": i, "body": body}) for i, body in inner.comments]
    if _SUGGEST_RE.match(action):  # `… suggest I mark 7418 duplicate`: said, not done
        act.later.append(Later(issue_id=issue_id, test=test, proposed=calls))
    else:
        act.later.append(Later(issue_id=issue_id, test=test, actions=calls))
    act.notes += inner.notes
    return act


_KIND_SAID_RE = lazy(
    r"\b(?:it'?s|it\s+is|is|are|they'?re|they\s+are|isn'?t|is\s+not)\s+(?:still\s+|really\s+|actually\s+)?"
    r"(?:an?\s+)?(?P<kind>[a-z][\w -]*?)\s*[?.!]*\s*$",
    re.I,
)


def _kind_said(condition: str, label: str, meant: bool) -> str:
    """`if it's a bug`, `is it a feature request`: the kind of issue said of it (tested by the label the project gives
    it); empty when the words name the label as a label (`if it's labelled bug`). `meant`: the label is the one the
    project's words for that kind mean."""
    if re.search(r"\b(?:label|labell?ed|tag|tagged|mark|marked|has|have|carries)\b", condition, re.I):
        return ""
    said = _KIND_SAID_RE.search(condition)
    kind = said.group("kind").strip() if said else ""
    kind = re.sub(r"^(?:it|this|that|they)\s+", "", kind, flags=re.I)  # `is it a bug`
    if not kind or not (meant or label.rpartition(":")[2].lower() in kind.lower()):  # `type:question`: a question
        return ""
    return kind if re.match(r"(?:an?|the)\s", kind, re.I) else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def kind_labels(condition: str, labels: Sequence[str]) -> list[str]:
    """`if it's a feature request`: the label the project's own issues mean by the kind said, when no label is
    named outright (`enhancement` where most issues asking for features carry it)."""
    said = _KIND_SAID_RE.search(condition)
    meaning = getattr(labels, "meaning", None)
    if said is None or meaning is None:
        return []
    label = meaning(said.group("kind"))
    return [label] if isinstance(label, str) else []


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


def otherwise(request: Request, action: str, before: Act, vocabulary: Vocabulary) -> Act:
    """`… Otherwise post '…'`: the action for when the condition before does not hold."""
    return _under_condition(request, action, before, vocabulary, negate=True)


def also(request: Request, text: str, before: Act, vocabulary: Vocabulary) -> Act | None:
    """`if #29 is open, set it to S2 and comment '…'`: an action joined to a conditional one waits for the
    same condition; None when the request is not an action (`… and show #12`)."""
    if not _VERB_RE.match(text.strip()) or not any(step.test is not None and step.actions for step in before.later):
        return None
    act = _under_condition(request, text, before, vocabulary, negate=False)
    return act if act.later else None


def _under_condition(request: Request, action: str, before: Act, vocabulary: Vocabulary, *, negate: bool) -> Act:
    act = Act(Intent.CONDITIONAL, request.unmasked(), targets=list(before.targets))
    step = next((step for step in before.later if step.test is not None), None)
    if step is None or step.issue_id is None or step.test is None or _DONT_RE.search(action):
        return act
    wrapped = conditional(
        Request(f"if {step.issue_id} x, {action}", request.quoted),
        f"if #{step.issue_id} is open, {action}",
        [],
        vocabulary,
    )
    if wrapped and wrapped.later:
        test = replace(step.test, negated=not step.test.negated) if negate else step.test
        act.later = [replace(wrapped.later[0], test=test)]
        act.notes = wrapped.notes
    return act


def whichever(request: Request, text: str, context: Sequence[int], vocabulary: Vocabulary) -> Act | None:
    """`check 65 and 97; whichever is still open gets a comment '…'`: each issue named before, by its state."""
    match = _WHICHEVER_RE.match(text)
    if match is None or not context:
        return None
    rest, ids = text[match.end() :], list(context)
    if _COMMENT_NOUN_RE.match(rest) or COMMENT_RE.match(rest):
        body = comment_body(request, rest)
        act = Act(Intent.COMMENT, request.unmasked(), targets=ids, comments=[(i, body) for i in ids]) if body else None
    else:
        act = label_change(f"add {rest} to them", ids, vocabulary.labels)
    return only_the(text, act) if act is not None else None


def if_so(request: Request, text: str, context: Sequence[int], before: Act, vocabulary: Vocabulary) -> Act | None:
    """`72 still S2? if so S3`: the question before is the condition."""
    match = _IF_SO_RE.match(text)
    asked = before.text.strip()
    if match is None or not asked.endswith("?"):
        return None
    whole = f"if {asked.rstrip('?').strip()}, {text[match.end() :]}"
    return conditional(Request(whole, request.quoted), whole, context, vocabulary)


def only_the(text: str, act: Act) -> Act:
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
        Intent.CONDITIONAL,
        act.text,
        issue_ids=list(steps),
        targets=act.targets,
        later=list(steps.values()),
        notes=act.notes,
    )
