"""A bound on the whole time a server may take to stream one response: every byte of its body.

httpx's timeouts are per read, so a stream that dribbles a byte a second, or sends only SSE
keep-alive comments, never trips them. This transport gives each response body `total_s` of
waiting on the server in all (the headers have httpx's own timeouts). Only the waits count, not
the client's own work between reads (parsing the first events can take a busy machine a second),
so the figure is what the server took.
Built on `httpx2`, the openai SDK's HTTP client; running out is its `ReadTimeout`, which the SDK
turns into `APITimeoutError`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar
from urllib.parse import urlsplit
from urllib.request import getproxies, proxy_bypass

import httpx2 as httpx  # the openai SDK's own HTTP client

from atlas.foundation.tls import shared_context

T = TypeVar("T")


class _Budget:
    def __init__(self, total_s: float, request: httpx.Request) -> None:
        self.total_s = total_s
        self.left = total_s
        self.request = request

    async def wait(self, work: Awaitable[T]) -> T:
        started = time.monotonic()
        try:
            async with asyncio.timeout(max(0.0, self.left)):
                return await work
        except TimeoutError:
            raise httpx.ReadTimeout(
                f"the server took more than {self.total_s:g} s in all", request=self.request
            ) from None
        finally:
            self.left -= time.monotonic() - started


class _BoundedStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, budget: _Budget) -> None:
        self.inner = inner
        self.budget = budget

    async def __aiter__(self) -> AsyncIterator[bytes]:
        chunks = self.inner.__aiter__()
        while True:
            try:
                chunk = await self.budget.wait(chunks.__anext__())
            except StopAsyncIteration:
                return
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class ServerTime(httpx.AsyncBaseTransport):
    """`inner`, with each request's waits on the server bounded by `total_s` in all."""

    def __init__(self, inner: httpx.AsyncBaseTransport, total_s: float) -> None:
        self.inner = inner
        self.total_s = total_s

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        # The headers are waited for under httpx's own timeouts (connect, write, read), as before
        # any stream: the budget is for the body, which is what a dribbling server stretches.
        budget = _Budget(self.total_s, request)
        response = await self.inner.handle_async_request(request)
        stream = response.stream
        assert isinstance(stream, httpx.AsyncByteStream)
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_BoundedStream(stream, budget),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def transport_for(url: str, total_s: float) -> ServerTime:
    """The bounded transport for a client of `url`, through the proxy the environment names for it.

    httpx reads `HTTPS_PROXY` and the like only for a client without a transport of its own;
    a client talks to one base URL, so its proxy is settled here, as httpx would settle it.
    """
    parts = urlsplit(url)
    proxies = getproxies()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    verify = shared_context(httpx.create_ssl_context)
    if proxy and not proxy_bypass(parts.hostname or ""):
        return ServerTime(httpx.AsyncHTTPTransport(proxy=proxy, verify=verify), total_s)
    return ServerTime(httpx.AsyncHTTPTransport(verify=verify), total_s)
