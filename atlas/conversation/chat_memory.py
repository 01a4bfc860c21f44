"""The last chat, kept in the state folder so that `atlas chat --continue` can take it up again.

One file, `last_chat.json`, rewritten after every turn through `statefiles` (never through a
link). It is bounded: the newest turns that fit in `MAX_TURNS` and `MAX_BYTES`, cut only where a
turn begins, so that every tool call kept still has its output. A file that cannot be read is
only a warning: the chat starts afresh.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atlas.foundation import statefiles

FILE_NAME = "last_chat.json"
MAX_TURNS = 50
MAX_BYTES = 512 * 1024
VERSION = 1


@dataclass
class SavedChat:
    """What a continued chat needs: the conversation, and where its untrusted text came from."""

    session: str
    model: str
    history: list[dict[str, Any]] = field(default_factory=list)
    untrusted_sources: list[str] = field(default_factory=list)

    @property
    def turns(self) -> int:
        return sum(1 for item in self.history if item.get("role") == "user")


def bounded(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The newest whole turns within `MAX_TURNS` and `MAX_BYTES`."""
    starts = [index for index, item in enumerate(history) if item.get("role") == "user"]
    kept = history[starts[-MAX_TURNS] :] if len(starts) > MAX_TURNS else history[starts[0] :] if starts else []
    while kept and len(json.dumps(kept).encode("utf-8")) > MAX_BYTES:
        later = [index for index, item in enumerate(kept) if item.get("role") == "user" and index > 0]
        kept = kept[later[0] :] if later else []
    return kept


def save(home: Path, chat: SavedChat) -> None:
    """Replace the kept chat with this one (written whole beside it, then renamed over it)."""
    body = {
        "version": VERSION,
        "session": chat.session,
        "model": chat.model,
        "history": bounded(chat.history),
        "untrusted_sources": chat.untrusted_sources,
    }
    data = json.dumps(body, ensure_ascii=True).encode("ascii")
    statefiles.replace_file(home / FILE_NAME, data)


def load(home: Path) -> SavedChat | None:
    """The kept chat; None when there is none. ValueError (one line) when it cannot be used."""
    try:
        raw = statefiles.read_bytes(home / FILE_NAME)
    except OSError as exc:
        raise ValueError(f"the last chat in {home / FILE_NAME} cannot be read: {exc}") from None
    if raw is None:
        return None
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise ValueError(f"the last chat in {home / FILE_NAME} is not valid JSON") from None
    if not _well_formed(body):
        raise ValueError(f"the last chat in {home / FILE_NAME} is not in the expected shape")
    return SavedChat(
        session=body["session"],
        model=body["model"],
        history=bounded(body["history"]),
        untrusted_sources=body["untrusted_sources"],
    )


def _well_formed(body: Any) -> bool:
    return (
        isinstance(body, dict)
        and body.get("version") == VERSION
        and isinstance(body.get("session"), str)
        and isinstance(body.get("model"), str)
        and isinstance(body.get("history"), list)
        and all(isinstance(item, dict) for item in body["history"])
        and isinstance(body.get("untrusted_sources"), list)
        and all(isinstance(source, str) for source in body["untrusted_sources"])
    )
