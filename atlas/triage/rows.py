"""The training rows of a fit in bounded memory: vocabularies learnt from a sample, rows made in chunks.

scikit-learn's `fit_transform` holds every term occurrence of every text at once (as Python lists,
then int64 arrays, then the matrix) before it prunes the vocabulary: at 20,000 issues of character
n-grams that was most of the fit's memory. Here the vectorizers learn their vocabularies and idf
from the newest `VOCAB_SAMPLE` texts, a chunk of them at a time (`vocabulary.py`), keeping those
texts' rows (the fit counts their terms anyway: counted again, they were a fifth of a small project's
fit), every older text is then transformed `CHUNK` at a time, and the chunks are copied into one
matrix, each freed once copied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
from scipy import sparse

from atlas.triage.vocabulary import fit_in_chunks

VOCAB_SAMPLE = 5_000
"""The newest texts the vocabularies and idf are learnt from (the rows are made for every text)."""
CHUNK = 1_000


class Vectorizer(Protocol):
    idf_: np.ndarray

    def get_feature_names_out(self) -> np.ndarray: ...

    def transform(self, texts: list[str]) -> sparse.spmatrix: ...


Part = tuple[Vectorizer, int | None]
"""A vectorizer and the characters of each text it reads (None: all)."""


def learnt(parts: Sequence[Part], texts: list[str], sample: int = VOCAB_SAMPLE) -> list[sparse.spmatrix]:
    """Each vectorizer's vocabulary and idf, from the first `sample` texts (the newest), and each one's
    rows of those texts: what its `fit_transform` gives, learnt a chunk of texts at a time (`vocabulary.py`)."""
    found = []
    for vectorizer, limit in parts:
        chunks = fit_in_chunks(vectorizer, [text[:limit] for text in texts[:sample]])
        found.append(vstack_freeing(chunks, chunks[0].dtype.type))
    return found


def stacked_rows(
    parts: Sequence[Part],
    texts: list[str],
    chunk: int = CHUNK,
    first: list[sparse.spmatrix] | None = None,
    dtype: type[np.floating] = np.float32,
) -> sparse.csr_matrix:
    """Every text's rows of all parts side by side, float32 unless told, made `chunk` texts at a time
    after the rows of the first texts already made (`first`: each part's, as `learnt` gives them; the
    list is emptied, so they are freed once side by side)."""
    chunks, done = [], 0
    if first:
        done = first[0].shape[0]
        chunks.append(sparse.csr_matrix(sparse.hstack(first, format="csr"), dtype=dtype))
        first.clear()
    for start in range(done, len(texts), chunk):
        piece = texts[start : start + chunk]
        blocks = [vectorizer.transform([text[:limit] for text in piece]) for vectorizer, limit in parts]
        chunks.append(sparse.csr_matrix(sparse.hstack(blocks, format="csr"), dtype=dtype))
    if len(chunks) == 1 and chunks[0].indices.dtype == chunks[0].indptr.dtype == np.int32:
        return chunks[0]  # the rows already made are all of them: no copy
    return vstack_freeing(chunks, dtype)


def vstack_freeing(chunks: list[sparse.csr_matrix], dtype: type[np.floating] = np.float32) -> sparse.csr_matrix:
    """The chunks one under another, each freed once copied (the list is emptied), in float32 (unless
    told) with int32 indices where they fit: no second copy of the whole as scipy's `vstack` makes."""
    width = chunks[0].shape[1] if chunks else 0
    total = sum(part.nnz for part in chunks)
    height = sum(part.shape[0] for part in chunks)
    index_type = np.int32 if max(total, width) < np.iinfo(np.int32).max else np.int64
    data = np.empty(total, dtype=dtype)
    indices = np.empty(total, dtype=index_type)
    indptr = np.zeros(height + 1, dtype=index_type)
    done = row = 0
    chunks.reverse()  # popped from the end: the first chunk first, each dropped as soon as it is copied
    while chunks:
        part = chunks.pop()
        data[done : done + part.nnz] = part.data
        indices[done : done + part.nnz] = part.indices
        indptr[row + 1 : row + part.shape[0] + 1] = part.indptr[1:] + done
        done, row = done + part.nnz, row + part.shape[0]
        del part
    return sparse.csr_matrix((data, indices, indptr), shape=(height, width))
