"""The end of an `atlas` process: output flushed, exit handlers run, the exit code as `sys.exit`
gives it, and none of Python's teardown of every module and object after that."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.support.run import REPO, with_closed

PROGRAM = textwrap.dedent(
    """
    import atexit, sys
    from atlas.cli.quick_exit import quick_exit

    class Torn:
        def __del__(self):
            sys.stderr.write("torn down\\n")

    kept = Torn()  # a module global: only the interpreter's teardown would collect it
    atexit.register(lambda: print("handler ran"))
    print("buffered output", end=" ")
    sys.stderr.write("buffered error ")
    quick_exit(eval(sys.argv[1]))
    """
)


@pytest.mark.parametrize(
    ("code", "status", "stderr_end"), [("None", 0, ""), ("3", 3, ""), ("'no such file'", 1, "no such file\n")]
)
def test_output_and_exit_handlers_come_through_with_the_exit_code_and_no_teardown(
    code: str, status: int, stderr_end: str
) -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM, code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == status
    assert done.stdout == "buffered output handler ran\n"
    assert done.stderr.startswith("buffered error ") and done.stderr.endswith(stderr_end)
    assert "torn down" not in done.stderr


def test_python_m_atlas_ends_that_way() -> None:
    probe = "import runpy, sys\nclass Torn:\n    def __del__(self):\n        sys.stderr.write('torn down')\n"
    probe += "kept = Torn()\nsys.argv = ['atlas', '--version']\nrunpy.run_module('atlas', run_name='__main__')\n"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("atlas ")
    assert "torn down" not in done.stderr


@pytest.mark.parametrize("closed", [1, 2], ids=["stdout", "stderr"])
def test_a_descriptor_closed_before_the_start_costs_nothing_at_the_end(closed: int) -> None:
    # Python starts with no stream (None) for a descriptor that was not open: the flush skips it.
    program = "import os, sys\nfrom atlas.cli.quick_exit import quick_exit\n"
    program += f"os.write(3 - {closed}, b'still here')\nquick_exit(3)\n"
    done = subprocess.run(
        with_closed([sys.executable, "-c", program], [closed]), capture_output=True, text=True, cwd=REPO, timeout=60
    )
    the_open_one = done.stderr if closed == 1 else done.stdout
    assert (done.returncode, the_open_one) == (3, "still here")
