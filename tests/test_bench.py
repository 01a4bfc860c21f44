"""The benchmark runner's pieces work on tiny inputs; nothing here judges speed."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import bench.__main__ as runner
from atlas.calllog import CallLog
from atlas.foundation.errors import ErrorKind
from atlas.protocol.messages import ToolCall
from atlas.tools.registry import Registry, ToolContext
from bench import deadlines, log_scale, overhead, parallel, startup
from bench.core import REPO, Figure, absolute_figure, ratio_figure
from tests.support.fitted import seed_fitted


def test_ratio_and_absolute_figures_judge_their_targets() -> None:
    fast = ratio_figure("batch", 2.02, 2.0, limit=1.05, against="slowest")
    slow = absolute_figure("help", 0.31, limit=0.2, unit="s", baseline=0.01, against="python -c pass")
    assert fast.met is True and fast.ratio == pytest.approx(1.01)
    assert slow.met is False and slow.ratio == pytest.approx(31.0)
    assert slow.measured == "0.310 s vs 0.010 s python -c pass"


def test_table_is_markdown_with_one_row_per_figure() -> None:
    figures = [
        Figure("a | b", "1 s", 1.5, "ratio ≤ 1.1", False, "why").as_json(),
        Figure("info", "2 ms", None, "—", None).as_json(),
    ]
    text = runner.table({"tools": {"figures": figures}})
    lines = text.splitlines()
    assert len(lines) == 4
    assert lines[2] == "| 6 | a \\| b | 1 s | ratio ≤ 1.1 | 1.50 | **NO** | why |"
    assert lines[3].startswith("| 6 | info | 2 ms | — | — | — |")


def test_seed_batch_ends_as_the_figure_expects(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "ISSUE_LATENCY_S", {41: 0.01, 87: 0.01})
    monkeypatch.setattr(parallel, "DOC_LATENCY_S", 0.02)
    _wall, executor = parallel.run_batch(parallel.seed_registry(), parallel.seed_calls(), concurrency=4)
    assert sorted(record.kind for record in executor.log) == ["ok", "ok", "ok", "permanent"]


def test_overhead_sides_run_the_same_number_of_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: dict[str, list[None]] = {"executor": [], "to_thread": []}

    def counted(side: str) -> Callable[[overhead.NoArgs, ToolContext], None]:
        def noop(args: overhead.NoArgs, ctx: ToolContext) -> None:
            ran[side].append(None)  # list.append is atomic: the worker threads may call at once

        return noop

    executor_noop = overhead.REGISTRY["noop"]._replace(fn=counted("executor"))
    monkeypatch.setattr(overhead, "REGISTRY", Registry([executor_noop]))
    monkeypatch.setattr(overhead, "noop", counted("to_thread"))
    calls = [ToolCall(name="noop", arguments="{}", call_id=f"c{index}") for index in range(20)]
    assert overhead.through_executor(calls) > 0
    assert overhead.through_to_thread(20) > 0
    assert (len(ran["executor"]), len(ran["to_thread"])) == (20, 20)

    # The figure itself: every timed round runs CALLS on each side (the executor once more, logged).
    monkeypatch.setattr(overhead, "CALLS", 30)
    monkeypatch.setattr(overhead, "ROUNDS", 2)
    ran["executor"].clear()
    ran["to_thread"].clear()
    overhead.run()
    assert (len(ran["executor"]), len(ran["to_thread"])) == (30 * 2 + 30, 30 * 2)


def test_ask_process_with_the_plugin_tool_times_it_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deadlines, "PROCESS_RUNS", 1)
    shutil.copy(REPO / "bench" / "stuck_tool.py", tmp_path / "stuck_tool.py")
    # ask_process checks the replayed call's kind: ok when it answers in time, timeout when stuck.
    assert deadlines.ask_process(tmp_path, 0.0) > 0
    assert deadlines.ask_process(tmp_path, 1.0) > 0


def test_generated_log_rows_are_read_back_by_the_call_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_scale, "ROWS", 500)
    log_scale.build_big_log(tmp_path)
    log = CallLog.at_home(tmp_path)
    stats = {entry["name"]: entry for entry in log.stats()}
    assert sum(entry["calls"] for entry in stats.values()) == 500
    assert set(stats) <= set(log_scale.TOOLS) | {"list_docs"}
    timeouts = log.calls(limit=5, kind=ErrorKind.TIMEOUT)
    assert timeouts and all(call["kind"] == "timeout" and call["ms"] == 5000.0 for call in timeouts)
    with sqlite3.connect(log.path) as conn:
        assert conn.execute("SELECT count(DISTINCT session) FROM calls").fetchone()[0] == 51


def test_record_call_cost_is_measured_on_its_own_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_scale, "WRITES", 50)
    through_api, bare = log_scale.record_call_us(tmp_path)
    assert through_api > 0 and bare > 0
    with sqlite3.connect(tmp_path / "writes.db") as conn:
        assert conn.execute("SELECT count(*) FROM calls").fetchone()[0] == 1 + 50 + 50


def test_child_measurements_read_rss_and_imports(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import json"]
    assert startup.peak_rss_mb(argv, env={}, cwd=tmp_path) > 1
    packages, top = startup.imported_modules(argv, env={}, cwd=tmp_path)
    assert "json" in packages and "openai" not in packages
    assert len(top) == 3


def test_runner_writes_results_for_the_groups_it_ran(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results = tmp_path / "results.json"
    monkeypatch.setattr(runner, "RESULTS", results)
    monkeypatch.setattr(runner, "REPO", tmp_path)
    assert runner.main(["tools"]) == 0
    data = json.loads(results.read_text(encoding="utf-8"))
    assert list(data["groups"]) == ["tools"]
    names = [figure["name"] for figure in data["groups"]["tools"]["figures"]]
    assert names == ["get_issue p50 / p95", "search_issues p50 / p95"]


def test_unknown_group_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exited:
        runner.main(["nope"])
    assert exited.value.code == 2


def test_synthetic_datasets_build_and_answer(tmp_path: Path) -> None:
    from atlas.dataset.ensure import ensure_db
    from bench import scale
    from bench.synthetic import write_dataset

    data = write_dataset(tmp_path / "orbit", 200)
    db = ensure_db(data, tmp_path / "home")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*), count(DISTINCT created_at) FROM issues").fetchone() == (200, 200)
    search_p50, get_p50 = scale.tool_p50s(data, tmp_path / "home")
    assert search_p50 > 0 and get_p50 > 0


def test_the_chat_and_log_pieces_run_small(tmp_path: Path) -> None:
    from bench import scale, scale_chat

    result = scale_chat.run_chat(12, REPO / "datasets" / "orbit", tmp_path / "home")
    assert len(result["seconds"]) == 12 and set(result["rss_mb"]) == {"10", "12"}
    scale.fill_log(tmp_path / "log", 50)
    assert len(CallLog.at_home(tmp_path / "log").calls(limit=None)) == 50


def write_benchmark(folder: Path) -> None:
    """A tiny NLBSE-shaped benchmark: two projects, three labels, both halves, in the CSVs' own columns."""
    import csv

    says = {
        "bug": "It crashes with a traceback and an error after the upgrade",
        "feature": "Please add an option to support exporting, it would be nice to have",
        "question": "How do I configure this? Is there a way to find out why?",
    }
    folder.mkdir()
    for half, days in (("train", range(1, 9)), ("test", range(11, 15))):
        with (folder / f"issues_{half}.csv").open("w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file)
            writer.writerow(["repo", "created_at", "label", "title", "body"])
            for repo in ("acme/one", "acme/two"):
                for day in days:
                    for label, text in says.items():
                        title = f"{text.split(',')[0]} ({day})"
                        writer.writerow([repo, f"2023-01-{day:02d} 10:00:00", label, title, f"{text}.\n\n{day}"])


def test_the_nlbse_mode_imports_each_project_and_scores_the_published_split(tmp_path: Path) -> None:
    from bench import triage_nlbse

    write_benchmark(tmp_path / "nlbse")
    scores = triage_nlbse.evaluate(tmp_path / "nlbse")
    assert list(scores) == ["acme/one", "acme/two"]
    for runs in scores.values():
        assert runs["model"]["n"] == 12 and runs["baseline"]["n"] == 12  # the test half only
        assert runs["model"]["macro_f1"] >= 0.9  # the three kinds of text are told apart
    figures = triage_nlbse.figures(scores)
    assert figures[-1].name.startswith("NLBSE'24 mean macro-F1 over 2 projects") and figures[-1].met is not None


def test_the_nlbse_mode_needs_its_data(tmp_path: Path) -> None:
    from bench import triage_nlbse

    with pytest.raises(SystemExit) as exited:
        runner.main(["nlbse"])
    assert exited.value.code == 2
    (tmp_path / "empty").mkdir()
    with pytest.raises(triage_nlbse.NlbseError, match=r"no issues_train\.csv"):
        triage_nlbse.read_benchmark(tmp_path / "empty")


def test_bytecode_is_compiled_even_where_python_is_told_not_to_write_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench.core import compile_bytecode, quiet_env

    package = tmp_path / "pkg"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "inner" / "mod.py").write_text("VALUE = 1\n", encoding="utf-8")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    assert compile_bytecode(package) == (package, 2)
    tag = sys.implementation.cache_tag
    assert (package / "inner" / "__pycache__" / f"mod.{tag}.pyc").is_file()
    assert (package / "__pycache__" / f"__init__.{tag}.pyc").is_file()
    # The measured processes write their caches as a user's do.
    assert "PYTHONDONTWRITEBYTECODE" not in quiet_env(tmp_path / "home")


def test_the_inbox_figures_are_two_ratios_with_their_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import inbox

    monkeypatch.setattr(inbox, "ISSUES", 300)
    monkeypatch.setattr(inbox, "RUNS", 1)
    first, every = inbox.run()
    assert first.target == "ratio ≤ 2" and first.ratio is not None and first.ratio > 0
    assert every.target == "ratio ≤ 1.5" and every.name.startswith("atlas inbox (every row, ")


def test_the_similar_figure_times_whole_processes_on_both_datasets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fitted_home: Path
) -> None:
    from atlas.foundation.config import bundled_data_dir
    from bench import similar_cli

    monkeypatch.setattr(similar_cli, "RUNS", 1)
    # Both state folders start as the benchmark's do, with what a first run leaves (the index, the
    # groups): here the run's fit of the bundled data, which both sides read.
    for home in ("home-big", "home-bundled"):
        seed_fitted(fitted_home, tmp_path / home)
    figure = similar_cli.similar_figure(bundled_data_dir(), tmp_path / "home-big", tmp_path, 87)
    assert figure.target == "ratio ≤ 1.5" and figure.ratio is not None and figure.ratio > 0
