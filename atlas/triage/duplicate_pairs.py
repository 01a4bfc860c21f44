"""Known duplicate pairs of a project: a comment saying "duplicate" (or a `duplicate` label) names the original."""

from __future__ import annotations

import re

from atlas.triage.corpus import Corpus, Issue

DUPLICATE_SAYS = re.compile(r"\bduplicate\b", re.I)
REFERENCE = re.compile(r"#(\d+)\b")


def known_pairs(corpus: Corpus, issues: list[Issue]) -> list[tuple[Issue, list[Issue]]]:
    """(duplicate, the earlier reports it was marked a duplicate of): a comment saying "duplicate" names
    them, or the issue carries a `duplicate` label and a comment names them."""
    by_id = {issue.id: issue for issue in issues}
    threads = corpus.bodies([issue.id for issue in issues])
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
