"""The offline planner's steps run in order: a message read request by request into one plan.

1. reading: `reading.frames` splits the message into requests, quoted text whole, pasted output set apart;
   `reading.entities` finds each request's issues and labels (a request naming none takes the issues of
   the one before: `read #16 and then add comp:worker`);
2. acts: `acts.table` gives each request one typed intent, from the first recogniser of its ordered table that
   knows it: a conditional action, a comment, a label change, the inbox, a triage read, a doc ask, the newest
   issue, a count, a symptom, a search — or a lookup (read, compare, doc or error code named);
3. lookups: `lookups.reader` plans the reads of all lookup requests at once; it plans no action;
4. the plan is composed: reads in round one, what depends on them (`acts.later`) in round two; the answer
   (`answer/`) is written from their results.
Plans come from the user's words; round two looks only at what round one read, as the user asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from atlas.foundation.config import data_dir
from atlas.offline.acts.act import Act, Intent
from atlas.offline.acts.backlog import URGENT_RE
from atlas.offline.acts.comments import COMMENT_RE
from atlas.offline.acts.symptoms import symptom_reads
from atlas.offline.acts.table import act_of
from atlas.offline.acts.topic_asks import on_the_one_found
from atlas.offline.acts.unsupported import without_synthesis
from atlas.offline.answer.nearest import nearest_requests
from atlas.offline.lookups.reader import EXPLAIN_RE, read_lookups
from atlas.offline.plan import Plan, PlannedCall, codes_in, project_examples
from atlas.offline.reading.authors_and_days import people_meant
from atlas.offline.reading.data_days import from_the_data_end, years_not_issues
from atlas.offline.reading.embedded import as_questions
from atlas.offline.reading.entities import issue_refs, spelled_counts
from atlas.offline.reading.frames import Message, Request, split_message
from atlas.offline.reading.issue_refs import MAX_ISSUES, issue_ids_in
from atlas.offline.reading.label_glosses import glossed, label_glosses
from atlas.offline.reading.label_or_word import label_or_word
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.newcomers import newcomers_meant
from atlas.offline.reading.partitive import said_first
from atlas.offline.reading.places import place_meant
from atlas.offline.reading.search import Search
from atlas.offline.reading.self_named import (
    INTRODUCTION_RE,
    UNKNOWN_SELF,
    asks_for_own,
    introduced,
    mine_named,
    self_login,
    without_introduction,
)
from atlas.offline.reading.times_against import times_set_against
from atlas.offline.reading.times_meant import times_meant
from atlas.offline.reading.vocabulary import Vocabulary, vocabulary_of
from atlas.offline.reading.words import corrected, plain, spelled_out, without_preamble

MAX_PASTED_CODES = 2


def read_question(
    question: str,
    vocabulary: Vocabulary | None = None,
    available: Iterable[str] = (),
    *,
    suggest: bool = True,
    earlier: Sequence[int] = (),
    previous: Sequence[str] = (),
) -> Plan:
    """Everything the message asks for; `available`: the tools of the registry (triage reads need theirs);
    `suggest`: when nothing was understood, find the nearest requests that are; `earlier`: the issues the
    conversation's earlier messages named last (`and the similar ones?`); `previous`: the user's messages before
    this one, whose search a follow-up narrows or sorts (`and the oldest one?`)."""
    vocabulary = vocabulary if vocabulary is not None else vocabulary_of(data_dir())
    message = _read_message(question)
    tools = frozenset(available)
    me = self_login([*previous, question], vocabulary.people)
    searched = _last_search(previous, vocabulary, tools, me)
    acts = _acts_of(message, vocabulary, tools, earlier, searched, me)
    lookups = [act.text for act in acts if act.intent is Intent.LOOKUP]
    plan = (
        read_lookups(", ".join(lookups), vocabulary)
        if lookups
        else Plan(question, examples=project_examples(vocabulary))
    )
    plan.question = question
    if plan.issue_ids:  # the lookups read issues: also those only the frame parser sees (`31 thru 33`, `from 95`)
        plan.issue_ids += [
            n for act in acts if act.intent is Intent.LOOKUP for n in issue_refs(act.text) if n not in plan.issue_ids
        ]
    for act in acts:
        _merge(plan, act)
    if plan.issue_ids and not plan.explain and not plan.compare:
        plan.explain = bool(EXPLAIN_RE.search(" ".join(lookups)))  # `show 75 and explain the error in it`
    if message.pasted:
        named = [*codes_in(message.pasted), *_codes_named(message.pasted, vocabulary)]
        pasted = [code for code in dict.fromkeys(named) if code not in plan.codes]
        plan.codes += pasted[:MAX_PASTED_CODES]
    symptom = next((act for act in acts if act.intent is Intent.SYMPTOM), None)
    if symptom is not None or (not plan.first_calls() and not plan.notes and not plan.later):
        said = " ".join(act.text for act in acts)
        asking = symptom.text if symptom is not None else ""
        reads = symptom_reads(said, message.pasted, vocabulary, asked=symptom is not None, asking=asking)
        plan.reads += [call for call in reads if call not in plan.reads]
    plan.issue_ids = plan.issue_ids[:MAX_ISSUES]
    if suggest and not plan.understood:

        def understood(text: str) -> bool:
            tried = read_question(text, vocabulary, tools, suggest=False)
            return bool(tried.first_calls() or tried.later)

        plan.suggestions = nearest_requests(question, vocabulary, understood)
    return plan


def _read_message(text: str) -> Message:
    """The message split into its requests, questions asked inside a request put as questions first."""
    return split_message(said_first(as_questions(plain(text))))


def _acts_of(
    message: Message,
    vocabulary: Vocabulary,
    tools: frozenset[str],
    earlier: Sequence[int],
    before: Act | None,
    me: str | None = None,
) -> list[Act]:
    """Each request's act, in order; `before`: the act a first request follows (the search of the message before);
    `me`: the login the person asking said is theirs."""
    acts: list[Act] = []
    context: list[int] = []
    for request in message.requests:
        words = known_codes(without_preamble(request.text), vocabulary)
        request.text = years_not_issues(from_the_data_end(words, vocabulary.issues), vocabulary.issues)
        prior = acts[-1] if acts else before
        text = spelled_counts(one_list(corrected(spelled_out(request.text), vocabulary.words)))  # `the five oldest`
        searched = prior.search if prior is not None else None
        text = people_meant(text, searched.author if searched is not None else None)
        if searched is not None:  # `…, and how many did albertvillanova open that year?`: the year said before
            text = times_meant(text, searched.created_since, searched.created_before)
        text = place_meant(text, prior.text if prior is not None else None, vocabulary.labels)
        text = glossed(text, label_glosses(vocabulary))  # `the open major bugs`: the label the docs call major
        text = newcomers_meant(text, vocabulary.labels)  # `a first contribution`: the project's good first issues
        if INTRODUCTION_RE.match(text) and (login := self_login([text], vocabulary.people)):  # `I'm lhoestq.`
            acts.append(Act(Intent.NOTHING, request.text, notes=[introduced(login)]))
            continue
        text, cannot = without_synthesis(text)
        if cannot and not re.search(r"\w", text):
            acts.append(Act(Intent.NOTHING, request.text, notes=[cannot]))
            continue
        act = act_of(request, text, context, vocabulary, tools, prior, earlier)
        act.notes += [cannot] if cannot else []
        if prior is not None and prior is not before and (joint := _text_joint(prior, act, request, text, vocabulary)):
            request = Request(f"{prior.text.rstrip(' ?.!')}{joint}{request.text}", request.quoted)
            text = request.text
            acts.pop()
            act = act_of(request, text, context, vocabulary, tools, acts[-1] if acts else before, earlier)
        if act.intent in _ASKED_PER_TIME and (times := times_set_against(text)):  # `in march 2024 vs march 2023`
            acts += [act_of(request, said, context, vocabulary, tools, prior, earlier) for said in times]
            continue
        if act.intent in _ASKED_PER_TIME and (either := label_or_word(text, vocabulary.labels)):  # `speech or audio`
            acts += [act_of(request, said, context, vocabulary, tools, prior, earlier) for said in either]
            continue
        if asks_for_own(text) and _reads_issues_of_someone(act):  # `my open issues`: whose, the person said before
            own = mine_named(without_introduction(text), me) if me else None
            act = act_of(request, own, context, vocabulary, tools, prior, earlier) if own else _unknown_self(request)
        if act.search == Search() and act.intent is Intent.SEARCH and prior is not None and _describes(prior):
            act = Act(Intent.SYMPTOM, act.text)  # `Jobs stay busy after a node dies. Find the issue(s)`: that one
        act = on_the_one_found(acts, act)  # an issue named by its topic is acted on once it is found
        if acts and (
            act.explains_before or act.narrows_before or _said_precisely(acts[-1], act) or _refines(acts[-1], act)
        ):
            acts[-1] = Act(Intent.NOTHING, acts[-1].text)
        acts.append(act)
        named = _referents(text)
        if named or act.targets or act.issue_ids:
            context[:] = named or act.targets or act.issue_ids
    return acts


def _text_joint(prior: Act, act: Act, request: Request, text: str, vocabulary: Vocabulary) -> str | None:
    """How this request is joined to a comment before it that lacks its text, when this request is that text: as
    said after a colon (`Can you reply to alexgrant on #90? We'd love to see their notes.`) or in a verb of its own
    (`comment on #7375 and ask the reporter to translate it`); None when it is a request of its own."""
    if not prior.wants_text:
        return None
    if _asks_nothing(act, request, vocabulary):
        return ": "
    return " and " if COMMENT_RE.match(text) and not issue_refs(text) else None


def _asks_nothing(act: Act, request: Request, vocabulary: Vocabulary) -> bool:
    """Whether a sentence is prose that asks for nothing: no issue, doc or code to read, no act, no note."""
    if request.quoted:
        return False  # a text of its own: `add comp:docs` (the name after a colon is kept as said)
    if act.intent is Intent.NOTHING:
        return not act.notes  # `thanks for the report, fixed in 2.8.4`
    return act.intent is Intent.LOOKUP and not read_lookups(request.text, vocabulary).first_calls()


_ASKED_PER_TIME = frozenset({Intent.SEARCH, Intent.COUNT})
"""Reads a request asks once for each of two times set against each other (a tally splits by year itself)."""
_READS_FOR_SOMEONE = frozenset(
    {Intent.SEARCH, Intent.COUNT, Intent.ORDERED, Intent.TALLY, Intent.LOOKUP, Intent.SYMPTOM}
)


def _describes(act: Act) -> bool:
    """Whether a request only described something, reading no issue: what a search with no words of its own after
    it looks for."""
    return act.intent in {Intent.LOOKUP, Intent.SYMPTOM} and not act.issue_ids and not act.targets


def _reads_issues_of_someone(act: Act) -> bool:
    """Whether the act reads issues by who opened them: a search or a count, no issue named, nothing written."""
    return act.intent in _READS_FOR_SOMEONE and not act.issue_ids and not act.targets and not issue_refs(act.text)


def _unknown_self(request: Request) -> Act:
    return Act(Intent.NOTHING, request.text, notes=[UNKNOWN_SELF])


def _said_precisely(vague: Act, then: Act) -> bool:
    """`What's on fire? Give me the open S1 and S2 issues.`: what is urgent asked in a word, then the issues
    meant, said exactly; the search answers the question."""
    urgent = vague.intent is Intent.INBOX and bool(URGENT_RE.search(vague.text))
    return urgent and all(not call.arguments for call in vague.reads) and then.intent is Intent.SEARCH


def _refines(before: Act, then: Act) -> bool:
    """`who opened the most issues? top 10 authors please`: a tally asked again, only how many groups or their order
    said; the second asks it."""
    if before.intent is not Intent.TALLY or then.intent is not Intent.TALLY or len(before.reads) != 1:
        return False
    if len(then.reads) != 1 or before.reads[0].name != then.reads[0].name:
        return False
    said, again = before.reads[0].arguments, then.reads[0].arguments
    added = {key for key in again if key not in said}
    return bool(added) and added <= _HOW_SHOWN and all(again.get(key) == value for key, value in said.items())


_HOW_SHOWN = frozenset({"limit", "busiest_first", "fewest_first"})
"""What a tally asked again may add and still ask the same (a filter added asks for other issues: both are shown)."""


def _last_search(
    previous: Sequence[str], vocabulary: Vocabulary, tools: frozenset[str], me: str | None = None
) -> Act | None:
    """The search, tally or inbox the user's messages before left standing (`open speech issues`, then `and the
    oldest one?`): each of them read in turn, a follow-up on the search before it; None when the last one did
    not search."""
    before: Act | None = None
    for message in previous[-FOLLOW_UPS:]:
        read = _read_message(message)
        acts = _acts_of(read, vocabulary, tools, (), before, me)
        if acts and acts[-1].intent is Intent.SYMPTOM:  # `is there an issue about X?`, then `only the open ones`
            acts[-1] = _symptom_searched(acts[-1], read.pasted, vocabulary)
        followed = acts and (acts[-1].search is not None or acts[-1].intent in {Intent.TALLY, Intent.INBOX})
        before = acts[-1] if followed else None
    return before


def _symptom_searched(symptom: Act, pasted: str, vocabulary: Vocabulary) -> Act:
    """A symptom asked about, as the search it made (its words), for a follow-up to narrow; as it is without one."""
    reads = symptom_reads(symptom.text, pasted, vocabulary, asked=True, asking=symptom.text)
    query = next((str(call.arguments["query"]) for call in reads if call.name == "search_issues"), None)
    return Act(Intent.SEARCH, symptom.text, search=Search(query=query)) if query else symptom


FOLLOW_UPS = 6
"""How many of the user's earlier messages a search is followed through."""


def one_list(text: str) -> str:
    """`tag 41, 48, 109 as worker`: issue numbers listed with commas are one list, as `41 48 109` is."""
    return _LISTED_RE.sub(r"\1 ", text)


_LISTED_RE = lazy(r"(?<![\w.:/-])(#?\d{1,5})\s*,\s*(?=#?\d{1,5}(?![\w.:/%-]|\.\d))")


def _referents(text: str) -> list[int]:
    """The issues a later `it` may mean: one marked as an issue (`#58`) outweighs bare numbers beside it
    (`reproduced #58 with concurrency 2`), which may be counts."""
    named = issue_refs(text)
    marked = [n for n in issue_ids_in(text) if n in named]
    return marked if len(named) > 1 and len(marked) == 1 else named


def _codes_named(pasted: str, vocabulary: Vocabulary) -> list[str]:
    """The codes of the docs' error names in pasted output (`… WorkerOOMKilled job=…`), in order: a log whose
    shipper dropped the code still names the error."""
    found = [
        (said.start(), code)
        for name, code in vocabulary.error_names.items()
        if (said := re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", pasted))
    ]
    return [code for _, code in sorted(found)]


def known_codes(text: str, vocabulary: Vocabulary) -> str:
    """`1305 again`: a bare number that is one of the docs' error codes (and not `#1305`) is that code; said first
    with a colon (`1104: …`), only when the project has no issue of that number."""
    codes = {code.rpartition("-")[2]: code for code in vocabulary.error_names.values()}

    def code(match: re.Match[str]) -> str:
        number = match.group(1) or match.group(2)
        if match.group(2) and (number not in codes or vocabulary.issues.has(int(number)) is not False):
            return match.group(0)
        return codes.get(number, match.group(0))

    return _BARE_CODE_RE.sub(code, text) if codes else text


_BARE_CODE_RE = lazy(r"(?<![#\w.:/-])(?<!issue )(?<!ticket )(?:(\d{4})(?![\w.:/-])|^\s*(\d{4})(?=:\s))", re.IGNORECASE)


def _merge(plan: Plan, act: Act) -> None:
    """An act's part of the plan: the issues it reads first, its calls, its later steps and notes."""
    for issue_id in act.issue_ids:
        if issue_id not in plan.issue_ids:
            plan.issue_ids.append(issue_id)
    plan.labels += [pair for pair in act.labels if pair not in plan.labels]
    plan.removals += [pair for pair in act.removals if pair not in plan.removals]
    plan.comments += [pair for pair in act.comments if pair not in plan.comments]
    plan.reads += [call for call in act.reads if call not in plan.reads]
    plan.later += act.later
    plan.codes += [code for code in act.codes if code not in plan.codes]
    plan.notes += [note for note in act.notes if note not in plan.notes]
    for search in alternatives(act.search) if act.search is not None else []:
        if plan.search is None:
            plan.search = search
        elif search != plan.search and (call := PlannedCall("search_issues", search.arguments())) not in plan.reads:
            plan.reads.append(call)


def alternatives(search: Search) -> list[Search]:
    """`the open S1 and S2 issues`: an issue has one label of a family, so two of one family are two searches;
    `by albertvillanova or lhoestq`: an issue has one author, so two authors are two searches."""
    if search.more_authors:
        authors = [search.author, *search.more_authors]
        return [one for author in authors for one in alternatives(replace(search, author=author, more_authors=()))]
    names = [name for name in [search.label, *search.labels] if name]
    families: dict[str, list[str]] = {}
    for name in names:
        families.setdefault(name.partition(":")[0].lower(), []).append(name)
    split = next((members for members in families.values() if len(members) > 1), None)
    if split is None:
        return [search]
    rest = [name for name in names if name not in split]
    return [replace(search, label=name, labels=tuple(rest)) for name in split]
