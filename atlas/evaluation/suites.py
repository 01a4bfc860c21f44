"""Eval suites: reading a JSONL suite of cases and scoring the calls a model planned for each.

Scoring is structural, as in BFCL's AST checker: a planned call matches an expected one when the
tool name is the same and every listed argument matches; unlisted arguments are free. A listed
string value may start with `~` (a case-insensitive substring) and may give alternatives with `|`
(`comp:core|comp:worker`). Calls are compared round by round: round one's calls are what the
model asked for before seeing any result. A case passes when every expected call is matched in
its round, nothing else was called (reads beyond the expected ones are allowed only with
`"extra": true`; a side effect never is), no forbidden call was made, the answer holds every
phrase of `answer` and none of `answer_not`. A case may declare `faults` (`atlas.evaluation.faults`): those
tools then really fail, and the answer must also say that a check could not be made.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from atlas.evaluation.faults import Fault, acknowledged
from atlas.foundation import statefiles
from atlas.foundation.errors import ConfigError, ErrorKind

SUITE_LIMIT = 64 * statefiles.MiB
"""The most Atlas reads of an eval suite."""


class ExpectedCall(BaseModel):
    """One call a case expects (or forbids): the tool and the arguments that matter."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class Case(BaseModel):
    """One question and what a careful assistant would call for it."""

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str = Field(min_length=1)
    tags: list[str] = Field(default_factory=list)
    rounds: list[list[ExpectedCall]]
    """The calls of each round, in any order within a round; `[]` expects no call at all."""
    any: list[ExpectedCall] = Field(default_factory=list)
    """Calls that may land in any round (a side effect made at once or after a check, both fine)."""
    forbid: list[ExpectedCall] = Field(default_factory=list)
    extra: bool = False
    """Whether reads beyond the expected ones are allowed."""
    answer: list[str] = Field(default_factory=list)
    """Phrases the answer must hold (each matched like an argument: `~` and `|`)."""
    answer_not: list[str] = Field(default_factory=list)
    """Phrases the answer must not hold: what a failed source would have said, for instance."""
    faults: list[Fault] = Field(default_factory=list)
    """Tools that fail for this case, and how (`atlas.evaluation.faults`)."""


@dataclass(frozen=True)
class PlannedCall:
    """A call the model made: its round, tool, arguments and how it ended."""

    round: int
    tool: str
    args: Mapping[str, Any] | str
    kind: ErrorKind
    side_effect: bool

    def shown(self) -> str:
        if isinstance(self.args, str):
            return f"{self.tool}({self.args})"
        return f"{self.tool}(" + ", ".join(f"{key}={value!r}" for key, value in self.args.items()) + ")"


@dataclass
class CaseResult:
    case: Case
    planned: list[PlannedCall]
    answer: str
    misses: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.misses


def load_suite(path: Path) -> list[Case]:
    """The cases of a JSONL suite; a bad line is a one-line error naming its line number."""
    try:
        lines = statefiles.read_text(path, limit=SUITE_LIMIT, what="a suite").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"the suite {str(path)!r} cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
    cases: list[Case] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            case = Case.model_validate(json.loads(line))
        except (ValueError, ValidationError) as exc:
            first = str(exc).splitlines()[0] if not isinstance(exc, ValidationError) else _first_error(exc)
            raise ConfigError(f"{path.name}:{number}: not a valid case ({first})") from None
        if case.id in seen:
            raise ConfigError(f"{path.name}:{number}: the case id {case.id!r} is used twice")
        seen.add(case.id)
        cases.append(case)
    if not cases:
        raise ConfigError(f"the suite {str(path)!r} holds no cases")
    return cases


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error.get("loc", ()))
    return f"{where}: {error.get('msg', 'invalid')}" if where else str(error.get("msg", "invalid"))


def value_matches(expected: Any, actual: Any) -> bool:
    """One argument: `~text` is a case-insensitive substring, `a|b` alternatives, anything else equal."""
    if expected is None:
        return actual is None or actual == ""
    if not isinstance(expected, str):
        return bool(expected == actual and type(expected) is type(actual))
    if actual is None:
        actual = ""  # an absent or null argument reads as empty text: `a|` allows it
    text = actual if isinstance(actual, str) else json.dumps(actual)
    for option in expected.split("|"):
        if option.startswith("~"):
            if option[1:].casefold() in text.casefold():
                return True
        elif option == actual or (not isinstance(actual, str) and option == text):
            return True
    return False


def call_matches(expected: ExpectedCall, call: PlannedCall) -> bool:
    """The tool is the same and every listed argument matches (an absent one counts as null)."""
    if expected.tool != call.tool:
        return False
    if isinstance(call.args, str):
        return not expected.args
    return all(value_matches(value, call.args.get(name)) for name, value in expected.args.items())


def _assign(expected: Sequence[ExpectedCall], planned: Sequence[PlannedCall]) -> list[int] | None:
    """Indices of distinct planned calls matching each expected call, or None when there is no such choice."""

    def search(index: int, used: frozenset[int]) -> list[int] | None:
        if index == len(expected):
            return []
        for position, call in enumerate(planned):
            if position not in used and call_matches(expected[index], call):
                rest = search(index + 1, used | {position})
                if rest is not None:
                    return [position, *rest]
        return None

    return search(0, frozenset())


def _greedy(expected: Sequence[ExpectedCall], planned: Sequence[PlannedCall]) -> list[int]:
    """For each expected call the first unused planned call that matches it, or -1."""
    chosen: list[int] = []
    for wanted in expected:
        position = next((i for i, call in enumerate(planned) if i not in chosen and call_matches(wanted, call)), -1)
        chosen.append(position)
    return chosen


def score(case: Case, planned: list[PlannedCall], answer: str) -> CaseResult:
    """Score one case: every miss as a short sentence (no misses: passed)."""
    result = CaseResult(case, planned, answer)
    rounds = max([len(case.rounds), *(call.round for call in planned)])
    unmatched: list[PlannedCall] = []
    for number in range(1, rounds + 1):
        expected = case.rounds[number - 1] if number <= len(case.rounds) else []
        made = [call for call in planned if call.round == number]
        chosen = _assign(expected, made)
        if chosen is None:
            chosen = _greedy(expected, made)  # for the report: which calls were there, which were not
            missing = [e for index, e in enumerate(expected) if chosen[index] < 0]
            result.misses.append(f"round {number}: expected {', '.join(_shown(e) for e in missing or expected)}")
        unmatched += [call for position, call in enumerate(made) if position not in chosen]
    # The calls of any round are matched among what the rounds left over.
    anywhere = _assign(case.any, unmatched)
    if anywhere is None:
        anywhere = _greedy(case.any, unmatched)
        missing = [e for index, e in enumerate(case.any) if anywhere[index] < 0]
        result.misses.append(f"any round: expected {', '.join(_shown(e) for e in missing)}")
    for position, call in enumerate(unmatched):
        if position not in anywhere:
            number = call.round
            if call.side_effect:
                result.misses.append(f"round {number}: a side effect not asked for: {call.shown()}")
            elif not case.extra:
                result.misses.append(f"round {number}: an extra call: {call.shown()}")
    for forbidden in case.forbid:
        for call in planned:
            if call_matches(forbidden, call):
                result.misses.append(f"a forbidden call: {call.shown()}")
    for phrase in case.answer:
        if not value_matches(phrase if phrase.startswith("~") else "~" + phrase, answer):
            result.misses.append(f"the answer does not say {phrase.lstrip('~')!r}")
    for phrase in case.answer_not:
        if value_matches(phrase if phrase.startswith("~") else "~" + phrase, answer):
            result.misses.append(f"the answer says {phrase.lstrip('~')!r}")
    if case.faults and not acknowledged(answer):
        result.misses.append("the answer does not say that a check could not be made")
    return result


def _shown(expected: ExpectedCall) -> str:
    return f"{expected.tool}(" + ", ".join(f"{key}={value!r}" for key, value in expected.args.items()) + ")"


@dataclass(frozen=True)
class TagScore:
    tag: str
    cases: int
    passed: int

    @property
    def rate(self) -> float:
        return self.passed / self.cases if self.cases else 0.0


def by_tag(results: Iterable[CaseResult]) -> list[TagScore]:
    """Pass counts per tag, in the order tags first appear; a case counts under each of its tags."""
    counts: dict[str, list[int]] = {}
    for result in results:
        for tag in result.case.tags or ["untagged"]:
            entry = counts.setdefault(tag, [0, 0])
            entry[0] += 1
            entry[1] += int(result.passed)
    return [TagScore(tag, cases, passed) for tag, (cases, passed) in counts.items()]


def overall(results: Sequence[CaseResult]) -> TagScore:
    return TagScore("all", len(results), sum(result.passed for result in results))
