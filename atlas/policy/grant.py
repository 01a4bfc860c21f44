"""Rules a person grants at the prompt ("actions like this in this project"), and their removal.

A granted rule is never wider than what was shown: the same tool and the same label (any issue),
the same exact comment text (any issue), or for other tools the same exact arguments; pinned to
this dataset (and repository). It is written to the state folder's `config.toml` between two
marker comments, so `atlas policy revoke NAME` removes exactly what was written.

At a triage plan's review (`for_plans`), the rule is also marked `after_untrusted`: a plan is made
from issue text, so a rule that did not hold after it would never apply to a plan again. It stays
as narrow as `after_untrusted` demands (one label, or one exact text), and a comment's rule allows
it once per issue, as triage itself never comments twice.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from atlas import statefiles
from atlas.errors import ConfigError
from atlas.policy import trust
from atlas.policy.decide import Facts
from atlas.policy.kinds import COMMENT_TOOLS, LABEL_TOOLS
from atlas.policy.load import CONFIG_FILE, PlacedRule, load_policy, parse, sources
from atlas.sanitize import clean_line
from atlas.state import shared_rules

_BEGIN = "# atlas:granted "
_END = "# atlas:end "


def _toml(value: Any) -> str | None:
    """A TOML value for JSON-like data; None for what TOML cannot hold (null, NaN)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, list):
        items = [_toml(item) for item in value]
        return None if None in items else "[" + ", ".join(str(item) for item in items) + "]"
    if isinstance(value, dict):
        pairs = [(json.dumps(str(key), ensure_ascii=False), _toml(item)) for key, item in value.items()]
        return None if any(item is None for _, item in pairs) else "{" + ", ".join(f"{k} = {v}" for k, v in pairs) + "}"
    return None


def _glob_literal(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def conditions(facts: Facts, *, for_plans: bool = False) -> dict[str, str] | None:
    """The rule's settings as TOML values, no wider than the action shown; None when it cannot be said."""
    if for_plans and facts.tool not in (*LABEL_TOOLS, *COMMENT_TOOLS):
        return None
    fields: dict[str, Any] = {"tool": [facts.tool]}
    if facts.tool in LABEL_TOOLS:
        if facts.label is None:
            return None
        fields["labels"] = [_glob_literal(facts.label)]
    elif facts.tool in COMMENT_TOOLS:
        if facts.comment is None:
            return None
        fields["text"] = [facts.comment]
    else:
        fields["args"] = facts.arguments
    if facts.repository:
        fields["repository"] = facts.repository
    if facts.dataset:
        fields["dataset"] = facts.dataset
    if for_plans:
        fields["after_untrusted"] = True
        if facts.tool in COMMENT_TOOLS:
            fields["max_per_issue"] = 1
    encoded = {key: _toml(value) for key, value in fields.items()}
    if any(value is None for value in encoded.values()):
        return None
    return {key: str(value) for key, value in encoded.items()}


def allowance(facts: Facts, *, for_plans: bool = False) -> str:
    """What a granted rule would allow, in a few words (`add_label of type:bug on any issue`)."""
    if facts.tool in LABEL_TOOLS:
        return f"{facts.tool} of {facts.label} on any issue"
    if facts.tool in COMMENT_TOOLS:
        return f"{facts.tool} of exactly this text on any issue" + (" (once per issue)" if for_plans else "")
    return f"{facts.tool} with exactly these arguments"


def describe(home: Path, facts: Facts) -> str:
    """What a granted rule would allow, in words, as the prompt offers it."""
    where = shared_rules.where(home) or clean_line(home.resolve() / CONFIG_FILE)
    return f"{allowance(facts)} of this project, from now on (a rule in {where})"


def _state_file(home: Path) -> tuple[Path, bool]:
    """The state folder's config.toml, and whether Atlas may write a rule there that will apply."""
    path = home.resolve() / CONFIG_FILE
    found = next((source for source in sources(home) if source.path == path), None)
    if found is None or found.trusted:
        return path, True
    assert found.raw is not None
    document, _ = parse(path, found.raw)
    # An untrusted file is trusted afresh with the granted rule only if it allowed nothing before.
    return path, not any(rule.decision == "allow" for rule in document.rules)


def can_grant(home: Path, facts: Facts, *, for_plans: bool = False) -> bool:
    try:
        return conditions(facts, for_plans=for_plans) is not None and _state_file(home)[1]
    except ConfigError:
        return False


def _rewrite(path: Path, text: str, *, keep_trust: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = statefiles.open_fd(temp, os.O_WRONLY | os.O_TRUNC, create=True)
    try:
        statefiles.write_all(fd, text.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        statefiles.refuse_unsafe(path)  # a link planted in its place is never replaced, nor written through
    except statefiles.UnsafeStateFile as exc:
        os.unlink(temp)
        raise ConfigError(f"{exc}; nothing was written") from None
    os.replace(temp, path)
    if keep_trust:
        trust.trust(path, text.encode("utf-8"))


def _current(path: Path) -> str:
    raw = statefiles.read_bytes(path)
    return raw.decode("utf-8") if raw else ""


def write_rule(home: Path, facts: Facts, *, for_plans: bool = False) -> PlacedRule:
    """Append the granted rule; returns it as loaded back (with its line)."""
    fields = conditions(facts, for_plans=for_plans)
    path, allowed = _state_file(home)
    if fields is None or not allowed:
        raise ConfigError(f"a rule for this action cannot be written to {clean_line(path)}")
    name = f"granted-{facts.tool.replace('_', '-')[:40]}-{secrets.token_hex(2)}"
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"{_BEGIN}{name} at the prompt, {when}", "[[policy.rules]]", f'name = "{name}"', 'decision = "allow"']
    lines += [f"{key} = {value}" for key, value in fields.items()]
    lines.append(f"{_END}{name}")
    if shared_rules.grant_shared(home, name, "\n".join(lines) + "\n"):  # a team's: every maintainer's Atlas applies it
        return next(placed for placed in load_policy(home).rules if placed.rule.name == name)
    text = _current(path)
    separator = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    # A found folder's file allowed nothing before (see `_state_file`): trusting it now trusts only this rule.
    _rewrite(path, text + separator + "\n".join(lines) + "\n", keep_trust=not _by_origin(home))
    return next(placed for placed in load_policy(home).rules if placed.rule.name == name)


def _by_origin(home: Path) -> bool:
    from atlas.config import state_folder

    chosen = state_folder()
    return not (chosen.path == home.resolve() and chosen.found_by.startswith("the nearest"))


def revoke(home: Path, name: str) -> Path:
    """Remove a granted rule from the team's shared state or the state folder's config.toml; a ConfigError
    when there is none."""
    if shared_rules.revoke_shared(home, name):
        return Path(shared_rules.where(home) or "")
    path = home.resolve() / CONFIG_FILE
    lines = _current(path).splitlines(keepends=True)
    begin = next((i for i, line in enumerate(lines) if line.startswith(f"{_BEGIN}{name} ")), None)
    end = next((i for i, line in enumerate(lines) if line.rstrip("\n") == f"{_END}{name}"), None)
    if begin is None or end is None or end < begin:
        raise ConfigError(
            f"no rule granted at the prompt is named {clean_line(name)!r} in {clean_line(path)}"
            " (rules you wrote yourself are removed by editing the file)"
        )
    trusted_before = trust.is_trusted(path, "".join(lines).encode("utf-8"))
    _rewrite(path, "".join(lines[:begin] + lines[end + 1 :]), keep_trust=trusted_before)
    return path
