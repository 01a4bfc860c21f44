"""The entities of one request, for the offline planner's frame parser: issues and labels, with spans.

Issues: `#41`, `issue 41`, bare numbers that are not counts, versions, years or durations, ranges
(`31-33`, `31 thru 33`), lists (`84 112 123`) and numbers in words (`issue forty one`). Labels: the
dataset's own labels, by name (`comp:core`, small typos forgiven), by severity (`S2`, `sev 1`,
`S1s`), by their words (`redis`, `worker comp`, `a bug`) and by family (`the severity`), each with
the operation a shorthand gives it (`+x`, `-x`, `-> x`). Nothing here is a list of the project's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from atlas.foundation.label_names import label_value, split_label
from atlas.offline.reading.issue_refs import CODE_RE, bare_issue_ids, issue_ids_in
from atlas.offline.reading.labels import label_from_token, labels_in_words
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.references import COMPARE_RE

MAX_RANGE = 12
"""A range wider than this is not a list of issues to read one by one."""
_RANGE_RE = lazy(r"#?(\d{1,5})\s*(?:-|–|\.\.|\bthru\b|\bthrough\b|\bto\b)\s*#?(\d{1,5})(?![\w.:])", re.I)
_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
_UNITS += "seventeen eighteen nineteen"
NUMBER_WORDS = {word: n for n, word in enumerate(_UNITS.split())}
"""`zero` to `nineteen`, as numbers."""
_TENS = {
    w: 10 * n
    for n, w in enumerate(["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])
    if n > 1
}
_WORDED_RE = lazy(
    rf"\b(?P<lead>issues?|tickets?|bugs?|number|#)\s*(?P<n>(?:{'|'.join(_TENS)})(?:[\s-](?:{'|'.join(list(NUMBER_WORDS)[1:10])}))?"
    rf"|{'|'.join(sorted(NUMBER_WORDS, key=len, reverse=True))})\b(?:\s+hundred(?:\s+and)?\s+(?P<rest>[a-z -]+))?",
    re.I,
)
_VERSION_RE = lazy(r"\bv?\d+\.\d+(?:\.\d+)*(?:[a-z]+\d*)?\b|\b\d+(?:\.\d+)?\s*%", re.I)
_SIGN_RE = lazy(r"(?:(?<=\s)|^)(?P<op>[+-](?=[A-Za-z])|(?:->|=>|→)\s*)(?P<token>[A-Za-z][\w.-]*(?::[\w.-]+)?)")
"""`+redis`, `-type:bug`, `-> S2`: a label added or taken off; a sign apart from its word is prose (`proxy + streaming`,
`stale issues - nothing since 2022`)."""
_TOKEN_RE = lazy(r"(?<![\w/])([A-Za-z][\w.-]*:[A-Za-z0-9][\w.-]*)")
_SEVERITY_RE = lazy(r"\b(?:sev(?:erity)?|priority|prio)\s*[:=]?\s*s?([1-9])\b|\bs([1-9])s?\b", re.I)
_FAMILY_RE = lazy(
    r"(?<![\w:])(?:the\s+|its\s+|any\s+|all\s+)?(severity|severities|sev|component|comp|type)\b(?!\s*[:=]?\s*s?\d|:)",
    re.I,
)
_COMPARED_TO_RE = lazy(
    r"(?<=\d)\s+(?:differ(?:s|ent)?\s+from|compared?\s+(?:to|with)|vs\.?|versus)\s+#?(\d{1,5})\b(?![.:]\d)", re.I
)
_SLASHED_RE = lazy(
    r"(?:^\s*(?:(?:is|are|were|compare|contrast|diff|check)\s+)?#?(?P<lead>\d{1,5})|(?<![\w/.:-])#(?P<marked>\d{1,5}))"
    r"\s*/\s*#?(?P<other>\d{1,5})(?![\w/.:-])(?!\s+of\b)",
    re.I,
)
"""Two issues with a slash between, said first in the request or marked with `#`: not a day (`from 12/03`) or a share
(`3/4 of the bugs`) said further on."""
_TERSE_RE = lazy(
    r"^\s*#?(\d{1,5})\b(?=\s+(?:needs?\s+|is\s+|gets?\s+|should\s+be\s+|to\s+|->\s*)?(?:[+-]?[A-Za-z][\w.-]*:|s[1-9]\b|sev))"
    r"|^\s*[+-][A-Za-z][\w.:-]*\s+#?(\d{1,5})\s*[.!]?\s*$",
    re.I,
)
"""`41 S2`, `41 needs S1 …`, `+redis 77`: the terse triage forms, where the number is the issue."""
_BEFORE_OP_RE = lazy(r"(?:^|[,;]|\band\b)\s*#?(\d{1,5})\s*(?::(?!\d)|\+|-(?=[A-Za-z])|->|→)")


def spelled_numbers(text: str) -> str:
    """`issue forty one`, `ticket ninety-three`: the number in digits (after an issue word only)."""

    def digits(match: re.Match[str]) -> str:
        words = re.split(r"[\s-]+", match.group("n").lower())
        value = sum(_TENS.get(w, NUMBER_WORDS.get(w, 0)) for w in words)
        return f"{match.group('lead')} {value}"

    return _WORDED_RE.sub(digits, text)


_SPELLED_COUNT_RE = lazy(
    r"\b(" + "|".join(list(NUMBER_WORDS)[2:]) + r")\b(?=\s+(?:newest|latest|oldest|last|most\s+recent"
    r"|(?:(?:open|closed|new)\s+)?(?:[\w:-]+\s+)?(?:issues|bugs|tickets|reports|requests|ones)\b))",
    re.I,
)
"""`the five oldest ones`, `three open bugs`: a count spelled out, read as its number."""


def spelled_counts(text: str) -> str:
    """`the five oldest ones` -> `the 5 oldest ones`: a count spelled out before issues or an order, in digits; `a
    few` or `the oldest few`: three."""
    text = _FEW_RE.sub(lambda said: f"{FEW} {said['order']} ones" if said["order"] else str(FEW), text)
    text = _WHICH_COUNT_RE.sub(r"\g<which> are the \g<count> \g<order> ones", text)  # `which five are the oldest?`
    return _SPELLED_COUNT_RE.sub(lambda said: str(NUMBER_WORDS[said.group(1).lower()]), text)


_WHICH_COUNT_RE = lazy(
    r"\b(?P<which>which|what)\s+(?P<count>\d{1,2}|"
    + "|".join(list(NUMBER_WORDS)[2:])
    + r")\s+(?:are|were|is)\s+(?:the\s+)?(?P<order>oldest|newest|latest|earliest|most\s+recent)\b",
    re.I,
)
FEW = 3
_FEW_RE = lazy(
    r"\b(?:a\s+few(?=\s+(?:newest|latest|oldest|most\s+recent)\b)|(?P<order>newest|latest|oldest)\s+few)\b", re.I
)
"""`the oldest few`, `a few newest`: a few of an order, said as three."""


_YEARS_SAID_RE = lazy(r"\b(?:years?|yearly|annual(?:ly)?|year[- ]over[- ]year)\b", re.I)


def _years_set_against(text: str, compared: re.Match[str]) -> bool:
    """`opened in 2022 vs 2023`, `bugs 2022 vs 2023`: two years, the first said as a time or as the issues' year, not
    issue #2023 compared with another."""
    year = re.search(
        r"\b(?:in|during|of|from|for|since|issues|tickets|bugs|reports|requests)\s+(?:19|20)\d\d$",
        text[: compared.start()],
        re.I,
    )
    # `enhancement requests per year, how does 2021 compare to 2024?`: years, where the request speaks of years
    said_of_years = re.search(r"(?:^|\s)(?:19|20)\d\d$", text[: compared.start()]) and _YEARS_SAID_RE.search(text)
    return (year is not None or bool(said_of_years)) and 1900 <= int(compared.group(1)) <= 2099


def slashed_pairs(text: str) -> list[tuple[int, int]]:
    """`29/79 same?`: two issues set against each other, written with a slash, as (place, number); only beside words
    that compare (elsewhere `12/03` is a day, `3/4` a share)."""
    if not COMPARE_RE.search(text):
        return []
    return [
        (m.start(name), int(m.group(name)))
        for m in _SLASHED_RE.finditer(text)
        for name in ("lead", "marked", "other")
        if m.group(name)
    ]


def issue_refs(text: str) -> list[int]:
    """The issues a request names, in order, once each."""
    text = spelled_numbers(text)
    found: list[tuple[int, int]] = []
    for match in _RANGE_RE.finditer(text):
        low, high = int(match.group(1)), int(match.group(2))
        word = match.group(0)
        ranged = (
            "#" in word
            or re.search(r"thru|through|\.\.", word, re.I)
            or re.search(r"\b(?:issues?|tickets?)\s*$", text[: match.start()], re.I)
        )
        if ranged and 0 < low < high <= low + MAX_RANGE:
            found += [(match.start(), n) for n in range(low, high + 1)]
    found += [(m.start(1), int(m.group(1))) for m in _COMPARED_TO_RE.finditer(text) if not _years_set_against(text, m)]
    found += [(m.start(), int(m.group(1) or m.group(2))) for m in _TERSE_RE.finditer(text)]
    found += slashed_pairs(text)
    for lead in _BEFORE_OP_RE.finditer(text):
        found.append((lead.start(1), int(lead.group(1))))  # `41: S2, +comp:worker`, `12 +redis, 1 +postgres`
    cleaned = _VERSION_RE.sub(" ", CODE_RE.sub(" ", text))
    found += [(text.find(f"#{n}"), n) for n in issue_ids_in(text)]
    bare = [n for n in bare_issue_ids(_TOKEN_RE.sub(" ", cleaned)) if not 1900 <= n <= 2099]  # `2026` is a year
    found += [(_position(cleaned, n), n) for n in bare]
    ids: list[int] = []
    for _, number in sorted(found):
        if number not in ids:
            ids.append(number)
    return ids


def _position(text: str, number: int) -> int:
    match = re.search(rf"(?<!\d){number}(?!\d)", text)
    return match.start() if match else len(text)


@dataclass(frozen=True)
class LabelRef:
    label: str
    """A label of the dataset, or `family:` (`severity:`) for "whatever severity it has"."""
    start: int
    end: int = 0
    op: str | None = None
    """`add` or `remove` when a shorthand says so (`+x`, `-x`, `-> x`), else None: the verbs decide."""
    known: bool = True
    """False for a label-like name the dataset does not have (`'good first issue'`)."""


def _severity(number: str, labels: Sequence[str]) -> str | None:
    for label in labels:
        prefix, value = split_label(label)
        if (prefix or "").lower().startswith(("sev", "prio")) and value.lower().lstrip("sp") == number:
            return label
    return None


def label_refs(text: str, labels: Sequence[str], *, words: bool = True, distinctive: bool = False) -> list[LabelRef]:
    """The labels a request names, in order, each once; `words`: also labels named by their words
    (all of a label's words, or `distinctive`: one word no other label has, `redis`)."""
    refs: list[LabelRef] = []
    taken: list[tuple[int, int]] = []

    def add(ref: LabelRef, end: int) -> None:
        if not any(s <= ref.start < e for s, e in taken):
            refs.append(ref)
            taken.append((ref.start, end))

    for match in _SIGN_RE.finditer(text):
        op = "remove" if match.group("op") == "-" else "add"
        name = match.group("token")
        label = label_from_token(name, labels) if ":" in name else _label_word(name, labels)
        if label:
            add(LabelRef(label, match.start(), match.end(), op), match.end())
    for match in _TOKEN_RE.finditer(text):
        label = label_from_token(match.group(1), labels)
        if label is None and (severity := _SEVERITY_RE.fullmatch(match.group(1).replace(":", " "))):
            label = _severity(severity.group(1) or severity.group(2), labels)  # `sev:S2`
        add(LabelRef(label or match.group(1), match.start(), match.end(), known=label is not None), match.end())
    for match in _SEVERITY_RE.finditer(text):
        if label := _severity(match.group(1) or match.group(2), labels):
            add(LabelRef(label, match.start(), match.end()), match.end())
    if words:
        for hit in labels_in_words(text, labels):
            if hit.exact or distinctive or len(text.split()) <= 3:
                add(LabelRef(hit.label, hit.start, hit.end), hit.end)
    return sorted(refs, key=lambda ref: ref.start)


def _label_word(word: str, labels: Sequence[str]) -> str | None:
    if re.fullmatch(r"s(?:ev)?\d", word, re.I):
        return _severity(word[-1], labels)
    hits = labels_in_words(word, labels)  # one word after `+`: its label, if no other label has that word
    return hits[0].label if hits else None


def family_refs(text: str, labels: Sequence[str]) -> list[LabelRef]:
    """`the severity`, `its component`: a family of labels, read from the issue in the next round."""
    prefixes = {label.partition(":")[0].lower() for label in labels if label_value(label) != label}
    found: list[LabelRef] = []
    for match in _FAMILY_RE.finditer(text):
        word = match.group(1).lower()
        prefix = next((p for p in sorted(prefixes) if p.startswith(word[:3])), None)
        if prefix and all(ref.label != prefix + ":" for ref in found):
            found.append(LabelRef(prefix + ":", match.start()))
    return found


_TARGET_RE = lazy(
    r"\b(?:to|on|onto|from|off|for|in)\s+(?:issue\s+)?#?(\d{1,5})(?=\s*(?:$|[:,;.!?()]|\s+(?:and|too|as|please|pls|with|"
    r"saying|that|then)\b))",
    re.I,
)


def action_targets(text: str) -> list[int]:
    """The issues an action names: its references, and `to 58` / `on 16:` after the verb."""
    cleaned = _VERSION_RE.sub(" ", text)
    found = [(_position(cleaned, n), n) for n in issue_refs(text)]
    found += [(m.start(1), int(m.group(1))) for m in _TARGET_RE.finditer(cleaned)]
    ids: list[int] = []
    for _, number in sorted(found):
        if number not in ids:
            ids.append(number)
    return ids
