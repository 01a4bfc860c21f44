"""A cached model cuts texts into terms exactly as scikit-learn learnt them, and never imports it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from atlas.foundation.config import bundled_data_dir
from atlas.foundation.stop_words import ENGLISH_STOP_WORDS as OURS
from atlas.triage.corpus import Corpus
from atlas.triage.model import CHAR_NGRAMS, CHAR_OPTIONS, TOKEN, VECTOR_OPTIONS, WORD_NGRAMS, normalise
from atlas.triage.terms import char_terms, word_terms

ODD_TEXTS = [
    "",
    "   ",
    "a",
    "I/O",
    "Crash!!  in\torbit.lease\n\nTypeError: None ORB-1101 x",
    "the and of",  # stop words only
    "why does it hang? how do I retry",
    "naïve café — Ünïcode ß ﬁ İstanbul ΣΑΣ 日本語のテキスト",
    "x\u200by zero\u00a0width and\u2028line",
    "a_b __init__ foo.bar.baz. .hidden 3.14 v2 x1y",
]


def bundled_texts(home: Path) -> list[str]:
    corpus = Corpus.open(bundled_data_dir(), home)
    return [normalise(issue.text) for issue in corpus.newest(200)]


def test_words_and_pairs_are_scikit_learns(atlas_home: Path) -> None:
    # Imported here: collecting the tests should not cost every worker the import of scikit-learn.
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

    assert OURS == ENGLISH_STOP_WORDS  # the list a cached model and a project summary drop is scikit-learn's
    theirs = CountVectorizer(**VECTOR_OPTIONS).build_analyzer()
    ours = word_terms(TOKEN, OURS, WORD_NGRAMS)
    for text in [*ODD_TEXTS, *bundled_texts(atlas_home)]:
        assert sorted(ours(text)) == sorted(theirs(text)), text


def test_character_ngrams_are_scikit_learns(atlas_home: Path) -> None:
    from sklearn.feature_extraction.text import CountVectorizer

    theirs = CountVectorizer(**CHAR_OPTIONS).build_analyzer()
    ours = char_terms(CHAR_NGRAMS)
    for text in [*ODD_TEXTS, *bundled_texts(atlas_home)]:
        assert sorted(ours(text)) == sorted(theirs(text)), text


def test_applying_a_cached_model_does_not_import_scikit_learn(fitted_home: Path) -> None:
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from atlas.foundation.config import bundled_data_dir\n"
        "from atlas.triage.project import Project\n"
        f"project = Project.open(bundled_data_dir(), Path({str(fitted_home)!r}))\n"
        "model = project.model()\n"
        "rows = model.features([project.issue(131).text])\n"
        "assert rows.nnz > 0 and model.groups, 'the cached model read nothing'\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'sklearn'))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
