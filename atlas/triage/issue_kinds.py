"""What kind of issue this is (a bug report, a question, something else) and what it already carries.

Both are read from the text's structure, never from one project's words. What an issue carries: a
version (`2.14.1`, `datasets==2.14`, `v1.2`, `- Python version: 3.10`), a log (a traceback, stack
frames, an exception's name, lines with a log level), a reproduction (a code block with something in
it beyond the form's lines, a command and what it printed as code spans, or statements pasted as plain
lines). The kind comes first from
the project's own labels: of its label groups expected on every issue, the one whose labels tell most
about how their issues are written (the gain ratio of the label over "quotes a failure" and "asks in
the title") is its kind group, if some of its labels quote failures clearly more often than the rest
(those are its bug labels; a group of components is no kind group). Its label whose titles ask far
more often than the others' is its question label; the rest are something else. An issue without
such a label (its own, or one confidently proposed) is read: a title that asks is a question, quoting
or naming a failure makes a bug report, a title that asks for something is a request.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from atlas.triage import boilerplate
from atlas.triage.corpus import Issue
from atlas.triage.groups import MIN_SUPPORT, LabelGroup

BUG, QUESTION, REQUEST, OTHER = "bug", "question", "request", "other"
SAMPLE = 5000
"""The newest issues a project's label kinds are learned from: enough for any label worth a kind."""
LIFT, SURE = 2.0, 2.0
"""A bug label's issues quote a failure at least twice as often as the rest of its group, at z ≥ 2."""
ASKING_FLOOR = 0.2
"""A question label: at least this share of its issues' titles ask (a question label's issues mostly ask)..."""
ASKING_LIFT = 2.0
"""A question label's titles ask at least this many times as often as those of its group's other labels."""

_VERSION = re.compile(r"\d\.\d+\.\d|(?:==|@|\bv)\d+\.\d|:[ \t`*]*v?\d+\.\d", re.I)
"""`2.14.1`, `datasets==2.14`, `v1.2`, `- Python version: 3.10`."""
_LOG_MARKS = ("Traceback", 'File "', "Error", "Exception", "ERROR", "FATAL", "CRITICAL", "WARNING", "at ")
"""Strings one of which any log below holds: a text without them is not searched."""
_LOG = re.compile(
    r"Traceback \(most recent call last\)|File \"[^\"\n]+\", line \d+|^\s+at [\w$.<>/]+\("
    r"|\b(?:ERROR|FATAL|CRITICAL|WARNING)\b|[a-z](?:Error|Exception)\b",
    re.M,
)
_FENCE = re.compile(r"^\s*(?:```|~~~)[^\n]*\n(.*?)^\s*(?:```|~~~)", re.M | re.S)
_SPAN = re.compile(r"`[^`\n]{3,}`")
"""An inline code span: two of them show a command and what it printed."""
_INDENTED = re.compile(r"(?:^(?: {4}|\t)\S.*\n?){2,}", re.M)
_STATEMENT = re.compile(
    r"^[ \t]*[A-Za-z_][\w.]*(?:\[[^\]\n]*\])*[ \t]*(?:=(?!=)[ \t]*\S.*|\(.*\)[ \t]*[:;]?)[ \t]*$", re.M
)
"""A line that is a statement, pasted without a code block: `ds = ds.map(f)`, `df["a"] = f(x)`, `load(x)`."""
_ASKS = re.compile(
    r"^\W*(?:\[[\w\s/-]{1,20}\]\W*)*(?:question\b|how|why|what|which|where|when|(?:is|are|can|could|does|do|did|should|would)(?!\s+not\b)(?!['’]))\b",
    re.I,
)
"""A title that asks: a question word first, after any short `[tag]` (`[Question] how to …`, `Question: …`)."""
_FAILS = re.compile(
    r"\b(?:error\w*|fail\w*|crash\w*|exception\w*|traceback|broken|hang\w*|freez\w*|unable\s+to|cannot|can['’]?t"
    r"|(?:is|are|does|do)(?:\s+not|n['’]?t)\s+work\w*|not\s+working)\b",
    re.I,
)
"""Words that say something fails: `an error`, `crashes`, `can't view the page`, `is not working`."""
_REQUESTS = re.compile(
    r"^\W*(?:feature\b|add\b|adding\b|support\b|allow\b|implement\b|enable\b|expose\b|provide\b|request\b)", re.I
)


@dataclass(frozen=True)
class Carries:
    """What a report already gives a maintainer."""

    version: bool
    log: bool
    reproduction: bool


def quotes_failure(text: str) -> bool:
    """A traceback, stack frames, an exception's name or a log line: the failure in the program's own words."""
    return any(mark in text for mark in _LOG_MARKS) and bool(_LOG.search(text))


def names_failure(text: str) -> bool:
    """Words that say something fails: `an error`, `crashes`, `is not working`."""
    return bool(_FAILS.search(text))


def asks_for_something(title: str) -> bool:
    """A title that asks for something: `Add …`, `Support …`, `Feature: …`."""
    return bool(_REQUESTS.match(title))


def has_code_block(text: str) -> bool:
    """A fenced code block with something in it."""
    return any(block.strip() for block in _FENCE.findall(text))


def gives_version(text: str) -> bool:
    """A version: `2.14.1`, `datasets==2.14`, `v1.2`, `- Python version: 3.10`."""
    return bool(_VERSION.search(text))


def carries(issue: Issue, common: Collection[str] = ()) -> Carries:
    """The version, log and reproduction the issue holds; a form's own lines (an empty template) hold none."""
    shown = boilerplate.visible(issue.body)
    own = boilerplate.strip(shown, common)
    blocks = [boilerplate.strip(block, common) for block in _FENCE.findall(shown)]
    code = any(block.strip() for block in blocks) or bool(_INDENTED.search(own)) or len(_SPAN.findall(own)) >= 2
    code = code or len(_STATEMENT.findall(own)) >= 2
    return Carries(bool(_VERSION.search(f"{issue.title}\n{own}")), quotes_failure(issue.body), code)


def asks(title: str) -> bool:
    """Whether a title asks: a question mark (the full-width one of Chinese and Japanese text too), or a question
    word first."""
    return "?" in title or "？" in title or bool(_ASKS.match(title.strip()))


def kind_from_text(issue: Issue, common: Collection[str] = ()) -> str | None:
    """The kind as the reporter wrote it: asking, failing, or asking for something; None when nothing tells."""
    title = issue.title.strip()
    if asks(title):
        return QUESTION
    own = f"{title}\n{boilerplate.strip(issue.body, common)}"
    if quotes_failure(issue.body) or names_failure(own):
        return BUG
    return REQUEST if asks_for_something(title) else None


@dataclass(frozen=True)
class LabelKinds:
    """The project's kind group and what each of its labels says an issue is."""

    group: str | None = None
    kinds: dict[str, str] = field(default_factory=dict)

    def of(self, labels: Iterable[str]) -> str | None:
        """The kind the labels say (a bug label wins over the others); None when none of them has a kind."""
        said = {self.kinds[label] for label in labels if label in self.kinds}
        return next((kind for kind in (BUG, QUESTION, OTHER) if kind in said), None)


Mark = tuple[bool, bool]
"""(quotes a failure, asks in its title): how one issue is written."""


def learn(groups: list[LabelGroup], issues: Iterable[Issue]) -> LabelKinds:
    """The kind group among the groups expected on every issue (any group when none is) with its labels' kinds,
    and any other label whose titles clearly ask more than the project's do (a `question` outside any group)."""
    candidates = [group for group in groups if group.always] or groups
    alone: dict[str, list[Mark]] = {}
    every: dict[str, list[Mark]] = {}
    labelled: list[Mark] = []
    for issue in issues:
        mark = (quotes_failure(issue.body), asks(issue.title))
        labelled += [mark] if issue.labels else []
        for label in issue.labels:
            every.setdefault(label, []).append(mark)
        for group in candidates:
            present = [label for label in issue.labels if label in group.labels or label in group.excused_by]
            if len(present) == 1:
                alone.setdefault(present[0], []).append(mark)
    name, kinds = _kind_group(candidates, alone)
    # A stand-in's issues say they are bug reports or questions, or say nothing: their own words decide then.
    stand_ins = {label for group in candidates for label in group.excused_by}
    kinds = {label: kind for label, kind in kinds.items() if label not in stand_ins or kind in {BUG, QUESTION}}
    asking = [label for label, marks in every.items() if len(marks) >= MIN_SUPPORT and _asks_clearly(marks, labelled)]
    return LabelKinds(name, {**dict.fromkeys(asking, QUESTION), **kinds})


def _kind_group(candidates: list[LabelGroup], alone: dict[str, list[Mark]]) -> tuple[str | None, dict[str, str]]:
    best: dict[str, str] = {}
    best_name, best_ratio = None, 0.0
    for group in candidates:
        # A label that stands in for the group (`dataset bug` where kinds are `bug`, `enhancement`) is a kind too.
        members = (*group.labels, *group.excused_by)
        per_label = {label: alone[label] for label in members if len(alone.get(label, ())) >= MIN_SUPPORT}
        ratio = _gain_ratio(per_label)
        kinds = _label_kinds(per_label) if len(per_label) >= 2 else {}
        if kinds and ratio > best_ratio:
            best, best_name, best_ratio = kinds, group.name, ratio
    return best_name, best


def _asks_clearly(marks: list[Mark], labelled: list[Mark]) -> bool:
    titles = [asked for _, asked in marks]
    return sum(titles) >= ASKING_FLOOR * len(titles) and clearly_more(titles, [asked for _, asked in labelled])


def _entropy(counts: Iterable[int]) -> float:
    counts = [c for c in counts if c]
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts) if total else 0.0


def _gain_ratio(per_label: dict[str, list[Mark]]) -> float:
    """How much a group's label tells of how its issues are written, over how much choosing it says at all."""
    sizes = {label: len(marks) for label, marks in per_label.items()}
    total = sum(sizes.values())
    if total == 0:
        return 0.0
    whole = _entropy(Counter(m for marks in per_label.values() for m in marks).values())
    within = sum(sizes[label] / total * _entropy(Counter(marks).values()) for label, marks in per_label.items())
    split = _entropy(sizes.values())
    return (whole - within) / split if split else 0.0


def _label_kinds(per_label: dict[str, list[Mark]]) -> dict[str, str]:
    """The question label asks most (well above its group); bug labels quote failures at least as often as their
    group does, and clearly more often than the rest (else the group is not a kind: {})."""
    every = [m for marks in per_label.values() for m in marks]
    failing = sum(f for f, _ in every) / len(every)
    share = {label: (sum(f for f, _ in m) / len(m), sum(a for _, a in m) / len(m)) for label, m in per_label.items()}
    question = max(share, key=lambda label: share[label][1])
    others = [m for label, marks in per_label.items() if label != question for m in marks]
    asking = share[question][1]
    if not others or asking < ASKING_FLOOR or asking <= ASKING_LIFT * sum(a for _, a in others) / len(others):
        question = ""
    bugs = {label for label, (fails, _) in share.items() if label != question and fails > 0 and fails >= failing}
    rest = [f for label, marks in per_label.items() if label not in bugs and label != question for f, _ in marks]
    if not clearly_more([f for label in bugs for f, _ in per_label[label]], rest):
        return {}
    kinds = {label: BUG if label in bugs else OTHER for label in share}
    return {**kinds, question: QUESTION} if question else kinds


def clearly_more(these: list[bool], those: list[bool]) -> bool:
    """Whether `these` are true at least twice as often as `those`, by more than chance would make them (z ≥ 2)."""
    return clearly_more_often(sum(these), len(these), sum(those), len(those))


def clearly_more_often(hits: int, count: int, other_hits: int, other_count: int) -> bool:
    """`clearly_more` from counts: `hits` of `count` against `other_hits` of `other_count`."""
    if not count or not other_count:
        return False
    p1, p2 = hits / count, other_hits / other_count
    pooled = (hits + other_hits) / (count + other_count)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / count + 1 / other_count))
    return p1 >= LIFT * p2 and spread > 0 and (p1 - p2) / spread >= SURE


_learned: dict[tuple[str, str], LabelKinds] = {}
_lock = threading.Lock()


def label_kinds(key: tuple[str, str], groups: list[LabelGroup], issues: Iterable[Issue]) -> LabelKinds:
    """The kinds learned once per version of the labels (`key`)."""
    with _lock:
        found = _learned.get(key)
    if found is None:
        found = learn(groups, issues)
        with _lock:
            _learned[key] = found
    return found
