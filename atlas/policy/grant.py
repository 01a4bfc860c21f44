"""Rules a person grants at the prompt ("actions like this in this project"), and their removal.

A granted rule is never wider than what was shown: the same tool and the same label (any issue),
the same exact comment text (any issue), or for other tools the same exact arguments; pinned to
this dataset (and repository). It is written to the state folder's `config.toml` between two
marker comments, so `atlas policy revoke NAME` removes exactly what was written.

The action's text came from a model, so it may hold anything (DEL, controls, quotes, a line
that looks like a table): the rule's values are written by `tomlkit`, the user's own lines are
kept byte for byte, and the new text must load — as TOML, as a policy, with the rule saying
exactly what was shown — before it replaces the old file. Nothing else is ever left behind.

At a triage plan's review (`for_plans`), the rule is also marked `after_untrusted`: a plan is made
from issue text, so a rule that did not hold after it would never apply to a plan again. It stays
as narrow as `after_untrusted` demands (one label, or one exact text), and a comment's rule allows
it once per issue, as triage itself never comments twice.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.foundation import statefiles
from atlas.foundation.errors import ConfigError
from atlas.foundation.sanitize import clean_line
from atlas.policy import trust
from atlas.policy.decide import Facts
from atlas.policy.kinds import COMMENT_TOOLS, LABEL_TOOLS
from atlas.policy.load import CONFIG_FILE, PlacedRule, load_policy, parse, sources, widens_nothing
from atlas.state import shared_rules

if TYPE_CHECKING:
    from atlas.policy.rules import PolicyDocument

_BEGIN = "# atlas:granted "
_END = "# atlas:end "
LOCK_TIMEOUT_S = 10.0
_INVISIBLE = re.compile("[\x80-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def _writable(value: Any) -> bool:
    """Whether TOML holds `value` as it is (no null, no NaN or infinity, keys that are text)."""
    if isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_writable(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and _writable(item) for key, item in value.items())
    return False


def _inline(value: Any) -> Any:
    """A tomlkit value that keeps the rule in one table: tables written inline."""
    import tomlkit

    if isinstance(value, dict):
        table = tomlkit.inline_table()
        table.update({key: _inline(item) for key, item in value.items()})
        return table
    if isinstance(value, list):
        array = tomlkit.array()
        array.extend(_inline(item) for item in value)
        return array
    return tomlkit.item(value)


def rule_text(name: str, fields: dict[str, Any]) -> str:
    """`[[policy.rules]]` with the rule's name, `allow` and its fields, serialised by tomlkit."""
    import tomlkit

    table = tomlkit.table()
    table.add("name", name)
    table.add("decision", "allow")
    for key, value in fields.items():
        table.add(key, _inline(value))
    rules = tomlkit.aot()
    rules.append(table)
    policy = tomlkit.table(is_super_table=True)
    policy.add("rules", rules)
    document = tomlkit.document()
    document.add("policy", policy)
    # TOML allows C1 controls and bidi overrides raw; escaped, the file reads as it is to whoever opens it.
    # They occur only inside tomlkit's basic strings here, and the written rule is checked when loaded back.
    return _INVISIBLE.sub(lambda found: f"\\u{ord(found.group()):04x}", tomlkit.dumps(document))


def _glob_literal(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def conditions(facts: Facts, *, for_plans: bool = False) -> dict[str, Any] | None:
    """The rule's settings, no wider than the action shown; None when TOML cannot say them."""
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
    return fields if all(_writable(value) for value in fields.values()) else None


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
    # An untrusted file is trusted afresh with the granted rule only if nothing in it could allow
    # before: no allow rule, and no label group a trusted rule would then take.
    return path, widens_nothing(document)


def can_grant(home: Path, facts: Facts, *, for_plans: bool = False) -> bool:
    try:
        return conditions(facts, for_plans=for_plans) is not None and _state_file(home)[1]
    except ConfigError:
        return False


def _rewrite(path: Path, text: str, *, keep_trust: bool) -> None:
    """Replace the file with `text`, which the caller checked loads; never through a link."""
    try:
        statefiles.replace_file(path, text.encode("utf-8"), mode=0o644)
    except statefiles.UnsafeStateFile as exc:  # a link planted in its place is never replaced, nor written through
        raise ConfigError(f"{exc}; nothing was written") from None
    if keep_trust:
        trust.trust(path, text.encode("utf-8"))


def _current(path: Path) -> str:
    raw = statefiles.read_bytes(path)
    try:
        return raw.decode("utf-8") if raw else ""
    except UnicodeDecodeError:
        raise ConfigError(f"{clean_line(path)}: not UTF-8 text") from None


def _loads(path: Path, text: str, change: str) -> PolicyDocument:
    """The policy the new text would hold; a ConfigError (nothing written) when it would not load."""
    import tomllib  # only when a rule is written: ~5 ms of every start otherwise

    try:
        tomllib.loads(text)
        document, _ = parse(path, text.encode("utf-8"))
    except (tomllib.TOMLDecodeError, ConfigError, RecursionError, ValueError) as exc:
        raise ConfigError(
            f"{clean_line(path)} would not load with the rule ({clean_line(exc)}); nothing was written"
        ) from None
    return document


@contextmanager
def _editing(path: Path) -> Iterator[None]:
    """One writer at a time: two prompts granting at once each keep the other's rule."""
    import filelock

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with statefiles.locked(path.with_name(f".{path.name}.lock"), timeout=LOCK_TIMEOUT_S):
            yield
    except filelock.Timeout:
        raise ConfigError(f"another Atlas is changing {clean_line(path)}; nothing was written") from None
    except statefiles.UnsafeStateFile as exc:
        raise ConfigError(f"{exc}; nothing was written") from None


def write_rule(home: Path, facts: Facts, *, for_plans: bool = False) -> PlacedRule:
    """Append the granted rule; returns it as loaded back (with its line)."""
    fields = conditions(facts, for_plans=for_plans)
    path, allowed = _state_file(home)
    if fields is None or not allowed:
        raise ConfigError(f"a rule for this action cannot be written to {clean_line(path)}")
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")

    def block_for(taken: str) -> tuple[str, str, dict[str, Any]]:
        # A name the file does not hold yet: 4 hex digits repeat within a few hundred rules.
        while (name := f"granted-{facts.tool.replace('_', '-')[:40]}-{secrets.token_hex(2)}") in taken:
            pass
        block = f"{_BEGIN}{name} at the prompt, {when}\n{rule_text(name, fields)}{_END}{name}\n"
        return name, block, {"name": name, "decision": "allow", **fields}

    if shared_rules.uses_shared(home):  # a team's: every maintainer's Atlas applies it
        name, block, wanted = block_for("")
        _says_exactly(path, block, wanted)
        shared_rules.grant_shared(home, name, block)
        return next(placed for placed in load_policy(home).rules if placed.rule.name == name)
    with _editing(path):
        text = _current(path)
        name, block, wanted = block_for(text)
        separator = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        updated = text + separator + block
        _says_exactly(path, updated, wanted)
        # A found folder's file allowed nothing before (see `_state_file`): trusting it now trusts only this rule.
        _rewrite(path, updated, keep_trust=not _by_origin(home))
    return next(placed for placed in load_policy(home).rules if placed.rule.name == name)


def _says_exactly(path: Path, text: str, wanted: dict[str, Any]) -> None:
    """A ConfigError unless `text` loads and its rule named `wanted["name"]` says exactly `wanted`."""
    rules = _loads(path, text, "with the rule").rules
    written = next((rule for rule in rules if rule.name == wanted["name"]), None)
    if written is None or written.model_dump(include=set(wanted)) != wanted:
        raise ConfigError(f"the rule would not say exactly this action in {clean_line(path)}; nothing was written")


def _by_origin(home: Path) -> bool:
    from atlas.foundation.config import state_folder

    chosen = state_folder()
    return not (chosen.path == home.resolve() and chosen.found_by.startswith("the nearest"))


def revoke(home: Path, name: str) -> Path:
    """Remove a granted rule from the team's shared state or the state folder's config.toml; a ConfigError
    when there is none."""
    if shared_rules.revoke_shared(home, name):
        return Path(shared_rules.where(home) or "")
    path = home.resolve() / CONFIG_FILE
    with _editing(path):
        return _revoke(path, name)


def _revoke(path: Path, name: str) -> Path:
    lines = _current(path).splitlines(keepends=True)
    begin = next((i for i, line in enumerate(lines) if line.startswith(f"{_BEGIN}{name} ")), None)
    end = next((i for i, line in enumerate(lines) if line.rstrip("\n") == f"{_END}{name}"), None)
    if begin is None or end is None or end < begin:
        raise ConfigError(
            f"no rule granted at the prompt is named {clean_line(name)!r} in {clean_line(path)}"
            " (rules you wrote yourself are removed by editing the file)"
        )
    trusted_before = trust.is_trusted(path, "".join(lines).encode("utf-8"))
    remaining = "".join(lines[:begin] + lines[end + 1 :])
    _loads(path, remaining, "without the rule")
    _rewrite(path, remaining, keep_trust=trusted_before)
    return path
