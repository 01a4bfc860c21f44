"""Doc sections and error codes named in words, found through the docs' own headings and text.

`the heartbeat was lost` → `ORB-1501` (the error's name, `WorkerHeartbeatLost`, in words);
`what error do you get when the broker password is wrong` → the error-codes section whose text
best matches (FTS5, bm25); `pgbouncer section of the brokers doc` → the heading `PgBouncer`;
`what do the docs say about lease renewal` → the best section of any doc.
"""

from __future__ import annotations

import re

from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.vocabulary import Section, Vocabulary

_CAMEL_SPLIT_RE = lazy(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_CODE_HEADING_RE = lazy(r"^(ORB-\d{4})\b")
STOPWORDS = frozenset(
    re.findall(
        r"\S+",
        """
        a an the of in on at to for from by with about and or but is are was were be been it its this that
        these those what whats what's which who how why when where do does did say says said tell me my our we
        you your i please pls can could would should show read get give find check look see there any anything
        something doc docs documentation page guide section sections part chapter manual reference md error
        errors code codes mean means meaning explain is that thing issue issues ticket tickets
        again also just keep keeps getting
        documented document documents explains explained describe describes described cover covers covered
        anywhere mention mentions mentioned talk talks link them they us make makes
        """,
    )
)
NAME_SHARE = 0.66
"""The share of an error name's words a question must hold to be taken for that error."""
HEADING_SCORE = 86
"""rapidfuzz token-set score above which the question's words name a heading."""


def content_words(text: str) -> list[str]:
    # A sentence's full stop is not part of its last word: `systemd.` is `systemd`, `orbit.toml` stays whole.
    words = (w.rstrip("._-") for w in re.findall(r"[a-z0-9][a-z0-9._-]*", text.lower()))
    return [w for w in words if w not in STOPWORDS and len(w) > 1]


def _name_words(name: str) -> list[str]:
    return [part.lower() for part in _CAMEL_SPLIT_RE.split(name) if part]


def _holds(word: str, words: list[str], squashed: str) -> bool:
    if word in words or any(w.startswith(word[:5]) and len(word) >= 5 for w in words):
        return True
    from rapidfuzz import fuzz  # loaded by the first question that names an error in words

    return len(word) >= 5 and fuzz.partial_ratio(word, squashed) >= 86


def codes_named(text: str, vocabulary: Vocabulary) -> list[str]:
    """Error codes whose names the question spells out in words (`lease stolen`, `OOM killed`)."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    squashed = "".join(words)
    found: list[tuple[float, int, str]] = []
    for name, code in vocabulary.error_names.items():
        parts = _name_words(name)
        held = [part for part in parts if _holds(part, words, squashed)]
        share = len(held) / len(parts)
        if len(held) >= 2 and share >= NAME_SHARE:
            found.append((-share, squashed.find(held[0]), code))
    return [code for _, _, code in sorted(found)][:2]


def code_by_symptom(text: str, vocabulary: Vocabulary) -> str | None:
    """The error code whose section in the error-codes doc best matches the question's words."""
    for section in vocabulary.best_sections(content_words(text), "error-codes"):
        match = _CODE_HEADING_RE.match(section.heading)
        if match:
            return match.group(1)
    return None


def _parent(section: Section, vocabulary: Vocabulary) -> str:
    sections = vocabulary.headings_of(section.doc_id)
    # By identity: a repeated heading is equal to its namesakes under other parents (`Action required`).
    before = sections[: next(place for place, other in enumerate(sections) if other is section)]
    return next((s.heading for s in reversed(before) if s.level < section.level), "")


def heading_name(section: Section, vocabulary: Vocabulary) -> str:
    """The heading as get_doc_section finds it: led by its parent when its text alone is ambiguous."""
    if vocabulary.heading_is_repeated(section):
        return f"{_parent(section, vocabulary)} > {section.heading}"
    return section.heading


def heading_in(
    words: list[str], doc_id: str | None, vocabulary: Vocabulary, *, score: int = HEADING_SCORE
) -> str | None:
    """The heading (of `doc_id`, or of any doc) that the words name, by rapidfuzz token-set score."""
    section = section_named(words, doc_id, vocabulary, score=score)
    return heading_name(section, vocabulary) if section else None


def section_named(
    words: list[str], doc_id: str | None, vocabulary: Vocabulary, *, score: int = HEADING_SCORE, whole: bool = False
) -> Section | None:
    """The section whose heading the words name, by rapidfuzz token-set score (ties: the closest text).

    `whole`: the words must be the heading's, near enough all of them (token-sort score), as when a
    heading is named with no doc around it; with a doc named, the heading's words need only be among them.
    """
    if not words or (whole and len(words) < 2):
        return None
    from rapidfuzz import fuzz  # loaded by the first question that may name a heading

    wanted = " ".join(words)
    best: tuple[float, float, Section] | None = None
    sections = vocabulary.headings_of(doc_id) if doc_id else vocabulary.sections
    for section in sections:
        if _CODE_HEADING_RE.match(section.heading):
            continue  # codes are looked up by code
        key = section.heading.lower()
        if vocabulary.heading_is_repeated(section):
            key = f"{_parent(section, vocabulary)} {section.heading}".lower()
        total = (fuzz.token_sort_ratio if whole else fuzz.token_set_ratio)(wanted, key)
        tie = fuzz.ratio(wanted, section.heading.lower())
        if total >= score and (best is None or (total, tie) > best[:2]):
            best = (total, tie, section)
    return best[2] if best else None


def section_about(words: list[str], vocabulary: Vocabulary, doc_id: str | None = None) -> Section | None:
    """The best section for a topic (FTS5 over headings and text), when one matches at all."""
    found = vocabulary.best_sections(words, doc_id, limit=1)
    return found[0] if found else None


def under_the_parent_said(sections: list[Section], text: str, vocabulary: Vocabulary) -> list[Section]:
    """Of a heading repeated under several parents (`Action required` under each release), the one under the parent
    the words name best (`the 2.7 → 2.8 upgrade notes`); all of them when none is named more than the others."""
    said = set(re.findall(r"[\w.]+", text.casefold()))

    def named(section: Section) -> int:
        return len(said & set(re.findall(r"[\w.]+", heading_name(section, vocabulary).casefold())))

    ranked = sorted(sections, key=named, reverse=True)
    return ranked[:1] if len(ranked) > 1 and named(ranked[0]) > named(ranked[1]) else sections


def as_said(section: Section, text: str, vocabulary: Vocabulary) -> Section:
    """The section found, or, where its heading is repeated under several parents (`Action required` under each
    release), the one of them under the parent the words name (`the action required for 2.7 to 2.8`)."""
    if not vocabulary.heading_is_repeated(section):
        return section
    alike = [
        other
        for other in vocabulary.headings_of(section.doc_id)
        if other.heading.casefold() == section.heading.casefold()
    ]
    chosen = under_the_parent_said(alike, text, vocabulary)
    return chosen[0] if len(chosen) == 1 else section
