"""`atlas eval`: run a suite of questions through the real loop and score the calls the model planned.

Each case runs through `run_turn` with the real executor and tools on the configured dataset,
but no side effect ever runs: the approver records every action asked for and denies it, and the
state folder is a fresh temporary one, so the tracker and the call log are left untouched.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from atlas.conversation.loop import TurnResult, TurnSettings, run_turn
from atlas.evaluation.faults import Fault, Faults, check_faults
from atlas.evaluation.suites import Case, CaseResult, PlannedCall, TagScore, by_tag, load_suite, overall, score
from atlas.executor.executor import ToolExecutor
from atlas.foundation.config import Settings
from atlas.foundation.errors import AtlasError, ModelError
from atlas.foundation.sanitize import clean_line
from atlas.protocol.events import ApprovalRequest
from atlas.runtime.runner import run_cancellable
from atlas.runtime.session import resolve
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry, ToolContext
from atlas.ui.json_out import print_json
from atlas.ui.render import data_table, make_console

MISSES_SHOWN = 40


@dataclass(frozen=True)
class EvalOptions:
    suite: Path
    model: str | None = None
    as_json: bool = False
    min_rate: float | None = None
    max_rounds: int = 5
    timeout_s: float = 5.0


class RecordingApprover:
    """Denies every side effect, and keeps what was asked for so the report can show it."""

    def __init__(self) -> None:
        self.requests: list[ApprovalRequest] = []

    def __call__(self, request: ApprovalRequest, /) -> bool:
        self.requests.append(request)
        return False


def run_eval(options: EvalOptions) -> int:
    """Run every case; print the table (or JSON); 1 when the pass rate is below `min_rate`."""
    cases = load_suite(options.suite)
    settings = Settings() if options.model is None else Settings(model=options.model)
    registry = load_registry()
    for case in cases:
        check_faults(registry, case.faults, f"{options.suite.name}: the fault of case {case.id!r}")
    results: list[CaseResult] = []
    with tempfile.TemporaryDirectory(prefix="atlas-eval-") as home, _progress(len(cases)) as advance:
        context = ToolContext(data=settings.data, home=Path(home), session="eval", tracker=settings.tracker)
        for case in cases:
            results.append(_run_case(case, settings.model, registry, context, options))
            advance()
    total = overall(results)
    if options.as_json:
        print_json(report_json(options, settings.model, results, total))
    else:
        show_report(make_console(for_tables=True), settings.model, results, total)
    return 1 if options.min_rate is not None and total.rate < options.min_rate else 0


def _run_case(
    case: Case, model_name: str, registry: Registry, context: ToolContext, options: EvalOptions
) -> CaseResult:
    """One case through the real loop, its faults injected; a failure of the run (not of the model's wire) is a miss."""
    try:
        turn, _ = run_once(case, model_name, registry, context, options, case.faults)
    except ModelError:
        raise  # the model's wire failed: every other case would fail the same way
    except AtlasError as exc:
        failed = score(case, [], "")
        failed.misses.insert(0, f"the run failed: {exc}")
        return failed
    planned = [
        PlannedCall(
            round=record.round,
            tool=record.name,
            args=record.arguments,
            kind=record.kind,
            side_effect=record.name in registry and registry[record.name].side_effect,
        )
        for record in turn.calls
    ]
    return score(case, planned, turn.answer)


def run_once(
    case: Case,
    model_name: str,
    registry: Registry,
    context: ToolContext,
    options: EvalOptions,
    faults: Sequence[Fault] = (),
) -> tuple[TurnResult, list[dict[str, Any]]]:
    """The case's question answered once with these tools failing: the turn and the conversation it made."""
    injected = Faults(registry, faults)
    executor = ToolExecutor(
        injected.registry,
        timeout_s=options.timeout_s,
        approve=RecordingApprover(),
        session=f"eval-{case.id}",
        context=context,
    )
    history: list[dict[str, Any]] = []
    try:
        turn = run_cancellable(
            run_turn(
                case.question,
                history,
                model=resolve(model_name),
                executor=executor,
                session=f"eval-{case.id}",
                settings=TurnSettings(max_rounds=options.max_rounds),
            )
        )
    finally:
        injected.release()
    return turn, history


@contextmanager
def _progress(total: int) -> Iterator[Any]:
    """A progress bar on stderr when it is a terminal; elsewhere nothing."""
    if not sys.stderr.isatty():
        yield lambda: None
        return
    progress = Progress(
        TextColumn("eval"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=make_console(stderr=True),
        transient=True,
    )
    with progress:
        task = progress.add_task("eval", total=total)
        yield lambda: progress.advance(task)


def _rate(score_: TagScore) -> str:
    return f"{score_.rate:.0%}"


def show_report(console: Console, model: str, results: list[CaseResult], total: TagScore) -> None:
    """The table by tag, then each miss with what was planned."""
    rows = [(s.tag, s.cases, s.passed, _rate(s)) for s in [*by_tag(results), total]]
    console.print(data_table(("tag", "cases", "passed", "rate"), rows, right=("cases", "passed", "rate")))
    misses = [result for result in results if not result.passed]
    if misses:
        console.print()
        shown = misses[:MISSES_SHOWN]
        rows_missed = [
            (
                result.case.id,
                result.case.question,
                "; ".join(result.misses),
                "; ".join(f"{call.round}: {call.shown()}" for call in result.planned) or "nothing",
            )
            for result in shown
        ]
        console.print(data_table(("case", "question", "miss", "planned"), rows_missed))
        if len(misses) > len(shown):
            console.print(f"... and {len(misses) - len(shown)} more misses (--json lists them all)")
    console.print()
    console.print(f"{clean_line(model)}: {total.passed}/{total.cases} passed ({total.rate:.1%})")


def report_json(options: EvalOptions, model: str, results: list[CaseResult], total: TagScore) -> dict[str, Any]:
    return {
        "suite": str(options.suite),
        "model": model,
        "cases": total.cases,
        "passed": total.passed,
        "rate": total.rate,
        "tags": {s.tag: {"cases": s.cases, "passed": s.passed, "rate": s.rate} for s in by_tag(results)},
        "results": [
            {
                "id": result.case.id,
                "question": result.case.question,
                "tags": result.case.tags,
                "passed": result.passed,
                "misses": result.misses,
                "planned": [
                    {"round": c.round, "tool": c.tool, "args": c.args, "kind": c.kind, "side_effect": c.side_effect}
                    for c in result.planned
                ],
            }
            for result in results
        ],
    }
