"""Lines of text with styles, written without Rich where nothing reads the styles.

A pipe, a file or CI shows no colour and no live region: an `atlas ask` whose standard output and
standard error are both there writes its header, rows, footer and answer as plain lines through
`write_line`, and never imports Rich (about a tenth of an offline answer's start). A `Styled` line
is what both kinds of output print: a `PlainConsole` writes its words, a Rich console renders it
(`__rich__`) with its styles, so a terminal shows what it showed before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any, Protocol

from atlas.foundation.sanitize import clean, write_line

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text


class Styled:
    """One line made of pieces, each with a Rich style (`""`: none): `Text.assemble` without Rich."""

    __slots__ = ("pieces",)

    def __init__(self, text: str = "", style: str = "") -> None:
        self.pieces: list[tuple[str, str]] = [(text, style)] if text else []

    @classmethod
    def assemble(cls, *pieces: str | tuple[str, str]) -> Styled:
        line = cls()
        for piece in pieces:
            line.append(*((piece, "") if isinstance(piece, str) else piece))
        return line

    def append(self, text: str, style: str = "") -> Styled:
        self.pieces.append((text, style))
        return self

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.pieces)

    def __str__(self) -> str:
        return self.plain

    def __rich__(self) -> Text:
        from rich.text import Text

        return Text.assemble(*self.pieces)


class PlainConsole:
    """What an answer's output needs of a Rich console, for a stream that is no terminal: each
    `print` is one cleaned line through `write_line`, never folded (a reader or `grep` on a pipe
    gets a row on one line, as a table on a pipe is laid out wide)."""

    is_terminal = False

    def __init__(self, *, stderr: bool = False) -> None:
        self.stderr = stderr

    @property
    def file(self) -> IO[str]:
        """The stream as it is now (a test or a caller may have replaced `sys.stdout`)."""
        return sys.stderr if self.stderr else sys.stdout

    def print(self, line: object = "", **_layout: Any) -> None:
        """`line`'s words on a line of their own; Rich's layout options (`soft_wrap`) change nothing here."""
        write_line(line, file=self.file, flush=True)


def looks_like_terminal(stream: IO[str] | None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether Rich would treat `stream` as a terminal: `TTY_COMPATIBLE` and `FORCE_COLOR` first
    (as Rich reads them), then `isatty`. Only where this is False is Rich left out."""
    environ = os.environ if environ is None else environ
    compatible = environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    forced = environ.get("FORCE_COLOR")
    if forced is not None:
        return forced != ""
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):  # a closed stream is no terminal
        return False


def output_consoles() -> tuple[Console | PlainConsole, Console | PlainConsole]:
    """Consoles for standard output and standard error: Rich's when either one is a terminal (its
    colours, live rows and Markdown, as before), plain ones when neither is."""
    if looks_like_terminal(sys.stdout) or looks_like_terminal(sys.stderr):
        from atlas.ui.render import make_console

        return make_console(), make_console(stderr=True)
    return PlainConsole(), PlainConsole(stderr=True)


class Writes(Protocol):
    """A console (Rich's or plain) by the stream it writes to."""

    @property
    def file(self) -> IO[str]: ...


def print_answer_source(console: Writes, answer: str) -> None:
    """The answer as the Markdown the model wrote, unwrapped: what a file or a GitHub comment wants.

    Cleaned like everything else printed (control characters shown escaped), nothing rendered.
    """
    write_line(clean(answer).strip(), file=console.file, flush=True)
