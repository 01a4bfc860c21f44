"""`atlas doctor`: one screen saying what Atlas will use and whether it works.

Each check is a line: the model and its API, the dataset, the state folder (and the team's shared
database when one is set), the tool plugins,
telemetry and the versions. Only what the chosen setup needs can fail the run (exit 1): an unreachable API is
only a note while the model is `offline`.
"""

from __future__ import annotations

import os
import platform
import sqlite3
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from atlas import __version__
from atlas.dataset.ensure import db_freshness, db_path, jsonl_path
from atlas.foundation.config import (
    OFFLINE_MODEL,
    Settings,
    atlas_home,
    base_url_setting,
    data_dir,
    model_api,
    state_folder,
)
from atlas.foundation.errors import ConfigError
from atlas.foundation.sanitize import clean_line, write_line
from atlas.foundation.url_safety import redact_url, scrub
from atlas.ui.json_out import print_json
from atlas.ui.render import make_console, print_trimmed

PROBE_TIMEOUT_S = 3.0
DEFAULT_BASE_URL = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "atlas-no-key"
"""The key the adapters send a named server when none is set (`atlas.llm.openai_client`, which imports openai)."""


@dataclass
class Check:
    """One line of the report: `ok` False and `needed` True is what makes `doctor` exit 1."""

    name: str
    ok: bool
    detail: str
    needed: bool = True
    facts: dict[str, Any] = field(default_factory=dict)


def _uses_api(model: str) -> bool:
    return model != OFFLINE_MODEL and not model.startswith("replay:")


def probe(base_url: str, key: str) -> tuple[bool, str]:
    """Whether the API answers `GET /models` within a few seconds, and what it said (credentials hidden)."""
    import httpx  # the openai SDK's own transport; only doctor pays for it

    try:
        answer = httpx.get(f"{base_url}/models", headers={"Authorization": f"Bearer {key}"}, timeout=PROBE_TIMEOUT_S)
    except httpx.TimeoutException:
        return False, f"no answer within {PROBE_TIMEOUT_S:g} s"
    except (httpx.HTTPError, ValueError) as exc:  # an unusable URL is the user's to fix, not a crash
        return False, f"unreachable ({type(exc).__name__}: {scrub(str(exc), [base_url])})"
    if answer.status_code in (401, 403):
        return False, f"reachable, but the key was refused ({answer.status_code})"
    return True, f"reachable ({answer.status_code})"


API_NAMES = {"responses": "Responses API", "chat": "Chat Completions"}


def check_model(model: str) -> list[Check]:
    """The model, and the API it is asked through: the configured base URL and wire, probed as Atlas calls it."""
    needed = _uses_api(model)
    try:
        api = model_api()
        named = base_url_setting()
    except ConfigError as exc:
        return [Check("model", True, model, facts={"model": model}), Check("api", not needed, str(exc), needed=needed)]
    real_url = (named or DEFAULT_BASE_URL).rstrip("/")
    shown = redact_url(real_url)
    if model == OFFLINE_MODEL:
        about = "the built-in offline planner: no API needed"
    elif model.startswith("replay:"):
        about = "a replay script: no API needed"
    else:
        about = f"a model asked through the {API_NAMES[api]}"
    checks = [Check("model", True, f"{model} ({about})", facts={"model": model})]
    key = os.environ.get("OPENAI_API_KEY", "").strip()
    facts: dict[str, Any] = {"base_url": shown, "api": api, "key": bool(key)}
    where = f"{shown} · {API_NAMES[api]}"
    if not key and not named:
        detail = f"no OPENAI_API_KEY · {where}" + (" · set OPENAI_API_KEY or use --model offline" if needed else "")
        checks.append(Check("api", not needed, detail, needed=needed, facts=facts))
        return checks
    # A server named by a base URL gets the placeholder key Atlas sends it: local servers ask for none.
    reachable, said = probe(real_url, key or PLACEHOLDER_KEY)
    facts["reachable"] = reachable
    keyed = "key set" if key else "no key (a named server may need none)"
    if not reachable and not key and "refused" in said:
        said += ": this server needs OPENAI_API_KEY"
    hint = "" if reachable or not needed else " · try --model offline"
    checks.append(Check("api", reachable, f"{keyed} · {where} · {said}{hint}", needed=needed, facts=facts))
    return checks


def check_dataset(data: Path) -> Check:
    named = "ORBIT_DATA" if os.environ.get("ORBIT_DATA", "").strip() else "bundled"
    facts: dict[str, Any] = {"path": str(data), "from": named}
    db, jsonl = db_path(data), jsonl_path(data)
    if not db.is_file() and not jsonl.is_file():
        return Check("dataset", False, f"{data} ({named}): no issues/orbit.db or issues/issues.jsonl", facts=facts)
    try:
        freshness = "db only (no issues.jsonl)" if not jsonl.is_file() else _db_state(db, jsonl)
        issues = _count_issues(db) if db.is_file() else None
    except (OSError, sqlite3.Error) as exc:
        return Check("dataset", False, f"{data} ({named}): cannot be read ({exc})", facts=facts)
    docs = len(list((data / "docs").glob("*.md"))) if (data / "docs").is_dir() else 0
    facts.update(issues=issues, docs=docs, db=freshness)
    shown = "issues unknown until the db is built" if issues is None else f"{issues:,} issues"
    return Check("dataset", True, f"{data} ({named}) · {shown} · {docs} docs · {freshness}", facts=facts)


def check_project(data: Path) -> Check:
    """What Atlas inferred of the project's labels and data: never a failure, only what it will use."""
    from atlas.commands.project_summary import facts, summarize, summary_line
    from atlas.foundation.errors import AtlasError

    try:
        summary = summarize(data, atlas_home(), questions=False)
    except AtlasError as exc:  # said in full by the line it concerns (the dataset, the state folder)
        return Check(
            "project", False, "labels not read; `atlas inbox` says why", needed=False, facts={"error": str(exc)}
        )
    return Check("project", True, summary_line(summary), facts=facts(summary))


def _db_state(db: Path, jsonl: Path) -> str:
    fresh = db_freshness(db, jsonl, atlas_home())
    if fresh is None:
        return "db busy (held by another process)"
    return "db fresh" if fresh else "db stale (rebuilt on first use)"


def _count_issues(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.5)
    try:
        return int(conn.execute("SELECT count(*) FROM issues").fetchone()[0])
    finally:
        conn.close()


def check_state() -> Check:
    folder = state_folder()
    path = folder.path
    # A folder not made yet is fine when the nearest existing folder above it can take it.
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    writable = existing is not None and existing.is_dir() and os.access(existing, os.W_OK | os.X_OK)
    state = ("writable" if path.exists() else "created on first use") if writable else "NOT writable"
    facts = {"path": str(path), "found_by": folder.found_by, "writable": writable}
    return Check("state", writable, f"{path} ({folder.found_by}) · {state}", facts=facts)


def check_plugins() -> Check:
    from atlas.foundation.config import tool_modules
    from atlas.runtime.toolset import load_registry

    problems: list[str] = []
    registry = load_registry(on_problem=problems.append)
    modules = tool_modules()
    facts = {"tools": len(registry), "modules": modules, "failed": problems}
    detail = f"{len(registry)} tools · " + (", ".join(modules) if modules else "no ATLAS_TOOL_MODULES")
    if problems:
        detail += " · " + " · ".join(problems)
    # A broken plugin is skipped, never fatal: it is reported, not failed on.
    return Check("plugins", not problems, detail, needed=False, facts=facts)


def check_mcp(home: Path) -> Check:
    """The configured MCP servers: readable, trusted where they must be, and the SDK there to run them."""
    from atlas.foundation.errors import AtlasError
    from atlas.mcp.config import load_servers
    from atlas.mcp.offer import mcp_sdk_missing
    from atlas.mcp.trust import trust_for

    try:
        servers = [server for server in load_servers(home) if server.enabled]
        waiting = trust_for(home).split(servers)[1]
    except AtlasError as exc:
        return Check("mcp", False, str(exc), facts={"error": str(exc)})
    facts: dict[str, Any] = {"servers": [s.name for s in servers], "untrusted": [s.name for s in waiting]}
    if not servers:
        return Check("mcp", True, "no MCP servers configured", facts=facts)
    missing = mcp_sdk_missing()
    facts["sdk"] = missing is None
    detail = f"{len(servers)} server{'s' if len(servers) != 1 else ''} ({', '.join(facts['servers'])})"
    if missing is not None:
        return Check("mcp", False, f"{detail}, but {missing}", facts=facts)
    if waiting:
        names = ", ".join(facts["untrusted"])
        return Check("mcp", False, f"{detail} · not trusted, not started: {names} (atlas mcp trust NAME)", needed=False)
    return Check("mcp", True, f"{detail} · SDK installed", facts=facts)


def check_telemetry() -> Check:
    """Whether traces are on (and where from), and whether their endpoint takes them."""
    from atlas.telemetry import telemetry_settings
    from atlas.telemetry.start import INSTALL_HINT, sdk_installed

    folder = state_folder()
    settings = telemetry_settings(folder.path, chosen_folder=not folder.found_by.startswith("the nearest"))
    if not settings.enabled:
        return Check("telemetry", True, "off (OTEL_EXPORTER_OTLP_ENDPOINT turns it on)", facts={"enabled": False})
    from atlas.telemetry.probe import probe_endpoint

    facts: dict[str, Any] = {"enabled": True, "endpoint": settings.shown_endpoint, "source": settings.source}
    facts["sdk"] = sdk_installed()
    answers, said = probe_endpoint(settings)
    facts["answers"] = answers
    detail = f"on ({settings.source}) · {settings.shown_endpoint} · {said}"
    if not facts["sdk"]:
        detail += f" · the OpenTelemetry SDK is not installed: {INSTALL_HINT}"
    return Check("telemetry", answers and facts["sdk"], detail, facts=facts)


def check_versions() -> Check:
    found = {"atlas": __version__, "python": platform.python_version()}
    for package in ("openai", "typer", "rich"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = "missing"
    return Check("versions", True, " · ".join(f"{name} {number}" for name, number in found.items()), facts=found)


def check_shared_state(home: Path) -> Check:
    """The team's shared database when one is set: reachable and migrated, or why not (without credentials)."""
    from atlas.foundation.errors import AtlasError
    from atlas.state.open import require_shared_state

    try:
        shown = require_shared_state(home)
    except AtlasError as exc:
        return Check("team", False, str(exc), facts={"enabled": True, "error": str(exc)})
    if not shown:
        return Check("team", True, "off: the state folder's own files (ATLAS_STATE_URL shares them)",
                     needed=False, facts={"enabled": False})  # fmt: skip
    return Check("team", True, f"{shown} · reachable, tables up to date", facts={"enabled": True, "url": shown})


def run_doctor(*, as_json: bool, model: str | None = None) -> int:
    """Print the report; 1 when something the chosen setup needs is broken."""
    settings_model = model or Settings().model
    checks = [
        *check_model(settings_model),
        check_dataset(data_dir()),
        check_project(data_dir()),
        check_state(),
        check_shared_state(atlas_home()),
        check_plugins(),
        check_mcp(atlas_home()),
        check_telemetry(),
        check_versions(),
    ]
    broken = any(not check.ok and check.needed for check in checks)
    if as_json:
        print_json({"ok": not broken, "checks": [asdict(check) for check in checks]})
        return 1 if broken else 0
    # A grid, so that a long line wraps under its own column and the names stay a column.
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(overflow="fold")
    for check in checks:
        mark, style = ("✓", "green") if check.ok else ("✗", "red") if check.needed else ("!", "yellow")
        grid.add_row(Text(mark, style=style), check.name, Text(clean_line(check.detail)))
    print_trimmed(make_console(), grid)
    if broken:
        write_line("atlas: something Atlas needs is broken (✗ above)", err=True)
    return 1 if broken else 0
