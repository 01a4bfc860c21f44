"""A shared state's URL never shows its credentials: not in an error, `atlas doctor` (and its JSON), nor
where a command says the state is, however the URL is written (a password that cannot be decoded, a
`?password=` parameter, a port that is not one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.state.settings import shown_url
from tests.support.pg_server import free_port
from tests.support.run import atlas_env, invoke

SECRET = "hunter2-team"


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://atlas:{SECRET}@127.0.0.1:{{port}}/team",
        f"postgresql://atlas:{SECRET}@127.0.0.1:notaport/team",
        f"postgresql://atlas:{SECRET}%zz@[::1/team",
        f"postgresql://127.0.0.1:{{port}}/team?sslmode=disable&password={SECRET}",
        f"postgres://atlas:{SECRET}@127.0.0.1:{{port}}/team?sslpassword={SECRET}",
    ],
)
def test_no_command_prints_the_urls_credentials(url: str, tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home", ATLAS_STATE_URL=url.format(port=free_port()))
    for command in (("tracker",), ("tracker", "--json"), ("log", "--json"), ("doctor",), ("doctor", "--json")):
        run = invoke(*command, env=env)
        assert run.code != 0, (command, run)
        assert SECRET not in run.output, (command, run.output)
        assert "Traceback" not in run.output


def test_the_shown_url_keeps_where_and_hides_who() -> None:
    shown = shown_url(f"postgresql://ana:{SECRET}@db.example:5433/team?password={SECRET}&sslmode=require")
    assert shown == "postgresql://***@db.example:5433/team?password=***&sslmode=require"
