"""What a human is shown before a side effect runs, how their answer is read, and the call's idempotency key."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

from pydantic import BaseModel

from atlas.events import ApprovalRequest, Approver
from atlas.tools import threads
from atlas.tools.registry import ToolContext, ToolSpec


def idempotency_key(session: str, call_id: str) -> str:
    """The same (session, call_id) always yields the same key, so a replayed call never writes twice."""
    return hashlib.sha256(f"{session}:{call_id}".encode()).hexdigest()[:32]


def preview_of(spec: ToolSpec[Any], args: BaseModel, context: ToolContext, arguments: dict[str, Any] | str) -> str:
    """The tool's own preview of its effect; if it has none or it fails, the plain call."""
    if spec.preview is not None:
        try:
            return spec.preview(args, context)
        except Exception:  # a broken preview must not hide the call: show what would run
            pass
    shown = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return f"{spec.name}({shown})"


def approval_request(
    spec: ToolSpec[Any],
    call_id: str,
    args: BaseModel,
    context: ToolContext,
    arguments: dict[str, Any] | str,
    untrusted_sources: list[str],
) -> ApprovalRequest:
    return ApprovalRequest(
        call_id=call_id,
        name=spec.name,
        arguments=arguments if isinstance(arguments, dict) else {},
        preview=preview_of(spec, args, context, arguments),
        untrusted_sources=list(untrusted_sources),
    )


async def settled_without_asking(spec: ToolSpec[Any], args: BaseModel, context: ToolContext) -> Any | None:
    """The tool's own `check`, off the event loop: its result when the call would change nothing,
    None when a person must decide; it raises when the call would be refused."""
    if spec.check is None:
        return None
    return await threads.run_in_thread(spec.check, args, context, name="atlas-check", track=False)


async def ask(approve: Approver, request: ApprovalRequest) -> bool:
    """Ask in a worker thread (the approver may block on the terminal); only a returned `True` approves."""
    try:
        answer = await threads.run_in_thread(approve, request, name="atlas-approval", track=False)
    except asyncio.CancelledError:
        raise
    except Exception:  # a crashing approver is a no
        return False
    return answer is True
