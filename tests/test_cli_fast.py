"""A plain `atlas ask WORDS...` runs without Typer, and nothing a user sees tells the two ways apart."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from atlas.cli.fast import plain_question
from tests.support.run import REPO, atlas_env, invoke

SEED = "Compare issues #41 and #87 and check what the error-codes doc says about ORB-1101."
MODULES_AT_EXIT = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: sys.stderr.write('MODULES ' + ' '.join(sorted(sys.modules)) + '\\n'))\n"
    "sys.argv[0] = 'atlas'\n"
    "runpy.run_module('atlas', run_name='__main__', alter_sys=True)\n"
)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["ask", "what", "is", "#41?"], ["what", "is", "#41?"]),
        (["ask", SEED], [SEED]),
        (["ask", "-"], ["-"]),
        (["ask", ""], [""]),
        (["ask"], None),  # Typer says what is missing
        (["ask", "-m", "offline", "hi"], None),
        (["ask", "hi", "--json"], None),
        (["ask", "--", "-1 is odd"], None),
        (["ask", "-h"], None),
        (["chat"], None),
        (["tools", "ask"], None),
        ([], None),
    ],
)
def test_only_a_command_line_of_plain_words_skips_typer(args: list[str], words: list[str] | None) -> None:
    assert plain_question(args, {}) == words


def test_shell_completion_always_goes_through_typer() -> None:
    assert plain_question(["ask", "hi"], {"_ATLAS_COMPLETE": "bash_complete"}) is None


def _timings_masked(text: str) -> list[str]:
    """The progress lines with times as N, in order (calls in a batch finish in any order); the speed-up is left out,
    as whether the calls overlapped enough to show one is a matter of timing."""
    text = re.sub(r", \d+(?:\.\d+)?× parallel", "", text)
    return sorted(re.sub(r"\d+(?:\.\d+)?(?= m?s\b)", "N", text).splitlines())


def _run(program: list[str], env: dict[str, str], stdin: bytes | None) -> tuple[int, str, list[str]]:
    done = subprocess.run(
        program,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=60,
        start_new_session=True,
    )
    return done.returncode, done.stdout.decode(errors="replace"), _timings_masked(done.stderr.decode(errors="replace"))


@pytest.mark.parametrize(
    ("words", "stdin"),
    [
        ([SEED], None),
        (["what", "is", "issue", "41", "about?"], None),
        (["-"], b"show issue #87\n"),
        (["-"], b"  \n"),
        (["   ", ""], None),
        (["label", "#41", "severity:S1"], None),  # a side effect, and no terminal to approve it on
    ],
)
def test_the_plain_way_answers_as_typer_does(tmp_path: Path, words: list[str], stdin: bytes | None) -> None:
    # The plain way is the process a user starts; Typer's way, the reference, runs in this process.
    plain = _run([sys.executable, "-m", "atlas", "ask", *words], atlas_env(tmp_path / "plain"), stdin)
    through = invoke("ask", *words, env=atlas_env(tmp_path / "typer"), stdin=stdin)
    typer = (through.code, through.stdout, _timings_masked(through.stderr))
    assert plain == typer
    assert not any("Traceback" in line for line in plain[2])


def test_a_plain_question_imports_neither_typer_nor_click(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", MODULES_AT_EXIT, "ask", "what is issue 41 about?"],
        capture_output=True,
        text=True,
        env=atlas_env(tmp_path / "home"),
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    modules = set(done.stderr.rsplit("MODULES ", 1)[1].split())
    assert "atlas.commands.ask" in modules
    assert not {name for name in modules if name.split(".")[0] in {"typer", "click"}}
