"""One project as triage knows it: its issues, settings, label groups and (fitted on first need) its text model."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from atlas.dataset.read import db_for
from atlas.foundation.errors import AtlasError
from atlas.tracker.journal import ACTIONS_FILE
from atlas.triage import label_cache
from atlas.triage.corpus import Corpus, Issue
from atlas.triage.groups import LabelGroup, learn_groups, most_used
from atlas.triage.settings import TriageSettings, load_settings

if TYPE_CHECKING:
    from atlas.triage.index import SimilarityIndex
    from atlas.triage.model import TextModel


class UnknownIssueError(AtlasError):
    """An issue number the dataset does not have."""


@dataclass
class Project:
    corpus: Corpus
    settings: TriageSettings
    groups: list[LabelGroup]
    known_labels: frozenset[str]
    most_used: tuple[str, ...] = ()
    """The project's most used labels, most used first (a hint to name a group quotes them)."""
    label_key: str = ""
    """The version of every issue's labels (`label_cache.cache_key`): what is kept from them is kept under it."""
    _model: TextModel | None = field(default=None, repr=False)
    _index: SimilarityIndex | None = field(default=None, repr=False)

    @classmethod
    def open(cls, data: Path, home: Path) -> Project:
        corpus = Corpus.open(data, home)
        settings = load_settings(home)
        known = corpus.labels()
        key = label_cache.cache_key(corpus.stamp(), corpus.changes, settings.groups, known)
        facts = _label_facts(corpus, settings, known, key)
        return cls(corpus, settings, facts.groups, frozenset(known), facts.most_used, key)

    def issue(self, issue_id: int) -> Issue:
        found = self.corpus.get(issue_id)
        if found is None:
            count = self.corpus.count()
            raise UnknownIssueError(f"there is no issue #{issue_id} in this dataset ({count:,} issues)")
        return found

    def model(self) -> TextModel:
        """The fitted model: from the state folder when the data has not changed since, else fitted now.

        A label or comment approved through Atlas is not a new version of the data, even when it
        shifts the inferred groups: the last model is used, marked as built for older labels
        (`model_behind`), and learns the approved labels at the next fit. A proposal still reads the
        labels as they are now: it fills no group the write filled, and never puts back a removed label."""
        if self._model is None:
            # numpy and scipy only here: a run that never reads the model (`atlas apply`) starts without them.
            from atlas.triage import cache
            from atlas.triage.model import fit

            key = self._model_key()
            self._model = cache.load(self.corpus.home, key)
            if self._model is None:
                self._model = fit(self.training_issues(), self.groups)
                self._model.labels_key = self.label_key
                cache.save(self.corpus.home, key, self._model)
        return self._model

    def model_behind(self) -> bool:
        """Whether labels were approved through Atlas since the model was fitted (it serves until the next version)."""
        return self.model().labels_key != self.label_key

    def index(self) -> SimilarityIndex:
        """The similarity index: from the state folder while the data's text is the same, else built now.

        Keyed by the data alone: labels and comments approved through Atlas do not change it."""
        if self._index is None:
            from atlas.triage import index
            from atlas.triage.duplicate_pairs import known_pairs

            key = self._index_key()
            self._index = index.load(self.corpus.home, key)
            if self._index is None:
                issues = list(self.corpus.newest(index.INDEX_MAX))
                self._index = index.build(issues, known_pairs(self.corpus, issues))
                index.save(self.corpus.home, key, self._index)
        return self._index

    def kept(self, *, model: bool = True, index: bool = True) -> bool:
        """Whether the model and/or the similarity index are kept for this version of the data (a file
        Atlas wrote under its key), so that using them costs a load, not a fit."""
        from atlas.triage import cache
        from atlas.triage.index import PREFIX

        home = self.corpus.home
        wanted = ([cache.cache_path(home, self._model_key())] if model else []) + (
            [cache.cache_path(home, self._index_key(), PREFIX)] if index else []
        )
        return all(path.is_file() for path in wanted)

    def _model_key(self) -> str:
        from atlas.triage import cache

        return cache.cache_key(self.corpus.stamp(), self.settings.groups)

    def _index_key(self) -> str:
        import hashlib

        from atlas.triage.index import FORMAT

        return hashlib.sha256(f"{self.corpus.stamp()}:{FORMAT}".encode()).hexdigest()[:24]

    @contextmanager
    def ranking_by(self, ranker: str) -> Iterator[None]:
        """Similarity ranked by `ranker` (of `rankers.RANKERS`) inside the block, by the project's choice after."""
        kept = self.index()
        self._index = kept.using(ranker)
        try:
            yield
        finally:
            self._index = kept

    def training_issues(self, before: str | None = None) -> list[Issue]:
        """The newest issues (at most TRAIN_MAX), filed before `before` when given: the vocabularies are
        learnt from the newest of them (`rows.VOCAB_SAMPLE`), each group's classifier from those with one
        of its labels."""
        from atlas.triage.model import TRAIN_MAX

        return list(self.corpus.newest(TRAIN_MAX, before=before))


def _label_facts(corpus: Corpus, settings: TriageSettings, known: list[str], key: str) -> label_cache.LabelFacts:
    """The groups and most used labels: from the state folder while the labels are the same, else read now."""
    # Labels Atlas added are the project's too (a journal may name one the dataset's table lacks).
    labels = frozenset(known).union(*(change.added for change in corpus.changes.values()))
    facts = label_cache.load(corpus.home, key, labels)
    if facts is None:
        label_sets = list(corpus.label_sets())
        facts = label_cache.LabelFacts(learn_groups(label_sets, known, settings.groups), most_used(label_sets))
        label_cache.save(corpus.home, key, facts)
    return facts


_open: dict[tuple[Path, Path], tuple[tuple[int, ...], Project]] = {}
_open_lock = threading.Lock()


def _stamp(data: Path, home: Path) -> tuple[int, ...]:
    """Changes when the db or Atlas's own label changes do (a chat keeps its project until then)."""
    found: list[int] = []
    for path in (db_for(data, home), home / ACTIONS_FILE, home / "config.toml"):
        try:
            stat = path.stat()
        except OSError:
            found += [0, 0]
        else:
            found += [stat.st_mtime_ns, stat.st_size]
    return tuple(found)


def project_for(data: Path, home: Path) -> Project:
    """The project of a data folder, kept for the process while neither it nor the tracker changes."""
    stamp = _stamp(data, home)
    with _open_lock:
        kept = _open.get((data, home))
        if kept is not None and kept[0] == stamp:
            return kept[1]
    project = Project.open(data, home)
    with _open_lock:
        _open[(data, home)] = (stamp, project)
    return project
