"""What the offline planner knows of the dataset's own words: labels, authors, doc ids, headings, error names.

Learned from the data folder, never listed here: the labels from `orbit.db` (or `issues.jsonl`),
the headings and error names (`### ORB-1101 LeaseExpired`) from `docs/*.md`, and an in-memory
FTS5 index over doc sections, so a symptom ("the heartbeat was lost") finds the section that
describes it. Loaded once per data folder and reloaded when a file changes. Unreadable data
gives an empty vocabulary: the planner then understands less, and says so, but still plans.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from atlas.foundation import statefiles
from atlas.offline.reading import vocabulary_store
from atlas.offline.reading.issue_numbers import ProjectIssues
from atlas.offline.reading.label_usage import ProjectLabels
from atlas.offline.reading.lazy import lazy
from atlas.offline.reading.people import ProjectPeople
from atlas.offline.reading.project_db import reading
from atlas.offline.reading.vocabulary_store import Stamp

_HEADING_RE = lazy(r"^(#{2,6})[ \t]+(.+?)[ \t#]*$")
_FENCE_RE = lazy(r"^\s*(```|~~~)")
_ERROR_HEADING_RE = lazy(r"^(ORB-\d{4})\s+([A-Z]\w+)$")
_WORD_RE = lazy(r"[a-z0-9]+")
SECTION_TEXT_CHARS = 2000
"""Enough of a section for its symptoms to be indexed; the rest is detail."""


@dataclass(frozen=True)
class Section:
    doc_id: str
    heading: str
    level: int


@dataclass
class Vocabulary:
    labels: list[str] = field(default_factory=list)
    docs: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    """Doc id → the title of the page (its `# ` heading)."""
    sections: list[Section] = field(default_factory=list)
    error_names: dict[str, str] = field(default_factory=dict)
    """Error name → code: `LeaseExpired` → `ORB-1101`."""
    index: sqlite3.Connection | None = None
    words: frozenset[str] = frozenset()
    """Every word of the docs and the issue titles: real words, never taken for typos."""
    term_rows: dict[str, tuple[frozenset[int], frozenset[int]]] = field(default_factory=dict)
    """A word's sections (anywhere, in the heading), as `topics` looks them up: kept with the index they come from."""
    people: ProjectPeople = field(default_factory=ProjectPeople)
    """The project's issue authors: `from lhoestq` names one."""
    issues: ProjectIssues = field(default_factory=ProjectIssues)
    """The numbers of the project's issues: a bare number that is none of them may be an error code."""

    glosses: dict[str, str] | None = field(default=None, repr=False, compare=False)
    """The words the docs' label tables give the labels (`label_glosses`), once read."""
    _by_doc: dict[str, list[Section]] = field(default_factory=dict, repr=False, compare=False)
    _repeated: frozenset[tuple[str, str]] = field(default=frozenset(), repr=False, compare=False)
    _grouped: int = field(default=-1, repr=False, compare=False)
    """How many sections `_by_doc` and `_repeated` were made from: the planner asks for one doc's
    headings for every heading it weighs, so they are grouped once, not scanned each time."""

    def headings_of(self, doc_id: str) -> list[Section]:
        self._group()
        return list(self._by_doc.get(doc_id, ()))

    def heading_is_repeated(self, section: Section) -> bool:
        """Whether another heading of the same doc reads the same (it is then named with its parent)."""
        self._group()
        return (section.doc_id, section.heading.casefold()) in self._repeated

    def _group(self) -> None:
        if self._grouped == len(self.sections):
            return
        by_doc: dict[str, list[Section]] = {}
        seen: set[tuple[str, str]] = set()
        repeated: set[tuple[str, str]] = set()
        for section in self.sections:
            by_doc.setdefault(section.doc_id, []).append(section)
            key = (section.doc_id, section.heading.casefold())
            (repeated if key in seen else seen).add(key)
        self._by_doc, self._repeated, self._grouped = by_doc, frozenset(repeated), len(self.sections)

    def best_sections(
        self, words: list[str], doc_id: str | None = None, limit: int = 3, *, every: bool = False
    ) -> list[Section]:
        """Sections whose heading and text best match any of `words` (bm25, headings weighted up);
        `every`: only sections that hold every word."""
        terms = [w for w in dict.fromkeys(w.lower() for w in words) if _WORD_RE.fullmatch(w.lower())]
        if self.index is None or not terms:
            return []
        where, params = ("AND doc_id = ?", [doc_id]) if doc_id else ("", [])
        rows: list[tuple[int]] = []
        # Every word first (the section that holds them all), then any of them.
        for joiner in (" AND ",) if every else (" AND ", " OR ") if len(terms) > 1 else (" OR ",):
            try:
                rows = self.index.execute(
                    f"SELECT rowid FROM sections WHERE sections MATCH ? {where} "
                    "ORDER BY bm25(sections, 0.0, 6.0, 1.0) LIMIT ?",
                    [joiner.join(f'"{term}"' for term in terms), *params, limit],
                ).fetchall()
            except sqlite3.Error:
                return []
            if rows:
                break
        return [self.sections[rowid - 1] for (rowid,) in rows]


_cache: dict[Path, tuple[Stamp, Vocabulary]] = {}
_lock = threading.Lock()


def vocabulary_of(data: Path) -> Vocabulary:
    """The vocabulary of the data folder: learned on first use and when one of its files changes, and
    kept between runs (`vocabulary_store`) for as long as none does."""
    stamp = _stamp(data)
    with _lock:
        cached = _cache.get(data)
        if cached and cached[0] == stamp:
            return cached[1]
        vocabulary = _kept(data, stamp)
        if vocabulary is None:
            vocabulary = _build(data)
            if vocabulary.index is not None:
                vocabulary_store.keep(vocabulary_store.kept_file(data), stamp, _body(vocabulary), vocabulary.index)
        _cache[data] = (stamp, vocabulary)
        return vocabulary


def _source_files(data: Path) -> list[Path]:
    docs = sorted((data / "docs").glob("*.md")) if (data / "docs").is_dir() else []
    return [data / "issues" / "orbit.db", data / "issues" / "issues.jsonl", *docs]


def _stamp(data: Path) -> Stamp:
    """What the vocabulary was learned from (each file's path, size and mtime) and by what (this module)."""
    return [[str(path), *_size_and_mtime(path)] for path in [Path(__file__), *_source_files(data)]]


def _size_and_mtime(path: Path) -> tuple[int, int]:
    try:
        info = path.stat()
    except OSError:
        return -1, -1
    return info.st_size, info.st_mtime_ns


def _kept(data: Path, stamp: Stamp) -> Vocabulary | None:
    """The vocabulary an earlier run learned under the same stamp, when its file holds one that reads."""
    found = vocabulary_store.read_kept(vocabulary_store.kept_file(data), stamp)
    if found is None:
        return None
    body, index = found
    try:
        return _from_body(data, body, index)
    except (KeyError, TypeError, ValueError):
        index.close()
        return None


def _body(vocabulary: Vocabulary) -> dict[str, object]:
    """The vocabulary but its index, as JSON keeps it."""
    labels = vocabulary.labels
    return {
        "labels": list(labels),
        "counts": labels.counts if isinstance(labels, ProjectLabels) and labels.database is not None else None,
        "docs": vocabulary.docs,
        "titles": vocabulary.titles,
        "sections": [[section.doc_id, section.heading, section.level] for section in vocabulary.sections],
        "error_names": vocabulary.error_names,
        "words": sorted(vocabulary.words),
    }


def _from_body(data: Path, body: dict[str, Any], index: sqlite3.Connection) -> Vocabulary:
    """The vocabulary `_body` kept, every part checked: a ValueError (or KeyError, TypeError) for anything else."""
    database = data / "issues" / "orbit.db"
    names = _texts(body["labels"])
    counts = body["counts"]
    labels = names if counts is None else ProjectLabels(names, database, _mapping(counts, _count))
    return Vocabulary(
        labels=labels,
        docs=_texts(body["docs"]),
        titles=_mapping(body["titles"], _text),
        sections=[Section(_text(doc_id), _text(heading), _count(level)) for doc_id, heading, level in body["sections"]],
        error_names=_mapping(body["error_names"], _text),
        index=index,
        words=frozenset(_texts(body["words"])),
        people=ProjectPeople(database),
        issues=ProjectIssues(database),
    )


T = TypeVar("T")


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("the kept vocabulary holds something that is not text")
    return value


def _texts(value: object) -> list[str]:
    if not isinstance(value, list):
        raise ValueError("the kept vocabulary holds something that is not a list")
    return [_text(item) for item in value]


def _mapping(value: object, read: Callable[[object], T]) -> dict[str, T]:
    if not isinstance(value, dict):
        raise ValueError("the kept vocabulary holds something that is not an object")
    return {_text(key): read(item) for key, item in value.items()}


def _count(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("the kept vocabulary holds a count that is not a number")
    return value


def _build(data: Path) -> Vocabulary:
    database = data / "issues" / "orbit.db"
    vocabulary = Vocabulary(labels=_labels(data), people=ProjectPeople(database), issues=ProjectIssues(database))
    texts: list[str] = []
    for path in sorted((data / "docs").glob("*.md")) if (data / "docs").is_dir() else []:
        vocabulary.docs.append(path.stem)  # one that cannot be read is still asked for, and its tool says why
        try:
            text = statefiles.read_text(path, limit=statefiles.DOC_LIMIT, what="a doc", errors="replace")
        except OSError:
            continue
        if title := re.search(r"^#[ \t]+(.+?)[ \t#]*$", text, re.MULTILINE):
            vocabulary.titles[path.stem] = title.group(1).strip()
        for section, body in _sections(path.stem, text):
            vocabulary.sections.append(section)
            texts.append(body)
            if path.stem == "error-codes" and (match := _ERROR_HEADING_RE.match(section.heading)):
                vocabulary.error_names[match.group(2)] = match.group(1)
    vocabulary.index = _index(vocabulary.sections, texts)
    headings = " ".join(section.heading for section in vocabulary.sections)
    words = set(re.findall(_WORD, " ".join([*texts, headings]).lower()))
    vocabulary.words = frozenset(words | _title_words(data))
    return vocabulary


_WORD = r"[a-z]{3,}"
TITLE_SAMPLE = 5_000
"""The newest issues whose title words join the vocabulary. Titles add a project's own words for
typo correction; reading every one would make each question of a 100,000-issue project pay for all."""


def _title_words(data: Path) -> set[str]:
    """The words of the newest titles, read row by row: memory bounded whatever the project's size."""
    words: set[str] = set()
    try:
        with reading(data / "issues" / "orbit.db") as conn:
            rows = conn.execute("SELECT title FROM issues ORDER BY created_at DESC LIMIT ?", (TITLE_SAMPLE,))
            for (title,) in rows:
                words.update(re.findall(_WORD, str(title).lower()))
    except (sqlite3.Error, OSError):
        pass
    return words


def _labels(data: Path) -> list[str]:
    database = data / "issues" / "orbit.db"
    try:
        with reading(database) as conn:
            carrying = "(SELECT count(*) FROM issue_labels il WHERE il.label_id = l.id)"
            rows = conn.execute(f"SELECT name, {carrying} FROM labels l ORDER BY name").fetchall()
        return ProjectLabels([name for name, _ in rows], database, {name: count for name, count in rows})
    except (sqlite3.Error, OSError):
        pass
    labels: set[str] = set()
    try:
        source = statefiles.open_regular(
            data / "issues" / "issues.jsonl", limit=statefiles.ISSUES_FILE_LIMIT, what="an issues file"
        )
        with io.TextIOWrapper(source, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                try:
                    issue = json.loads(line)
                except (ValueError, RecursionError):  # a broken or absurdly nested line is skipped
                    continue
                if isinstance(issue, dict) and isinstance(issue.get("labels"), list):
                    labels.update(str(label) for label in issue["labels"])
    except (OSError, UnicodeError):
        return []
    return sorted(labels)


def _sections(doc_id: str, text: str) -> list[tuple[Section, str]]:
    """Each heading below the title with the text up to the next heading."""
    found: list[tuple[Section, list[str]]] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE_RE.match(line):
            fenced = not fenced
        match = None if fenced else _HEADING_RE.match(line)
        if match:
            found.append((Section(doc_id, match.group(2).strip(), len(match.group(1))), []))
        elif found:
            found[-1][1].append(line)
    # A section's text runs to the next heading of its level or higher, as get_doc_section returns it.
    texts = []
    for index, (section, _) in enumerate(found):
        lines_in: list[str] = []
        for other, lines in found[index:]:
            if other is not section and other.level <= section.level:
                break
            lines_in += [other.heading, *lines] if other is not section else lines
        texts.append("\n".join(lines_in)[:SECTION_TEXT_CHARS])
    return [(section, text) for (section, _), text in zip(found, texts, strict=True)]


def _index(sections: list[Section], texts: list[str]) -> sqlite3.Connection | None:
    try:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.execute("CREATE VIRTUAL TABLE sections USING fts5(doc_id UNINDEXED, heading, body, tokenize='porter')")
        conn.executemany(
            "INSERT INTO sections (rowid, doc_id, heading, body) VALUES (?, ?, ?, ?)",
            [
                (n, s.doc_id, _spaced(s.heading), body)
                for n, (s, body) in enumerate(zip(sections, texts, strict=True), 1)
            ],
        )
        conn.commit()  # no write left open: a copy of it (`vocabulary_store.keep`) would wait on it
        return conn
    except sqlite3.Error:  # an SQLite without FTS5: symptoms are then not looked up
        return None


def _spaced(heading: str) -> str:
    """`ORB-1501 WorkerHeartbeatLost` indexed also as `worker heartbeat lost`."""
    return heading + " " + re.sub(r"(?<=[a-z])(?=[A-Z])", " ", heading)
