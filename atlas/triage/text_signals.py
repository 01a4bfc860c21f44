"""How an issue is written, as a few columns beside its TF-IDF rows: signals of its kind that hold on any tracker.

Words and character n-grams see what an issue says, not where: a question mark in the title, a
traceback in the body, a fenced code block, a version line, a title that asks for something or a
body that wishes for it. Each signal is one column, SCALE where the issue shows it and 0 where it
does not, read from the text a model reads (`Issue.text`: the title twice, then the body).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
from scipy import sparse

from atlas.triage.issue_kinds import asks_for_something, gives_version, has_code_block, names_failure, quotes_failure

SCALE = 0.3
"""A signal's value: beside L2-normalised rows whose single terms weigh about 0.05 to 0.2."""
_HOW = re.compile(
    r"\b(?:how\s+(?:do|does|can|could|should|would|to)|is\s+(?:it|there)\s+(?:possible|a\s+way|any\s+way)"
    r"|what\s+is\s+the\s+(?:best|right|correct|proper)\s+way)\b",
    re.I,
)
"""A body that asks how: `how do I`, `is it possible`, `is there a way`, `what is the best way`."""
_WISH = re.compile(
    r"\b(?:(?:would|will)\s+be\s+(?:nice|great|good|useful|helpful|cool)|feature\s+request"
    r"|(?:i|we)\s*(?:['’]d|\s+would)\s+(?:like|love)|(?:please|could\s+you)\s+(?:add|support)"
    r"|propos(?:e|al)|suggest(?:ion)?)\b",
    re.I,
)
"""A body that wishes for something: `it would be nice`, `I'd like`, `please add`, `proposal`."""
_SHORT = 200
"""A body shorter than this (in characters) says little beyond its title."""

Signal = Callable[[str, str], bool]
SIGNALS: tuple[tuple[str, Signal], ...] = (
    ("title has a question mark", lambda title, body: "?" in title or "？" in title),
    ("title asks for something", lambda title, body: asks_for_something(title)),
    ("title names a failure", lambda title, body: names_failure(title)),
    ("body quotes a failure", lambda title, body: quotes_failure(body)),
    ("body names a failure", lambda title, body: names_failure(body)),
    ("body holds a code block", lambda title, body: has_code_block(body)),
    ("body gives a version", lambda title, body: gives_version(body)),
    ("body asks how", lambda title, body: bool(_HOW.search(body))),
    ("body wishes for something", lambda title, body: bool(_WISH.search(body))),
    ("body is short", lambda title, body: len(body.strip()) < _SHORT),
)


def title_and_body(text: str) -> tuple[str, str]:
    """The title and body of a model's text (`Issue.text`: the title, the title again, the body)."""
    parts = text.split("\n", 2)
    return parts[0], parts[2] if len(parts) == 3 else ""


def signal_rows(texts: list[str], scale: float = SCALE) -> sparse.csr_matrix:
    """One row per text, one column per signal: `scale` where the text shows it, nothing where not."""
    found = np.zeros((len(texts), len(SIGNALS)), dtype=np.float32)
    for row, text in enumerate(texts):
        title, body = title_and_body(text)
        for column, (_, shows) in enumerate(SIGNALS):
            if shows(title, body):
                found[row, column] = scale
    return sparse.csr_matrix(found)


class SignalColumns:
    """The signals as one part of a fit's rows (`rows.py`): nothing to learn, the same columns for any text."""

    idf_ = np.ones(len(SIGNALS))

    def get_feature_names_out(self) -> np.ndarray:
        return np.array([name for name, _ in SIGNALS], dtype=str)

    def transform(self, texts: list[str]) -> sparse.csr_matrix:
        return signal_rows(texts)
