"""What a human is shown before a side effect runs, how their answer is read, and the call's idempotency key."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from atlas.executor import threads
from atlas.foundation.errors import BadArguments
from atlas.protocol.events import ApprovalRequest, Approver, BatchApprover
from atlas.tools.registry import Declared, ToolContext, ToolSpec, WriteLimits, lax_arguments


def idempotency_key(session: str, call_id: str) -> str:
    """The same (session, call_id) always yields the same key, so a replayed call never writes twice."""
    return hashlib.sha256(f"{session}:{call_id}".encode()).hexdigest()[:32]


class Verdict(NamedTuple):
    """What the policy says about one side effect before anyone is asked."""

    decision: str
    """`allow` or `deny` (decided: nobody is asked), or `ask` (a person decides)."""
    decided_by: str = ""
    """`rule:NAME` when a rule decided; empty when a person is to decide."""
    note: str = ""
    """Why, for the person or the model (`rule no-comments: ...`, a guard that applied)."""
    scopes: tuple[tuple[str, str], ...] = ()
    """What the prompt may offer besides y/N, with what each allows (`session`, `project`)."""
    limits: WriteLimits | None = None
    """For an `allow` by a rule: its counts, checked again when the write is recorded."""


class PolicyHook(Protocol):
    """The approval policy the executor consults for each side effect before asking a person."""

    def decide(
        self, tool: Declared, arguments: dict[str, Any], untrusted: Sequence[str], context: ToolContext
    ) -> Verdict:
        """The verdict on a call of `tool` (whose MCP hints rules may name), with these arguments."""
        ...

    def grant(self, scope: str, tool: Declared, arguments: dict[str, Any], context: ToolContext) -> str:
        """Allow this action (`session`) or actions like it (`project`) from now; says what was granted."""
        ...


def preview_of(spec: ToolSpec[Any], args: object, context: ToolContext, arguments: dict[str, Any] | str) -> str:
    """The tool's own preview of its effect; if it has none or it fails, the plain call."""
    if spec.preview is not None:
        try:
            return spec.preview(args, context)
        except Exception:  # a broken preview must not hide the call: show what would run
            pass
    shown = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return f"{spec.name}({shown})"


async def settled_without_asking(spec: ToolSpec[Any], args: object, context: ToolContext) -> Any | None:
    """The tool's own `check`, off the event loop: its result when the call would change nothing,
    None when a person must decide; it raises when the call would be refused."""
    if spec.check is None:
        return None
    return await threads.run_in_thread(spec.check, args, context, name="atlas-check", track=False)


EditSink = Callable[[object, dict[str, Any]], None]
"""Told the arguments of an edit that was shown, so the call runs with exactly the text approved."""


def editable_request(
    spec: ToolSpec[Any],
    call_id: str,
    args: object,
    context: ToolContext,
    arguments: dict[str, Any] | str,
    untrusted_sources: list[str],
    on_edit: EditSink,
) -> ApprovalRequest:
    """The request, and for a tool with an editable text, how to ask again about an edited text."""
    request = ApprovalRequest(
        call_id=call_id,
        name=spec.name,
        arguments=arguments if isinstance(arguments, dict) else {},
        preview=preview_of(spec, args, context, arguments),
        untrusted_sources=list(untrusted_sources),
    )
    field = spec.editable
    if field is None or not isinstance(arguments, dict) or not isinstance(getattr(args, field, None), str):
        return request

    def edit(text: str) -> ApprovalRequest:
        if not text.strip():
            raise ValueError("the text is empty")
        changed = {**arguments, field: text}
        try:
            edited = lax_arguments(spec.args_model, changed)
        except BadArguments as exc:
            raise ValueError(str(exc)) from None
        on_edit(edited, changed)
        return editable_request(spec, call_id, edited, context, changed, untrusted_sources, on_edit)

    return dataclasses.replace(request, editable_text=str(getattr(args, field)), edit=edit)


RequestBuilder = Callable[[], ApprovalRequest]
"""Builds one call's request when it is asked, so its untrusted sources are those read by then."""


def decide_together(approve: BatchApprover, builders: list[RequestBuilder]) -> set[str]:
    """One question for all: only the asked call ids the approver returns are approved."""
    requests = [build() for build in builders]
    answer = approve(requests)
    if not isinstance(answer, (set, frozenset)):
        return set()
    asked = {request.call_id for request in requests}
    return {call_id for call_id in answer if isinstance(call_id, str) and call_id in asked}


def decide_each(approve: Approver, builders: list[RequestBuilder]) -> set[str]:
    """One question per call, in order; each request is built just before it is asked."""
    approved: set[str] = set()
    for build in builders:
        request = build()
        try:
            if approve(request) is True:
                approved.add(request.call_id)
        except Exception:  # a crashing approver is a no, for this request
            continue
    return approved


class BatchGate:
    """Holds a response's side effects until each has either asked or left, then decides them at once.

    The executor makes one per batch, knowing how many side effects passed its checks; each of
    them `submit`s how to build its request or `leave`s (it was settled without asking). The last
    to arrive runs `decide` (in a worker thread: it may block on the terminal) for all of them.
    """

    def __init__(
        self, expected: int, decide: Callable[[list[RequestBuilder]], set[str]], one_prompt: asyncio.Lock
    ) -> None:
        self.expected = expected
        self._decide = decide
        self._one_prompt = one_prompt
        self._waiting: list[tuple[int, RequestBuilder, asyncio.Future[set[str]]]] = []
        self._left = 0

    async def submit(self, call_id: str, position: int, build: RequestBuilder) -> bool:
        """Whether this call was approved; `position` in the response orders the question's list."""
        answer: asyncio.Future[set[str]] = asyncio.get_running_loop().create_future()
        self._waiting.append((position, build, answer))
        await self._maybe_decide()
        return call_id in await answer

    async def leave(self) -> None:
        self._left += 1
        await self._maybe_decide()

    async def _maybe_decide(self) -> None:
        if not self._waiting or len(self._waiting) + self._left < self.expected:
            return
        waiting, self._waiting = sorted(self._waiting, key=lambda waiter: waiter[0]), []
        approved: set[str] = set()
        try:
            async with self._one_prompt:  # batches of concurrent turns never share the terminal
                builders = [build for _, build, _ in waiting]
                approved = await threads.run_in_thread(self._decide, builders, name="atlas-approval", track=False)
        except asyncio.CancelledError:
            raise
        except Exception:  # a broken preview or approver approves nothing
            approved = set()
        finally:
            for _, _, answer in waiting:
                if not answer.done():
                    answer.set_result(approved)


async def request_approval(approve: Approver, request: ApprovalRequest) -> bool:
    """Ask in a worker thread (the approver may block on the terminal); only a returned `True` approves."""
    try:
        answer = await threads.run_in_thread(approve, request, name="atlas-approval", track=False)
    except asyncio.CancelledError:
        raise
    except Exception:  # a crashing approver is a no
        return False
    return answer is True
