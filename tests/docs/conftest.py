"""The documentation's tests: the stand-ins its commands meet, and the fitted triage classifier."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.docs.sandbox import Services, services


@pytest.fixture(scope="module")
def stand_ins() -> Iterator[Services]:
    with services() as running:
        yield running
