"""The word a project's docs give a label in their label table (`| severity:S2 | major: … |`) names it before issues."""

from __future__ import annotations

import sqlite3

from atlas.foundation.config import bundled_data_dir
from atlas.offline.compose import read_question
from atlas.offline.reading.label_glosses import glossed, label_glosses
from atlas.offline.reading.vocabulary import Vocabulary, vocabulary_of

TOOLS = frozenset({"search_issues", "get_issue", "get_doc_section"})


def indexed(labels: list[str], *bodies: str) -> Vocabulary:
    index = sqlite3.connect(":memory:")
    index.execute("CREATE VIRTUAL TABLE sections USING fts5(doc_id UNINDEXED, heading, body, tokenize='porter')")
    index.executemany(
        "INSERT INTO sections (doc_id, heading, body) VALUES ('triage', 'Labels', ?)", [(b,) for b in bodies]
    )
    return Vocabulary(labels=labels, index=index)


def test_the_orbit_triage_doc_gives_each_severity_its_word() -> None:
    glosses = label_glosses(vocabulary_of(bundled_data_dir()))
    assert glosses == {
        "critical": "severity:S1",
        "major": "severity:S2",
        "minor": "severity:S3",
        "trivial": "severity:S4",
    }


def test_a_label_word_said_before_issues_is_the_label() -> None:
    plan = read_question("Show me the open major bugs.", available=TOOLS)
    [search] = [call.arguments for call in plan.first_calls() if call.name == "search_issues"]
    assert search == {"query": "", "state": "open", "label": "severity:S2", "labels": ["type:bug"]}


def test_a_label_word_said_of_anything_else_stays_a_word() -> None:
    glosses = {"critical": "severity:S1"}
    assert glossed("is the critical path documented", glosses) == "is the critical path documented"
    assert glossed("any critical open issues?", glosses) == "any severity:S1 open issues?"
    assert glossed("a critical lease section", glosses) == "a critical lease section"
    assert glossed("any critical bugs?", glosses) == "any severity:S1 bugs?"


def test_a_word_given_two_labels_or_a_label_the_project_lacks_names_none() -> None:
    vocabulary = indexed(
        ["p1", "p2", "kind:bug"],
        "| label | meaning |\n| `p1` | urgent: now |\n| `p2` | urgent: soon |\n| `kind:bug` | broken: it fails |",
        "| `gone` | stale: an old label |",
    )
    assert label_glosses(vocabulary) == {"broken": "kind:bug"}


def test_a_project_without_docs_has_no_label_words() -> None:
    assert label_glosses(Vocabulary(labels=["bug"])) == {}
