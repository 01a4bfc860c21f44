"""When nothing was understood, the answer offers the nearest requests that are, each checked by planning it."""

from __future__ import annotations

from atlas.foundation.config import data_dir
from atlas.offline.answer.help import help_text
from atlas.offline.answer.nearest import nearest_requests
from atlas.offline.compose import read_question
from atlas.offline.reading.vocabulary import vocabulary_of

TOOLS = {"get_issue", "search_issues", "get_doc_section", "list_docs"}


def test_an_unrecognised_question_is_offered_requests_built_from_its_own_known_words() -> None:
    plan = read_question("redis timeouts??", vocabulary_of(data_dir()), available=TOOLS)
    assert not plan.understood
    assert "find issues about redis timeouts" in plan.suggestions
    for suggestion in plan.suggestions:  # every one is understood when typed
        assert read_question(suggestion, vocabulary_of(data_dir()), available=TOOLS).first_calls()


def test_words_the_project_does_not_know_give_no_suggestion() -> None:
    assert read_question("blorp zzz", vocabulary_of(data_dir()), available=TOOLS).suggestions == []


def test_a_suggestion_that_would_not_be_understood_is_not_offered() -> None:
    assert nearest_requests("redis timeouts", vocabulary_of(data_dir()), lambda text: False) == []


def test_the_help_text_says_did_you_mean_only_for_an_unrecognised_question() -> None:
    assert "Did you mean: `find issues about redis`?" in help_text("redis??", True, ["find issues about redis"])
    assert "Did you mean" not in help_text("help", True, ["find issues about help"])
