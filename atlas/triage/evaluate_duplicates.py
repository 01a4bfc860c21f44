"""Known duplicate pairs of a project, and how often the earlier report is among the first k suggested."""

from __future__ import annotations

import numpy as np

from atlas.triage.corpus import Issue
from atlas.triage.evaluate import DUPLICATE_SAYS, REFERENCE
from atlas.triage.project import Project
from atlas.triage.similar import candidates, rank

KS = (1, 5, 10)


def known_pairs(project: Project, issues: list[Issue]) -> list[tuple[Issue, Issue]]:
    """(duplicate, earlier report): a comment saying "duplicate" names the earlier issue, or the issue
    carries a `duplicate` label and a comment names one."""
    by_id = {issue.id: issue for issue in issues}
    threads = project.corpus.bodies([issue.id for issue in issues])
    pairs = []
    for issue in issues:
        labelled = any(label.split(":")[-1].strip().casefold() == "duplicate" for label in issue.labels)
        for body in threads.get(issue.id, []):
            if not (labelled or DUPLICATE_SAYS.search(body)):
                continue
            earlier = [by_id[n] for n in map(int, REFERENCE.findall(body)) if n in by_id and n != issue.id]
            earlier = [e for e in earlier if e.created_at < issue.created_at]
            if earlier:
                pairs.append((issue, earlier[0]))
                break
    return pairs


def recall(ranks: list[int | None]) -> dict[str, float]:
    if not ranks:
        return {f"recall@{k}": 0.0 for k in KS}
    return {f"recall@{k}": round(sum(1 for r in ranks if r is not None and r < k) / len(ranks), 3) for k in KS}


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
    for duplicate, original in pairs:
        found = rank(project, duplicate, candidates(project, duplicate, before=duplicate.created_at, text_only=True))
        ids = [m.id for m in found]
        ours.append(ids.index(original.id) if original.id in ids else None)
        earlier = [n for n, issue in enumerate(issues) if issue.created_at < duplicate.created_at]
        scores = (matrix[earlier] @ matrix[position[duplicate.id]].T).toarray().ravel()
        order = [issues[earlier[i]].id for i in np.argsort(-scores)[: max(KS)]]
        theirs.append(order.index(original.id) if original.id in order else None)
    return {"pairs": len(pairs), "model": recall(ours), "baseline": recall(theirs)}
