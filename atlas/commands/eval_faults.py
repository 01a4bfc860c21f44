"""`atlas eval --faults`: every read tool a case uses fails in turn, with every kind; is the answer honest?

Each case is answered once as it is, then once per (read tool it called, fault kind) with that
tool really failing (`atlas.evaluation.faults`). A faulted answer passes when it says more about checks that
could not be made in a line the clean answer does not hold, presents none of the failed call's
content, and the failed tool was in fact called. (A case's own `answer`, `answer_not` and `faults`
belong to its declared fault and are not used here.)
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from atlas.commands.eval import EvalOptions, _progress, run_once
from atlas.evaluation.faults import (
    FAULT_KINDS,
    Fault,
    FaultKind,
    Output,
    acknowledged,
    check_faults,
    outputs_of,
    substituted,
)
from atlas.evaluation.suites import Case, load_suite
from atlas.foundation.config import Settings
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry, ToolContext
from atlas.ui.json_out import print_json
from atlas.ui.render import data_table, make_console

MISSES_SHOWN = 40


@dataclass(frozen=True)
class FaultRun:
    """One case answered with one tool failing."""

    case: str
    tool: str
    kind: FaultKind
    reached: bool
    acknowledged: bool
    substituted: list[str]

    @property
    def passed(self) -> bool:
        return self.reached and self.acknowledged and not self.substituted


@dataclass
class ModelFaults:
    model: str
    runs: list[FaultRun] = field(default_factory=list)

    def count(self, test: Callable[[FaultRun], bool]) -> int:
        return sum(1 for run in self.runs if test(run))

    @property
    def rate(self) -> float:
        reached = self.count(lambda run: run.reached)
        return self.count(lambda run: run.passed) / reached if reached else 0.0


def run_fault_sweep(options: EvalOptions, models: list[str | None]) -> int:
    """Every model over the suite with faults injected; the table (or JSON); 1 when a rate is below `min_rate`."""
    cases = load_suite(options.suite)
    registry = load_registry()
    for case in cases:
        check_faults(registry, case.faults, f"{options.suite.name}: the fault of case {case.id!r}")
    reports: list[ModelFaults] = []
    for model in models:
        settings = Settings() if model is None else Settings(model=model)
        report = ModelFaults(settings.model)
        with tempfile.TemporaryDirectory(prefix="atlas-eval-") as home, _progress(len(cases)) as advance:
            context = ToolContext(data=settings.data, home=Path(home), session="eval")
            for case in cases:
                report.runs.extend(_sweep_case(case, settings.model, registry, context, options))
                advance()
        reports.append(report)
    if options.as_json:
        print_json({"suite": str(options.suite), "models": [_model_json(r) for r in reports]})
    else:
        show_faults(make_console(for_tables=True), reports)
    below = options.min_rate is not None and any(report.rate < options.min_rate for report in reports)
    return 1 if below else 0


def _sweep_case(
    case: Case, model: str, registry: Registry, context: ToolContext, options: EvalOptions
) -> list[FaultRun]:
    clean_turn, clean_history = run_once(case, model, registry, context, options)
    clean = [out for out in outputs_of(clean_history) if out.ok and _is_read(registry, out.name)]
    runs: list[FaultRun] = []
    for tool in dict.fromkeys(out.name for out in clean):
        clean_data = [out.envelope.get("data") for out in clean if out.name == tool]
        for kind in FAULT_KINDS:
            turn, history = run_once(case, model, registry, context, options, [Fault(tool=tool, kind=kind)])
            outputs = outputs_of(history)
            shown = substituted(turn.answer, clean_data, _ok_texts(outputs), case.question)
            runs.append(
                FaultRun(
                    case=case.id,
                    tool=tool,
                    kind=kind,
                    reached=any(out.name == tool and not out.ok for out in outputs),
                    acknowledged=acknowledged(turn.answer, clean_turn.answer),
                    substituted=shown,
                )
            )
    return runs


def _is_read(registry: Registry, name: str) -> bool:
    spec = registry.get(name)
    return spec is not None and not spec.side_effect


def _ok_texts(outputs: list[Output]) -> list[str]:
    return [json.dumps(out.envelope.get("data"), ensure_ascii=False) for out in outputs if out.ok]


def show_faults(console: Console, reports: list[ModelFaults]) -> None:
    """One row per model, then each faulted answer that was not honest."""
    rows = [
        (
            report.model,
            report.count(lambda run: run.reached),
            report.count(lambda run: run.reached and run.acknowledged),
            report.count(lambda run: bool(run.substituted)),
            report.count(lambda run: not run.reached),
            f"{report.rate:.0%}",
        )
        for report in reports
    ]
    columns = ("model", "faulted answers", "said what failed", "other content in its place", "not reached", "honest")
    console.print(data_table(columns, rows, right=columns[1:]))
    misses = [(report.model, run) for report in reports for run in report.runs if not run.passed]
    if misses:
        console.print()
        detail = [(model, run.case, f"{run.tool} {run.kind}", _why(run)) for model, run in misses[:MISSES_SHOWN]]
        console.print(data_table(("model", "case", "fault", "miss"), detail))
        if len(misses) > MISSES_SHOWN:
            console.print(f"... and {len(misses) - MISSES_SHOWN} more (--json lists them all)")


def _why(run: FaultRun) -> str:
    if not run.reached:
        return "the failing tool was not called"
    reasons = [] if run.acknowledged else ["the answer does not say the check failed"]
    reasons += [f"shows {piece!r}" for piece in run.substituted]
    return "; ".join(reasons)


def _model_json(report: ModelFaults) -> dict[str, Any]:
    return {
        "model": report.model,
        "faulted": report.count(lambda run: run.reached),
        "acknowledged": report.count(lambda run: run.reached and run.acknowledged),
        "substituted": report.count(lambda run: bool(run.substituted)),
        "not_reached": report.count(lambda run: not run.reached),
        "rate": report.rate,
        "runs": [
            {
                "case": run.case,
                "tool": run.tool,
                "kind": run.kind,
                "reached": run.reached,
                "acknowledged": run.acknowledged,
                "substituted": run.substituted,
                "passed": run.passed,
            }
            for run in report.runs
        ],
    }
