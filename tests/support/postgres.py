"""The PostgreSQL server of the tests marked `postgres`: started once per run, by the first worker that
needs it, and shared by every xdist worker (a file lock and a count of the workers using it); each test gets a new
database on it. Tests that must kill a server start one of their own (`own_server`)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock

from tests.support.once import run_folder
from tests.support.pg_server import Server, new_server, remove


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    shared = run_folder(tmp_path_factory)
    state = shared / "postgres.json"
    with FileLock(str(shared / "postgres.lock")):
        known = json.loads(state.read_text()) if state.exists() else {"users": 0}
        if known["users"] == 0:
            server = new_server()
            known = {"users": 0, "root": str(server.root), "port": server.port, "password": server.password,
                     "pid": server.pid}  # fmt: skip
        server = Server(Path(known["root"]), known["port"], known["password"], known["pid"])
        known["users"] += 1
        state.write_text(json.dumps(known))
    yield server
    with FileLock(str(shared / "postgres.lock")):
        known = json.loads(state.read_text())
        known["users"] -= 1
        state.write_text(json.dumps(known))
        if known["users"] == 0:
            remove(server)


@pytest.fixture
def database_url(postgres: Server) -> str:
    """A new, empty database of this test's own on the run's server."""
    return postgres.create_database(f"atlas_{uuid.uuid4().hex[:12]}")


@pytest.fixture
def own_server() -> Iterator[Server]:
    """A server this test alone uses (to kill it, restart it)."""
    server = new_server()
    yield server
    remove(server)
