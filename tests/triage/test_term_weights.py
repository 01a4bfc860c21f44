"""Term weights: a term found in one label's issues weighs more than one spread over all labels, the counts
made a chunk at a time equal the counts of the whole, and the rows scaled for a fit come back as they were."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from atlas.triage import term_weights


def rows() -> tuple[sparse.csr_matrix, np.ndarray]:
    """Columns: 0 only in label 0's issues, 1 in every issue, 2 mostly in label 1's; row 5 teaches nothing."""
    dense = np.array(
        [
            [0.5, 0.2, 0.0],
            [0.7, 0.1, 0.0],
            [0.4, 0.3, 0.1],
            [0.0, 0.2, 0.6],
            [0.0, 0.4, 0.8],
            [0.9, 0.9, 0.9],
        ],
        dtype=np.float32,
    )
    return sparse.csr_matrix(dense), np.array([0, 0, 0, 1, 1, -1])


def test_counts_per_label_skip_rows_that_teach_nothing_and_agree_chunk_by_chunk() -> None:
    x, labels = rows()
    whole = term_weights.presence(x, labels, 2)
    assert whole.tolist() == [[3, 3, 1], [0, 2, 2]]
    assert (term_weights.presence(x, labels, 2, chunk=2) == whole).all()


def test_a_telling_term_weighs_more_than_one_every_label_shares() -> None:
    x, labels = rows()
    weights = term_weights.log_count_ratios(term_weights.presence(x, labels, 2))
    assert weights.dtype == np.float32 and (weights >= term_weights.FLOOR).all()
    assert weights[0] > weights[2] > weights[1]


def test_scaled_rows_come_back_as_they_were() -> None:
    x, _ = rows()
    before = x.toarray()
    weights = np.array([2.0, 0.5, 3.0], dtype=np.float32)
    with term_weights.scaled_columns(x, weights) as scaled:
        assert np.allclose(scaled.toarray(), before * weights)
    assert np.allclose(x.toarray(), before, atol=1e-7)
