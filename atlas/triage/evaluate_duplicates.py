"""Known duplicate pairs of a project, and how often an earlier report is among the first k suggested.

The model's figure is the ranker the project chose from its own known pairs (`rankers.py`); beside
it, each ranker's figure, and the chosen one's when each pair is ranked by the ranker the *other*
pairs choose (leave one out: what a pair the choice never saw gets).
"""

from __future__ import annotations

import numpy as np

from atlas.triage import duplicate_pairs, rankers
from atlas.triage.corpus import Issue
from atlas.triage.index import replay as index_replay
from atlas.triage.project import Project
from atlas.triage.similar import nearest

KS = (1, 5, 10)
Pair = tuple[Issue, list[Issue]]


def known_pairs(project: Project, issues: list[Issue]) -> list[Pair]:
    return duplicate_pairs.known_pairs(project.corpus, issues)


def recall(ranks: list[int | None]) -> dict[str, float]:
    if not ranks:
        return {f"recall@{k}": 0.0 for k in KS}
    return {f"recall@{k}": round(rankers.recall(ranks, k), 3) for k in KS}


def first_hit(ranked: list[int], originals: list[Issue]) -> int | None:
    """Where the first of the originals is in a ranking (None: not in it)."""
    return min((ranked.index(o.id) for o in originals if o.id in ranked), default=None)


def duplicate_replay(project: Project, issues: list[Issue]) -> dict[str, object]:
    """Recall@1/5/10 of the ranking and of a plain TF-IDF cosine, each over the issues filed before the duplicate."""
    pairs = known_pairs(project, issues)
    if not pairs:
        return {"pairs": 0}
    ranks: dict[str, list[int | None]] = {}
    for name in rankers.RANKERS:
        with project.ranking_by(name):
            found = (nearest(project, d, limit=max(KS), before=d.created_at) for d, _ in pairs)
            ranks[name] = [first_hit([m.id for m in matches], o) for matches, (_, o) in zip(found, pairs, strict=True)]
    chosen = project.index().ranker
    return {
        "pairs": len(pairs),
        "ranker": chosen,
        "model": recall(ranks[chosen]),
        "baseline": recall(baseline_ranks(issues, pairs)),
        "left_out": recall(left_out(project, pairs, ranks)),
        "rankers": {name: recall(found) for name, found in ranks.items()},
    }


def left_out(project: Project, pairs: list[Pair], ranks: dict[str, list[int | None]]) -> list[int | None]:
    """Each pair's rank by the ranker the index's replay of the other pairs chooses."""
    replayed = index_replay(project.index(), pairs)
    if len(next(iter(replayed.values()))) != len(pairs):  # some pair outside the index: choose from all
        return ranks[project.index().ranker]
    found = []
    for n in range(len(pairs)):
        others = {name: r[:n] + r[n + 1 :] for name, r in replayed.items()}
        found.append(ranks[rankers.choose(others)][n])
    return found


def baseline_ranks(issues: list[Issue], pairs: list[Pair]) -> list[int | None]:
    """A plain TF-IDF cosine over all earlier issues."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    matrix = TfidfVectorizer().fit_transform([issue.text for issue in issues])
    position = {issue.id: n for n, issue in enumerate(issues)}
    found = []
    for duplicate, originals in pairs:
        earlier = [n for n, issue in enumerate(issues) if issue.created_at < duplicate.created_at]
        scores = (matrix[earlier] @ matrix[position[duplicate.id]].T).toarray().ravel()
        found.append(first_hit([issues[earlier[i]].id for i in np.argsort(-scores)[: max(KS)]], originals))
    return found
