"""Clauses of a search request said beside its topic, for `search.py`: the state said as what is not wanted or as
an afterthought, words asked for in titles alone (which the search tool cannot do, so it is said), and what is said
around the topic's own words (`the word "…"`, `in them`, `that mentions`, `… that's still open`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from atlas.offline.reading.frames import QUOTE_RE
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.search_labels import strip_quotes

_BEEN = r"(?:(?:yet|been|ever|got|gotten|still)\s+)*"
NOT_STATE_RE = lazy(
    r",?\s*(?:but\s+|and\s+)?(?:not|excluding|except(?:\s+for)?|without)\s+(?:the\s+|any\s+)?(?P<state>open|closed)"
    r"(?:\s+(?:ones|issues|bugs|tickets))?\b(?!\s+(?:labels?|tags?)\b)"
    r"|(?:\b(?:that|which)\s+)?(?:(?:are|is|were|was|have|has|had|got)\s+)?"
    rf"(?:(?:still\s+)?(?:not|never)\s+|no\s+longer\s+){_BEEN}(?P<verb>closed|resolved|fixed|open)\b"
    rf"|(?:\b(?:that|which)\s+)?\b(?:are|is|were|was|have|has|had)n'?t\s+{_BEEN}(?P<short>closed|resolved|fixed|open)\b",
    re.I,
)
"""`…, but not the closed ones`, `excluding open issues`, `bugs that haven't been closed`, `not yet resolved`,
`… that are no longer open`: the other state asked for."""
_STATE_LAST_RE = lazy(
    r"(?:\s*[,;(-]\s*|\s+(?=(?:only|just)\b)|\s+(?=(?:open|closed)\s+(?:ones\s+)?only\b))"
    r"(?:(?:only|just)\s+(?:the\s+)?)?(?P<state>open|closed)(?:\s+(?:ones|issues|bugs|tickets))?(?:\s+only)?"
    r"\s*\)?\s*[?.!]*\s*$",
    re.I,
)
"""`issues about shuffle, open only`, `… only closed ones`: the state said as an afterthought, at the end."""
_IN_TITLES_RE = lazy(r"\bin\s+(?:the|their|its)\s+titles?\b|\btitles?\s+(?:contain|mention|say|with|has|have)", re.I)
_TEXT_ANYWHERE = (
    "The search finds words in titles, bodies and comments alike, not in titles alone: some of these issues may "
    "have them only in their text."
)


def titles_only(text: str) -> list[str]:
    """The note for words asked for in titles alone (`… 'cache' in the title`): the tool searches all the text."""
    return [_TEXT_ANYWHERE] if _IN_TITLES_RE.search(text) else []


def state_said_first(text: str) -> str:
    """`bugs mentioning windows, but not the closed ones`: the state left, said first (`open bugs mentioning …`);
    `…, open only`: the state said last, said first; a state said as what was done or is so (`did we close`, `still
    sitting there`), said as the state."""
    if said := NOT_STATE_RE.search(text):
        left = "closed" if said.group(said.lastgroup or "state").lower() == "open" else "open"  # the state negated
        return f"{left} {text[: said.start()]} {text[said.end() :]}"
    if said := _STATE_LAST_RE.search(text):
        return f"{said.group('state')} {text[: said.start()]}"
    return _STILL_THERE_RE.sub(" open ", _CLOSED_BY_RE.sub(" closed ", text))


_STILL_THERE_RE = lazy(
    r"\b(?:(?:that|which)\s+(?:are|is)\s+)?(?:still\s+)?(?:sitting|lying|hanging)\s+(?:there|around)\b"
    r"(?!\s+(?:the\s+)?(?:longest|forever))",
    re.I,
)
"""`open issues from 2021 that are still sitting there`: still open (`sitting around the longest` is an order)."""


_CLOSED_BY_RE = lazy(r"\b(?:did|do|does|have|has|had)\s+(?:we|you|i|they)\s+(?:close|resolve|fix)(?:e?d)?\b", re.I)
"""`how many dataset requests did we close?`, `have we fixed`: the issues closed, the state they are in now; who
closed them is not kept, so a person named (`did lhoestq fix`) is left to the note that says so."""


_NOBODY = r"(?:nobody|no[\s-]?one|no\s+maintainers?)"
_IDLE_RE = lazy(
    r"\s*\b(?:(?:with|having|that\s+(?:have|has|had)|and)\s+)?(?:no|not\s+any|zero|without(?:\s+any)?)\s+"
    r"(?:activity|updates?|movement)\b"
    r"|\s*\b(?:untouched|inactive|idle|dormant|abandoned)\b"
    rf"|\s*\b(?:that\s+|which\s+)?{_NOBODY}\s+(?:has\s+|have\s+|had\s+)?(?:ever\s+)?(?:touched|updated|looked\s+at"
    r"|worked\s+on)(?:\s+(?:it|them|yet|since))?\b"
    r"|\s*\b(?:that\s+|which\s+)?(?:(?:have|has|had)\s+)?never\s+(?:been\s+)?(?:touched|updated)\b",
    re.I,
)
"""`open enhancements with no activity`, `the oldest bug nobody has touched`: issues idle, with no time said."""
_IDLE_NOTE = (
    "No time was said for the issues' quiet: these are the longest inactive first (name one for a cut-off: "
    "`no activity in 6 months`)."
)
_IDLE_COUNTED_NOTE = (
    "No time was said for the issues' quiet, so I cannot tell which are idle: this counts all that match the rest "
    "(name one: `no activity in 6 months`)."
)
_IDLE_IN_ORDER_NOTE = (
    "I cannot tell which issues were never touched; these are in the order asked (`least recently updated` "
    "puts the longest inactive first)."
)


def without_idle(text: str) -> str:
    """The words without a clause saying the issues are idle (a filter now, as a time is)."""
    return _IDLE_RE.sub(" ", text)


def idle_without_time(
    text: str, order: str | None, notes: list[str], *, counted: bool = False, filters: Mapping[str, str] | None = None
) -> tuple[str | None, str]:
    """Issues said to be idle with no time (`with no activity`, `nobody has touched`): sorted by their last activity,
    the longest quiet first, unless the request asked for another order (a count has none); the words without the
    clause. `filters`: those read already; with a time of activity among them the clause is that filter's."""
    found = _IDLE_RE.search(text)
    if found is None or any(name.startswith("updated_") for name in filters or {}):
        return order, text
    rest = text[: found.start()] + " " + text[found.end() :]
    if counted:
        notes.append(_IDLE_COUNTED_NOTE)
        return order, rest
    notes.append(_IDLE_NOTE if order in {None, "least_recently_updated"} else _IDLE_IN_ORDER_NOTE)
    return order or "least_recently_updated", rest


IN_THEIR_TEXT_RE = lazy(r"\s+in\s+(?:them|it|their\s+(?:text|titles?|bod(?:y|ies))|the\s+(?:title|body|text))\b", re.I)
"""`issues with load_dataset in them`: where the words are, not issues named before."""
_QUOTED_WORD_RE = lazy(r"\b(?:the\s+)?(?:words?|terms?|phrases?|strings?|text)\s+(?=[\"'`])", re.I)
"""`have the word "deprecated"`: what names the quoted words, no word to search for."""
_JOINED_TOPIC_RE = lazy(
    r"(?<=\w)\s+(?:(?:that|which|and)\s+(?:also\s+)?(?:mentions?|says?|contains?|references?|talks?\s+about|discuss(?:es)?)"
    r"|(?:and\s+)?(?:mentioning|containing|referencing|discussing))\s+(?=\S)",
    re.I,
)
"""`caching that mentions fsspec`: a second topic joined to the first; the search needs the words of both."""


_MARKED_AS_RE = lazy(
    r"\b(?:(?P<state>closed|resolved)|marked|flagged|classified|set)\s+as\b"
    r"|\b(?:got|get|gets|getting|were|was|been)\s+(?:marked|flagged|tagged|labell?ed)(?:\s+as)?\b",
    re.I,
)
"""`bugs closed as duplicates`, `issues marked as question`, `issues that got marked duplicate`: the label said after
`as` or the verb (and the state said)."""


_SHOWN_WITH_RE = lazy(
    r"\s+(?:with|and|incl(?:uding|\.)?|showing)\s+(?:(?:their|its)\s+labels?|(?:their\s+|the\s+|its\s+)?(?:(?:creation|opening|open(?:ed)?|created"
    r"|filing)\s+dates?|dates?|authors?|reporters?|labels?\s+and\s+dates?|titles?|numbers?|links?|urls?))\b(?=\s*[?.!,;]*\s*$)",
    re.I,
)
"""`… list them all with creation dates`, `with their labels`: what each hit is shown with (every list shows them), no
words to search."""
_ASKED_AFTER_RE = lazy(
    r"\s+(?:that\s+)?(?:(?:i|we|you|someone|somebody|a\s+newcomer)\s+(?:could|can|might|should|may)"
    r"|(?:could|can|might|should|may)\s+(?:i|we|you|someone|somebody|a\s+newcomer))\s+(?:pick\s+up|take"
    r"|work\s+on|start\s+(?:on|with)|help\s+with|look\s+at|grab)\b[^,;]*"
    r"|[\s,;]+(?:and\s+)?(?:(?:can|could)\s+(?:you|u)\s+)?(?:please\s+|pls\s+)?(?:give|show|send)\s+(?:me|us)\s+"
    r"(?:the\s+|a\s+)?(?:list|them|those|links?)\b[^,;]*",
    re.I,
)
"""`… tickets I could pick up`, `what open issue could I pick up …`, `…, can you please give me the list?`: who the
issues are for and the asking itself, said after the topic."""
_STATE_SHOWN_RE = lazy(
    r"[\s,;]+(?:and\s+)?(?:whether|if)\s+(?:they(?:'re|\s+are)|it(?:'s|\s+is)|each\s+is)\s+(?:still\s+)?"
    r"(?:open|closed|fixed|resolved)(?:\s+or\s+(?:not|open|closed))?(?=\s*[?.!]*\s*$)",
    re.I,
)
"""`show the matching issues and whether they're closed`: what each hit is shown with (its state), no words to
search."""
_PROJECT_SAID_RE = lazy(
    r"\s+(?:in|on|for|of|across)\s+(?:this|our|the)\s+(?:project|repo(?:sitory)?|tracker|backlog|codebase)\b", re.I
)
"""`issues about caching in this project`: where the issues are, which every search is."""


_BOTH_STATES_RE = lazy(
    r"[\s,;]+(?:(?:also|including|incl\.?|plus)\s+(?:the\s+)?(?:closed|open)"
    r"|(?:both\s+)?(?:open\s+(?:or|and|&)\s+closed|closed\s+(?:or|and|&)\s+open))(?:\s+ones)?(?=\s*[?.!]*\s*$)",
    re.I,
)
"""`…, also the closed ones`: both states, said after the topic (no state to filter by, no words to search)."""


def without_framing(text: str) -> str:
    """The words without what frames the topic: where the words sought are (`in the title`), what names
    a quoted text (`the word`), what the hits are shown with (`with creation dates`), the project itself (`in this
    repo`), who they are for and the asking said after the topic (`I could pick up`), and `as` before a label
    (`closed as duplicates`)."""
    text = _QUOTED_WORD_RE.sub(" ", IN_THEIR_TEXT_RE.sub(" ", text))
    text = _PROJECT_SAID_RE.sub(" ", _ASKED_AFTER_RE.sub(" ", text))
    text = _BOTH_STATES_RE.sub(" ", _SHOWN_WITH_RE.sub(" ", _STATE_SHOWN_RE.sub(" ", text)))
    return _MARKED_AS_RE.sub(lambda said: said["state"] or " labelled ", text)


def quotes_masked(text: str) -> str:
    """Each quoted text as its marks around letters of no meaning, as long as it was: a word that leads a topic
    (`with`) inside it is the text's own (`find "slow with num_proc"`)."""
    return QUOTE_RE.sub(
        lambda quoted: quoted.group(0)[0] + "x" * (len(quoted.group(0)) - 2) + quoted.group(0)[-1], text
    )


def topic_alone(query: str) -> str:
    """The topic without what is said of the issues after it (`… that's still open`), a kind noun or an article."""
    query = re.sub(
        r"\s+(?:(?:that|which)(?:'s|'re|\s+(?:are|were|is))\s+(?:still\s+)?|still\s+)(?:open|closed)\b.*$",
        "",
        query,
        flags=re.I,
    )
    query = _JOINED_TOPIC_RE.sub(" ", IN_THEIR_TEXT_RE.sub(" ", query))
    query = re.sub(
        r"(?:[\s,;:]+(?:please|pls|plz|thanks|thank\s+you|thx|ty|do\s+the\s+needful|in\s+advance))+\W*$",
        "",
        query,
        flags=re.I,
    )
    query = " ".join(query.split()).rstrip("?.!,;:").rstrip()  # what was said of the issues left gaps and marks
    query = re.sub(  # `what's going on with issues about CSV files`: the topic is what the issues are about
        r"^(?:(?:with|on|in|of)\s+)?(?:the\s+|our\s+|any\s+)?(?:issues?|bugs?|tickets?|reports?)\s+"
        r"(?:about|on|regarding|concerning|mentioning)\s+(?=\w)",
        "",
        query,
        flags=re.I,
    )
    query = re.sub(
        r"(?<=\w)\s+(?:issues?|bugs?|tickets?|requests?|threads?|proposals?|ones?)$|(?:^|\s+)about$",
        "",
        query,
        flags=re.I,
    )  # `… what's it about`, `the polars support request`: the kind of issue said after its topic
    # `mention cache and are labelled bug`: the label was taken out, the words that joined it stay behind
    query = re.sub(
        r"(?:(?:^|\s+)(?:and|or|but|(?:that|which|who)(?:'s)?|are|is|were|was|have|has|had|got|still|yet))+$",
        "",
        query,
        flags=re.I,
    )  # `which bug has the most comments`: the order was taken out, its verb stays behind
    return strip_quotes(re.sub(r"^(?:the|a|an|both)\s+", "", query.strip(), flags=re.IGNORECASE))


_FUNCTION_WORDS = frozenset(
    re.findall(
        r"\w+",
        """
        a an the of with for to at by from into onto is are was were be being been am it its this that these those and
        but as do does did have has had will would can could should may might very just than so such when where
        us we our you your me my they them their whether
        any all some every each none nobody anyone anybody someone somebody still yet also too ever since until
        he she him her his hers himself herself themselves myself ourselves yourself
        """,
    )
)
"""Words that join a topic's words and never say what it is about: every issue holds them, so a search that needs
them finds nothing more, and one that takes any word (`… or …`) finds everything."""


def without_function_words(query: str, said: str) -> str:
    """The topic without the words that only join its words (`load_from_disk being slow with big datasets`); a text
    quoted whole (`said`, the topic as typed) and a quoted phrase in it (one word here, `out-of-memory`) are kept as
    they are; several such words alone are no topic."""
    if QUOTE_RE.fullmatch(said.strip().rstrip("?.!").strip()):
        return query
    words = query.split()
    kept = [word for word in words if word.casefold() not in _FUNCTION_WORDS]
    if not kept:
        return ""  # `… reported to us`, `our`: words left over from the asking, no topic
    return " ".join(kept)
