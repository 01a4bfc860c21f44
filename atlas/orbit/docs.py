"""The doc read tools: the project's docs (`docs/*.md`), listed and read section by section.

Doc ids come from an allowlist (the files' stems), so no path trick opens anything else; docs
are cached until their file changes; bytes that are not UTF-8 are replaced and named in a note.
What these tools return was written by outsiders, so `get_doc_section` names its source.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Annotated, Any, NamedTuple

from atlas.foundation import statefiles
from atlas.foundation.config import dataset_name
from atlas.foundation.errors import SOURCE_BROKEN_HINT, PermanentToolError
from atlas.orbit.issues import READ_TIMEOUT_S, cut
from atlas.tools.arguments import Arg
from atlas.tools.registry import ToolContext, tool

SECTION_LIMIT = 3000
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


class Heading(NamedTuple):
    level: int
    text: str
    line: int


class Doc(NamedTuple):
    id: str
    title: str
    lines: list[str]
    headings: list[Heading]
    undecodable: int = 0
    """Byte sequences that were not UTF-8, each shown as U+FFFD."""

    def note(self) -> str | None:
        """What the reader must be told about text that could not be decoded, if any."""
        if not self.undecodable:
            return None
        return (
            f"{self.id}.md is not valid UTF-8: {self.undecodable} byte sequence(s) could not be decoded "
            "and are shown as \ufffd."
        )

    def subheadings(self) -> list[str]:
        """Headings below the title, each led by its parents when its text alone is ambiguous."""
        return [heading_path(self, h) for h in self.headings if h.level > 1]


_docs: dict[Path, tuple[tuple[int, int], Doc]] = {}
_docs_lock = threading.Lock()


def parse_doc(doc_id: str, text: str, undecodable: int = 0) -> Doc:
    """Headings outside fenced code blocks (a `# comment` in a shell snippet is not a heading)."""
    lines = text.splitlines()
    headings: list[Heading] = []
    fenced = False
    for number, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            headings.append(Heading(len(match[1]), match[2].strip(), number))
    title = next((h.text for h in headings if h.level == 1), doc_id)
    return Doc(doc_id, title, lines, headings, undecodable)


def docs_dir(data: Path) -> Path:
    folder = data / "docs"
    if not folder.is_dir():
        raise PermanentToolError(
            f"there is no docs folder at {folder}; the docs of {dataset_name(data)} cannot be read",
            hint=SOURCE_BROKEN_HINT,
        )
    return folder


def doc_paths(data: Path) -> dict[str, Path]:
    """The allowlist: doc id (a file's stem) to its path. Nothing outside it is ever opened."""
    # Anything but a folder is listed: a FIFO or a device there is named when read, not hidden.
    return {path.stem: path for path in sorted(docs_dir(data).glob("*.md")) if not path.is_dir()}


def load_doc(doc_id: str, path: Path) -> Doc:
    """A parsed doc, re-read only when the file changed; bad bytes are replaced, never fatal."""
    try:
        stat = path.stat()
        key = (stat.st_mtime_ns, stat.st_size)
        with _docs_lock:
            cached = _docs.get(path)
        if cached and cached[0] == key:
            return cached[1]
        raw = statefiles.read_limited(path, limit=statefiles.DOC_LIMIT, what="a doc")
        text = raw.decode("utf-8", errors="replace")
        doc = parse_doc(doc_id, text, text.count("\ufffd") - raw.decode("utf-8", errors="ignore").count("\ufffd"))
    except OSError as exc:
        raise PermanentToolError(
            f"doc {doc_id!r} cannot be read: {exc.strerror or exc}", hint=SOURCE_BROKEN_HINT
        ) from None
    with _docs_lock:
        _docs[path] = (key, doc)
    return doc


def resolve_doc_id(requested: str, ids: list[str]) -> str:
    """The doc id meant (`error-codes.md` and case forgiven), or an error naming close matches."""
    wanted = requested.strip()
    if wanted.lower().endswith(".md"):
        wanted = wanted[:-3]
    by_folded = {doc_id.casefold(): doc_id for doc_id in ids}
    if wanted.casefold() in by_folded:
        return by_folded[wanted.casefold()]
    import difflib  # only for a doc that is not there

    close = difflib.get_close_matches(wanted.casefold(), list(by_folded), n=3, cutoff=0.5)
    maybe = f" Did you mean {', '.join(by_folded[c] for c in close)}?" if close else ""
    raise PermanentToolError(f"There is no doc {requested!r}.{maybe} Doc ids: {', '.join(ids)}.")


class NoArgs(NamedTuple):
    """No arguments."""


DOC_TTL_S = 300.0
"""Docs are files no tool of Atlas writes: five minutes within a conversation."""


def doc_tags(args: Any) -> set[str]:
    return {"docs"}


@tool(NoArgs, timeout_s=READ_TIMEOUT_S, cache_ttl_s=DOC_TTL_S, cache_tags=doc_tags)
def list_docs(args: NoArgs, ctx: ToolContext) -> dict[str, Any]:
    """List the docs of {project}: each doc id with its title and section headings."""
    docs = [load_doc(doc_id, path) for doc_id, path in doc_paths(ctx.data).items()]
    return {"docs": [{"id": doc.id, "title": doc.title, "headings": doc.subheadings()} for doc in docs]}


class DocSectionArgs(NamedTuple):
    doc_id: Annotated[str, Arg(max_length=200, description="A doc id from list_docs, e.g. error-codes.")]
    heading: Annotated[
        str | None,
        Arg(
            max_length=200,
            description="A heading or its start, e.g. ORB-1101 or Retries; 'Postgres > How it works' for a heading that"
            " appears under several parents; null for the page's intro and headings.",
        ),
    ] = None


def _doc_sources(args: DocSectionArgs, data: Any) -> list[str]:
    doc_id = data.get("doc_id") if isinstance(data, dict) else None
    return [f"doc {doc_id or args.doc_id}"]


def _fold(heading: str) -> str:
    return " ".join(heading.lstrip("#").split()).casefold()


PARENT_SEPARATOR = " > "


def parents_of(doc: Doc, heading: Heading) -> list[Heading]:
    """The headings `heading` sits under, outermost first."""
    chain: list[Heading] = []
    level = heading.level
    for other in reversed([h for h in doc.headings if h.line < heading.line]):
        if other.level < level:
            chain.append(other)
            level = other.level
    return chain[::-1]


def heading_path(doc: Doc, heading: Heading) -> str:
    """The heading's text, led by its parents (below the page title) when the text alone is ambiguous."""
    if sum(_fold(h.text) == _fold(heading.text) for h in doc.headings) < 2:
        return heading.text
    return PARENT_SEPARATOR.join([*(h.text for h in parents_of(doc, heading) if h.level > 1), heading.text])


def find_headings(doc: Doc, wanted: str) -> list[Heading]:
    """Headings matching `wanted`, case-insensitively: exact matches, else prefixes, else substrings.

    `Postgres > How it works` asks for a `How it works` under a heading that holds `Postgres`.
    """
    *parents, last = wanted.split(PARENT_SEPARATOR.strip())
    found = _matching(doc, _fold(last), [_fold(parent) for parent in parents if _fold(parent)])
    if not found and parents:  # a heading may hold ">" itself
        found = _matching(doc, _fold(wanted), [])
    return found


def _matching(doc: Doc, target: str, parents: list[str]) -> list[Heading]:
    if not target:
        return []

    def under_parents(heading: Heading) -> bool:
        names = [_fold(h.text) for h in parents_of(doc, heading)]
        return all(any(parent in name for name in names) for parent in parents)

    for matches in (str.__eq__, str.startswith, str.__contains__):
        found = [h for h in doc.headings if matches(_fold(h.text), target) and under_parents(h)]
        if found:
            return found
    return []


def section_text(doc: Doc, heading: Heading) -> str:
    """From the heading to the next heading of the same or a higher level."""
    end = next((h.line for h in doc.headings if h.line > heading.line and h.level <= heading.level), len(doc.lines))
    return "\n".join(doc.lines[heading.line : end]).strip()


@tool(DocSectionArgs, timeout_s=READ_TIMEOUT_S, untrusted=_doc_sources, cache_ttl_s=DOC_TTL_S, cache_tags=doc_tags)
def get_doc_section(args: DocSectionArgs, ctx: ToolContext) -> dict[str, Any]:
    """Read one section of a doc of {project} by heading (e.g. doc error-codes, heading ORB-1101).

    With heading null: the page's introduction and its headings."""
    paths = doc_paths(ctx.data)
    doc_id = resolve_doc_id(args.doc_id, list(paths))
    doc = load_doc(doc_id, paths[doc_id])
    if args.heading is None or not args.heading.strip():
        first = next((h.line for h in doc.headings if h.level > 1), len(doc.lines))
        intro = "\n".join(doc.lines[:first]).strip()
        intro_result = {"doc_id": doc_id, "title": doc.title, "intro": cut(intro, SECTION_LIMIT)}
        return _noted(doc, {**intro_result, "headings": doc.subheadings()})
    found = find_headings(doc, args.heading)
    if not found:
        import difflib  # only for a heading that is not there

        names = doc.subheadings()
        close = difflib.get_close_matches(_fold(args.heading), [_fold(n) for n in names], n=3, cutoff=0.4)
        some = [n for n in names if _fold(n) in close] + [n for n in names if _fold(n) not in close]
        raise PermanentToolError(
            f"Doc {doc_id!r} has no heading {args.heading!r}. Headings include: {'; '.join(some[:12])}."
        )
    result: dict[str, Any] = {
        "doc_id": doc_id,
        "title": doc.title,
        "heading": found[0].text,
        "text": cut(section_text(doc, found[0]), SECTION_LIMIT),
    }
    path = heading_path(doc, found[0])
    if path != found[0].text:
        result["under"] = path.removesuffix(PARENT_SEPARATOR + found[0].text)
    if len(found) > 1:
        result["other_matches"] = [heading_path(doc, h) for h in found[1:6]]
    return _noted(doc, result)


def _noted(doc: Doc, result: dict[str, Any]) -> dict[str, Any]:
    note = doc.note()
    return {**result, "note": note} if note else result
