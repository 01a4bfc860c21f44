"""Secrets kept out of everything Atlas shows, stores or sends to a model.

A URL's `user:password@` part and a known token (one a server may echo back in an error) are the
secrets Atlas holds; every message that can carry one passes through here before it is printed,
logged, written to a state file or handed to the model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

HIDDEN = "***"
MIN_SECRET_LENGTH = 4
"""A shorter "secret" would hide ordinary words; tokens are far longer."""

_USERINFO_RE = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#@\s]*)@")
"""`scheme://user:pass@` anywhere in a text: the credentials are what sits before the `@`."""


def redact_url(url: str) -> str:
    """The URL with any `user:password@` replaced by `***@`; other URLs are returned unchanged."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return _USERINFO_RE.sub(lambda m: f"{m['scheme']}{HIDDEN}@", url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{HIDDEN}@{host}"))


def redact_secrets(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with URL credentials and each given secret (a token, a key) replaced by `***`."""
    text = _USERINFO_RE.sub(lambda m: f"{m['scheme']}{HIDDEN}@", text)
    for secret in sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True):
        text = text.replace(secret, HIDDEN)
    return text


def url_secrets(url: str) -> list[str]:
    """The credentials a URL carries (user and password), to redact wherever they appear alone."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    return [part for part in (parts.username, parts.password) if part]
