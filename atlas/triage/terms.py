"""The terms of a text as the fitted vocabularies know them, without importing scikit-learn.

scikit-learn learns the vocabularies (`model.fit`); applying a cached model only needs to cut a
new text into the same terms: words and word pairs past the stop words, or character n-grams
inside word bounds. These are scikit-learn's own `CountVectorizer` analyzers for the options the
model uses (a test holds them to it), so that a triage run that fits nothing never pays the
import of scikit-learn.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

Analyzer = Callable[[str], list[str]]

_WHITE_SPACES = re.compile(r"\s\s+")


def word_terms(token_pattern: str, stop_words: Collection[str], ngrams: tuple[int, int]) -> Analyzer:
    """Lower-cased tokens, stop words dropped, then every run of `ngrams` tokens joined by a space."""
    tokenize = re.compile(token_pattern).findall
    low, high = ngrams
    stop = frozenset(stop_words)

    def analyze(text: str) -> list[str]:
        tokens = [token for token in tokenize(text.lower()) if token not in stop]
        terms = list(tokens) if low == 1 else []
        for n in range(max(low, 2), min(high, len(tokens)) + 1):
            terms.extend(" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
        return terms

    return analyze


def char_terms(ngrams: tuple[int, int]) -> Analyzer:
    """Character n-grams of each lower-cased word padded with a space (a word shorter than n counts once)."""
    low, high = ngrams

    def analyze(text: str) -> list[str]:
        terms: list[str] = []
        for word in _WHITE_SPACES.sub(" ", text.lower()).split():
            padded = f" {word} "
            for n in range(low, high + 1):
                if len(padded) <= n:
                    terms.append(padded)
                    break
                terms.extend(padded[i : i + n] for i in range(len(padded) - n + 1))
        return terms

    return analyze
