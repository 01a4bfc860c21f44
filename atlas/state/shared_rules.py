"""Rules a person grants at a prompt, kept in the team's shared database when one is set, with who
granted them: every maintainer's Atlas and the CI run apply the same rules, and revoke them once.

Without a shared database these functions do nothing and the policy keeps granted rules in the state
folder's config.toml, as before. The rules' TOML is Atlas's own (`atlas.policy.grant` writes it); the
database is as trusted as the URL that names it (`ATLAS_STATE_URL`, or the user's own config.toml).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from atlas.state.settings import state_settings
from atlas.state.who import author

if TYPE_CHECKING:
    from atlas.state.postgres.database import SharedDatabase


def _database(home: Path) -> SharedDatabase | None:
    url = state_settings(home).url
    if not url:
        return None
    from atlas.state.postgres.database import shared_database

    return shared_database(url)


def uses_shared(home: Path) -> bool:
    """Whether granted rules go to a team's shared database."""
    return bool(state_settings(home).url)


def where(home: Path) -> str | None:
    """Where shared rules are, for a person (the database's host and name, no credentials); None without one."""
    url = state_settings(home).url
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return f"the team's shared state ({host}{parts.path})"


def shared_rules(home: Path) -> tuple[str, bytes] | None:
    """The granted rules' TOML, each block saying who granted it; None without a shared database."""
    database = _database(home)
    if database is None:
        return None
    from atlas.state.postgres.records import granted_rules

    blocks = [f"# granted by {person} on {machine}\n{rule}" for _, rule, person, machine in granted_rules(database)]
    shown = where(home)
    assert shown is not None
    return shown, "\n".join(blocks).encode("utf-8")


def grant_shared(home: Path, name: str, rule: str) -> bool:
    """Keep a granted rule (its TOML) in the shared database; False when there is none."""
    database = _database(home)
    if database is None:
        return False
    from atlas.state.postgres.records import add_granted_rule

    add_granted_rule(database, name, rule, datetime.now(UTC).isoformat(timespec="seconds"), author(home))
    return True


def revoke_shared(home: Path, name: str) -> bool:
    """Remove a granted rule from the shared database; False when there is none or no such rule."""
    database = _database(home)
    if database is None:
        return False
    from atlas.state.postgres.records import remove_granted_rule

    return remove_granted_rule(database, name)
