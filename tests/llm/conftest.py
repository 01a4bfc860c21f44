"""The model adapters' tests get an llmock server per module, not the one of the whole test process.

Many of them queue a fault that fires once (a 500, a stall, a cut stream) and expect the request
to fail. On the process's shared server, a request another test left in flight (an `atlas chat`
on a pseudo-terminal, a cancelled turn) could be served after such a test's set-up and take its
fault first.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from llmock.testing import LLMockServer


@pytest.fixture(scope="module")
def llmock_server() -> Iterator[LLMockServer]:
    with LLMockServer() as server:
        yield server
