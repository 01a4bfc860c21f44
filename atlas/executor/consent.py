"""The consent step of a side effect: its own check, then the approval policy, then a person.

A call its check settles (nothing would change, or it would be refused) is answered without
anyone. Otherwise the policy decides first (`allow` and `deny` rules, the built-in guards); only
what it leaves to a person reaches the batch's one question. Whoever decided is kept on the call
(`decided_by`) and in the context its tool runs with, so the tracker records it too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, NamedTuple

from atlas.executor import threads
from atlas.executor.approvals import BatchGate, PolicyHook, Verdict, editable_request, settled_without_asking
from atlas.executor.attempts import failure_outcome
from atlas.executor.outcomes import CallState, Outcome, error
from atlas.executor.turn import Turn
from atlas.foundation.errors import ErrorKind
from atlas.protocol.envelope import envelope_ok
from atlas.protocol.events import ApprovalRequest, Phase
from atlas.tools.registry import ToolContext, ToolSpec

Emit = Callable[..., None]
"""`emit(state, phase, message=...)`: the executor's event for this call."""
ASK = Verdict("ask")


async def settle_unasked(spec: ToolSpec[Any], args: object, context: ToolContext) -> Outcome | None:
    """A side effect that would change nothing, or would be refused, is answered without a prompt."""
    try:
        unchanged = await settled_without_asking(spec, args, context)
    except Exception as exc:
        refusal = failure_outcome(exc, spec.name)
        # Only a refusal is final; a busy file or a broken check is left to the person and the tool.
        return refusal if refusal.kind in (ErrorKind.PERMANENT, ErrorKind.BAD_ARGS) else None
    return None if unchanged is None else Outcome(ErrorKind.OK, envelope_ok(unchanged))


async def verdict_of(call: Consenting, context: ToolContext) -> Verdict:
    """The policy's verdict, off the event loop (it reads the tracker and the db); a person decides when it fails."""
    policy, state = call.policy, call.state
    if policy is None or not isinstance(state.arguments, dict):
        return ASK
    sources = list(call.turn.untrusted_sources)
    try:
        verdict = await threads.run_in_thread(
            policy.decide, call.spec, state.arguments, sources, context, name="atlas-policy", track=False
        )
    except Exception:  # a broken policy never allows: the person decides, and with no terminal it is denied
        return ASK
    return verdict if isinstance(verdict, Verdict) else ASK


class Consenting(NamedTuple):
    """One side effect on its way to consent: its call, its turn, its tool, its batch's one question,
    the approval policy, and where its events go."""

    state: CallState
    turn: Turn
    spec: ToolSpec[Any]
    gate: BatchGate
    policy: PolicyHook | None
    emit: Emit


async def consent(call: Consenting, args: object, context: ToolContext) -> Outcome | tuple[object, ToolContext]:
    """The arguments and context to run with (exactly what was approved), or the call's answer without running."""
    state, spec, gate = call.state, call.spec, call.gate
    settled = await settle_unasked(spec, args, context)
    if settled is not None:
        await gate.leave()
        return settled
    verdict = await verdict_of(call, context)
    if verdict.decision == "allow" and verdict.limits is not None:
        # The rule's counts are checked again where the write is recorded, under the journal's lock.
        limits = verdict.limits._replace(first_comment=verdict.limits.first_comment or context.limits.first_comment)
        context = dataclasses.replace(context, limits=limits)
    if verdict.decision in ("allow", "deny"):
        await gate.leave()
        state.approved, state.decided_by = verdict.decision == "allow", verdict.decided_by
        phase = Phase.APPROVED if state.approved else Phase.DENIED
        call.emit(state, phase, message=verdict.note, decided_by=state.decided_by)
        if not state.approved:
            return error(ErrorKind.DENIED, f"{spec.name} was denied by the approval policy: {verdict.note}")
    else:
        state.approved = await _ask(call, args, context, verdict)
        state.restart_clock()  # the time a person took to answer is not the call's
        if state.approved and state.edited is not None:
            args, state.arguments = state.edited  # exactly the text that was approved
        if not state.approved:
            return error(ErrorKind.DENIED, f"{spec.name} was not approved")
    return args, dataclasses.replace(context, decided_by=state.decided_by)


async def _ask(call: Consenting, args: object, context: ToolContext, verdict: Verdict) -> bool:
    """Wait for the batch's one question; the request is built when it is asked, so reads that
    finished meanwhile count as sources, and the preview (which may read files) runs off the loop."""
    state, spec, policy = call.state, call.spec, call.policy
    asked: list[ApprovalRequest] = []

    def remember(edited: object, arguments: dict[str, Any]) -> None:
        state.edited = (edited, arguments)

    def grant(scope: str, request: ApprovalRequest) -> str:
        assert policy is not None
        return policy.grant(scope, spec, request.arguments, context)

    def build() -> ApprovalRequest:
        sources = call.turn.untrusted_sources
        request = editable_request(spec, state.call.call_id, args, context, state.arguments, sources, remember)
        scoped = policy is not None and isinstance(state.arguments, dict)
        request = dataclasses.replace(
            request, note=verdict.note, scopes=verdict.scopes if scoped else (), grant=grant if scoped else None
        )
        asked.append(request)
        return request

    call.emit(state, Phase.AWAITING_APPROVAL, message=verdict.note or None)
    approved = await call.gate.submit(state.call.call_id, state.position, build)
    told = asked[-1].decided_by if asked else []
    state.decided_by = told[-1] if told else ("person" if approved else "nobody")
    call.emit(state, Phase.APPROVED if approved else Phase.DENIED, decided_by=state.decided_by)
    return approved
