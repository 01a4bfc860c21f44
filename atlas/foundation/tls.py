"""One certificate store per process for each HTTP library, read when a client first needs it.

httpx and the SDK's httpx2 build a new `ssl.SSLContext` for every transport, and building one
parses the whole CA bundle (about 50 ms). A context is meant to be shared, so every client of a
library gets the same one, made as that library makes it; a change of `SSL_CERT_FILE` or
`SSL_CERT_DIR` (which both libraries read) gets a context of its own.
"""

from __future__ import annotations

import functools
import os
import ssl
from collections.abc import Callable

TRUST_ENV = ("SSL_CERT_FILE", "SSL_CERT_DIR")
"""The variables httpx and httpx2 read to find certificates."""


def shared_context(build: Callable[[], ssl.SSLContext]) -> ssl.SSLContext:
    """`build()`'s context, made once per process for the certificate variables set now."""
    return _context(build, tuple(os.environ.get(name) for name in TRUST_ENV))


@functools.cache
def _context(build: Callable[[], ssl.SSLContext], _trust_env: tuple[str | None, ...]) -> ssl.SSLContext:
    return build()
