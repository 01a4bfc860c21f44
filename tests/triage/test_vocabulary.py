"""A vectorizer learnt a chunk of texts at a time is the one its `fit_transform` makes: the same terms (the
same ties broken the same way at `max_features`), the same idf, the same rows, the same errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

from atlas.foundation.config import bundled_data_dir
from atlas.triage.evaluate import history
from atlas.triage.model import CHAR_OPTIONS, VECTOR_OPTIONS, normalise
from atlas.triage.project import Project
from atlas.triage.vocabulary import fit_in_chunks

MADE: dict[str, dict[str, object]] = {
    "words": {"sublinear_tf": True, "min_df": 2, "max_features": 700, "dtype": np.float32, **VECTOR_OPTIONS},
    "characters": {"sublinear_tf": True, "min_df": 2, "max_features": 3000, "dtype": np.float32, **CHAR_OPTIONS},
    "plain": {},
    "binary, a share of the texts": {"binary": True, "min_df": 0.05, "max_df": 0.5},
}


@pytest.mark.parametrize("options", MADE.values(), ids=list(MADE))
def test_learnt_in_chunks_as_fit_transform_learns(home: Path, options: dict[str, object]) -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = [normalise(issue.text)[:600] for issue in history(Project.open(bundled_data_dir(), home))]
    whole, chunked = TfidfVectorizer(**options), TfidfVectorizer(**options)
    expected = whole.fit_transform(texts)
    rows = fit_in_chunks(chunked, texts, chunk=7)  # 160 issues: 23 chunks, the last one short
    assert len(rows) == 23 and chunked.vocabulary_ == whole.vocabulary_
    assert chunked.idf_.dtype == whole.idf_.dtype and np.array_equal(chunked.idf_, whole.idf_)
    found = sparse.vstack(rows).tocsr()
    assert found.dtype == expected.dtype and found.shape == expected.shape and abs(found - expected).max() < 1e-6
    # Fitted: it reads new texts as the whole fit does.
    assert abs(chunked.transform(texts[:5]) - whole.transform(texts[:5])).max() < 1e-6


@pytest.mark.parametrize(
    ("options", "texts"),
    [
        ({"stop_words": "english"}, ["the and of", "a an the"]),  # not one term
        ({"min_df": 3}, ["lease worker", "broker cron", "lease cron", "retry queue"]),  # none left
        ({"min_df": 2}, ["lease worker"]),  # fewer texts than min_df
    ],
)
def test_what_fit_transform_refuses_is_refused(options: dict[str, object], texts: list[str]) -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    with pytest.raises(ValueError) as theirs:
        TfidfVectorizer(**options).fit_transform(texts)
    with pytest.raises(ValueError) as ours:
        fit_in_chunks(TfidfVectorizer(**options), texts, chunk=1)
    assert str(ours.value) == str(theirs.value)
