"""The one sanitiser for text that reaches a terminal, a log line or an error message.

Issue bodies, tool arguments, model answers, MCP servers' output, paths from the environment and
error messages can carry terminal control sequences (a clipboard write, a screen clear, a
disguised hyperlink) and bidi controls that reorder what the eye sees. Here they become visible,
inert text: `\\x1b`, `\\r`, `\\u202e`. It sits on the ground floor, below every package, so the
MCP host, the trackers and the terminal views all clean text the same way; `atlas.ui.safe`
builds Rich's renderables on top of it.

`write_line` is the one way a plain line reaches standard output or standard error; Rich's
consoles (`atlas.ui.render.make_console`) clean whatever they print too. Nothing else in Atlas
prints: tests/test_architecture.py refuses `print`, `sys.stdout.write` and a bare `Console`.
"""

from __future__ import annotations

import re
import sys
from typing import IO

# C0 controls except tab and newline, DEL, C1 controls, the bidi marks, embeddings, overrides and
# isolates, and the line and paragraph separators: each one can change what is shown without
# being seen itself. Lone surrogates (a JSON "\ud83d" escape without its pair) have no UTF-8 form
# at all: printing one would fail.
_INVISIBLE = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f{_INVISIBLE}]")
_UNSAFE_OR_BREAK = re.compile(f"[\x00-\x1f{_INVISIBLE}]")
_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _escape_char(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def clean(text: object) -> str:
    """Text with every control, C1 and bidi character shown escaped; newlines and tabs kept."""
    return _UNSAFE.sub(_escape_char, str(text))


def clean_line(text: object) -> str:
    """Like `clean`, for one-line places (warnings, table cells, rows, prompts): newlines shown as `\\n` too."""
    return _UNSAFE_OR_BREAK.sub(_escape_char, str(text))


def write_line(text: object = "", *, err: bool = False, file: IO[str] | None = None, flush: bool = False) -> None:
    """`text` cleaned, then a newline, on standard output (standard error with `err`, or `file`)."""
    stream = file if file is not None else sys.stderr if err else sys.stdout
    stream.write(clean(text) + "\n")
    if flush:
        stream.flush()
