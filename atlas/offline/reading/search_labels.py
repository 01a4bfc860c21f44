"""Reading which labels a search request names, for the offline planner (`search.py`).

A label after a label word (`labelled "dataset request"`), a `prefix:value` token, a label named in words
(`cli bugs`), or one the project's words mean (`feature requests`); several at once, the most specific first.
A name in a label's place (`labelled enhancment`, `the bgu label`) that is no label is read as the label it
is a small typo of, when one is clearly the nearest (`closest_label`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from atlas.foundation.label_names import closest_label, label_value, resolve_label, split_label
from atlas.foundation.stop_words import ENGLISH_STOP_WORDS
from atlas.offline.reading.entities import label_refs
from atlas.offline.reading.label_lists import LABEL_LEAD
from atlas.offline.reading.label_usage import files_topic, issues_carrying
from atlas.offline.reading.labels import LabelHit, labels_in_words
from atlas.offline.reading.lazy import lazy

LABEL_FILTER_RE = lazy(LABEL_LEAD + r"[\"'`]?(?P<label>[A-Za-z][\w.-]*:[A-Za-z0-9][\w.-]*)[\"'`]?", re.IGNORECASE)
_NAMED_LABEL_RE = lazy(
    LABEL_LEAD + r"(?:(?P<quoted>\"[^\"]+\"|'[^']+'|`[^`]+`)|(?P<words>[\w.-]+(?:\s+[\w.-]+){0,3}))", re.IGNORECASE
)
"""`labelled "dataset request"`, `tagged good first issue`: a label of any spelling after a label word."""
_BARE_LABEL_RE = lazy(r"(?<![\w/])([A-Za-z][\w.-]*:[A-Za-z0-9][\w.-]*)")
_TEXT_LEAD_RE = lazy(r"\W*(?:that\s+)?(?:mention\w*|contain\w*|matching|referencing)\b", re.I)
"""`which ones mention streaming`: words asked for as text, never read as a label."""
QUERY_LEAD_RE = lazy(
    r"\b(?:about|mentioning|mention|mentions|regarding|concerning|(?:that|which)\s+concerns?|related\s+to|involving"
    r"|containing|contains?|matching|"
    r"referenc(?:ing|es?)|that\s+(?:mentions?|talks?\s+about|discuss(?:es)?)|on\s+the\s+topic\s+of|with|for|on"
    r"|(?:(?<=\bissue\s)|(?<=\bissues\s)|(?<=\bbug\s)|(?<=\bbugs\s)|(?<=\bone\s))where"
    r"(?!\s+(?:the\s+|their\s+|its\s+)?(?:titles?|bod(?:y|ies)|text)\b)"
    r"|(?:similar\s+to|like)(?=\s+[\"'`]))\s+(?P<q>.+)$",
    re.IGNORECASE,
)
SEARCH_FILLER = frozenset(
    re.findall(
        r"\w+",
        """
        find search look looking for list show me all any the issues bugs tickets reports ones open closed which
        what are when
        there please that is get grep of in tracker and or but with can you give how many do we have feature requests
        latest newest new recent both does mean means still this issue ticket from users user people unresolved resolved
        fixed component components what's whats rn now currently right again also today every each everything
        stuff things anything something they them those these thats ever one it its at havent hasnt i want wanna need
        see some only just here dig up track hunt down round share kindly needful backlog carry carries carrying
        filing needing problem problems
        opened filed created reported submitted raised came arrived updated happened were was been did report file raise
        submit
        label labels labelled labeled tagged tell summarise summarize summary overview a an too
        """,
    )
)
"""Words of a search request that are not its topic."""
_KIND_WORDS = frozenset({"bugs", "feature", "requests"})
"""Filler words that may still name a kind of issue the project has a label for."""


def strip_quotes(text: str) -> str:
    """`"text"`, `'text'` or `` `text` `` without the quotes."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1].strip()
    return text


def named_label(text: str, labels: Sequence[str]) -> tuple[str | None, str]:
    """A label named after a label word, as the project spells it, and the words left; a quoted name the
    project does not have is kept as typed (the search then says which labels are near it)."""
    match = _NAMED_LABEL_RE.search(text)
    if match is None or not labels:
        return None, text
    if match.group("quoted"):
        name = strip_quotes(match.group("quoted"))
        label = resolve_label(name, labels) or name
        return label, text[: match.start()] + " " + text[match.end("quoted") :]
    words = list(re.finditer(r"[\w.-]+", match.group("words")))
    for last in reversed(words):  # the longest run of words that names one label: `good first issue`
        found = resolve_label(match.group("words")[: last.end()], labels)
        if found:
            return found, text[: match.start()] + " " + text[match.start("words") + last.end() :]
    return None, text


def word_label(rest: str, labels: Sequence[str], *, exact: bool = False) -> tuple[str | None, str]:
    """A label named in words before the topic (`postgres broker issues`, `cli bugs`), and the words left.

    A label all of whose words were named is taken over one named by a distinctive word only
    (`redis bugs`: the label named `bug`, the word `redis` stays the query); the label on fewer issues leads.
    """
    lead = QUERY_LEAD_RE.search(rest)
    scope = rest[: lead.start()] if lead else rest
    hits = [hit for hit in labels_in_words(scope, labels) if hit.exact or (not exact and _in_use(labels, hit.label))]
    if not hits and lead and not _TEXT_LEAD_RE.match(lead.group(0)):  # "what's open on the scheduler": a label
        topic = lead.group("q").strip().rstrip("?.!")
        whole = [
            hit
            for hit in labels_in_words(topic, labels)
            if hit.exact
            and _stands_for_topic(labels, hit.label)
            and _only_filler(topic[: hit.start] + topic[hit.end :])
        ]  # `on the scheduler`, not `about catch-up feature`, whose other words are the topic
        if whole and re.fullmatch(r"(?:the\s+)?[\w -]+", topic) and len(topic.split()) <= 3:
            states = re.findall(r"\b(?:open|closed|unresolved|resolved|fixed)\b", topic, re.I)
            return whole[0].label, " ".join([rest[: lead.start()], *states])  # `about the open bugs`: still open
    if not hits:
        return None, rest

    def rank(hit: LabelHit) -> tuple[bool, bool, int]:
        # A label said as it is spelled leads, then the most specific (on fewest issues).
        return (not hit.exact, not hit.literal, issues_carrying(labels, hit.label))

    best = min(hits, key=rank)
    if best.exact:
        rest = rest[: best.start] + " " + rest[best.end :]
    return best.label, rest


def _only_filler(words: str) -> bool:
    return all(word.lower() in SEARCH_FILLER | _STATE_OR_KIND for word in re.findall(r"[\w'-]+", words))


_STATE_OR_KIND = frozenset({"open", "closed", "unresolved", "resolved", "fixed", "request", "report", "bug", "feature"})


IN_USE = 5
"""A label on fewer issues is not taken for a topic's words: `about arrow` on a project whose `arrow`
label is on one issue is a search for the word."""


def _stands_for_topic(labels: Sequence[str], label: str) -> bool:
    """`about X`: X is the label only when the project uses it, on enough of the issues that say X."""
    return _in_use(labels, label) and files_topic(labels, label)


def _in_use(labels: Sequence[str], label: str) -> bool:
    carrying = issues_carrying(labels, label)
    return carrying == 0 or carrying >= IN_USE  # 0: counts unknown, the label alone decides


def bare_label(text: str, labels: Sequence[str]) -> re.Match[str] | None:
    """A `prefix:value` token whose prefix is one of the project's (`area:cli`; a URL's `https:` is not)."""
    prefixes = {(split_label(label)[0] or "").casefold() for label in labels} - {""}
    for found in _BARE_LABEL_RE.finditer(text):
        if found.group(1).partition(":")[0].casefold() in prefixes:
            return found
    return None


_KIND_RE = lazy(
    r"\b(?P<kind>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
    r"\s*(?:\b(?:issues|ones|tickets|reports)\b|[?.!,;\s]*$)",
    re.IGNORECASE,
)
"""`the streaming ones`, `docs issues`, `open feature requests`: the words that say which kind of issue."""


_RELATIVE_CLAUSE_RE = lazy(r"\s+(?:that|which|who|without|with|not|since|from|by)\s+", re.I)


def meant_label(rest: str, labels: Sequence[str]) -> tuple[str | None, str]:
    """A label the project's words mean (`feature requests`: the label most such issues carry), and the words left."""
    meaning = getattr(labels, "meaning", None)
    lead = QUERY_LEAD_RE.search(rest)
    scope = rest[: lead.start()] if lead else rest
    # `feature requests that have been sitting`, `… without the good first issue label`: the kind is said first
    scope = _RELATIVE_CLAUSE_RE.split(scope, maxsplit=1)[0]
    found = _KIND_RE.search(scope.strip())
    if meaning is None or found is None:
        return None, rest
    words = [word for word in found.group("kind").split() if word.lower() not in SEARCH_FILLER - _KIND_WORDS]
    for size in range(len(words), 0, -1):
        phrase = " ".join(words[-size:])
        # `which bug had …`: a word any text says means no label, however a small project uses it
        said = set(phrase.lower().split()) - ENGLISH_STOP_WORDS
        if any(len(word) > 2 for word in said) and (label := meaning(phrase)):  # never `m` of `I'm`
            # `redis issues` meaning the label with `redis` in its name: the word stays the topic too,
            # as when a label is named by a word only it has.
            named = set(re.findall(r"[a-z0-9]+", label.casefold())) & set(re.findall(r"[a-z0-9]+", phrase.lower()))
            return label, rest if named else re.sub(rf"\b{re.escape(phrase)}\b", " ", rest, count=1)
    return None, rest


def with_kind(chosen: list[str], rest: str, labels: Sequence[str]) -> tuple[list[str], str]:
    """`feature requests about streaming`: the label a kind's words mean, beside the label named."""
    if not chosen:
        return chosen, rest
    meant, rest_after = meant_label(rest, labels)
    if meant is None or meant in chosen:
        return chosen, rest
    return sorted([*chosen, meant], key=lambda name: issues_carrying(labels, name)), rest_after


def more_labels(rest: str, labels: Sequence[str], label: str | None) -> tuple[list[str], str]:
    """Every label the words name (the one found first included), the most specific (on fewest issues) first;
    their words out."""
    found = [label] if label else []
    lead = QUERY_LEAD_RE.search(rest)
    scope = rest[: lead.start()] if lead else rest
    by_a_word = {(hit.start, hit.label) for hit in labels_in_words(scope, labels) if not hit.exact}
    for ref in reversed(label_refs(scope, labels, distinctive=True)):
        rare = (ref.start, ref.label) in by_a_word and not _in_use(labels, ref.label)
        if ref.known and ref.label not in found and not rare:
            found.append(ref.label)
            rest = rest[: ref.start] + " " + rest[ref.end :]
    if len(found) > 1:
        for name in found:
            for word in re.findall(r"[a-z0-9]+", label_value(name).lower()):
                rest = re.sub(rf"\b{re.escape(word)}s?\b", " ", rest, flags=re.IGNORECASE)
    return sorted(found, key=lambda name: issues_carrying(labels, name)), rest


_BEFORE_LABEL_RE = lazy(
    r"(?:(?P<quoted>\"[^\"]+\"|'[^']+'|`[^`]+`)|(?P<words>[\w.-]+(?:\s+[\w.-]+){0,2}))\s+labels?\b", re.I
)
"""`the bgu label`, `with the "dataset reqest" label`: a name before the word label."""


def label_before_word(text: str, labels: Sequence[str]) -> tuple[str | None, str]:
    """`open bugs with the streaming label`: a label the project has, named whole before the word `label`, and the
    words without it (and without the `with the` that led to it)."""
    for match in _BEFORE_LABEL_RE.finditer(text):
        for start, end in _names_in(match, after=False):
            said = strip_quotes(text[start:end]).casefold()
            if said and (label := next((name for name in labels if name.casefold() == said), None)):
                lead = re.search(r"(?:\b(?:with|having|carrying)\s+)?(?:\bthe\s+|\ba\s+)?$", text[:start], re.I)
                cut = lead.start() if lead else start
                return label, text[:cut] + " " + text[match.end() :]
    return None, text


_BEFORE_NOUN_RE = lazy(r"(?P<quoted>(?!))?(?P<words>\b[A-Za-z][\w.-]{4,})(?=\s+(?:issues|tickets|reports)\b)", re.I)
"""`closed enhancment issues`: a word of five letters or more in a label's place, before the issues it qualifies
(a label named right there was read before; a typo of one is read here, where nothing else is near)."""


def typo_labels(chosen: list[str], rest: str, labels: Sequence[str]) -> tuple[list[str], str, list[tuple[str, str]]]:
    """The labels read, each name the project lacks taken for the label it is a typo of; with none read, a name
    in a label's place taken so (`labelled enhancment`); the words left, and each (name said, label taken)."""
    taken: list[tuple[str, str]] = []
    fixed = []
    for name in chosen:
        near = None if name in labels else closest_label(name, labels)
        fixed.append(near or name)
        taken += [(name, near)] if near else []
    if chosen or not labels:
        return fixed, rest, taken
    places = [(match, True) for match in _NAMED_LABEL_RE.finditer(rest)]
    places += [(match, False) for match in _BEFORE_LABEL_RE.finditer(rest)]
    places += [(match, False) for match in _BEFORE_NOUN_RE.finditer(rest)]  # `closed enhancment issues`
    for match, after in places:
        for start, end in _names_in(match, after=after):
            if near := closest_label(rest[start:end], labels):
                cut = (match.start(), end) if after else (start, match.end())  # the label word goes too
                said = strip_quotes(rest[start:end])
                typo = [] if said.casefold() == near.casefold() else [(said, near)]  # named right: no note
                return [near], rest[: cut[0]] + " " + rest[cut[1] :], typo
    return fixed, rest, taken


def _names_in(match: re.Match[str], *, after: bool) -> list[tuple[int, int]]:
    """Where a label's name may be in a label's place: the quoted name, or runs of one to three words from the
    label word on (`labelled enhancment about …`) or up to it (`with the bgu label`), the longest first."""
    if match.group("quoted"):
        return [match.span("quoted")]
    words = [
        (m.start() + match.start("words"), m.end() + match.start("words"))
        for m in re.finditer(r"[\w.-]+", match.group("words"))
    ]
    if after:
        return [(words[0][0], words[last][1]) for last in range(len(words) - 1, -1, -1)]
    return [(words[first][0], words[-1][1]) for first in range(len(words))]


_LABELLED = r"(?:labell?ed|tagged|marked)(?:\s+(?:it|them))?(?:\s+(?:as|with))?\s+"
_NOT_LABEL_RE = lazy(
    r"(?:\b(?:but\s+)?(?:not|without|except(?:\s+for)?|excluding|other\s+than)\s+(?:(?:yet|been)\s+)*"
    rf"(?:the\s+|a\s+|an\s+|any\s+)?(?:{_LABELLED})?"
    r"|(?:n't|\b(?:never|nobody|no\s+one|no-one)(?:\s+(?:has|have|had))?)\s+(?:(?:yet|been|ever)\s+)*"
    rf"{_LABELLED})"
    r"(?:the\s+|a\s+|an\s+|any\s+)?(?P<words>[\w:.-]+(?:\s+[\w:.-]+){0,2})",
    re.IGNORECASE,
)
"""`not labelled streaming`, `without the bug label`, `that aren't tagged as bug`, `nobody labelled as bug`: a label
the issues must not carry; `nobody labelled` alone is a reading of its own (no label at all)."""


def excluded_labels(text: str, labels: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """Labels said as what the issues must not have (`bugs but not enhancement`, `without the bug label`), and the
    words left; a word after `not` that names no label (`not closed`, `without labels`) stays."""
    found: list[str] = []
    for match in reversed(list(_NOT_LABEL_RE.finditer(text))):
        named, end, cut = [], match.start("words"), 0
        while said := _label_at(text, end, labels):  # `not labelled enhancement or bug`: each of a list
            named.append(said[0])
            cut = said[1]
            if not (more := _MORE_LABELS_RE.match(text, cut)):
                break
            end = more.end()
        if named:
            found[:0] = named
            text = text[: match.start()] + " " + text[cut:]
    family, text = _family_left_out(text, labels)
    return tuple(dict.fromkeys([*found, *family])), text


_MORE_LABELS_RE = lazy(r"\s*(?:,\s*(?:(?:or|and|nor)\s+)?|\s+(?:or|and|nor)\s+)(?:the\s+)?", re.I)


def _label_at(text: str, start: int, labels: Sequence[str]) -> tuple[str, int] | None:
    """The label named by one to three words from `start` (the longest that is one; a plural too, and a `label`
    word after it), and where its words end."""
    words = re.match(r"[\w:.-]+(?:\s+[\w:.-]+){0,2}", text[start:])
    if not words:
        return None
    for last in reversed(list(re.finditer(r"[\w:.-]+", words.group(0)))):
        named = words.group(0)[: last.end()]
        if label := resolve_label(named, labels) or resolve_label(re.sub(r"s$", "", named), labels):
            end = start + last.end()
            return label, end + (len(tail.group(0)) if (tail := re.match(r"\s+labels?\b", text[end:], re.I)) else 0)
    return None


_NO_FAMILY_RE = lazy(r"\b(?:no|without(?:\s+(?:a|an|any))?)\s+(?P<family>[a-z][\w-]{2,})(?:\s+labels?)?\b", re.I)


_LEFT_OUT_MAX = 30
"""The most labels a search leaves out (`search_issues`' `without_labels`): a larger group stays words."""


def _family_left_out(text: str, labels: Sequence[str]) -> tuple[list[str], str]:
    """`open bugs with no severity`, `without a component`: every label of the group that prefix names."""
    prefixes = {prefix for label in labels if (prefix := split_label(label)[0])}
    for match in _NO_FAMILY_RE.finditer(text):
        word = match.group("family").casefold()
        named = [p for p in prefixes if word == p.casefold() or (len(p) >= 3 and word.startswith(p.casefold()))]
        family = [label for label in labels if split_label(label)[0] in named] if len(named) == 1 else []
        if 0 < len(family) <= _LEFT_OUT_MAX:
            return family, text[: match.start()] + " " + text[match.end() :]
    return [], text


_STATE_ASIDE_RE = lazy(r"(?:[\s,;]*\b(?:only|just|still|open|closed)\b)*[\s,;]*", re.I)
"""`list bug, only open, about map`: the state said between the label and the topic."""
_ASKING_FILLER_RE = lazy(r"\b(?:open|closed|all|any|the|our|list|show|me|find|get|give|are|there|still)\b|[^\w]", re.I)


def label_named_first(text: str, labels: Sequence[str]) -> bool:
    """`enhancements about arrow`, `open dataset requests mentioning audio`: a label's words said whole as the
    noun naming the issues, first in the request (after words that only ask), then a topic."""
    if not QUERY_LEAD_RE.search(text):
        return False
    hits = [hit for hit in labels_in_words(text, labels) if hit.exact and hit.literal]
    if not hits:
        return False
    first = min(hits, key=lambda hit: hit.start)
    if _ASKING_FILLER_RE.sub("", text[: first.start]):
        return False
    aside = _STATE_ASIDE_RE.match(text, first.end)
    return bool(QUERY_LEAD_RE.match(text, aside.end() if aside else first.end))


_NAME_AFTER_RE = lazy(r"\b(?:labell?ed|tagged|labels?|with)\s+(?:the\s+)?$", re.I)
"""`labelled enhancement`: the label's name, not a noun for one issue."""


_LABEL_WORD_AFTER_RE = lazy(r"\s+labels?\b", re.I)


def one_of_a_label(text: str, labels: Sequence[str]) -> bool:
    """`the oldest open enhancement`: a label's words said whole, in the singular, as the issue asked for."""
    hits = [hit for hit in labels_in_words(text, labels) if hit.exact and hit.literal]
    return any(
        not text[h.start : h.end].lower().endswith("s")
        and not _NAME_AFTER_RE.search(text[: h.start])
        and not _LABEL_WORD_AFTER_RE.match(text, h.end)  # `without the good first issue label`: its name
        for h in hits
    )
