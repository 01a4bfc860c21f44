"""What the planner loads: a question pays only for what it needs (rapidfuzz for a typo or a heading named
in words, the planner itself only when a model is wanted), in a fresh process as a user's `atlas ask` is."""

from __future__ import annotations

import json
import subprocess
import sys

SEED = "Compare issues #41 and #87 and check what the error-codes doc says about ORB-1101."
PLAN_AND_REPORT = """
import json, sys
from atlas.offline.compose import read_question
from atlas.offline.reading.vocabulary import vocabulary_of
from atlas.foundation.config import data_dir
plan = read_question(sys.argv[1], vocabulary_of(data_dir()))
print(json.dumps({"calls": [c.name for c in plan.first_calls()], "rapidfuzz": "rapidfuzz" in sys.modules}))
"""


def planned(question: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PLAN_AND_REPORT, question], capture_output=True, text=True, check=True, timeout=60
    )
    report: dict[str, object] = json.loads(done.stdout)
    return report


def test_the_seed_question_is_planned_without_the_fuzzy_matcher() -> None:
    report = planned(SEED)
    assert report["calls"] == ["get_issue", "get_issue", "get_doc_section"]
    assert report["rapidfuzz"] is False


def test_a_typo_still_loads_the_fuzzy_matcher_and_is_corrected() -> None:
    report = planned("shwo the brokrs doc")
    assert report["calls"] == ["get_doc_section"]
    assert report["rapidfuzz"] is True


def test_reading_an_issue_as_markdown_does_not_load_the_planner() -> None:
    code = "import sys, atlas.offline.answer.issue_view; print('atlas.offline.model' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "False"
