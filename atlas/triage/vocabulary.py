"""A TF-IDF vectorizer learnt a chunk of texts at a time: the vocabulary, idf and rows its `fit_transform` makes.

scikit-learn's `fit_transform` counts every term of every text at once before it keeps the terms it
wants: for the character n-grams of 3,000 issues, Python lists and then arrays of nearly five million
entries, over 200 MB beside the matrix it returns. Here the texts are counted CHUNK at a time with the
vectorizer's own analyzer, each chunk's counts kept as a small matrix over the terms seen so far; the
terms are then chosen as scikit-learn chooses them (`min_df` and `max_df`, then the `max_features`
most frequent, with its order and its ties), the vectorizer is given them with their idf, and each
chunk's counts become its TF-IDF rows through scikit-learn's own transformer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from numbers import Integral
from typing import Any

import numpy as np
from scipy import sparse

CHUNK = 500


def fit_in_chunks(vectorizer: Any, texts: list[str], chunk: int = CHUNK) -> list[sparse.csr_matrix]:
    """Fit `vectorizer` (a TfidfVectorizer with idf and no fixed vocabulary) on `texts` as its `fit_transform`
    does, and give its rows of them, `chunk` texts to a matrix. A ValueError where `fit_transform` raises one
    (not one term, or none left)."""
    from sklearn.feature_extraction.text import TfidfTransformer

    index: dict[str, int] = {}
    analyze = vectorizer.build_analyzer()
    counts = [_counted(analyze, texts[at : at + chunk], index, vectorizer) for at in range(0, len(texts), chunk)]
    if not index:
        raise ValueError("empty vocabulary; perhaps the documents only contain stop words")
    terms = sorted(index)
    seen = np.array([index[term] for term in terms])  # the order each sorted term was first seen in
    del index
    df = _summed(counts, len(terms), occurrences=False)[seen]
    mask = _kept(vectorizer, df, counts, seen, len(texts))
    kept = np.flatnonzero(mask)
    column = np.full(len(terms), -1)
    column[seen] = np.where(mask, np.cumsum(mask) - 1, -1)  # a term's column, by the order it was seen in
    vectorizer.vocabulary_ = {terms[n]: number for number, n in enumerate(kept)}
    del terms
    idf = _idf(df[kept], len(texts), vectorizer)
    vectorizer.idf_ = idf
    transformer = TfidfTransformer(
        norm=vectorizer.norm, use_idf=True, smooth_idf=vectorizer.smooth_idf, sublinear_tf=vectorizer.sublinear_tf
    )
    transformer.idf_ = idf
    rows = []
    counts.reverse()
    while counts:  # each chunk's counts freed once its rows are made
        part = counts.pop()
        rows.append(transformer.transform(_columns(part, column, len(kept)), copy=False))
    return [sparse.csr_matrix(part) for part in rows]


def _counted(
    analyze: Callable[[str], list[str]], texts: list[str], index: dict[str, int], vectorizer: Any
) -> sparse.csr_matrix:
    """The texts' term counts over the terms seen so far (`index`, which gains the new ones)."""
    indptr, indices, values = [0], list[int](), list[int]()
    binary = bool(vectorizer.binary)
    for text in texts:
        counted = Counter(analyze(text))
        new = [term for term in counted if term not in index]
        index.update(zip(new, range(len(index), len(index) + len(new)), strict=True))
        indices.extend(map(index.__getitem__, counted))
        values.extend([1] * len(counted) if binary else counted.values())
        indptr.append(len(indices))
    arrays = (np.array(values, dtype=vectorizer.dtype), np.array(indices, dtype=np.int32), np.array(indptr))
    return sparse.csr_matrix(arrays, shape=(len(texts), len(index)))


def _kept(vectorizer: Any, df: np.ndarray, found: list[sparse.csr_matrix], seen: np.ndarray, texts: int) -> np.ndarray:
    """Which of the sorted terms scikit-learn keeps (its `_limit_features`, step for step)."""
    high, low = vectorizer.max_df, vectorizer.min_df
    high = high if isinstance(high, Integral) else high * texts
    low = low if isinstance(low, Integral) else low * texts
    if high < low:
        raise ValueError("max_df corresponds to < documents than min_df")
    mask = (df <= high) & (df >= low)
    limit = vectorizer.max_features
    if limit is not None and mask.sum() > limit:
        tfs = np.asarray(_summed(found, len(seen), occurrences=True)[seen], dtype=vectorizer.dtype)
        mask_inds = (-tfs[mask]).argsort()[:limit]
        new_mask = np.zeros(len(df), dtype=bool)
        new_mask[np.where(mask)[0][mask_inds]] = True
        mask = new_mask
    if not mask.any():
        raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
    return np.asarray(mask)


def _summed(parts: list[sparse.csr_matrix], width: int, *, occurrences: bool) -> np.ndarray:
    """Per term, over every chunk: the texts it occurs in, or its occurrences."""
    total = np.zeros(width)
    for part in parts:
        total += np.bincount(part.indices, weights=part.data if occurrences else None, minlength=width)
    return total


def _idf(df: np.ndarray, texts: int, vectorizer: Any) -> np.ndarray:
    """Smoothed idf as scikit-learn's TfidfTransformer computes it, in the vectorizer's number type."""
    dtype = vectorizer.dtype if vectorizer.dtype in (np.float64, np.float32) else np.float64
    counted = df.astype(dtype)
    counted += float(vectorizer.smooth_idf)
    idf = np.full_like(counted, fill_value=texts + int(vectorizer.smooth_idf), dtype=dtype)
    idf /= counted
    np.log(idf, out=idf)
    idf += 1.0
    return idf


def _columns(part: sparse.csr_matrix, column: np.ndarray, width: int) -> sparse.csr_matrix:
    """`part`'s counts of the kept terms, in their columns."""
    mapped = column[part.indices]
    keep = mapped >= 0
    indptr = np.concatenate([[0], np.cumsum(keep)])[part.indptr]
    kept = sparse.csr_matrix((part.data[keep], mapped[keep], indptr), shape=(part.shape[0], width))
    kept.sort_indices()
    return kept
