"""Known duplicate pairs of a project, and how often an earlier report is among the first k suggested."""

from __future__ import annotations

import numpy as np

from atlas.triage.corpus import Issue
from atlas.triage.evaluate import DUPLICATE_SAYS, REFERENCE
from atlas.triage.project import Project
from atlas.triage.similar import nearest

KS = (1, 5, 10)


def known_pairs(project: Project, issues: list[Issue]) -> list[tuple[Issue, list[Issue]]]:
    """(duplicate, the earlier reports it was marked a duplicate of): a comment saying "duplicate" names
    them, or the issue carries a `duplicate` label and a comment names them."""
    by_id = {issue.id: issue for issue in issues}
    threads = project.corpus.bodies([issue.id for issue in issues])
    pairs = []
    for issue in issues:
        labelled = any(label.split(":")[-1].strip().casefold() == "duplicate" for label in issue.labels)
        for body in threads.get(issue.id, []):
            if not (labelled or DUPLICATE_SAYS.search(body)):
                continue
            named = dict.fromkeys(n for n in map(int, REFERENCE.findall(body)) if n in by_id and n != issue.id)
            earlier = [by_id[n] for n in named if by_id[n].created_at < issue.created_at]
            if earlier:
                pairs.append((issue, earlier))
                break
    return pairs


def recall(ranks: list[int | None]) -> dict[str, float]:
    if not ranks:
        return {f"recall@{k}": 0.0 for k in KS}
    return {f"recall@{k}": round(sum(1 for r in ranks if r is not None and r < k) / len(ranks), 3) for k in KS}


def first_hit(ranked: list[int], originals: list[Issue]) -> int | None:
    """Where the first of the originals is in a ranking (None: not in it)."""
    return min((ranked.index(o.id) for o in originals if o.id in ranked), default=None)


def duplicate_replay(project: Project, issues: list[Issue]) -> dict[str, object]:
    """Recall@1/5/10 of the ranking and of a plain TF-IDF cosine, each over the issues filed before the duplicate."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    pairs = known_pairs(project, issues)
    if not pairs:
        return {"pairs": 0}
    vectorizer = TfidfVectorizer()
    matrix = vectorizer.fit_transform([issue.text for issue in issues])
    position = {issue.id: n for n, issue in enumerate(issues)}
    ours, theirs = [], []
    for duplicate, originals in pairs:
        found = nearest(project, duplicate, limit=max(KS), before=duplicate.created_at)
        ours.append(first_hit([m.id for m in found], originals))
        earlier = [n for n, issue in enumerate(issues) if issue.created_at < duplicate.created_at]
        scores = (matrix[earlier] @ matrix[position[duplicate.id]].T).toarray().ravel()
        theirs.append(first_hit([issues[earlier[i]].id for i in np.argsort(-scores)[: max(KS)]], originals))
    return {"pairs": len(pairs), "model": recall(ours), "baseline": recall(theirs)}
