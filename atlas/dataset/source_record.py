"""The shapes of a source record `atlas data` writes (imported, or synced from GitHub), checked strictly.

Imported only when a folder has a record to read: the bundled data has none, and most runs read none.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError


class _Imported(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    source: Literal["import"]
    file: str
    imported_at: str
    repo: str | None = None
    dataset: str | None = None
    comments_known: bool | None = None


class _Synced(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    source: Literal["sync"]
    repo: str
    api: str
    synced_at: str
    since: str | None
    list_etag: dict[str, str | None]
    updated: dict[str, str]
    comment_etags: dict[str, str]
    dataset: str | None = None


def check_record(state: dict[str, Any]) -> None:
    """Raise ValueError unless `state` is a record of the shape `atlas data` writes for its source."""
    model = _Imported if state.get("source") == "import" else _Synced
    try:
        model.model_validate(state)
    except ValidationError as exc:
        raise ValueError(f"not a source record: {exc.error_count()} problems") from None
