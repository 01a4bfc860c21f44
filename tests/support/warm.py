"""Bytecode for the workers, made once: before pytest-xdist starts its workers, the controller
rewrites the test modules' asserts (as pytest does on import) and compiles Atlas, into the caches
every worker reads.

Each worker imports every test module to collect the tests. Without these caches each of them
would rewrite and compile all of it again, at the same moment, on the same few cores: in a fresh
clone, or wherever `PYTHONDONTWRITEBYTECODE` is set, that is most of a worker's start. The
rewritten code is pytest's own (`_pytest.assertion.rewrite`), and its cache entries are checked
against the source's hash on reading, so a worker that finds one runs exactly what it would have
made. This is only a warm-up: should pytest's internals move, it does nothing and each worker does
the work itself, as before.
"""

from __future__ import annotations

import compileall
import importlib.util
import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from fnmatch import fnmatch
from pathlib import Path

import pytest

_TESTS = Path(__file__).resolve().parents[1]
_ATLAS = _TESTS.parent / "atlas"


def warm_for_workers(config: pytest.Config) -> None:
    """Fill the caches the workers read, on the cores they are about to use."""
    marked = getattr(config.pluginmanager.rewrite_hook, "_must_rewrite", None)
    if not isinstance(marked, set) or not _rewriter_found() or config.getini("enable_assertion_pass_hook"):
        return
    patterns = [str(pattern) for pattern in config.getini("python_files")] + ["conftest.py"]
    files = [path for path in sorted(_TESTS.rglob("*.py")) if any(fnmatch(path.name, p) for p in patterns)]
    files += _plugin_files(marked)  # pytest rewrites the packages that ship a plugin, too
    try:
        with ProcessPoolExecutor(max(1, min(4, len(os.sched_getaffinity(0))))) as pool:
            compiled = pool.submit(compileall.compile_dir, str(_ATLAS), quiet=1)
            list(pool.map(_rewrite_into_cache, files, chunksize=8))
            compiled.result()
    except Exception:  # a warm-up only: the workers then do the work themselves
        return


def _rewriter_found() -> bool:
    try:
        from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc_fp, get_cache_dir  # noqa: F401
    except ImportError:
        return False
    return True


def _plugin_files(marked: Iterable[str]) -> list[Path]:
    """The files of the packages pytest rewrites because they ship a plugin (hypothesis, anyio)."""
    found: list[Path] = []
    for name in sorted(name for name in marked if "." not in name):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        origin = Path(spec.origin)
        found += sorted(origin.parent.rglob("*.py")) if spec.submodule_search_locations else [origin]
    return found


def _rewrite_into_cache(path: Path) -> None:
    """What pytest's import hook writes for `path` (unless a valid entry is there), written as it
    writes it: whole, under a name of this process's, then renamed into place."""
    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc_fp, get_cache_dir

    cache = get_cache_dir(path)
    pyc = cache / (path.name[:-3] + PYC_TAIL)
    try:
        if _read_pyc(path, pyc) is not None:
            return
        source_hash, code = _rewrite_test(path, None)  # type: ignore[arg-type]  # None: pytest's defaults
        cache.mkdir(exist_ok=True)
        partial = pyc.with_name(f"{pyc.name}.{os.getpid()}")
        with open(partial, "wb") as out:
            _write_pyc_fp(out, source_hash, code)
        os.replace(partial, pyc)
    except (OSError, SyntaxError, ValueError):
        return  # the worker that imports it rewrites it itself
