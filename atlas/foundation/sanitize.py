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

import functools
import re
import sys
from typing import IO

# C0 controls except tab and newline, DEL, C1 controls, the bidi marks, embeddings, overrides and
# isolates, and the line and paragraph separators: each one can change what is shown without
# being seen itself. Lone surrogates (a JSON "\ud83d" escape without its pair) have no UTF-8 form
# at all: printing one would fail. The first byte's are found by a pattern; the wider ones, past
# Latin-1, by a translation table (a character class spanning them costs a start-up 64K-entry map).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_UNSAFE_OR_BREAK = re.compile("[\x00-\x1f\x7f-\x9f]")
_WIDE = (0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A), *range(0xD800, 0xE000))
_WIDE_CHARS = frozenset(map(chr, _WIDE))
_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _escape_char(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{ord(char):02x}"


def _wide_shown(text: str) -> str:
    if text.isascii() or _WIDE_CHARS.isdisjoint(text):
        return text
    return text.translate(_wide_table())


@functools.cache
def _wide_table() -> dict[int, str]:
    """Each wide character's escape, made when text first holds one."""
    return {code: f"\\u{code:04x}" for code in _WIDE}


def clean(text: object) -> str:
    """Text with every control, C1 and bidi character shown escaped; newlines and tabs kept."""
    return _wide_shown(_UNSAFE.sub(_escape_char, str(text)))


def clean_line(text: object) -> str:
    """Like `clean`, for one-line places (warnings, table cells, rows, prompts): newlines shown as `\\n` too."""
    return _wide_shown(_UNSAFE_OR_BREAK.sub(_escape_char, str(text)))


def write_line(text: object = "", *, err: bool = False, file: IO[str] | None = None, flush: bool = False) -> None:
    """`text` cleaned, then a newline, on standard output (standard error with `err`, or `file`)."""
    stream = file if file is not None else sys.stderr if err else sys.stdout
    stream.write(clean(text) + "\n")
    if flush:
        stream.flush()
