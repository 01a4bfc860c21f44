"""Round two of an offline plan: what is decided from round one's reads, and what the answer says of it.

`check #130; if it's still open, comment …` reads #130 first and posts only when it is open;
`strip the severity off 84` reads #84 and removes the severity it has; `open the newest issue`
searches, then reads the first hit. A condition looks only at an issue's state, labels, comment
count and text, as the user asked; nothing an issue says can add a call the user did not ask for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from atlas.offline.plan import PlannedCall
from atlas.offline.reading.lazy import lazy
from atlas.offline.readings import ToolReading, issue_text

SOMEWHERE = 0
_WRITES = frozenset({"add_label", "remove_label", "post_comment"})
"""The issue number an action names its topic's issue by until the search finds it: GitHub numbers start at 1."""
_WORD_NUMBERS = {"no": 0, "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10}
_COMMENTS_RE = lazy(
    r"\b(?P<cmp>fewer|less|more|under|over|at\s+least|at\s+most|no|zero|any)\s+(?:than\s+)?(?P<n>\d+|\w+)?\s*"
    r"(?:comments?|replies|responses)\b|\b(?P<none>nobody|no\s+one|no-one)\s+(?:has\s+)?(?:commented|replied|answered)",
    re.I,
)
_MENTIONS_RE = lazy(
    r"\b(?:mentions?|says|said|contains?|talks?\s+about|refers?\s+to|cites?)\s+(?P<what>\"Q\d+\"|[\w.:-]+)", re.I
)
_NEGATED_RE = lazy(r"\b(?:not|no|no\s+longer|isn'?t|hasn'?t|doesn'?t|wasn'?t|without|lacks?|missing)\b|n't\b", re.I)
_ANY_LABEL_RE = lazy(r"\b(?:labels?|(?P<un>un)?labell?ed|tagged)\b", re.I)
_DUPLICATE_RE = lazy(
    r"\b(?:there'?s|there\s+is|there\s+are|(?:it|this|that|#?\d{1,5})\s+(?:looks?|seems?)\s+like|(?:it|this|that|#?\d{1,5})\s+has|any|find)"
    r"\s+(?:an?\s+|any\s+)?(?:(?:obvious|clear|likely|older|earlier|real|possible)\s+)*(?:duplicates?|dupes?|dups?)\b",
    re.I,
)
"""`if there's an obvious older duplicate`, `if it looks like a dupe`: a similar issue close enough to be the same."""
_STATE_RE = lazy(r"\b(?P<open>still\s+open|open|opened|unresolved)\b|\b(?P<closed>closed|resolved|fixed|done)\b", re.I)


@dataclass(frozen=True)
class Condition:
    """One test on an issue: `state` (open/closed), `label`, `labelled` (any label), `comments` (a comparison),
    `mentions`, or `duplicate` (tested on its similar issues, not on the issue read)."""

    kind: str
    value: Any
    negated: bool = False
    compare: str = "eq"
    kind_said: str = ""
    """For a label tested in place of a kind said (`if it's a bug`: the label `bug`): the kind, as said."""

    def holds(self, data: Mapping[str, Any]) -> bool:
        if self.kind == "state":
            result = str(data.get("state", "")).lower() == self.value
        elif self.kind == "label":
            labels = [str(x).lower() for x in [*(data.get("labels") or []), *(data.get("tracker_labels") or [])]]
            prefix = str(self.value).lower()
            result = any(label.startswith(prefix) if prefix.endswith(":") else label == prefix for label in labels)
        elif self.kind == "labelled":
            result = bool([*(data.get("labels") or []), *(data.get("tracker_labels") or [])])
        elif self.kind == "duplicate":  # the issue's similar issues (`find_similar`): one close enough to be the same
            result = data.get("nothing_close") is False and bool(data.get("similar"))
        elif self.kind == "comments":
            count = data.get("comment_count")
            count = count if isinstance(count, int) else len(data.get("comments") or [])
            result = {"lt": count < self.value, "gt": count > self.value, "ge": count >= self.value}.get(
                self.compare, count == self.value
            )
        else:
            result = str(self.value).lower() in issue_text(data).lower()
        return bool(result) != self.negated

    def words(self) -> str:
        if self.kind_said:  # `if it's a feature request`: what was tested, said as such
            has = "does not carry" if self.negated else "carries"
            return f"{has} `{self.value}`, the label this project gives {self.kind_said}"
        if self.kind == "labelled":
            return "has no label" if self.negated else "has a label"
        said = {
            "state": f"is {self.value}",
            "label": f"has the label `{self.value}`"
            if not str(self.value).endswith(":")
            else f"has a {self.value[:-1]}",
            "comments": f"has {dict(lt='fewer than', gt='more than', ge='at least').get(self.compare, '')} "
            f"{self.value} comments".replace("  ", " "),
            "mentions": f"mentions “{self.value}”",
            "duplicate": "looks like a duplicate of one of its similar issues",
        }[self.kind]
        return f"not ({said})" if self.negated else said


def parse_condition(text: str, quoted: Sequence[str], label_refs: Sequence[str]) -> Condition | None:
    """The test a condition's words ask for, or None when they ask for none the planner can check."""
    negated = bool(_NEGATED_RE.search(text)) != bool(re.match(r"\s*unless\b", text, re.I))
    if match := _COMMENTS_RE.search(text):
        if match.group("none") or match.group("cmp").lower() in {"no", "zero"}:
            return Condition("comments", 0, negated=False)
        if match.group("cmp").lower() == "any":
            return Condition("comments", 0, negated=True)
        raw = (match.group("n") or "").lower()
        number = int(raw) if raw.isdigit() else _WORD_NUMBERS.get(raw)
        if number is not None:
            kind = match.group("cmp").lower()
            compare = "lt" if kind in {"fewer", "less", "under"} else "ge" if kind == "at least" else "gt"
            return (
                Condition("comments", number, compare=compare)
                if kind != "at most"
                else Condition("comments", number, negated=True, compare="gt")
            )
    if match := _MENTIONS_RE.search(text):
        what = match.group("what")
        quote = re.fullmatch(r"\"Q(\d+)\"", what)
        if quote or re.search(r"[\d:_.-]", what):  # `says "…"`, `mentions 2.8.4`: text to look for, not a meaning
            return Condition("mentions", quoted[int(quote.group(1))] if quote else what, negated=negated)
        return None
    if _DUPLICATE_RE.search(text):  # `if there's an obvious older duplicate`: a judgement on similar issues
        return Condition("duplicate", True, negated=negated)
    if label_refs:
        return Condition("label", label_refs[0], negated=negated)
    if match := _ANY_LABEL_RE.search(text):  # `if 7421 has no label`, `unless it is labelled`
        return Condition("labelled", True, negated=negated != bool(match.group("un")))
    if match := _STATE_RE.search(text):
        return Condition("state", "open" if match.group("open") else "closed", negated=negated)
    return None


@dataclass
class Later:
    """A step decided from round one: a test on an issue, or labels of a family, or the newest hit."""

    issue_id: int | None = None
    test: Condition | None = None
    actions: list[PlannedCall] = field(default_factory=list)
    remove_families: list[str] = field(default_factory=list)
    """Label prefixes (`severity:`) to take off `issue_id`, whichever of them it has."""
    read_first_hit: bool = False
    on_first_hit: list[PlannedCall] = field(default_factory=list)
    """Actions on the first hit once it is read (`label the DVC one bug`): their `issue_id` is set to the hit's."""
    compared: int = 0
    """How many of the first hits are read and set side by side (`compare the two oldest open bugs`); 0: none."""
    planned_hits: int = 0
    """How many of the search's hits a triage plan is made for (`triage the open streaming issues`); 0: none."""
    proposed: list[PlannedCall] = field(default_factory=list)
    """Actions the user asked to be suggested, not done (`… suggest I mark it duplicate`): said when the test
    holds, never called."""

    def data(self, outcomes: Sequence[ToolReading]) -> Mapping[str, Any] | None:
        read = "find_similar" if self.test is not None and self.test.kind == "duplicate" else "get_issue"
        for outcome in outcomes:
            if (
                outcome.call.name == read
                and outcome.call.arguments.get("issue_id") == self.issue_id
                and outcome.ok
                and isinstance(outcome.data, Mapping)
            ):
                return outcome.data
        return None

    def calls(self, outcomes: Sequence[ToolReading]) -> list[PlannedCall]:
        if self.planned_hits:
            ids = _hit_ids(outcomes, self.planned_hits)
            return [PlannedCall("plan_triage", {"issue_ids": ids, "limit": len(ids)})] if ids else []
        if self.read_first_hit:
            read = _first_hit(outcomes, max(self.compared, 1))
            acted = [
                PlannedCall(call.name, {**call.arguments, "issue_id": found.arguments["issue_id"]})
                for found in read
                for call in self.on_first_hit
            ]
            if self.test is None or not read:
                return [*read, *acted]
            hit = self._hit(outcomes, read)  # `if the DAG request is still open, …`: the hit read, then tested
            return read if hit is None else [*read, *(acted if self.test.holds(hit) else [])]
        data = self.data(outcomes)
        if data is None or (self.test is not None and not self.test.holds(data)):
            return []
        labels = [str(x) for x in [*(data.get("labels") or []), *(data.get("tracker_labels") or [])]]
        removals = [
            PlannedCall("remove_label", {"issue_id": self.issue_id, "label": label})
            for prefix in self.remove_families
            for label in labels
            if label.lower().startswith(prefix)
        ]
        return [*self.actions, *removals]

    def _hit(self, outcomes: Sequence[ToolReading], read: Sequence[PlannedCall]) -> Mapping[str, Any] | None:
        """The first hit's issue as read (round two), for a test on it."""
        return replace(self, issue_id=read[0].arguments["issue_id"], read_first_hit=False).data(outcomes)

    def said(self, outcomes: Sequence[ToolReading]) -> str | None:
        """One sentence on what round one decided, for the answer."""
        if self.planned_hits:
            return None if _hit_ids(outcomes, 1) else "No issue matched, so there is nothing to plan."
        if self.read_first_hit:
            if read := _first_hit(outcomes):
                hit = self._hit(outcomes, read) if self.test is not None else None
                if hit is None or self.test is None or self.test.holds(hit):
                    return None
                return _unmet(read[0].arguments["issue_id"], self.test)
            unsorted = any(isinstance(o.data, Mapping) and o.data.get("sorted_instead") for o in outcomes)
            return (
                "The issues could not be sorted as asked, so none is the first."
                if unsorted
                else "No issue was found to act on, so nothing was changed."
                if any(call.name in _WRITES for call in self.on_first_hit)
                else "No issue was found to open."
            )
        data = self.data(outcomes)
        if data is None:
            return f"#{self.issue_id} could not be read, so nothing that depends on it was done."
        if self.test is not None and not self.test.holds(data):
            if not self.actions:
                return None
            return _unmet(self.issue_id, self.test)
        if self.remove_families and not self.calls(outcomes):
            families = ", ".join(prefix[:-1] for prefix in self.remove_families)
            return f"#{self.issue_id} has no {families} label to remove."
        if self.test is not None and self.proposed:
            said = "; ".join(f"`{command_for(call)}`" for call in self.proposed)
            return f"#{self.issue_id} {self.test.words()}. As you asked, nothing was changed; to do it, say {said}."
        if self.test is not None and not self.actions:
            return f"#{self.issue_id} {self.test.words()}, so as you asked I left it alone."
        if self.test is not None:
            return f"#{self.issue_id} {self.test.words()}, so as you asked:"
        return None


def command_for(call: PlannedCall) -> str:
    """The words that ask Atlas for a write (`label #7418 duplicate`), for an answer that only suggests it."""
    issue, said = call.arguments.get("issue_id"), call.arguments
    if call.name == "add_label":
        return f"label #{issue} {said.get('label')}"
    if call.name == "remove_label":
        return f"remove {said.get('label')} from #{issue}"
    return f"comment on #{issue}: {said.get('body')}"


def _unmet(issue_id: object, test: Condition) -> str:
    if test.kind_said:  # `if it's a bug`: the label stands in for a judgement of the text
        has = "carries" if test.negated else "does not carry"
        return (
            f"#{issue_id} {has} `{test.value}`, the label this project gives {test.kind_said}, so that step was not "
            "taken: the offline planner tests the label, as it cannot judge whether the text describes "
            f"{test.kind_said}."
        )
    return f"#{issue_id} does not meet the condition (it {test.words()} is false), so I did not act."


def _first_hit(outcomes: Sequence[ToolReading], count: int = 1) -> list[PlannedCall]:
    """A read of the first hit of the search (of the first `count`, for a comparison)."""
    return [PlannedCall("get_issue", {"issue_id": issue_id}) for issue_id in _hit_ids(outcomes, count)]


def _hit_ids(outcomes: Sequence[ToolReading], count: int) -> list[int]:
    """The first `count` hits of the search; none when it sorted otherwise than asked."""
    for outcome in outcomes:
        if outcome.call.name == "search_issues" and outcome.ok and isinstance(outcome.data, Mapping):
            if outcome.data.get("sorted_instead"):
                return []  # `the most commented issue` where no issue's comments are known: none is first
            hits = [hit for hit in outcome.data.get("hits") or [] if isinstance(hit, Mapping)][:count]
            if hits and all(isinstance(hit.get("id"), int) for hit in hits):
                return [hit["id"] for hit in hits]
    return []
