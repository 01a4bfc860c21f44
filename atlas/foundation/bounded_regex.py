"""Regular expressions someone else wrote (an MCP server's schema, a policy file), matched in bounded time.

`(a+)+$` against forty `a`s and a `!` backtracks for hours in Python's `re`, holding the interpreter
lock: no deadline, no Ctrl-C, no SIGTERM. The `regex` module lets other threads run while it matches
and stops at a timeout; a match too slow to finish raises PatternTooSlow, and the caller decides what
an undecided match means (a refused call, a person asked).
"""

from __future__ import annotations

import functools
import re
from typing import Any

MATCH_TIMEOUT_S = 0.1
"""One match's timeout (the `regex` module notices it a little late: about three times this)."""
PATTERN_LIMIT = 2000
"""Characters in one pattern: a longer one is refused where it is written."""
DOTALL = int(re.DOTALL)
"""`.` matches a newline too; the `regex` module's flag has the same value as `re`'s."""


class PatternTooSlow(Exception):
    """A pattern did not finish matching in its time."""


@functools.lru_cache(maxsize=512)
def compiled(pattern: str, flags: int = 0) -> Any:
    import regex  # here: most runs match no pattern, and the module costs about 25 ms to import

    return regex.compile(pattern, flags)


def problem(pattern: str, flags: int = 0) -> str | None:
    """Why `pattern` cannot be used (too long, does not compile), in a few words; None when it can."""
    if len(pattern) > PATTERN_LIMIT:
        return f"a pattern is longer than {PATTERN_LIMIT} characters"
    import regex

    try:
        compiled(pattern, flags)
    except (regex.error, OverflowError, RecursionError) as exc:
        return f"does not compile: {exc}"
    return None


def fullmatch(pattern: str, text: str, *, timeout: float, flags: int = 0) -> bool:
    """Whether the whole of `text` matches; PatternTooSlow when that takes longer than `timeout`."""
    if timeout <= 0:
        raise PatternTooSlow(pattern)
    try:
        return compiled(pattern, flags).fullmatch(text, timeout=timeout) is not None
    except TimeoutError:
        raise PatternTooSlow(pattern) from None
