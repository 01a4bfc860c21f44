"""Labels named in words, mapped onto the dataset's own label set.

`comp:broker-postgress` (a typo), `comp core`, `postgres broker`, `sev 1`, `S2`, `a bug`,
`feature request`: each is read against the labels the data holds (`comp:broker-postgres`,
`severity:S1`, `type:bug` ...), never against a list written here. A label's words are the
parts of its name (`comp:broker-postgres` → comp, broker, postgres); the words a label is
named by are its value's words, with its prefix optional.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from atlas.foundation.label_names import label_value, resolve_label, split_label, unknown_label
from atlas.offline.reading.lazy import lazy

_TOKEN_RE = lazy(r"[A-Za-z][\w.-]*:[A-Za-z0-9][\w.-]*")
_SEVERITY_RE = lazy(r"\b(?:sev(?:erity)?|priority)\s*[:=]?\s*s?([1-9])\b|\bs([1-9])\b", re.IGNORECASE)
_WORD_RE = lazy(r"[a-z0-9]+")
LABEL_CUTOFF = 85
"""How close a typed `prefix:value` must be to a real label (rapidfuzz ratio) to be taken for it."""


@dataclass(frozen=True)
class LabelHit:
    label: str
    start: int
    end: int
    exact: bool
    """Every word of the label's value was named (`postgres broker`), not only a distinctive one (`postgres`)."""
    literal: bool = False
    """The label's words were said together, in its order (`dataset-viewer`), not spread over other words
    (`dataset-viewer bugs` names `dataset bug`'s words too, but not together)."""


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text.lower())


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def label_from_token(token: str, labels: Sequence[str]) -> str | None:
    """A `prefix:value` the user typed, as the real label it names (case, spacing and small typos forgiven)."""
    if found := resolve_label(token, labels):
        return found
    from rapidfuzz import fuzz, process  # loaded by the first label that is not spelled as the project spells it

    by_folded = {label.casefold(): label for label in labels}
    best = process.extractOne(token.casefold(), list(by_folded), scorer=fuzz.ratio, score_cutoff=LABEL_CUTOFF)
    return by_folded[best[0]] if best else None


def severity_label(text: str, labels: Sequence[str]) -> LabelHit | None:
    """`sev 1`, `sev1`, `severity S2`, `S3`: the severity label with that number, when the data has it."""
    for match in _SEVERITY_RE.finditer(text):
        number = match.group(1) or match.group(2)
        wanted = next((label for label in labels if re.fullmatch(rf"\w+\s*[:/]\s*[sp]?{number}", label, re.I)), None)
        if wanted and (split_label(wanted)[0] or "").lower().startswith(("sev", "prio")):
            return LabelHit(wanted, match.start(), match.end(), True)
    return None


def labels_in_words(text: str, labels: Sequence[str]) -> list[LabelHit]:
    """Labels named by their words (`postgres broker`, `comp core`, `bugs`), in order of appearance."""
    tokens = [(m.start(), m.end(), _singular(m.group(0).lower())) for m in re.finditer(r"[A-Za-z0-9]+", text)]
    owners: dict[str, list[str]] = {}
    for label in labels:
        for word in set(_words(label_value(label))):
            owners.setdefault(_singular(word), []).append(label)
    hits: list[LabelHit] = []
    for label in labels:
        found_prefix, value = split_label(label)
        prefix = found_prefix or ""
        value_words = [_singular(w) for w in _words(value)]
        if not value_words or value_words[0].isdigit() or re.fullmatch(r"s\d", value_words[0]):
            continue  # severities are read by number (`sev 1`), not by word
        spans = [(s, e) for s, e, word in tokens if word in value_words]
        named = {word for _, _, word in tokens if word in value_words}
        if not spans:
            if joined := _joined_span(tokens, value_words):
                hits.append(LabelHit(label, *joined, True, literal=True))
            continue
        exact = named == set(value_words)
        # A word any request may say (`issues`, `request`) names no label alone: `ci issues` needs its `ci`.
        # A word that orders (`first`) names a label only beside another of its words: `lhoestq's first issue` is
        # no `good first issue`, `good first` is.
        distinctive = any(
            len(owners.get(word, [])) == 1
            and word not in _LABEL_PHRASE_WORDS
            and (word not in _ORDER_WORDS or len(named - _LABEL_PHRASE_WORDS) > 1)
            for word in named
        )
        if exact or distinctive:
            start = min(s for s, _ in spans)
            before = [(s, e) for s, e, word in tokens if e <= start and prefix and word == prefix.lower()]
            if before and start - before[-1][1] <= 2:
                start = before[-1][0]  # `comp core`: the prefix is part of the name
            end = max(e for _, e in spans)
            said = [word for s, e, word in tokens if start <= s and e <= end and (word != prefix.lower() or s > start)]
            hits.append(LabelHit(label, start, end, exact, literal=exact and said == value_words))
    return sorted(hits, key=lambda hit: (hit.start, not hit.exact, not hit.literal))


def _joined_span(tokens: list[tuple[int, int, str]], value_words: list[str]) -> tuple[int, int] | None:
    """Where two or three consecutive words, run together, spell a one-word label: `active record` → `activerecord`."""
    if len(value_words) != 1 or len(value_words[0]) < 6:
        return None
    for first in range(len(tokens)):
        for last in range(first + 1, min(first + 3, len(tokens))):
            if "".join(word for _, _, word in tokens[first : last + 1]) == value_words[0]:
                return tokens[first][0], tokens[last][1]
    return None


def label_in_phrase(phrase: str, labels: Sequence[str]) -> str | None:
    """The one label a short phrase names (`with postgres broker`, `as a bug`, `to sev 1`), or None."""
    for token in _TOKEN_RE.findall(phrase):
        found = label_from_token(token.strip("`'\""), labels)
        if found:
            return found
    severity = severity_label(phrase, labels)
    if severity:
        return severity.label
    hits = labels_in_words(phrase, labels)
    exact = [hit for hit in hits if hit.exact]
    return (exact or hits)[0].label if hits else None


_LABEL_PHRASE_WORDS = frozenset(
    re.findall(
        r"\S+",
        """
        as a an the with to in into on onto label labels labelled component comp issue issues thing one request
        requests type severity sev priority level please pls
        """,
    )
)
"""Words that may stand around a label's own words in a request for it: `put #45 in the core component`."""
_ORDER_WORDS = frozenset(
    ["first", "last", "oldest", "newest", "latest", "earliest", "top", "next", "new", "old", "recent"]
)
"""Words that order issues: a label's word of these names it only beside another of its words."""


def only_label_words(phrase: str, label: str) -> bool:
    """Whether every word of `phrase` names `label` or is one of the words that stand around a label."""
    own = {_singular(word) for word in _words(label)}
    rest = [
        word
        for word in _words(phrase)
        if _singular(word) not in own and word not in _LABEL_PHRASE_WORDS and not re.fullmatch(r"(?:s|sev)?\d", word)
    ]
    return not rest or _singular("".join(rest)) in own  # `active record` names `activerecord`


def not_added(name: str, labels: Sequence[str]) -> str:
    """`I did not add `bugg`: this project has no label 'bugg'; did you mean 'bug'?`: for the person who asked."""
    said = unknown_label(name, labels, listed=False)
    return f"I did not add `{name.strip()}`: {said}" + ("" if said.endswith("?") else ".")
