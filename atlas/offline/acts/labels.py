"""Label requests, for the offline planner's frame parser: which labels to add or remove, on which issues.

A label is the dataset's own, named exactly, by severity, by shorthand (`+x`, `-x`, `-> x`) or by
its words right after the verb; each goes to the issues of its own part of a list. A name in a label's
place that is no label but a small typo of one (`add the bgu label to 41`) is that label, and the answer
says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from atlas.foundation.label_names import closest_label, resolve_label
from atlas.offline.acts.act import Act, Intent, targets
from atlas.offline.acts.later import Later
from atlas.offline.reading.entities import LabelRef, family_refs, label_refs
from atlas.offline.reading.label_usage import example_label
from atlas.offline.reading.labels import not_added, only_label_words
from atlas.offline.reading.lazy import lazy

REMOVE_RE = lazy(
    r"\b(?:remove|drop|strip|delete|clear|untag|unlabel|take\s+(?:\S+\s+){0,3}?off|get\s+rid\s+of|no\s+longer|"
    r"isn'?t|not\s+(?:really\s+|actually\s+|exactly\s+|quite\s+)?an?|without)\b",
    re.I,
)
ADD_RE = lazy(
    r"\b(?:add|put|apply|label|tag|mark|make|set|bump|raise|lower|move|needs?|give|flag|slap|classify|"
    r"should\s+(?:be|get|have)|is\s+an?|(?:#?\d+|they|these|those|both)\s+are(?:\s+(?:both|all))?|it'?s|as|change|switch|upgrade|downgrade)\b|^\s*#?\d+\s*:|->|→",
    re.I,
)
_TERSE_RE = lazy(r"^\s*[+-]?#?\d{1,5}\s+(?:[+-]?[A-Za-z][\w.-]*:|s[1-9]\b|sev|is\s+(?!an?\b))|^\s*[+-][A-Za-z]", re.I)
"""`41 S2`, `+comp:worker`, `87 is sev 2`: the issue, then the label, with no verb."""
_ACCORDINGLY_RE = lazy(r"\b(?:label|tag)\s+(?:\S+\s+){0,3}?accordingly\b", re.I)
"""`this is a redis broker thing, label 111 accordingly`: the label is in the words said before the verb."""
_STANDS_AROUND_RE = lazy(r"#?\d+|it|this|that|them|to|on|onto|and|as|with|issues?|&", re.I)
_LABEL_ON_ISSUE_RE = lazy(
    r"^\s*(?:(?:add|apply|put|set)\s+)?(?:the\s+|a\s+)?(?:labels?\s+)?(?P<label>[^,;.!?]+?)"
    r"\s+(?:on|to|for)\s+(?:issues?\s+)?#?\d{1,5}\b",
    re.I,
)
"""`severity S3 on 130 please`: a label said first, then the issue it goes on."""
_SWAP_RE = lazy(
    r"\b(?:swap|switch|replace|change)\s+(?:the\s+)?(?:label\s+)?(?P<old>[\w:.-]+(?:\s+[\w:.-]+)?)\s+(?:label\s+)?"
    r"(?:for|with|to|into|by)\s+(?:the\s+)?(?:label\s+)?",
    re.I,
)
"""`swap enhancement for bug`, `replace the enhancement label with bug`: one label off and another on."""
_ADD_LEAD_RE = lazy(r"^\W*(?:please\s+)?(?:add|put|apply|give)\b", re.I)
_EACH_TO_ITS_OWN_RE = lazy(
    r",?\s+and\s+(?!(?:add|put|apply|give|label|tag)\b)"
    r"(?=(?:the\s+)?[\w:. -]{1,40}?\s+(?:to|on|onto)\s+(?:issue\s+)?#?\d)",
    re.I,
)
"""`… and bug to #7423` after `add streaming to #7381`: the verb said once, for each label and its issue."""
_FILLER_RE = lazy(r"\b(?:too|also|as\s+well|instead|please|pls|now|then|label|tag|again|thing|stuff)\b", re.I)


def label_change(text: str, context: Sequence[int], labels: Sequence[str], said_before: str = "") -> Act | None:
    """The labels to add and remove; `said_before`: the request before, which `label it accordingly` points at."""
    text = _SWAP_RE.sub(r"remove \g<old> and add ", text)  # `swap the enhancement label for bug`: both changes
    if _ADD_LEAD_RE.match(text):  # `add streaming to #7381 and bug to #7423`: each label to its own issue
        text = _EACH_TO_ITS_OWN_RE.sub(" and add ", text)
    refs = label_refs(text, labels, words=False)
    families = family_refs(text, labels) if REMOVE_RE.search(text) else []
    if not refs and not families:
        refs = _worded(text, labels, said_before)
    taken: list[str] = []
    if not refs and not families:
        refs, taken = _typo_worded(text, labels)
    if not refs and not families:
        return None
    shorthand = any(ref.op for ref in refs) or bool(_TERSE_RE.match(text) or _LABEL_ON_ISSUE_RE.match(text))
    if not shorthand and not ADD_RE.search(text) and not REMOVE_RE.search(text):
        return None
    ids = targets(text, context)
    if not ids:
        return None
    act = Act(Intent.LABELS, text, targets=ids, notes=_unknown(refs, labels) + taken)
    act.explains_before = bool(said_before) and bool(_ACCORDINGLY_RE.search(text))
    for ref in (ref for ref in refs if ref.known):
        owners = _owners(text, ref, ids, refs)
        pairs = act.removals if _op(ref, text) == "remove" else act.labels
        pairs += [(i, ref.label) for i in owners if (i, ref.label) not in pairs]
    for family in families:
        act.issue_ids += [i for i in ids if i not in act.issue_ids]
        act.later += [Later(issue_id=i, remove_families=[family.label]) for i in ids]
    return act


_LABEL_VERB_RE = lazy(
    r"^\s*(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+)*(?:label|tag)\s+(?:issues?\s+)?(?:#?\d+|it|them|this|that)\b"
    r"(?:\s+(?:with|as)\s+(?:the\s+|a\s+|an\s+)?(?P<named>[^,;.!?]+)|\s+[\"'`](?P<quoted>[^\"'`]{1,60})[\"'`]"
    r"|\s+(?P<bare>[A-Za-z][\w.:-]*)\s*[.!?]?\s*$)?|\badd\s+(?:a\s+)?label\b",
    re.I,
)
"""A label request that names no label the project has: `label #41`, `tag 87 with frobnicate`, `label 87 "bugg"`,
`label 87 bugg`."""


def label_help(text: str, context: Sequence[int], labels: Sequence[str]) -> Act | None:
    """What to type instead, when a label request names no label of the project: the name it did not know, or
    an example with the project's most used label."""
    verb = _LABEL_VERB_RE.search(text)
    if verb is None:
        return None
    bare = verb.group("bare")
    named = verb.group("named") or verb.group("quoted") or (bare if bare and not _FILLER_RE.fullmatch(bare) else None)
    if named and labels and len(named.split()) <= 3:
        if (known := resolve_label(named, labels)) is None:
            return Act(Intent.NOTHING, text, targets=targets(text, context), notes=[not_added(named, labels)])
        note = f"Which issue should get `{known}`? Name it: `label #41 {known}`."  # `it` with no issue said before
        return Act(Intent.NOTHING, text, notes=[note])
    example = example_label(labels)
    note = f"To add a label, name the issue and the label: `label #41 {example}` or `add {example} to 87`."
    return Act(Intent.NOTHING, text, targets=targets(text, context), notes=[note])


def _worded(text: str, labels: Sequence[str], said_before: str) -> list[LabelRef]:
    """A label named by its words: right after the verb (`tag 41 as a bug`), before an issue (`severity S3 on
    130`), or said before `label N accordingly`. Every word must name the label (`add worker comp too`), not a
    team or a topic (`flag 41 to the core team`)."""
    if said := _ACCORDINGLY_RE.search(text):
        before = f"{said_before} {text[: said.start()]}"
        return [ref for ref in label_refs(before, labels, distinctive=True) if ref.known][:1]
    found: list[LabelRef] = []
    for start, window in _pieces(_windows(text)):
        kept = " ".join([w for w in window.split() if not _STANDS_AROUND_RE.fullmatch(w)][:5])
        refs = [ref for ref in label_refs(kept, labels) if ref.known]
        found += [
            _placed(ref, kept, window, start)  # where it was said: `_op` reads the verb before it
            for ref in refs
            if only_label_words(_FILLER_RE.sub(" ", kept), ref.label) and ref.label not in {f.label for f in found}
        ]
    return found


_LISTED_WORDS = 8
"""The most words a list of labels takes (`the streaming and enhancement labels`); a longer part is a sentence."""


def _pieces(windows: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Each window, then its parts between issues (`7423 as enhancement and 7421 as bug`): one label a part, then
    its parts between `and`s and commas (`give 41 the streaming and enhancement labels`)."""
    parts = [
        (start + part.start(), part.group(0))
        for start, window in windows
        for part in re.finditer(r"(?:(?!\s*(?:,|;|\band\b)?\s*#?\d+\b).)+", window)
    ]
    listed = [
        (start + item.start(), item.group(0))
        for start, part in parts
        if len(part.split()) <= _LISTED_WORDS
        for item in re.finditer(r"(?:(?!\s*,|\s*&|\s+and\b).)+", part)
    ]
    pieces = windows + [part for part in parts if part not in windows]
    return pieces + [item for item in listed if item not in pieces]


def _placed(ref: LabelRef, kept: str, window: str, start: int) -> LabelRef:
    """The ref at the words that named it in the window (`tag 41 as enhancement and 87 as bug`: each label
    beside its own issue), or across the whole window when they cannot be found there as said."""
    said = re.search(rf"(?<!\w){re.escape(kept[ref.start : ref.end])}(?!\w)", window)
    if said is None:
        return replace(ref, start=start, end=start + len(window))
    return replace(ref, start=start + said.start(), end=start + said.end())


def _windows(text: str) -> list[tuple[int, str]]:
    """Where a label may be named, and the words: after each verb (`6388 isn't an enhancement, it's a question`
    says what it is not, and what it is), or before the issue it goes on (`severity S3 on 130`)."""
    cues = [REMOVE_RE.search(text), *ADD_RE.finditer(text)]  # `41: add bug`: the label is after the last verb
    windows = [_after(cue, text) for cue in cues if cue is not None]
    # `label 7423 enhancement, 7421 bug`: each issue after a comma begins a window of its own.
    windows += [(m.start(1), _WINDOW_END_RE.split(text[m.start(1) :])[0]) for m in _NEXT_ISSUE_RE.finditer(text)]
    if on_issue := _LABEL_ON_ISSUE_RE.match(text):
        windows.insert(0, (on_issue.start("label"), on_issue.group("label")))
    return windows


def _typo_worded(text: str, labels: Sequence[str]) -> tuple[list[LabelRef], list[str]]:
    """A name in a label's place that is a small typo of one label (`add the bgu label to 41`, `label 41 as
    enhancment`): that label, and a note saying which was taken."""
    for start, window in _windows(text):
        words = [w for w in _FILLER_RE.sub(" ", window).split() if not _STANDS_AROUND_RE.fullmatch(w)]
        name = " ".join(w for w in words if w.lower() not in {"the", "a", "an"})
        if 0 < len(name.split()) <= 3 and (label := closest_label(name, labels)):
            note = f"This project has no label “{name}”: I took `{label}`, the nearest of its labels."
            return [LabelRef(label, start, start + len(window))], [note]
    return [], []


_NEXT_ISSUE_RE = lazy(r"[,;]\s*(?:and\s+)?(#?\d+\b)", re.I)
_WINDOW_END_RE = lazy(r"[,;.!?(]|\s(?:from|off|on|onto|to|for|in)\s+(?:issues?\s+|#)?\d", re.I)
"""Where the words naming a label end: a clause's end, or the issue it goes to (`remove bug from 41`)."""


def _after(cue: re.Match[str], text: str) -> tuple[int, str]:
    """Where a label may be named after a verb, and the words: after the cue, or inside it when it holds the
    label itself (`take the question label off 6388`)."""
    start = cue.end()
    if not re.search(r"[A-Za-z]", _FILLER_RE.sub(" ", _WINDOW_END_RE.split(text[start:])[0])):
        start = cue.start() + len(cue.group(0).split()[0])
    return start, _WINDOW_END_RE.split(text[start:])[0]


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
        before = bool(pending)  # `tag #7415 as enhancement`: the issues said before the label
        if pending:
            group, pending = pending, []
        else:
            for _, later, _label in events[index + 1 :]:
                if later is None:
                    break
                group.append(later)
        consumed.update(group)
        if label is ref:
            return [*group, *_joined_after(text, ref, events[index + 1 :])] if before else group or ids
    return ids


_JOINED_RE = lazy(
    r"(?:\s*(?:,|and|&|plus|also|too|as\s+well|on|to|issues?|#?\d{1,5}))*\s*(?:,\s*(?:both|all|since|as)\b.*)?[.!?]*\s*",
    re.I,
)
"""After the last label, issues joined to the ones before it (`tag #7415 as enhancement and also #7405`)."""


def _joined_after(text: str, ref: LabelRef, after: Sequence[tuple[int, int | None, LabelRef | None]]) -> list[int]:
    """The issues said after the last label with only joining words between (`… and also #7405, both are …`): they
    get it too. None when another label follows, or other words stand between."""
    if any(label is not None for _, _, label in after) or not after:
        return []
    return [n for _, n, _ in after if n is not None] if _JOINED_RE.fullmatch(text, ref.end) else []


def _number_spans(text: str, number: int) -> list[re.Match[str]]:
    return list(re.finditer(rf"(?<![\d.:-]){number}(?!\d)(?![.:]\d)", text))


def _op(ref: LabelRef, text: str) -> str:
    if ref.op:
        return ref.op
    if any(m.start() < ref.start < m.end() for m in REMOVE_RE.finditer(text)):
        return "remove"  # `take type:question off 117`
    before = text[: ref.start]
    remove = list(REMOVE_RE.finditer(before))
    after = before[remove[-1].end() :] if remove else ""
    if remove and not re.search(r"\b(?:add|put|apply|set|make|give|it'?s|is\s+an?)\b|\+|->|→", after, re.I):
        return "remove"
    return "add"


def _unknown(refs: Sequence[LabelRef], labels: Sequence[str]) -> list[str]:
    return [not_added(ref.label, labels) for ref in refs if not ref.known]
