"""Every test gets its own state folder (`atlas_home`) and no API key: nothing reaches a real service.

A test marked `serial` bounds wall time tightly: under pytest-xdist it runs with no other test beside it
(`tests/support/serial.py`).
"""

from __future__ import annotations

import atexit
import gc
import itertools
import logging
import multiprocessing.util
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from atlas.__main__ import collect_less_often
from tests.support.dataset_factory import make_dataset
from tests.support.order import worksteal_order
from tests.support.process_state import declare_builtins, fresh_process_state
from tests.support.run import atlas_env
from tests.support.serial import WorkerShare
from tests.support.warm import warm_for_workers


def one_thread_per_library() -> None:
    """BLAS and OpenMP on one thread in the workers and in the processes they start, as Atlas's own fits
    run them (`atlas.triage.model.one_thread`): the workers already take every core, and a library's
    threads beside them only spin waiting for one (the term choice's tests took three times the CPU).
    Set on importing this file, before the plugins below load any of those libraries (each reads it
    then), and inherited by the workers. `tests/triage/test_fit_threads.py` asks for four, to see that
    Atlas's fits still take one."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")


one_thread_per_library()
pytest_plugins = ["tests.support.postgres", "tests.support.fitted"]

NOT_COVERED = "NOT COVERED on this machine:"
"""Starts the reason of a skip that leaves a promise untested; such skips are listed at the end of every run."""


def pytest_configure(config: pytest.Config) -> None:
    # A shell starts a background job with Ctrl-C ignored, and every process it starts inherits
    # that: the tests' atlas processes would ignore the Ctrl-C a test sends, as no user's does.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        warm_for_workers(config)  # the controller, before it starts the workers
    if hasattr(config, "workerinput"):
        atexit.register(end_worker_without_teardown)  # registered now, so it runs after every later handler
    # As an `atlas` process does (`atlas/__main__.py`): the modules and fixtures a worker builds
    # live to its end, and the default threshold walks them again and again for nothing.
    collect_less_often()


def end_worker_without_teardown() -> None:
    """A worker's last exit handler: the handlers registered after it (Atlas's, the temporary folders'
    finalizers) have run, and the few registered before it are run here (logging's, multiprocessing's;
    execnet's group has no gateway in a worker, and the file locks go with the process). Then the process
    ends without tearing its interpreter down, as an `atlas` process does (`atlas.cli.quick_exit`): freeing
    a worker's heap object by object after its last test took several seconds, while the controller
    waits for every worker to end before the run can end."""
    logging.shutdown()
    multiprocessing.util._exit_function()  # type: ignore[attr-defined]
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (every module, class and test item) is never garbage: set it
    aside, so that each collection of the oldest generation walks only what the tests made."""
    gc.freeze()


@pytest.fixture(scope="session", autouse=True)
def _builtin_tools() -> None:
    declare_builtins()


@pytest.fixture(autouse=True)
def _fresh_process_state() -> Iterator[None]:
    """The tool catalogue, the warned-once flags and the MCP host as a fresh process has them."""
    with fresh_process_state():
        yield


def _serial(item: pytest.Item) -> bool:
    return item.get_closest_marker("serial") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The `serial` tests come first, in their order: xdist hands the first worker a share that
    begins with them, so they run there one after another while the others wait once. Under
    `worksteal` each worker's share then begins with its part of the longest test files
    (`tests/support/order.py`), so none of them starts late and holds up the run's end."""
    given = getattr(config, "workerinput", {})
    workers = int(given.get("workercount", 0))
    if workers > 1 and given.get("dist") == "worksteal":
        items[:] = worksteal_order(items, workers, path=lambda item: item.nodeid.split("::")[0], serial=_serial)
    else:
        items[:] = sorted(items, key=lambda item: not _serial(item))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Each test holds the machine lock from its setup to its teardown (`tests/support/serial.py`)."""
    share = _worker_share(item.config)
    if share is not None:
        share.before(alone=_serial(item))
    try:
        yield
    finally:
        if share is not None:
            share.after(next_alone=nextitem is not None and _serial(nextitem))


def pytest_configure_node(node: Any) -> None:
    """pytest-xdist's hook, in the controller: a worker is told how its tests are handed out (its own
    `dist` option is "no"), for `pytest_collection_modifyitems`."""
    node.workerinput["dist"] = node.config.getoption("dist")


_SHARE = pytest.StashKey[WorkerShare]()


def _worker_share(config: pytest.Config) -> WorkerShare | None:
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return None
    if _SHARE not in config.stash:
        # Each worker's base folder sits in the run's own folder, which all the workers share.
        factory: pytest.TempPathFactory = config._tmp_path_factory  # type: ignore[attr-defined]
        config.stash[_SHARE] = WorkerShare(factory.getbasetemp().parent)
    return config.stash[_SHARE]


_HOMES = itertools.count()


@pytest.fixture(autouse=True)
def atlas_home(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """The test's own state folder, in `ATLAS_HOME`; nothing steers Atlas or the SDK from outside.

    In the test's `tmp_path` when it has one. Most tests have no other use for a folder of their own,
    and making and removing one costs about 10 ms of waiting on a disk (pytest's numbered folder, its
    `-current` link, its removal): theirs is a name in the worker's `homes/` folder, made only if
    Atlas writes there, and removed then."""
    if "tmp_path" in request.fixturenames:
        home: Path = request.getfixturevalue("tmp_path") / "atlas-home"
        lazy = False
    else:
        homes = tmp_path_factory.getbasetemp() / "homes"
        homes.mkdir(exist_ok=True)
        home, lazy = homes / f"{next(_HOMES)}-atlas-home", True
    monkeypatch.setenv("ATLAS_HOME", str(home))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for name in ("ATLAS_BASE_URL", "ATLAS_API", "ATLAS_PRICES", "ATLAS_PRICE_IN", "ATLAS_PRICE_OUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("ATLAS_MODEL", raising=False)
    monkeypatch.delenv("ORBIT_DATA", raising=False)
    monkeypatch.delenv("ATLAS_TOOL_MODULES", raising=False)
    for name in [name for name in os.environ if name.startswith("OTEL_")]:
        monkeypatch.delenv(name)  # a developer's collector never receives the tests' traces
    monkeypatch.setenv("NO_COLOR", "1")
    yield home
    if lazy and home.exists():
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A small Orbit data folder of its own (`tests/support/dataset_factory.py`), for the tools that read one."""
    return make_dataset(tmp_path)


@pytest.fixture
def atlas_environ(atlas_home: Path) -> dict[str, str]:
    """The environment of an `atlas` process run by a test (`tests.support.run.atlas_env`)."""
    return atlas_env(atlas_home)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """A skip that leaves a promise untested is named in the summary, not only counted as an `s`."""
    reasons = []
    for report in terminalreporter.stats.get("skipped", []):
        _, _, reason = report.longrepr if isinstance(report.longrepr, tuple) else ("", 0, str(report.longrepr))
        if NOT_COVERED in reason:
            reasons.append(f"{report.nodeid}: {reason.removeprefix('Skipped: ')}")
    if reasons:
        terminalreporter.section("promises not tested on this machine", yellow=True, bold=True)
        for line in reasons:
            terminalreporter.write_line(line, yellow=True)
