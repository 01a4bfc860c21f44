"""The commands the README and the documentation site show, read as bash would read them.

Each ```bash block is a list of commands typed one after another; a line ending in a backslash goes
on, `#` starts a comment outside quotes, `export A=B` holds for the rest of the block, `A=B cmd`
for that command alone, and `&&` joins commands that run in turn."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
README = CHECKOUT / "README.md"
DOCS = CHECKOUT / "docs"
_BASH_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Command:
    """One command as shown: the words it runs, what it sets, and where its output goes."""

    line: str
    words: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    stdout_to: str | None = None
    piped_to: tuple[str, ...] = ()

    @property
    def program(self) -> str:
        return self.words[0] if self.words else ""


@dataclass(frozen=True)
class Block:
    """A ```bash block of a page: its commands in the order shown."""

    page: str
    number: int
    commands: tuple[Command, ...] = field(default=())

    @property
    def name(self) -> str:
        return f"{self.page}#{self.number}"


def pages() -> list[Path]:
    """The README first, then every page of the site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(CHECKOUT).as_posix()
    return [Block(name, n, tuple(_commands(body))) for n, body in enumerate(_BASH_BLOCK.findall(text), 1)]


def every_block() -> list[Block]:
    return [block for page in pages() for block in blocks(page)]


def _commands(body: str) -> list[Command]:
    exported: list[tuple[str, str]] = []
    found: list[Command] = []
    for line in body.replace("\\\n", " ").splitlines():
        for part in _split(line, "&&"):
            words, stdout_to, piped_to = _redirections(part)
            if not words:
                continue
            env = [_assignment(word) for word in _assignments(words)]
            words = words[len(env) :]
            if words[:1] == ["export"]:
                exported += [_assignment(word) for word in words[1:]]
                continue
            found.append(Command(line.strip(), tuple(words), (*exported, *env), stdout_to, tuple(piped_to)))
    return found


def _split(line: str, operator: str) -> list[list[str]]:
    """The line's words (comments dropped, quotes removed), cut at each `operator` token."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    parts: list[list[str]] = [[]]
    for token in lexer:
        if token == operator:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _redirections(words: list[str]) -> tuple[list[str], str | None, list[str]]:
    stdout_to = None
    if "|" in words:
        at = words.index("|")
        words, piped_to = words[:at], words[at + 1 :]
    else:
        piped_to = []
    if ">" in words:
        at = words.index(">")
        words, stdout_to = words[:at], words[at + 1]
    return words, stdout_to, piped_to


def _assignments(words: list[str]) -> list[str]:
    taken = []
    for word in words:
        if not _ASSIGNMENT.match(word):
            break
        taken.append(word)
    return taken


def _assignment(word: str) -> tuple[str, str]:
    name, _, value = word.partition("=")
    return name, value
