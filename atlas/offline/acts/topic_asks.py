"""Issues asked about by what they are about rather than their number, for the offline planner.

`what's the DVC one about?`, `pull up the parquet issue`: one issue named by its topic is the best match of a
search for it, read in full after; `label the DVC one bug`, `mark the schedule jitter request S3`: the action is
taken on that issue once it is read (and a condition on it tested then), each after the person's approval, whose
question names the issue. `what's going on with streaming?`, `any news on push_to_hub?`: the news of a topic is a
search for it, the most recently active first (`what's new with …`: the newest opened first).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from atlas.offline.acts.act import LEAD, Act, Intent
from atlas.offline.acts.later import SOMEWHERE, Condition, Later
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.likeness import SIMILAR_RE
from atlas.offline.reading.search import search_in
from atlas.offline.reading.vocabulary import Vocabulary

_WORD = r"[\w.+:/'-]+"
_ONE_RE = lazy(
    rf"\bthe\s+(?P<topic>(?:{_WORD}\s+){{0,2}}?{_WORD})\s+(?P<noun>one|issue|ticket|bug|report|thread|request|proposal)\b(?!\s*(?:s\b|#|\d))",
    re.I,
)
_ONE_ABOUT_RE = lazy(
    r"\bthe\s+(?:(?P<state>open|closed)\s+)?(?P<noun>one|issue|ticket|bug|report|thread|request|proposal)\s+"
    r"(?:about|on|regarding|concerning|re"
    rf"|mentioning|that\s+(?:mentions|talks\s+about))\s+(?P<topic>(?:{_WORD}\s+){{0,4}}?{_WORD})\s*[?.!]*$",
    re.I,
)
"""`find the issue about caching with load_dataset`, `find the open issue about DVC integration`: one issue named by its
topic after the noun, to the end."""
_ASKS_RE = lazy(
    LEAD + r"(?:what'?s|whats|what\s+(?:is|was)|which\s+(?:is|was)|where'?s|where\s+is|show|pull(?:\s+up)?|open|read"
    r"|(?:any\s+)?(?:duplicates?|dupes?|similar(?:\s+issues)?)\s+(?:of|to)|(?:has|have|is|was|did|does)(?=\s+the\s)"
    r"|get|give|find|grab|fetch|bring\s+up|link|summari[sz]e|explain|tell\s+me\s+about|remind\s+me\s+(?:about|of)"
    r"|the\b)",
    re.I,
)
"""How a request for one issue named by its topic starts: a question or a verb that reads."""
_READS_RE = lazy(
    LEAD + r"(?:show|pull(?:\s+up)?|open|read|get|give|find|grab|fetch|bring\s+up|link|summari[sz]e|remind\s+me"
    r"|(?:has|have|is|was|did|does)(?=\s+the\s)|(?:any\s+)?(?:duplicates?|dupes?|similar(?:\s+issues)?)\s+(?:of|to))\b",
    re.I,
)
"""A verb that reads, or a question about one issue (`has the arrow casting issue been fixed?`): `pull up the
parquet issue` names one by its topic, where `what's the X bug?` may ask about an issue whose number follows."""
_NOT_A_TOPIC = frozenset(
    re.findall(
        r"\w+",
        """
    same other another first second third last next previous earlier later new newer newest old older oldest latest
    earliest recent right wrong whole only big main this that these those which what one my our your their his her
    above below following open closed original duplicate linked related similar each every any
    """,
    )
)
"""Words that say which issue of a list, or of the talk before, rather than what it is about."""
_NEWS_RE = lazy(
    LEAD
    + r"(?:(?:so\s+)?(?:what'?s|whats|what\s+is)\s+(?P<verb>going\s+on|happening|up|new|the\s+(?:latest|status|news|"
    r"story|situation))|(?:is\s+there\s+|are\s+there\s+)?any\s+(?:news|updates?|progress|movement)"
    r"|(?:the\s+)?(?:status|state|latest)(?:\s+update)?|(?:what(?:ever)?\s+)?happened|where\s+are\s+we)"
    r"\s+(?:with|on|about|for|in|of|around|re|to)\s+(?P<topic>.+)$",
    re.I,
)
"""`what's going on with streaming`, `any news on the polars support?`, `status of push_to_hub`, `what happened to
the audio decoding bug`."""


def topic_ask_act(typed: str, text: str, vocabulary: Vocabulary) -> Act | None:
    """The act for one issue named by its topic, or for the news of a topic; None when the words ask neither."""
    if news := _NEWS_RE.match(text):
        return _news(typed, news, vocabulary)
    named = _ONE_RE.search(text)
    if named is None or not _is_topic(named.group("topic")):  # `the open issue about DVC`: the topic after the noun
        named = _ONE_ABOUT_RE.search(text)
    if not _ASKS_RE.match(text) or not (one := named):
        return None
    if one.group("noun").lower() != "one" and not _READS_RE.match(text):
        return None  # `what's the colour codes bug? #124`: a question about an issue that may be named after it
    if not _is_topic(one.group("topic")):
        return None  # `the same one`, `the first issue`, `the other one`: which of a list, not a topic
    notes: list[str] = []
    state = one.groupdict().get("state") or ""  # `the open issue about …`: of the open ones
    topic = _either(one.group("topic"))
    search = search_in(f"{state} issues about {topic}", notes, vocabulary.labels, vocabulary.people)
    if search.query is None and search.label is None:
        return None
    act = Act(Intent.SEARCH, typed, search=search, notes=notes, targets=[SOMEWHERE])  # `… and label it bug`
    similar = [PlannedCall("find_similar", {"issue_id": SOMEWHERE})] if SIMILAR_RE.search(text) else []
    act.later.append(Later(read_first_hit=True, on_first_hit=similar))  # `duplicates of the DVC one?`
    return act


def _is_topic(said: str) -> bool:
    """Whether words before or after the noun say what the issue is about, not which of a list it is."""
    words = said.split()
    return words[0].lower() not in _NOT_A_TOPIC and not all(word.lower().strip("'") in _NOT_A_TOPIC for word in words)


def _news(typed: str, news: re.Match[str], vocabulary: Vocabulary) -> Act | None:
    notes: list[str] = []
    search = search_in(f"issues about {news.group('topic')}", notes, vocabulary.labels, vocabulary.people)
    if search.query is None and search.label is None:
        return None
    if search.order is None and not (search.created_since or search.updated_since):
        newest = (news.group("verb") or "").lower() == "new"
        search = replace(search, order="newest" if newest else "recently_updated")
    return Act(Intent.SEARCH, typed, search=search, notes=notes)


_ACTS_RE = lazy(
    LEAD + r"(?:label|tag|mark|flag|set|add|put|apply|remove|drop|strip|comment|post|reply|respond|write|leave|"
    r"\+1|thank|ping|ask|tell|let)\b",
    re.I,
)
_IF_RE = lazy(r"^\s*(?:if|when|unless|in\s+case)\b", re.I)
_ACTED_ON_RE = lazy(
    rf"\bthe\s+(?P<topic>(?:{_WORD}\s+){{0,3}}?{_WORD})\s+(?:one|issue|ticket|bug|report|request|thread|proposal)\b"
    r"(?!\s*(?:s\b|#|\d))(?:\s*\((?P<aside>[^()]{1,60})\))?",
    re.I,
)
"""`the schedule jitter request`, `the job-dependencies request (the DAG one)`: an issue the action names by topic."""
_LED_BY_TOPIC_RE = lazy(
    rf"^\s*the\s+(?:{_WORD}\s+){{0,3}}?{_WORD}\s+(?:one|issue|ticket|bug|report|request|thread|proposal)"
    r"(?:\s*\([^()]{1,60}\))?\s*[:,]\s*",
    re.I,
)
"""An issue named by its topic before the action on it, as its subject."""


def topic_action_act(
    typed: str, text: str, vocabulary: Vocabulary, acted: Callable[[Callable[[str], str]], Act | None]
) -> Act | None:
    """An action on one issue named by its topic; `acted` reads the action with the topic's words replaced (each
    of the request's texts, through the function it is given) by `#0`, which the first hit of the search takes."""
    led = _LED_BY_TOPIC_RE.match(text)  # `the job-dependencies request (the DAG one): add comp:scheduler`
    acts = _ACTS_RE.match(text) or _IF_RE.match(text) or (led and _ACTS_RE.match(text[led.end() :]))
    if not acts or not (named := _ACTED_ON_RE.search(text)):
        return None
    words = named.group("topic").split()
    if words[0].lower() in _NOT_A_TOPIC or all(word.lower().strip("'") in _NOT_A_TOPIC for word in words):
        return None
    topic = named.group("topic") + _aside(named.group("aside") or "")
    notes: list[str] = []
    search = search_in(f"issues about {_either(topic)}", notes, vocabulary.labels, vocabulary.people)
    act = acted(lambda said: _ACTED_ON_RE.sub(f"#{SOMEWHERE}", said, count=1))
    if act is None or act.targets != [SOMEWHERE] or (search.query is None and search.label is None):
        return None
    waits = _waiting(act)
    if waits is None:
        return None  # a family to clear, or a condition on another issue: not read here
    limited = replace(search, limit=search.limit or 5)
    found = Act(Intent.SEARCH, typed, search=limited, notes=[*notes, *act.notes], targets=[SOMEWHERE])
    found.later.append(Later(read_first_hit=True, test=waits[0], on_first_hit=waits[1]))
    return found


def _waiting(act: Act) -> tuple[Condition | None, list[PlannedCall]] | None:
    """What an act on `#0` does once the hit is found: its test (`if it is still open`) and its calls."""
    if act.later:  # `if the DAG request is still open, comment …`: one test on #0 and its actions
        [step] = act.later if len(act.later) == 1 else [Later()]
        on_it = step.issue_id == SOMEWHERE and not step.remove_families and step.test is not None
        if not on_it or not step.actions or any(call.arguments.get("issue_id") != SOMEWHERE for call in step.actions):
            return None
        return step.test, list(step.actions)
    calls = [PlannedCall("add_label", {"issue_id": SOMEWHERE, "label": label}) for _, label in act.labels]
    calls += [PlannedCall("remove_label", {"issue_id": SOMEWHERE, "label": label}) for _, label in act.removals]
    calls += [PlannedCall("post_comment", {"issue_id": SOMEWHERE, "body": body}) for _, body in act.comments]
    return (None, calls) if calls and all(issue_id == SOMEWHERE for issue_id in act.targets) else None


def on_the_one_found(before: Sequence[Act], act: Act) -> Act:
    """`read the concurrency limit request and +1 it: '…'`: an action on the issue a request before names by its
    topic waits for the search's first hit, as that request's own would; one that cannot wait is not planned."""
    if (SOMEWHERE not in act.targets and SOMEWHERE not in act.issue_ids) or any(
        step.read_first_hit for step in act.later
    ):
        return act  # no issue named by a topic before, or the request that names it
    waiting = [later for done in before for later in done.later if later.read_first_hit]
    waits = _waiting(act)
    if waits is None or not waiting or (waits[0] is not None and (waiting[-1].test or waiting[-1].on_first_hit)):
        note = "I can act on an issue found by a search only as it is found, under one condition at most."
        return Act(Intent.NOTHING, act.text, notes=[note])
    waiting[-1].test = waits[0] or waiting[-1].test
    waiting[-1].on_first_hit.extend(waits[1])
    return Act(Intent.NOTHING, act.text, notes=act.notes)


def _either(topic: str) -> str:
    """`the dependencies/DAG request`: words joined by a slash are either of them."""
    return re.sub(r"(?<=\w)/(?=\w)", " or ", topic)


def _aside(words: str) -> str:
    """`(the DAG one)` after a topic: another name for the same issue, either of which may match."""
    said = [word for word in words.split() if word.lower() not in _NOT_A_TOPIC | _ISSUE_NOUNS]
    return f" or {' '.join(said)}" if said else ""


_ISSUE_NOUNS = frozenset({"the", "a", "an", "issue", "ticket", "bug", "report", "request", "thread", "proposal"})
