"""URLs without their credentials: what Atlas shows, logs or tells anyone about a configured server.

A base URL may carry a secret (`https://user:token@host/v1`, `...?api_key=...`). The client
needs it whole; everything a person, a file or the model sees gets `redact_url`'s form, and
any text that might quote the raw URL or its secrets (an SDK's error, a server's echo) goes
through `scrub`.
"""

from __future__ import annotations

import os
import re
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

HIDDEN = "***"
MODEL_URL_SETTINGS = ("ATLAS_BASE_URL", "OPENAI_BASE_URL")
_KEPT_QUERY_KEYS = frozenset({"api-version", "api_version"})
"""Query parameters that name a version, never a secret; every other value is hidden."""
_MIN_SECRET_CHARS = 6
"""Shorter values are not searched for in free text (`admin` would hide every "admin"); URLs are replaced whole."""
_USERINFO_RE = re.compile(r"(//)[^/?#@\s]*@")


def redact_url(url: str) -> str:
    """`url` with its user name, password and query values (but a version) replaced by `***`."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # not a URL urllib can take apart: hide whatever precedes an `@`
        return _USERINFO_RE.sub(rf"\1{HIDDEN}@", url)
    netloc = parts.netloc
    if parts.username is not None or parts.password is not None:
        shown_host = f"[{host}]" if ":" in host else host
        netloc = f"{HIDDEN}@{shown_host}" + (f":{port}" if port is not None else "")
    query = "&".join(
        f"{quote(key, safe='-_.~')}={value if key.lower() in _KEPT_QUERY_KEYS else HIDDEN}"
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def url_secrets(url: str) -> list[str]:
    """The secrets in `url` (as written and as decoded), longest first, for `scrub` to hide."""
    try:
        parts = urlsplit(url)
        found = [parts.username or "", parts.password or ""]
        found += [value for key, value in parse_qsl(parts.query) if key.lower() not in _KEPT_QUERY_KEYS]
        found.append(parts.fragment)
    except ValueError:
        match = _USERINFO_RE.search(url)
        found = match.group(0)[2:-1].split(":") if match else []
    secrets = {text for value in found for text in (value, unquote(value), quote(value, safe="")) if text}
    return sorted((text for text in secrets if len(text) >= _MIN_SECRET_CHARS), key=len, reverse=True)


def configured_urls() -> list[str]:
    """The model server's URLs set in the environment, whose secrets no output may show."""
    return [value for name in MODEL_URL_SETTINGS if (value := os.environ.get(name, "").strip())]


def scrub(text: str, urls: list[str] | None = None) -> str:
    """`text` with each of `urls` (default: the configured ones) shown redacted and their secrets hidden."""
    for url in configured_urls() if urls is None else urls:
        for form in (url, url.rstrip("/")):
            text = text.replace(form, redact_url(form))
        text = hide(text, url_secrets(url))
    return text


def hide(text: str, secrets: list[str] | tuple[str, ...]) -> str:
    """`text` with every one of `secrets` (longest first, as `url_secrets` gives them) replaced by `***`."""
    for secret in secrets:
        text = text.replace(secret, HIDDEN)
    return text
