"""A symptom (`jobs take long to start on postgres`, a pasted log and "known issue?"): the issues that
match its words and the troubleshooting section that describes it, both read in round one.

The words are the user's own (and the error names of what they pasted); the section is found in
the docs' FTS index, in the troubleshooting doc when the project has one.
"""

from __future__ import annotations

import re

from atlas.offline.plan import PlannedCall
from atlas.offline.reading.issue_refs import CODE_RE, RAISED_RE
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.search import state_in
from atlas.offline.reading.sections import content_words, heading_name, section_about
from atlas.offline.reading.vocabulary import Vocabulary

QUERY_WORDS = 6
"""Enough words to find the issue; the search ranks by all of them, then by any."""
_ASKING = frozenset(
    re.findall(
        r"\S+",
        """
        known issue issues bug bugs ticket tickets report reports reported filed tracked logged already anyone anybody
        else seen before raised there any existing open closed have has we us our someone somebody forum people ppl
        saying says said point link them hit hitting problem similar same thing happen happens happening
        yet still tracker github something anything like rn now today ago ask asked asking request requested fix fixed
        into want don't don duplicate duplicates dupe file being as matching whether show re ve ll
        seeing getting experiencing encountering facing got get
        use using used make makes made after very really true false become becomes became exist exists some
        """,
    )
)
"""Words of the asking itself ("is there an issue for this already?") and of meeting the symptom ("seeing it on 3.2.0"),
not of the symptom."""
_PROBLEM_RE = lazy(
    r"\b(?:slow|stuck|hang|hangs|hanging|fail|fails|failing|failed|crash|crashes|crashing|twice|never|wrong|broken|"
    r"leak|leaks|leaking|timeout|times?\s+out|dead|lost|missing|missed|late|delay|delayed|error|errors|can'?t|cannot|"
    r"doesn'?t|won'?t|isn'?t|not\s+\w+ing|take\s+long|takes\s+long|keeps?|again|spike|grows?|growing)\b",
    re.I,
)
_NUMBER_RE = lazy(r"[\d.]+")
_HTTP_STATUS_RE = lazy(r"[45]\d\d")
"""`504`: an HTTP status a report quotes, a word to find (other numbers are versions and counts)."""
_IDENTIFIER_RE = lazy(r"\w+_\w+|\w+\.\w+")
"""A name of code: `version_tag`, `load_dataset`, `pyarrow.lib`."""
_NAME_RE = lazy(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b")
"""What an exception or error is called in a log: `KeyError`, `LeaseExpired`."""


def symptom_reads(
    said: str, pasted: str, vocabulary: Vocabulary, *, asked: bool, asking: str = ""
) -> list[PlannedCall]:
    """The search and the troubleshooting section for a symptom; nothing when the words name none.

    `asking`: the request that asks ("has anyone asked for jitter?"); its own words lead the query,
    as they say what is looked for, and the description before it fills the rest.
    """
    words = _symptom_words(said)
    raised = next((error for error in RAISED_RE.finditer(f"{said}\n{pasted}") if error["message"]), None)
    named = RAISED_RE.search(said)  # `NonMatchingSplitsSizesError still open anywhere?`: an error named alone
    if not asked and not raised and not named and (len(words) < 2 or not _PROBLEM_RE.search(said)):
        return []
    names = list(dict.fromkeys(_NAME_RE.findall(pasted)))[:2]
    # an error with its message (`AttributeError: module 'pyarrow.lib' has no attribute …`) is what reports quote
    error = [raised["name"].lower(), *_symptom_words(_message(raised))] if raised else []
    said_words = [*dict.fromkeys([*error, *_symptom_words(asking), *words])]
    kept = sorted(range(len(said_words)), key=lambda at: _weight(said_words[at], at < len(error)))
    query_words = [said_words[at] for at in sorted(kept[:QUERY_WORDS])]
    held = {word.lower() for word in [*words, *query_words]}
    query = " ".join(query_words + [n for n in names if n.lower() not in held])
    if not query:
        query = " ".join(f"ORB-{code}" for code in CODE_RE.findall(pasted)[:1])
    # `… still open anywhere?` narrows to open issues; `has it been fixed?` asks, and the closed ones answer it
    narrowed = {"state": "open"} if state_in(said) == "open" else {}
    calls = [PlannedCall("search_issues", {"query": query, **narrowed})] if query else []
    doc = "troubleshooting" if "troubleshooting" in vocabulary.docs else None
    section = section_about(words, vocabulary, doc) if words else None
    if section is not None:
        calls.append(
            PlannedCall("get_doc_section", {"doc_id": section.doc_id, "heading": heading_name(section, vocabulary)})
        )
    return calls


def _symptom_words(text: str) -> list[str]:
    """The words that describe: not the asking, not numbers or versions (`2.8.3`, `12`), but an HTTP status (`504`)."""
    return [
        w
        for w in content_words(CODE_RE.sub(" ", text))
        if w not in _ASKING and (not _NUMBER_RE.fullmatch(w) or _HTTP_STATUS_RE.fullmatch(w))
    ]


def _message(raised: re.Match[str]) -> str:
    """The error's message; quoted whole with its name (`"TypeError: 'NoneType' object is not callable" when I …`),
    up to the closing quote."""
    message = raised["message"]
    if raised.start() > 0 and raised.string[raised.start() - 1] == '"':
        message = message.split('"', 1)[0]
    return message


def _weight(word: str, of_the_error: bool) -> int:
    """Which words a query of a few keeps first: the error's, then names of code the user said (`version_tag`), then
    what goes wrong (`slow`, `hangs`), then the rest; they are searched in the order said."""
    if of_the_error:
        return 0
    if _IDENTIFIER_RE.fullmatch(word):
        return 1
    return 2 if _PROBLEM_RE.fullmatch(word) else 3
