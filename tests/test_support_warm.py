"""The controller's warm-up writes the very entry pytest's import hook would write for a test module."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test, get_cache_dir

from tests.support.warm import _rewrite_into_cache


def test_a_warmed_entry_is_pytests_rewritten_code_and_a_changed_source_is_rewritten_again(tmp_path: Path) -> None:
    module = tmp_path / "test_sample.py"
    module.write_text("def check(x):\n    assert x == 2, 'x is not two'\n", encoding="utf-8")
    _rewrite_into_cache(module)
    pyc = get_cache_dir(module) / f"test_sample{PYC_TAIL}"
    code = _read_pyc(module, pyc)
    assert code is not None  # a valid entry, checked against the source's hash
    assert code.co_consts == _rewrite_test(module, None)[1].co_consts  # type: ignore[arg-type]
    namespace: dict[str, object] = {}
    exec(code, namespace)
    with pytest.raises(AssertionError, match=r"x is not two\nassert 3 == 2"):  # the rewritten message
        namespace["check"](3)  # type: ignore[operator]
    module.write_text("def check(x):\n    assert x == 3\n", encoding="utf-8")
    assert _read_pyc(module, pyc) is None  # stale: pytest would not use it
    _rewrite_into_cache(module)
    assert _read_pyc(module, pyc) is not None
    assert not [p for p in pyc.parent.iterdir() if p.name != pyc.name]  # no partial file left behind
