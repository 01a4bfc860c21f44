"""Token counts from a server, which are untrusted: validated here for every adapter.

A server may send no usage, or usage that cannot be true (negative, a string, 10**400, a
float). Such a request's usage is unknown, never 0, and never an error: the answer it came
with has already been streamed to the user.
"""

from __future__ import annotations

from atlas.foundation.notices import warn
from atlas.foundation.sanitize import clean_line
from atlas.protocol.messages import Usage

MAX_TOKENS_PER_REQUEST = 100_000_000
"""No request reads or writes more than this; a larger figure is a broken server, not usage."""


def token_count(value: object) -> int | None:
    """A plausible token count, or None: whole, non-negative, at most `MAX_TOKENS_PER_REQUEST`."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 0 <= value <= MAX_TOKENS_PER_REQUEST:
        return value
    return None


def checked_usage(input_tokens: object, output_tokens: object) -> Usage:
    """The usage of one request from the server's two figures; unknown unless both are plausible."""
    tokens_in, tokens_out = token_count(input_tokens), token_count(output_tokens)
    if tokens_in is None or tokens_out is None:
        return Usage.unknown()
    return Usage(tokens_in, tokens_out)


def usage_of(report: object, input_field: str, output_field: str, *, source: str | None = None) -> Usage:
    """`checked_usage` of an SDK usage object (or dict) that may be absent or malformed.

    With `source` (the server's URL), figures that were sent but cannot be true are named in one
    warning on stderr: the person sees why the cost is unknown. Usage not sent at all is silent.
    """
    if report is None:
        return Usage.unknown()
    if isinstance(report, dict):
        figures = (report.get(input_field), report.get(output_field))
    else:
        figures = (getattr(report, input_field, None), getattr(report, output_field, None))
    usage = checked_usage(*figures)
    if source is not None and not usage.known:
        _warn_unusable(source, dict(zip((input_field, output_field), figures, strict=True)))
    return usage


def _warn_unusable(source: str, figures: dict[str, object]) -> None:
    bad = [f"{name}={_shown(value)}" for name, value in figures.items() if token_count(value) is None]
    warn(
        f"{clean_line(source)} reported unusable token usage ({clean_line(', '.join(bad))}); its cost is unknown",
    )


def _shown(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        return "a huge number"
    return repr(value)[:40]
