"""A label as a person names it, read against the project's own labels.

`bug`, `"dataset request"`, `` `Bug` ``, `severity S1`, `dataset viewer` and, where only one label
has that value, `S1` for `severity:S1`: quotes, case, spaces and punctuation between words are
forgiven, and a prefix may be left out when that names one label. Nothing here lists any
project's labels; an unknown name gets the nearest of the project's own (rapidfuzz).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

SUGGEST_CUTOFF = 60
"""How close (rapidfuzz WRatio) a label must be to a typed name to be offered as "did you mean"."""
SHOWN_LABELS = 40
_QUOTES = "\"'`“”‘’"


def unquoted(name: str) -> str:
    """`"dataset request"`, `` `bug` ``: the name without its quotes and outer spaces."""
    name = name.strip()
    while len(name) >= 2 and name[0] in _QUOTES and name[-1] in _QUOTES:
        name = name[1:-1].strip()
    return name


def label_key(name: str) -> str:
    """What two spellings of one label share: its letters and digits, case folded (`Severity: S1` → `severitys1`)."""
    return "".join(re.findall(r"\w", unquoted(name).casefold())).replace("_", "")


_PREFIXED = re.compile(r"([A-Za-z][\w.-]+)\s*[:/]\s*(\S.*)", re.DOTALL)
"""`type:bug`, `Type: Bug`, `kind/bug`: a one-word prefix, a colon or a slash, then the value."""


def split_label(label: str) -> tuple[str | None, str]:
    """(prefix, value) of a label; (None, the label) for a flat one (`good first issue`, `dataset-viewer`)."""
    found = _PREFIXED.fullmatch(label.strip())
    return (found.group(1), found.group(2).strip()) if found else (None, label)


def label_value(label: str) -> str:
    """A label without its prefix (a flat label is its own value)."""
    return split_label(label)[1]


def resolve_label(name: str, labels: Sequence[str]) -> str | None:
    """The one label of `labels` that `name` means, or None when it names none or several."""
    name = unquoted(name)
    if not name:
        return None
    if name in labels:
        return name
    for key_of in (str.casefold, label_key):
        wanted = key_of(name)
        found = [label for label in labels if key_of(label) == wanted]
        if len(found) == 1:
            return found[0]
    key = label_key(name)
    by_value = [label for label in labels if label_value(label) != label and label_key(label_value(label)) == key]
    return by_value[0] if len(by_value) == 1 and key else None


def similar_labels(name: str, labels: Sequence[str], limit: int = 3) -> list[str]:
    """The project's labels nearest to a name it does not have, nearest first."""
    name = unquoted(name)
    if not name or not labels:
        return []
    typed = name.casefold()
    choices = {label: label.casefold() for label in labels}
    from rapidfuzz import fuzz, process  # only for a name the project lacks: ~10 ms of every start otherwise

    found = process.extract(typed, choices, scorer=fuzz.WRatio, score_cutoff=SUGGEST_CUTOFF, limit=None)
    # WRatio admits a label that contains the name; the whole label nearest the name is offered first
    # (`bgu`: `bug` before `dataset bug`).
    found.sort(key=lambda hit: (-fuzz.ratio(typed, hit[0]), -hit[1]))
    return [label for _, _, label in found[:limit]]


def unknown_label(name: str, labels: Sequence[str], project: str = "this project", *, listed: bool = True) -> str:
    """`this project has no label 'bgu'; did you mean 'bug'? Its labels: …`, or only the labels when none is near;
    `listed` False: the labels only when none is near (a person reads the guess; a model wants the list)."""
    return f"{project} has no label {unquoted(name)!r}; {alternatives(name, labels, listed=listed)}"


def alternatives(name: str, labels: Sequence[str], *, listed: bool = True) -> str:
    """`did you mean 'bug'? Its labels: …`: what to name instead of an unknown label."""
    shown = ", ".join(labels[:SHOWN_LABELS]) or "none"
    more = f", … ({len(labels) - SHOWN_LABELS} more)" if len(labels) > SHOWN_LABELS else ""
    near = similar_labels(name, labels)
    if near:
        guess = f"did you mean {' or '.join(repr(label) for label in near)}?"
        return f"{guess} Its labels: {shown}{more}" if listed else guess
    return f"its labels: {shown}{more}"


def typo_edits(name: str) -> int:
    """How many edits (a letter added, dropped, changed, or two swapped) a typo of `name` may hold."""
    return 1 if len(label_key(name)) <= 5 else 2


def closest_label(name: str, labels: Sequence[str]) -> str | None:
    """The label `name` is a small typo of (`enhancment`, `bgu` for `bug` or `type:bug`): the nearest of
    `similar_labels`, when it is within `typo_edits` of the label or of its value and no other label is as
    near; None when none is, or two are (the name is then no label, as before)."""
    key = label_key(name)
    near = similar_labels(name, labels, limit=1)
    if len(key) < 3 or not near:
        return None
    from rapidfuzz.distance import OSA  # only for a name the project lacks

    words = len(re.findall(r"[^\W_]+", name))

    def edits(label: str) -> int:
        # A typo stays within the words: `duplicate of` is `duplicate` and one word more, not a misspelling of it.
        forms = [form for form in (label, label_value(label)) if label_key(form)]
        same = [form for form in forms if len(re.findall(r"[^\W_]+", form)) == words]
        # A word that ends in the whole label after letters of its own is another word built on it (`pyarrow`).
        same = [form for form in same if not (key.endswith(label_key(form)) and len(key) - len(label_key(form)) > 1)]
        return min((OSA.distance(key, label_key(form)) for form in same), default=len(key) + 1)

    by_label = {label: edits(label) for label in labels}
    best = by_label[near[0]]
    rivals = [label for label, distance in by_label.items() if distance <= best and label != near[0]]
    return near[0] if best <= typo_edits(name) and not rivals else None
