"""Reading `[policy]` from the config files that may hold rules, each rule with its file and line.

`tomllib` keeps no positions, so a rule's line is that of its `[[policy.rules]]` header, found by
scanning the text (and a field's, by scanning that table for `field =`). Any problem is one
ConfigError line naming the file and line: a run never starts on a policy it cannot read whole.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from atlas.foundation import statefiles
from atlas.foundation.config import STATE_FOLDER_NAME, nearest_state_folder, state_folder
from atlas.foundation.errors import ConfigError
from atlas.foundation.sanitize import clean_line
from atlas.policy import trust

if TYPE_CHECKING:  # the rules' pydantic models are built only when a file is read
    from pydantic import ValidationError

    from atlas.policy.rules import PolicyDocument, Rule

CONFIG_FILE = "config.toml"
POLICY_ENV = "ATLAS_POLICY"
_RULE_HEADER = re.compile(r"^\s*\[\[\s*policy\s*\.\s*rules\s*\]\]")
_ANY_HEADER = re.compile(r"^\s*\[")
UNTRUSTED_EFFECT = "its allow rules are ignored, and its label groups widen no allow rule"


class Source(NamedTuple):
    """One file that may hold rules, and whether it may allow."""

    path: Path
    why: str
    trusted: bool
    raw: bytes | None = None


class LabelGroup(NamedTuple):
    """One `[policy.label_groups]` entry, where it is written, and whether that file may widen an allow."""

    name: str
    globs: list[str]
    path: Path
    line: int
    trusted: bool

    @property
    def where(self) -> str:
        return f"{clean_line(self.path)}:{self.line}"


@dataclass(frozen=True)
class PlacedRule:
    rule: Rule
    path: Path
    line: int
    trusted: bool
    groups: dict[str, list[str]] = field(default_factory=dict, compare=False)
    """The globs of each label group the rule names, from the files it may take them from (`resolve`)."""
    ignored_groups: tuple[str, ...] = ()
    """Groups the rule names that only an untrusted file defines: they add no label to it."""

    @property
    def where(self) -> str:
        return f"{clean_line(self.path)}:{self.line}"

    @property
    def active(self) -> bool:
        """An untrusted file's rules may only make Atlas stricter."""
        return self.trusted or self.rule.decision != "allow"


@dataclass(frozen=True)
class Policy:
    rules: list[PlacedRule] = field(default_factory=list)
    groups: dict[str, list[str]] = field(default_factory=dict)
    """The label groups of the trusted files: all an allow rule may refer to."""
    sources: list[Source] = field(default_factory=list)
    label_groups: list[LabelGroup] = field(default_factory=list)
    """Every group definition of every file, trusted or not, for `atlas policy list`."""

    def active(self) -> list[PlacedRule]:
        return [placed for placed in self.rules if placed.active]


def _source(path: Path, why: str, trusted_by_origin: bool) -> Source | None:
    try:
        raw = statefiles.read_bytes(path)
    except (NotADirectoryError, FileNotFoundError):
        return None
    except (OSError, statefiles.UnsafeStateFile) as exc:
        raise ConfigError(f"{clean_line(path)} cannot be read: {exc}") from None
    if raw is None:
        return None
    trusted = trusted_by_origin or trust.is_trusted(path, raw)
    if not trusted_by_origin:
        why += "; trusted with `atlas policy trust`" if trusted else f"; not trusted: {UNTRUSTED_EFFECT}"
    return Source(path, why, trusted, raw)


def sources(home: Path) -> list[Source]:
    """`ATLAS_POLICY`, the state folder's config.toml, and a project's `.atlas/config.toml` above here."""
    found: list[Source] = []
    named = os.environ.get(POLICY_ENV, "").strip()
    if named:
        path = Path(named).expanduser().resolve()
        source = _source(path, f"named by {POLICY_ENV}", True)
        if source is None:
            raise ConfigError(f"{POLICY_ENV}={clean_line(named)}: there is no such file")
        found.append(source)
    chosen = state_folder()
    home = home.resolve()
    by_origin = not (chosen.path == home and chosen.found_by.startswith("the nearest"))
    origin = "the state folder" if by_origin else f"a found {STATE_FOLDER_NAME} folder"
    state = _source(home / CONFIG_FILE, origin, by_origin)
    found += [state] if state else []
    try:
        project = nearest_state_folder(Path.cwd())
    except OSError:
        project = None
    if project is not None and project.resolve() != home:
        nearest = _source(project.resolve() / CONFIG_FILE, f"a found {STATE_FOLDER_NAME} folder", False)
        found += [nearest] if nearest else []
    from atlas.state.shared_rules import shared_rules  # a team's granted rules, in its shared database

    if (shared := shared_rules(home)) is not None:
        found.append(Source(Path(shared[0]), "granted in the team's shared state", True, shared[1]))
    return found


def load_policy(home: Path) -> Policy:
    """Every rule of every source, in order; a ConfigError (one line, file and line) on any problem.

    A rule refers to label groups by name, so a group is part of what an allow rule matches: a rule
    of a trusted file takes its groups from trusted files only. A file not trusted to allow may only
    make Atlas stricter, so its definitions serve its own deny and ask rules (added to the trusted
    ones: a wider deny is only stricter) and widen no allow rule, wherever that rule is written.
    """
    found = sources(home)
    parsed = []
    for source in found:
        assert source.raw is not None
        parsed.append((source, *parse(source.path, source.raw)))
    definitions = [group for source, document, _ in parsed for group in _groups_of(source, document)]
    trusted = _merged([group for group in definitions if group.trusted], strict=True)
    anyone = _merged(definitions, strict=False)
    rules = [
        resolve(PlacedRule(rule, source.path, line, source.trusted), trusted if source.trusted else anyone, anyone)
        for source, document, lines in parsed
        for rule, line in zip(document.rules, lines, strict=True)
    ]
    _check_names(rules)
    return Policy(rules, trusted, found, definitions)


def _groups_of(source: Source, document: PolicyDocument) -> list[LabelGroup]:
    assert source.raw is not None
    lines = source.raw.decode("utf-8").splitlines()
    table = _header_line(lines, "policy.label_groups")
    return [
        LabelGroup(name, globs, source.path, _line_of(lines, name, table), source.trusted)
        for name, globs in document.label_groups.items()
    ]


def _merged(definitions: list[LabelGroup], *, strict: bool) -> dict[str, list[str]]:
    """Each group's globs; two trusted files that define a group differently are an error (`strict`),
    otherwise the definitions add up (only for rules that can make Atlas stricter)."""
    groups: dict[str, list[str]] = {}
    first: dict[str, LabelGroup] = {}
    for group in definitions:
        earlier = first.setdefault(group.name, group)
        if strict and earlier.globs != group.globs:
            raise ConfigError(f"{group.where}: label group {group.name!r} is defined differently at {earlier.where}")
        known = groups.setdefault(group.name, [])
        known += [glob for glob in group.globs if glob not in known]
    return groups


def resolve(placed: PlacedRule, allowed: dict[str, list[str]], anyone: dict[str, list[str]]) -> PlacedRule:
    """The rule with the globs of the groups it names, from `allowed`; a group only `anyone` knows is
    ignored (an untrusted file defines it), a group nobody defines is an error."""
    named = placed.rule.label_groups or []
    unknown = [group for group in named if group not in anyone]
    if unknown:
        raise ConfigError(f"{placed.where}: rule {placed.rule.name!r}: no label group named {unknown[0]!r}")
    groups = {group: allowed[group] for group in named if group in allowed}
    ignored = tuple(group for group in named if group not in allowed)
    # An allowlist after untrusted text must stay one through the globs its groups bring.
    brought = [glob for globs in groups.values() for glob in globs]
    blanket = placed.rule.blanket_parts(brought) if placed.rule.after_untrusted else []
    if blanket:
        where = f"{placed.where}: rule {placed.rule.name!r}: label_groups"
        raise ConfigError(f"{where}: after_untrusted = true needs {blanket[0][1]}")
    return PlacedRule(placed.rule, placed.path, placed.line, placed.trusted, groups, ignored)


def _check_names(rules: list[PlacedRule]) -> None:
    seen: dict[str, PlacedRule] = {}
    for placed in rules:
        earlier = seen.setdefault(placed.rule.name, placed)
        if earlier is not placed:
            raise ConfigError(f"{placed.where}: rule {placed.rule.name!r} is already defined at {earlier.where}")


def parse(path: Path, raw: bytes) -> tuple[PolicyDocument, list[int]]:
    """The file's `[policy]` table and each rule's line; a ConfigError naming the line otherwise."""
    import tomllib

    from pydantic import ValidationError

    from atlas.policy.rules import PolicyDocument

    shown = clean_line(path)
    try:
        text = raw.decode("utf-8")
        document = tomllib.loads(text)
    except UnicodeDecodeError:
        raise ConfigError(f"{shown}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:  # tomllib's message ends with the line and column
        raise ConfigError(f"{shown} is not valid TOML: {exc}") from None
    lines = text.splitlines()
    headers = [number for number, line in enumerate(lines, start=1) if _RULE_HEADER.match(line)]
    table: Any = document.get("policy", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{shown}:{_line_of(lines, 'policy', 1)}: policy must be a table")
    try:
        parsed = PolicyDocument.model_validate(table)
    except ValidationError as exc:
        raise ConfigError(_problem(shown, lines, headers, table, exc)) from None
    if len(headers) != len(parsed.rules):  # rules written inline: the [policy] table's line is the best we know
        headers = [_header_line(lines, "policy")] * len(parsed.rules)
    return parsed, headers


def _problem(shown: str, lines: list[str], headers: list[int], table: dict[str, Any], exc: ValidationError) -> str:
    error = exc.errors()[0]
    field = (error.get("ctx") or {}).get("field")
    loc = [str(part) for part in error["loc"]] + ([str(field)] if isinstance(field, str) else [])
    message = error["msg"].removeprefix("Value error, ") + _given(error)
    if len(loc) >= 2 and loc[0] == "rules" and loc[1].isdigit():
        index = int(loc[1])
        start = headers[index] if index < len(headers) else _header_line(lines, "policy")
        rules = table.get("rules")
        raw_rule = rules[index] if isinstance(rules, list) and index < len(rules) else {}
        name = raw_rule.get("name") if isinstance(raw_rule, dict) else None
        label = f"rule {clean_line(name)!r}" if isinstance(name, str) else f"rule {index + 1}"
        line = _line_of(lines, loc[2], start) if len(loc) > 2 else start
        where = ".".join(loc[2:])
        return f"{shown}:{line}: {label}: {where + ': ' if where else ''}{message}"
    line = _header_line(lines, "policy." + loc[0]) if loc else 1
    return f"{shown}:{line}: policy.{'.'.join(loc)}: {message}"


_TOML_TYPES = {
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    str: "a string",
    list: "an array",
    dict: "a table",
}


def _given(error: Any) -> str:
    """`, got a string` for a value of the wrong type: strict rules say what they found instead."""
    if not str(error.get("type", "")).endswith("_type") or "input" not in error:
        return ""
    kind = _TOML_TYPES.get(type(error["input"]))
    return f", got {kind}" if kind else ""


def _header_line(lines: list[str], name: str) -> int:
    pattern = re.compile(r"^\s*\[+\s*" + re.escape(name).replace(r"\.", r"\s*\.\s*") + r"\s*\]")
    return next((number for number, line in enumerate(lines, start=1) if pattern.match(line)), 1)


def _line_of(lines: list[str], key: str, start: int) -> int:
    """The line of `key = ...` in the table that starts at `start`, else `start`."""
    assignment = re.compile(r"^\s*" + re.escape(key) + r"\s*=")
    for number in range(start + 1, len(lines) + 1):
        line = lines[number - 1]
        if _ANY_HEADER.match(line):
            break
        if assignment.match(line):
            return number
    return start


def widens_nothing(document: PolicyDocument) -> bool:
    """Whether trusting this file lets nothing in it allow, nor widen an allow: no allow rule, no label group."""
    return not document.label_groups and all(rule.decision != "allow" for rule in document.rules)
